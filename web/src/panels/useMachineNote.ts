// Says when the run's machine is not the one its scenario's text was written for: a built-in
// scenario whose machine "Machine…" replaced (a custom scenario with a built-in's id). The
// narration's CPU and node numbers come from the run (the engine resolves them), but what the
// text claims about them (which memory is far, which CPU must be interrupted) may not hold.
import { useEffect, useState } from 'react';
import type { TopologyView } from '../engine/generated/TopologyView';
import { useAppStore } from '../store/context';

/** "2 nodes, 4 CPUs" for a machine. */
export function machineLabel(t: TopologyView): string {
  const cpus = t.nodes.reduce((n, node) => n + node.cpus.length, 0);
  return `${t.nodes.length} node${t.nodes.length === 1 ? '' : 's'}, ${cpus} CPU${cpus === 1 ? '' : 's'}`;
}

/** Whether two machines differ in their nodes' CPUs or their distances. */
export function machinesDiffer(a: TopologyView, b: TopologyView): boolean {
  return JSON.stringify([a.nodes.map((n) => n.cpus), a.distance]) !== JSON.stringify([b.nodes.map((n) => n.cpus), b.distance]);
}

/** The note for a run on `run` of a scenario written for `written`, or null when they are the same machine. */
export function machineNote(id: string, run: TopologyView, written: TopologyView): string | null {
  if (!machinesDiffer(run, written)) return null;
  return `This run's machine (${machineLabel(run)}) is not the one ${id} was written for (${machineLabel(written)}): the CPU and node numbers in its text come from this run, but what the text says about them (which memory is far away, which CPU gets an IPI) may not hold here.`;
}

/** The note for the scenario on screen, or null (also while the built-in's machine is being read). */
export function useMachineNote(): string | null {
  const engine = useAppStore((s) => s.engine);
  const custom = useAppStore((s) => s.scenario?.kind === 'custom');
  const summary = useAppStore((s) => s.runs.a.summary);
  const builtin = useAppStore((s) => (summary ? s.scenarios.find((b) => b.id === summary.id) : undefined));
  const params = useAppStore((s) => s.paramOverrides);
  const [note, setNote] = useState<{ key: string; text: string | null } | null>(null);
  const key = custom && summary && builtin ? `${builtin.id}:${JSON.stringify(params)}:${JSON.stringify(summary.topology)}` : null;
  useEffect(() => {
    if (!key || !engine || !builtin || !summary) return;
    let live = true;
    // The built-in's own machine with the same params (some params size the machine).
    engine.describe(builtin.text, params).then(
      (written) => {
        if (live) setNote({ key, text: machineNote(builtin.id, summary.topology, written.topology) });
      },
      () => {
        if (live) setNote({ key, text: null });
      },
    );
    return () => {
      live = false;
    };
  }, [key, engine, builtin, summary, params]);
  return key && note?.key === key ? note.text : null;
}
