// Normalises values coming out of wasm-bindgen/serde-wasm-bindgen into the
// shapes of types.ts. The engine serialises maps as plain objects and 64-bit
// numbers as JS numbers; these helpers only repair what would break if that
// changed (Maps, BigInts), and touch only the map-typed fields of the hot
// per-step values so that stepping stays cheap.
import { checkBulk } from './bulk';
import type { CounterSeries, Divergence, Frame, ScenarioSummary, SimEvent } from './types';

/** Recursively converts Maps to plain objects and BigInts to numbers; other values pass through (deep copy). */
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

/** A map-typed field as a plain record (Map → object, BigInt values → numbers); plain objects pass as they are. */
export function plainRecord<T>(value: unknown): Record<string, T> {
  if (value instanceof Map) return toPlain(value) as Record<string, T>;
  if (value && typeof value === 'object') {
    const rec = value as Record<string, unknown>;
    for (const v of Object.values(rec)) if (typeof v === 'bigint') return toPlain(rec) as Record<string, T>;
    return rec as Record<string, T>;
  }
  return {};
}

/** Normalises one event in place. */
export function normalizeEvent(raw: unknown): SimEvent {
  const e = raw as SimEvent;
  e.counterDeltas = plainRecord<number>(e.counterDeltas);
  return e;
}

/** Normalises a frame in place (only its map-typed fields) and checks its bulk arrays (throws an Error naming what is wrong). */
export function normalizeFrame(raw: unknown): Frame {
  const f = raw as Frame;
  checkBulk(f.bulk);
  f.counters = plainRecord<number>(f.counters);
  f.mmCpumask = plainRecord<number[]>(f.mmCpumask);
  if (f.event) normalizeEvent(f.event);
  return f;
}

/** Normalises a summary (small: deep). */
export function normalizeSummary(raw: unknown): ScenarioSummary {
  return toPlain(raw) as ScenarioSummary;
}

/** Normalises a counter series: plain arrays of numbers, every counter as long as `steps` (a shorter one would misalign the plots). */
export function normalizeSeries(raw: unknown): CounterSeries {
  const plain = toPlain(raw) as Partial<CounterSeries> | null;
  const numbers = (v: unknown): number[] => (Array.isArray(v) ? v.map(Number) : []);
  const steps = numbers(plain?.steps);
  const timeNs = numbers(plain?.timeNs);
  if (timeNs.length !== steps.length) throw new Error(`the engine's series has ${steps.length} steps but ${timeNs.length} times`);
  const counters: Record<string, number[]> = {};
  for (const [name, values] of Object.entries(plain?.counters ?? {})) {
    const v = numbers(values);
    if (v.length !== steps.length) throw new Error(`the engine's series of ${name} has ${v.length} samples, not ${steps.length}`);
    counters[name] = v;
  }
  return { steps, timeNs, counters };
}

/** Reads the engine's `Divergence`, checking its fields (throws an Error naming what is wrong). */
export function normalizeDivergence(raw: unknown): Divergence {
  const d = toPlain(raw) as Partial<Divergence> | null;
  const step = d?.step;
  const compared = d?.compared;
  if (!(step === null || (typeof step === 'number' && Number.isSafeInteger(step) && step >= 0))) throw new Error(`the engine's divergence step ${String(step)} is not a step`);
  if (!(typeof compared === 'number' && Number.isSafeInteger(compared) && compared >= 0)) throw new Error(`the engine's divergence compared ${String(compared)} steps`);
  return { step, compared, reason: typeof d?.reason === 'string' ? d.reason : null };
}
