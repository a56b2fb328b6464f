// Real frames for the render benchmark: the engine's wasm package runs scripts/bench-frame-64cpu.toml
// (64 CPUs on 2 nodes, one 4,096-page VMA, a thread on every CPU) in the app's engine worker, and
// each step's frame arrives as the app gets it (header + bulk typed arrays, transferred), all
// before any timing.
import benchScenario from '../../scripts/bench-frame-64cpu.toml?raw';
import { loadAppEngine } from '../src/engine/loadEngine';
import type { SyntheticShape, SyntheticStep } from './synthetic';

export interface EngineRun {
  steps: SyntheticStep[];
  shape: SyntheticShape;
  /** Step of the first frame and the run's last step. */
  firstStep: number;
  totalSteps: number;
}

/**
 * `n` frames of the bench scenario: consecutive steps from the middle of the run (mode step), or
 * steps spread over the whole run (mode full: far seeks, most cells differ).
 */
export async function engineRun(n: number, mode: 'step' | 'full' | 'idle'): Promise<EngineRun> {
  const engine = await loadAppEngine();
  const sim = await engine.create(benchScenario, {}, {});
  try {
    const summary = sim.summary();
    const total = summary.totalSteps;
    const first = Math.floor(total / 2);
    const steps: SyntheticStep[] = [];
    let cpus = 0;
    for (let i = 0; i < n; i++) {
      // Far seeks: a low-discrepancy walk over the run.
      const f = await sim.frameAt(mode === 'full' ? Math.floor(((i * 0.6180339887) % 1) * total) : Math.min(total, first + i));
      cpus = f.cpus.length;
      const ev = f.event;
      steps.push({
        bulk: f.bulk,
        eventCpu: ev?.cpu ?? -1,
        touchedPtes: (ev?.touched.ptes ?? []).map(([pid, vpn]) => [pid, vpn] as [number, number]),
        touchedPfns: [...(ev?.touched.pfns ?? [])],
        touchedCpus: [...(ev?.touched.cpus ?? [])],
      });
    }
    const last = steps[steps.length - 1]?.bulk;
    const nodes = summary.topology.nodes.length;
    const processes = Math.max(1, summary.processes.length);
    const shape: SyntheticShape = {
      cpus,
      tlbSlots: summary.topology.tlbEntries,
      processes,
      ptesPerProcess: Math.round((last?.ptePid.length ?? 0) / processes),
      nodes,
      framesPerNode: Math.round((last?.framePfn.length ?? 0) / Math.max(1, nodes)),
    };
    return { steps, shape, firstStep: first, totalSteps: total };
  } finally {
    sim.free();
  }
}
