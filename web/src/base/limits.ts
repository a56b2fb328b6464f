// The engine's limits (wasm-core/engine/src/limits.rs, generated into limits.generated.ts) as the
// lab checks them before a text reaches the engine: the size of a pasted text, a link, a custom
// scenario, with the engine's own wording ("… is N bytes; at most M (1 MiB) are read").
export { MAX_CPUS, MAX_LINK_CHARS, MAX_NODES, MAX_PAGES, MAX_PASTE_BYTES, MAX_SCENARIO_BYTES, MAX_STEPS } from './limits.generated';

/** The UTF-8 length of `text` in bytes, counted without encoding it. */
export function utf8Bytes(text: string): number {
  // ASCII (nearly every paste) is one byte a character: a native scan instead of a loop.
  if (!/[^ -~\t\n\r]/.test(text)) return text.length;
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < text.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** `n` with thousands separated by commas, as the engine writes it (1,048,576). */
export function group(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function human(n: number): string {
  if (n >= 1 << 20 && n % (1 << 20) === 0) return `${n / (1 << 20)} MiB`;
  if (n >= 1 << 10 && n % (1 << 10) === 0) return `${n / (1 << 10)} KiB`;
  return `${n} bytes`;
}

/** The engine's message when `text` (named `what`) is over `max` bytes, else null. */
export function sizeProblem(what: string, text: string, max: number): string | null {
  // A string of at most max/3 UTF-16 units is at most max bytes: no need to count.
  if (text.length * 3 <= max) return null;
  const bytes = utf8Bytes(text);
  return bytes > max ? `${what} is ${group(bytes)} bytes; at most ${group(max)} (${human(max)}) are read` : null;
}
