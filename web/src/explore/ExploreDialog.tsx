// "Explore…": what `mmviz explore` prints, in the lab, for a scenario made for it (`[explore]`):
// every interleaving of its CPUs at the steps others can observe, per value of the toggle
// under review, within a state budget. Per value a small table (exhaustive or not and why,
// schedules, states, outcomes, bad outcomes); under it each outcome with its findings, the
// counters that tell the outcomes apart and its shortest schedule, which "Open" opens as a
// normal run (a link with `sched=`) and "A/B" opens under two toggle values side by side.
import { useEffect, useId, useState } from 'react';
import { useStore } from 'zustand';
import { formatCount, formatElapsedMs } from '../base/format';
import { fnv1a32Hex } from '../base/hash';
import type { PatchInfo, ToggleValue } from '../engine/types';
import type { ScenarioRef } from '../share/url';
import { followLink } from '../share/useUrlSync';
import { useAppStore, useAppStoreApi } from '../store/context';
import { Dialog } from '../widgets/Dialog';
import { toggleValueLabel } from '../store/simSlice';
import styles from './ExploreDialog.module.css';
import {
  abLink,
  boundText,
  budgetChoices,
  cliCommand,
  coverage,
  findingLine,
  openLink,
  otherValues,
  reportTotals,
  scheduleSize,
  variedValue,
  type ExploreBase,
  type ExploreReport,
  type OutcomeReport,
  type ValueReport,
} from './exploreModel';
import { exploreStore, type ExploreState, type ExploreStore } from './exploreStore';

/** The scenario as the view names it: a built-in's id, or "the custom scenario". */
function scenarioLabel(scenario: { kind: string; id?: string } | null): string {
  return scenario?.kind === 'builtin' && scenario.id ? scenario.id : 'the custom scenario';
}

/** Reads the explore store. */
function useExplore<T>(store: ExploreStore, selector: (s: ExploreState) => T): T {
  return useStore(store, selector);
}

/** True for a plain left click (a modifier lets the browser open the link elsewhere). */
function plainClick(e: React.MouseEvent): boolean {
  return e.button === 0 && !e.metaKey && !e.ctrlKey && !e.shiftKey && !e.altKey;
}

/** Seconds since the search started, ticking while it runs. */
function Elapsed({ startedAtMs }: { startedAtMs: number }) {
  const [now, setNow] = useState(() => performance.now());
  useEffect(() => {
    const t = setInterval(() => setNow(performance.now()), 250);
    return () => clearInterval(t);
  }, []);
  return <>{formatElapsedMs(now - startedAtMs)}</>;
}

/** One outcome: bad or ok, its findings, the counters that tell it apart, its schedule, Open and A/B. */
function Outcome({ base, value, outcome, patches, onOpen }: { base: ExploreBase; value: ValueReport; outcome: OutcomeReport; patches: readonly PatchInfo[]; onOpen: (href: string) => void }) {
  const others = otherValues(patches, base, value);
  const [other, setOther] = useState<ToggleValue | null>(others[0] ?? null);
  const patch = patches.find((p) => p.id === base.toggle);
  const selectId = useId();
  const counters = Object.entries(outcome.counters);
  const ab = other !== null ? abLink(base, value, outcome, other) : null;
  const open = openLink(base, value, outcome);
  return (
    <li className={outcome.bad ? styles.bad : styles.ok} data-outcome={outcome.bad ? 'bad' : 'ok'}>
      <div className={styles.outcomeHead}>
        <span className={outcome.bad ? styles.badgeBad : styles.badgeOk}>{outcome.bad ? 'BAD' : 'ok'}</span>
        <span>
          {formatCount(outcome.schedules)} {outcome.schedules === 1 ? 'schedule reaches' : 'schedules reach'} it; the shortest: {formatCount(outcome.steps)} steps, {scheduleSize(outcome.schedule)}
        </span>
        <span className={styles.actions}>
          <a className={styles.button} href={open} onClick={(e) => plainClick(e) && onOpen(open)} title="Open this interleaving as a normal run (its schedule in the link), at its finding">
            Open
          </a>
          {others.length > 0 && ab && (
            <>
              <label className="visually-hidden" htmlFor={selectId}>
                A/B against {base.toggle}
              </label>
              <select
                id={selectId}
                className={styles.select}
                value={String(other)}
                onChange={(e) => setOther(others.find((v) => String(v) === e.target.value) ?? null)}
                title={`The same schedule under ${base.toggle ?? ''} = this value (A) and the one chosen here (B)`}
              >
                {others.map((v) => (
                  <option key={String(v)} value={String(v)} title={toggleValueLabel(patch, v)}>
                    vs {String(v)}
                  </option>
                ))}
              </select>
              <a className={styles.button} href={ab} onClick={(e) => plainClick(e) && onOpen(ab)} title="The same schedule under two values of the toggle, side by side">
                A/B
              </a>
            </>
          )}
        </span>
      </div>
      {outcome.findings.length > 0 ? (
        <ul className={styles.findings} aria-label="Findings">
          {outcome.findings.map((f, i) => (
            <li key={i}>
              <strong>{findingLine(f)}</strong>: {f.detail}
            </li>
          ))}
        </ul>
      ) : (
        <p className={styles.quiet}>No findings.</p>
      )}
      {counters.length > 0 && (
        <p className={styles.counters}>
          <span className={styles.quiet}>Counters that differ between outcomes: </span>
          {counters.map(([name, v]) => (
            <code key={name}>
              {name} {formatCount(v)}
            </code>
          ))}
        </p>
      )}
      <p className={styles.schedule}>
        <span className={styles.quiet}>Schedule: </span>
        <code>{outcome.schedule === '' ? '(the default order)' : outcome.schedule}</code>
      </p>
    </li>
  );
}

