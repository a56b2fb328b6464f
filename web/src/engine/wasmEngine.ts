// The real engine: the Rust simulator compiled to wasm, behind SimEngine.
import type { BuiltinScenario, SimEngine, SimHandle } from './engine';
import { normalizeEvent, normalizeFrame, normalizeSummary, plainRecord, toPlain } from './normalize';
import { loadRawWasm, type RawSimulation, type RawWasmModule } from './raw';
import type { Frame, PatchInfo, ScenarioSummary, SimEvent, ToggleValue } from './types';

/** Wraps a raw wasm Simulation, converting its results to plain data. */
class WasmSim implements SimHandle {
  private readonly raw: RawSimulation;
  private freed = false;
  constructor(raw: RawSimulation) {
    this.raw = raw;
  }
  summary(): ScenarioSummary {
    return normalizeSummary(this.raw.summary());
  }
  step(n: number): number {
    return this.raw.step(n);
  }
  seek(step: number): void {
    this.raw.seek(step);
  }
  currentStep(): number {
    return this.raw.currentStep();
  }
  frame(): Frame {
    return normalizeFrame(this.raw.frame());
  }
  events(from: number, to: number): SimEvent[] {
    const list = this.raw.events(from, to);
    return Array.isArray(list) ? list.map(normalizeEvent) : [];
  }
  counters(): Record<string, number> {
    return plainRecord<number>(this.raw.counters());
  }
  free(): void {
    if (this.freed) return;
    this.freed = true;
    this.raw.free();
  }
}

/** SimEngine over the initialised wasm module. */
class WasmEngine implements SimEngine {
  readonly kind = 'wasm' as const;
  private readonly mod: RawWasmModule;
  private patchCache: PatchInfo[] | null = null;
  private scenarioCache: BuiltinScenario[] | null = null;
  constructor(mod: RawWasmModule) {
    this.mod = mod;
  }
  patches(): PatchInfo[] {
    this.patchCache ??= toPlain(this.mod.patches()) as PatchInfo[];
    return this.patchCache;
  }
  builtinScenarios(): BuiltinScenario[] {
    this.scenarioCache ??= toPlain(this.mod.builtinScenarios()) as BuiltinScenario[];
    return this.scenarioCache;
  }
  create(scenarioText: string, toggles: Record<string, ToggleValue>, params: Record<string, number>): SimHandle {
    return new WasmSim(new this.mod.Simulation(scenarioText, { ...toggles }, { ...params }));
  }
}

/** Loads the wasm package and returns the real engine. */
export async function loadWasmEngine(): Promise<SimEngine> {
  return new WasmEngine(await loadRawWasm());
}
