// Normalises values coming out of wasm-bindgen/serde-wasm-bindgen into plain
// JSON-like data: Maps become objects, BigInts become numbers.

/** Recursively converts Maps to plain objects and BigInts to numbers; other values pass through. */
export function toPlain(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value) out[String(k)] = toPlain(v);
    return out;
  }
  if (Array.isArray(value)) return value.map(toPlain);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = toPlain(v);
    return out;
  }
  return value;
}