/** One toggle value's search: its table, then its outcomes (bad ones first, as the engine orders them). */
function ValueSection({
  base,
  value,
  delays,
  patches,
  onOpen,
}: {
  base: ExploreBase;
  value: ValueReport;
  delays: number | null;
  patches: readonly PatchInfo[];
  onOpen: (href: string) => void;
}) {
  const bad = value.outcomes.filter((o) => o.bad).length;
  const v = variedValue(base, value);
  const patch = patches.find((p) => p.id === base.toggle);
  const title = base.toggle !== null && v !== null ? `${base.toggle} = ${String(v)}` : value.value;
  const label = v !== null ? toggleValueLabel(patch, v) : '';
  return (
    <section className={styles.value} aria-label={title} data-value={v === null ? '' : String(v)}>
      <h3 className={styles.valueTitle}>
        {title}
        {label && label !== String(v) && <span className={styles.valueLabel}>{label}</span>}{' '}
        <span className={bad > 0 ? styles.badgeBad : styles.badgeOk}>{bad > 0 ? `${bad} bad` : 'none bad'}</span>
        {!value.exhaustive && <span className={styles.badgeCut}>not exhaustive</span>}
      </h3>
      <table className={styles.table}>
        <thead>
          <tr>
            <th scope="col">Exhaustive</th>
            <th scope="col">Schedules</th>
            <th scope="col">States</th>
            <th scope="col">Outcomes</th>
            <th scope="col">Bad</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <td>{coverage(value, delays)}</td>
            <td>{formatCount(value.schedules)}</td>
            <td>{formatCount(value.states)}</td>
            <td>{formatCount(value.outcomes.length)}</td>
            <td>{formatCount(bad)}</td>
          </tr>
        </tbody>
      </table>
      <ol className={styles.outcomes} aria-label={`Outcomes under ${title}`}>
        {value.outcomes.map((o, i) => (
          <Outcome key={`${i}:${o.schedule}`} base={base} value={value} outcome={o} patches={patches} onOpen={onOpen} />
        ))}
      </ol>
    </section>
  );
}

/** The report: a line over all values, then one section per value; `onOpen` is told of a plain click on an outcome's link (the browser follows it). */
export function ExploreReportView({ base, report, patches, onOpen }: { base: ExploreBase; report: ExploreReport; patches: readonly PatchInfo[]; onOpen: (href: string) => void }) {
  const totals = reportTotals(report);
  // Reports of a bounded search carry the bound (an older report has no field).
  const delays = report.delays ?? null;
  return (
    <div className={styles.report}>
      <p className={styles.summary} role="status">
        {totals.bad > 0 ? `${totals.bad} bad outcome${totals.bad === 1 ? '' : 's'} found` : 'No bad outcome found'} within {formatCount(report.budget_states)} states per value.{' '}
        {totals.exhaustive
          ? delays === null
            ? 'Every search was exhaustive: these are all the outcomes.'
            : `Every search was exhaustive${boundText(delays)}: these are all the outcomes such schedules reach (schedules that deviate more may reach others).`
          : 'Not every search was exhaustive: outcomes not listed may exist (a bigger budget, or the native mmviz explore, goes further).'}
      </p>
      {report.values.map((v) => (
        <ValueSection key={v.value} base={base} value={v} delays={delays} patches={patches} onOpen={onOpen} />
      ))}
    </div>
  );
}

