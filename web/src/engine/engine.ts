// The engine interface the UI talks to. Implementations: the wasm engine
// (wasmEngine.ts, the real one) and a small fake for unit tests (fakeEngine.ts).
import type { Frame, PatchInfo, ScenarioSummary, SimEvent, ToggleValue } from './types';

/** A scenario that ships with the engine. */
export interface BuiltinScenario {
  id: string;
  title: string;
  text: string;
}

/** One running simulation (mirrors the wasm `Simulation` class). */
export interface SimHandle {
  summary(): ScenarioSummary;
  /** Advances `n` steps (clamped at totalSteps); returns the new current step. */
  step(n: number): number;
  /** Goes to any step 0..=totalSteps; throws beyond the end. */
  seek(step: number): void;
  currentStep(): number;
  frame(): Frame;
  /** Events with step in [from, to). */
  events(from: number, to: number): SimEvent[];
  counters(): Record<string, number>;
  free(): void;
}

/** A simulation engine: the patch registry, built-in scenarios and a constructor. */
export interface SimEngine {
  /** 'wasm' is the real engine; 'fake' is the test double (never shipped). */
  readonly kind: 'wasm' | 'fake';
  patches(): PatchInfo[];
  builtinScenarios(): BuiltinScenario[];
  /** Builds a simulation; throws Error(message) on a bad scenario, unknown toggle or bad param. */
  create(scenarioText: string, toggles: Record<string, ToggleValue>, params: Record<string, number>): SimHandle;
}

/** Turns anything thrown (Error, string, wasm value) into a message a person can read. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  if (typeof err === 'string') return err;
  if (err && typeof err === 'object' && 'message' in err && typeof (err as { message: unknown }).message === 'string') {
    return (err as { message: string }).message;
  }
  try {
    return JSON.stringify(err) ?? String(err);
  } catch {
    return String(err);
  }
}
