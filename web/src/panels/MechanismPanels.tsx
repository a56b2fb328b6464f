// One panel per view of each mechanism the loaded run exercises (base/mechanisms.ts says
// which), each drawn by the component registry.tsx names for its view.
import { useMemo } from 'react';
import { exercisedMechanisms, finalCounters } from '../base/mechanisms';
import { useAppStore, useRun } from '../store/context';
import { panelFor } from './registry';

/** The panels of the mechanisms this run exercises, in the engine's order. */
export function MechanismPanels() {
  const mechanisms = useAppStore((s) => s.mechanisms);
  const series = useRun((r) => r.series);
  const toggles = useRun((r) => r.summary?.toggles);
  const patches = useAppStore((s) => s.patches);
  const shown = useMemo(
    () => (series && toggles ? exercisedMechanisms(mechanisms, { finalCounters: finalCounters(series), toggles, patches }) : []),
    [mechanisms, series, toggles, patches],
  );
  return (
    <>
      {shown.flatMap((mechanism) =>
        mechanism.views.map((view) => {
          const Panel = panelFor(view.id);
          return <Panel key={`${mechanism.id}/${view.id}`} mechanism={mechanism} view={view} />;
        }),
      )}
    </>
  );
}