/** The dialog's contents. */
function ExploreBody({ store, onClose }: { store: ExploreStore; onClose: () => void }) {
  const app = useAppStoreApi();
  const engine = useAppStore((s) => s.engine);
  const patches = useAppStore((s) => s.patches);
  const scenario = useAppStore((s) => s.scenario);
  const scenarioText = useAppStore((s) => s.scenarioText);
  const toggles = useAppStore((s) => s.toggleOverrides);
  const params = useAppStore((s) => s.paramOverrides);
  const def = useAppStore((s) => s.runs.a.summary?.explore ?? null);
  const status = useExplore(store, (s) => s.status);
  const chosen = useExplore(store, (s) => s.budget);
  const report = useExplore(store, (s) => s.report);
  const reportBase = useExplore(store, (s) => s.base);
  const budgetId = useId();
  const choices = budgetChoices(def?.budget ?? null);
  const budget = chosen ?? choices[0]?.value ?? 2_000;
  const label = scenarioLabel(scenario);
  const toggle = def?.toggle ?? null;
  const base = (): ExploreBase | null => {
    if (!scenario) return null;
    const ref: ScenarioRef = scenario.kind === 'builtin' ? { kind: 'builtin', id: scenario.id, hash: fnv1a32Hex(scenarioText) } : { kind: 'custom', text: scenario.text };
    return { scenario: ref, scenarioText, label, toggles, params, toggle };
  };
  const run = (): void => {
    const b = base();
    if (engine && b) void store.getState().start(engine, b, budget);
  };
  const running = status.kind === 'running';
  const current = base();
  const shown = report && reportBase && reportBase.scenarioText === scenarioText ? { report, base: reportBase } : null;
  return (
    <>
      <p className={styles.help}>
        Every interleaving of the scenario's CPUs at the steps other CPUs can observe (page-table and TLB steps, locks, IPIs), as <code>mmviz explore</code> searches them
        {def?.delays !== null && def?.delays !== undefined
          ? `: every schedule with at most ${def.delays} pick${def.delays === 1 ? '' : 's'} where a CPU other than the default one acts (the scenario's delay bound), states seen before not searched again.`
          : ': independent steps are not tried both ways (sleep sets) and states seen before are not searched again.'}{' '}
        A search stops at its state budget and then says it is not exhaustive: outcomes it did not reach may exist. The lab runs it in WebAssembly, slower than the native CLI.
      </p>
      <form
        className={styles.form}
        onSubmit={(e) => {
          e.preventDefault();
          if (!running) run();
        }}
      >
        <label htmlFor={budgetId} className={styles.label}>
          Budget per value
        </label>
        <select id={budgetId} className={styles.select} value={String(budget)} disabled={running} onChange={(e) => store.getState().setBudget(Number(e.target.value))}>
          {choices.map((c) => (
            <option key={c.value} value={String(c.value)}>
              {c.label}
            </option>
          ))}
        </select>
        <button type="submit" className={styles.primary} disabled={running || !engine || !scenario}>
          Explore
        </button>
        {running && (
          <button type="button" className={styles.button} onClick={() => store.getState().cancel()}>
            Cancel
          </button>
        )}
        {current && <code className={styles.cli}>{cliCommand(current, budget)}</code>}
      </form>
      {running && (
        <p className={styles.progress} role="status">
          Exploring {label} within {formatCount(status.budget)} states per value… <Elapsed startedAtMs={status.startedAtMs} /> (in a worker of its own; Cancel stops it at once)
        </p>
      )}
      {status.kind === 'done' && (
        <p className={styles.statusLine}>
          Searched in {formatElapsedMs(status.elapsedMs)} ({formatCount(status.budget)} states per value, WebAssembly).
        </p>
      )}
      {status.kind === 'cancelled' && (
        <p className={styles.statusLine} role="status">
          Cancelled after {formatElapsedMs(status.elapsedMs)}{shown ? '; the report below is of the search before.' : '.'}
        </p>
      )}
      {status.kind === 'failed' && (
        <p className={styles.error} role="alert">
          The search failed: {status.message}
        </p>
      )}
      {shown && (
        <ExploreReportView
          base={shown.base}
          report={shown.report}
          patches={patches}
          onOpen={(href) => {
            onClose();
            // The outcome's link may be the address bar's already: then no hashchange shows it.
            followLink(app, href);
          }}
        />
      )}
    </>
  );
}

/** The header button (only for a scenario with `[explore]`) and the dialog. */
export function ExploreButton({ store = exploreStore }: { store?: ExploreStore }) {
  const [open, setOpen] = useState(false);
  const explorable = useAppStore((s) => (s.runs.a.summary?.explore ?? null) !== null);
  const scenario = useAppStore((s) => s.scenario);
  const toggle = useAppStore((s) => s.runs.a.summary?.explore?.toggle ?? null);
  const running = useExplore(store, (s) => s.status.kind === 'running');
  if (!explorable && !running) return null;
  return (
    <>
      <button
        type="button"
        className={styles.headerButton}
        onClick={() => setOpen(true)}
        aria-haspopup="dialog"
        title="Every interleaving of this race scenario's CPUs, per value of its toggle, with the bad outcomes and the schedules that reach them (mmviz explore)"
      >
        Explore…{running ? ' (running)' : ''}
      </button>
      <Dialog open={open} onClose={() => setOpen(false)} title={`Explore: ${scenarioLabel(scenario)}${toggle ? ` under each value of ${toggle}` : ''}`} className={styles.dialog}>
        <ExploreBody store={store} onClose={() => setOpen(false)} />
      </Dialog>
    </>
  );
}
