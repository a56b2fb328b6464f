// The lines about a run that head "Copy as text": which scenario, what was changed from it,
// where the run is, and the run's own warnings.
import { BUILD_ID } from '../base/build';
import { formatCount } from '../base/format';
import type { Frame, PatchInfo, ScenarioSummary, ToggleValue } from '../engine/types';
import type { AbChoice } from '../share/url';
import { choiceLabel, toggleValueLabel } from '../store/simSlice';

/** What `reportAbout` reads. */
export interface ReportAboutInput {
  summary: ScenarioSummary;
  frame: Frame;
  /** B's frame in an A/B comparison, else null. */
  frameB: Frame | null;
  choice: AbChoice | null;
  patches: readonly PatchInfo[];
  overrides: Record<string, ToggleValue>;
  paramOverrides: Record<string, number>;
}

/** The heading lines of the report (each is wrapped to 72 columns by the caller). */
export function reportAbout(input: ReportAboutInput): string[] {
  const { summary, frame, frameB, choice, patches } = input;
  const toggles = Object.entries(input.overrides)
    .filter(([id]) => id in summary.toggles)
    .map(([id, v]) => `${id}=${toggleValueLabel(patches.find((p) => p.id === id), v)}`);
  const params = Object.entries(input.paramOverrides).map(([k, v]) => `${k}=${v}`);
  const lines = [`mmviz ${summary.id}: ${summary.title}`];
  const changed = [...(toggles.length ? [`toggles ${toggles.join(', ')}`] : []), ...(params.length ? [`params ${params.join(', ')}`] : [])];
  lines.push(changed.length ? `Changed from the scenario: ${changed.join('; ')}.` : 'The scenario as written (no toggle or param changed).');
  if (choice && frameB) {
    lines.push(`A/B: ${choiceLabel(choice, patches)}.`, `A at step ${formatCount(frame.step)}, B at step ${formatCount(frameB.step)} (the same point of the workload).`);
  } else {
    lines.push(`At step ${formatCount(frame.step)} of ${formatCount(summary.totalSteps)}.`);
  }
  lines.push(`Seed ${summary.seed}; mmviz build ${BUILD_ID}.`);
  for (const w of summary.warnings) lines.push(`Warning: ${w}`);
  return lines;
}
