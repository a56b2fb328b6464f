// "Sweep…": what `mmviz sweep` prints, in the lab. Pick a toggle, one parameter's values
// and a number of seeds; the runs (counters only) go to a pool of workers with progress
// and Cancel; the report is drawn as small multiples, each dot a link to its run, with
// the plain-text table for a mailing-list reply and the same sweep as a command line.
// It reads the lab's catalogue (engine, patches, mechanisms) and its current scenario,
// toggles and params, and keeps its own state in the sweep store.
import { useEffect, useId, useMemo, useState, type ReactNode } from 'react';
import { useStore } from 'zustand';
import { formatCount, formatElapsedMs } from '../base/format';
import { fnv1a32Hex } from '../base/hash';
import type { ScenarioRef } from '../share/url';
import type { MechanismInfo, ParamInfo, PatchInfo, SweepField } from '../engine/types';
import { followLink } from '../share/useUrlSync';
import { useAppStore, useAppStoreApi } from '../store/context';
import { Dialog } from '../widgets/Dialog';
import { SweepCharts } from './SweepCharts';
import { cliCommand, fieldsOf, smallMultiples, toggleValueText, unitOf, varyChoices, type SweepBase } from './sweepModel';
import styles from './SweepDialog.module.css';
import { sweepStore, type SweepState, type SweepStore } from './sweepStore';

/** The scenario as the sweep names it: a built-in's id, or "the custom scenario". */
function scenarioLabel(scenario: { kind: string; id?: string } | null): string {
  return scenario?.kind === 'builtin' && scenario.id ? scenario.id : 'the custom scenario';
}

/** Reads the sweep store. */
function useSweep<T>(store: SweepStore, selector: (s: SweepState) => T): T {
  return useStore(store, selector);
}

/** The toggle a sweep of this run compares by default: the first whose patch changes a function the run goes through. */
function defaultToggle(patches: readonly PatchInfo[], functions: readonly string[]): string {
  const used = new Set(functions);
  return (patches.find((p) => p.functions.some((f) => used.has(f))) ?? patches[0])?.id ?? '';
}

/** Every counter and metric a column may name, by mechanism, with what it counts. */
function columnChoices(mechanisms: readonly MechanismInfo[], reported: readonly string[]): { group: string; names: { name: string; doc: string }[] }[] {
  const seen = new Set<string>();
  const groups = mechanisms
    .map((m) => {
      const names = [...m.counters.map((c) => ({ name: c.name, doc: c.doc })), ...m.metrics.map((c) => ({ name: c.name, doc: c.doc }))].filter((n) => !seen.has(n.name));
      for (const n of names) seen.add(n.name);
      return { group: m.title, names };
    })
    .filter((g) => g.names.length > 0);
  const other = reported.filter((n) => !seen.has(n)).map((name) => ({ name, doc: '' }));
  if (other.length > 0) groups.push({ group: 'Other', names: other });
  return groups;
}

/** A field's message, when the engine's problem is about it. */
function FieldError({ id, field, fields, message }: { id: string; field: SweepField; fields: readonly SweepField[]; message: string }) {
  if (!fields.includes(field)) return null;
  return (
    <p id={id} className={styles.fieldError} role="alert">
      {message}
    </p>
  );
}

/** The form: toggle, parameter and values, seeds, counters, Run. */
function Form({ store, params, onRun }: { store: SweepStore; params: readonly ParamInfo[]; onRun: () => void }) {
  const form = useSweep(store, (s) => s.form);
  const problem = useSweep(store, (s) => s.problem);
  const status = useSweep(store, (s) => s.status);
  const patches = useAppStore((s) => s.patches);
  const ids = { toggle: useId(), vary: useId(), values: useId(), seeds: useId(), err: useId(), hint: useId() };
  const fields = fieldsOf(problem);
  const message = problem?.message ?? '';
  const busy = status.kind === 'running' || status.kind === 'planning';
  const param = params.find((p) => p.name === form.vary);
  const patch = patches.find((p) => p.id === form.toggle);
  const errId = (f: SweepField): string | undefined => (fields.includes(f) ? `${ids.err}-${f}` : undefined);
  return (
    <form
      className={styles.form}
      onSubmit={(e) => {
        e.preventDefault();
        if (!busy) onRun();
      }}
    >
      <div className={styles.field}>
        <label htmlFor={ids.toggle}>Toggle</label>
        <select id={ids.toggle} value={form.toggle} aria-invalid={fields.includes('toggle')} aria-describedby={errId('toggle')} onChange={(e) => store.getState().setForm({ toggle: e.target.value })}>
          {patches.map((p) => (
            <option key={p.id} value={p.id}>
              {p.id}
            </option>
          ))}
        </select>
        <span className={styles.hint}>{patch ? `${patch.valueLabels[0] ?? toggleValueText(patch.values[0] ?? false)} against ${patch.valueLabels.slice(1).join(', ')}` : ''}</span>
        <FieldError id={`${ids.err}-toggle`} field="toggle" fields={fields} message={message} />
      </div>
      <div className={styles.field}>
        <label htmlFor={ids.vary}>Parameter</label>
        <select id={ids.vary} value={form.vary} aria-invalid={fields.includes('vary')} aria-describedby={errId('vary')} onChange={(e) => store.getState().setForm({ vary: e.target.value })}>
          <option value="">none (seeds only)</option>
          {varyChoices(params).map((c) => (
            <option key={c.name} value={c.name}>
              {c.name}
            </option>
          ))}
        </select>
        <FieldError id={`${ids.err}-vary`} field="vary" fields={fields} message={message} />
      </div>
      <div className={styles.field}>
        <label htmlFor={ids.values}>Values</label>
        <input
          id={ids.values}
          type="text"
          inputMode="numeric"
          className={styles.values}
          value={form.values}
          disabled={form.vary === ''}
          placeholder={param ? `e.g. ${param.min}, ${param.value}, ${param.max}` : 'pick a parameter'}
          aria-invalid={fields.includes('values')}
          aria-describedby={[ids.hint, errId('values')].filter(Boolean).join(' ')}
          onChange={(e) => store.getState().setForm({ values: e.target.value })}
        />
        <span id={ids.hint} className={styles.hint}>
          {param ? `whole numbers, ${formatCount(param.min)} to ${formatCount(param.max)} (now ${formatCount(param.value)})` : ''}
        </span>
        <FieldError id={`${ids.err}-values`} field="values" fields={fields} message={message} />
      </div>
      <div className={styles.field}>
        <label htmlFor={ids.seeds}>Seeds</label>
        <input
          id={ids.seeds}
          type="text"
          inputMode="numeric"
          className={styles.seeds}
          value={form.seeds}
          placeholder="own"
          aria-invalid={fields.includes('seeds')}
          aria-describedby={errId('seeds')}
          onChange={(e) => store.getState().setForm({ seeds: e.target.value })}
        />
        <span className={styles.hint}>seeds 1 to N (empty: the scenario's own)</span>
        <FieldError id={`${ids.err}-seeds`} field="seeds" fields={fields} message={message} />
      </div>
      <div className={styles.actions}>
        <button type="submit" className={styles.primary} disabled={busy}>
          Run sweep
        </button>
        {problem && (problem.field === 'runs' || problem.field === 'scenario') && (
          <p className={styles.fieldError} role="alert">
            {problem.field === 'runs' ? 'Too many runs: ' : 'The scenario: '}
            {message}
          </p>
        )}
      </div>
    </form>
  );
}

/** The counters shown: chips with a remove button each, and a picker to add others. */
function Columns({ store, mechanisms }: { store: SweepStore; mechanisms: readonly MechanismInfo[] }) {
  const formColumns = useSweep(store, (s) => s.form.columns);
  const reportColumns = useSweep(store, (s) => s.report?.columns ?? s.sweep?.plan.columns ?? null);
  const reported = useSweep(store, (s) => s.runs[0]?.values);
  const problem = useSweep(store, (s) => s.problem);
  const pickId = useId();
  const errId = useId();
  const [pick, setPick] = useState('');
  const shown = formColumns ?? reportColumns ?? [];
  const choices = useMemo(() => columnChoices(mechanisms, Object.keys(reported ?? {})), [mechanisms, reported]);
  const bad = problem?.field === 'columns';
  const set = (columns: string[] | null): void => void store.getState().setColumns(columns);
  return (
    <div className={styles.columns}>
      <span className={styles.label}>Counters</span>
      {formColumns === null && <span className={styles.hint}>{shown.length > 0 ? "the scenario's [[expect]] counters:" : "the scenario's [[expect]] counters"}</span>}
      <ul className={styles.chips} aria-label="Counters shown">
        {shown.map((c) => (
          <li key={c} className={styles.chip}>
            <code>{c}</code>
            <button type="button" className={styles.chipButton} aria-label={`Remove ${c}`} disabled={shown.length <= 1} onClick={() => set(shown.filter((x) => x !== c))}>
              ×
            </button>
          </li>
        ))}
      </ul>
      <label htmlFor={pickId} className="visually-hidden">
        Add a counter
      </label>
      <select id={pickId} value={pick} aria-invalid={bad} aria-describedby={bad ? errId : undefined} onChange={(e) => setPick(e.target.value)}>
        <option value="">add a counter…</option>
        {choices.map((g) => (
          <optgroup key={g.group} label={g.group}>
            {g.names
              .filter((n) => !shown.includes(n.name))
              .map((n) => (
                <option key={n.name} value={n.name} title={n.doc}>
                  {n.name}
                </option>
              ))}
          </optgroup>
        ))}
      </select>
      <button
        type="button"
        className={styles.button}
        disabled={pick === ''}
        onClick={() => {
          set([...shown, pick]);
          setPick('');
        }}
      >
        Add
      </button>
      {formColumns !== null && (
        <button type="button" className={styles.link} onClick={() => set(null)}>
          back to the [[expect]] counters
        </button>
      )}
      {bad && (
        <p id={errId} className={styles.fieldError} role="alert">
          {problem.message}
        </p>
      )}
    </div>
  );
}

/** Ticks while mounted: the time since `startedAtMs`. */
function useElapsedMs(startedAtMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), 100);
    return () => clearInterval(id);
  }, [startedAtMs]);
  return Math.max(0, now - startedAtMs);
}

/** The running sweep: runs done of all, time, a bar and Cancel (like a run's load). */
function Progress({ store, startedAtMs, done, total, workers, label }: { store: SweepStore; startedAtMs: number; done: number; total: number; workers: number; label: string }) {
  const elapsed = formatElapsedMs(useElapsedMs(startedAtMs));
  const percent = total > 0 ? Math.floor((100 * done) / total) : 0;
  return (
    <section className={styles.progress} aria-label="Sweep progress">
      <p className={styles.progressText}>
        <span role="status">
          Running the sweep of {label}: {total} runs on {workers} worker{workers === 1 ? '' : 's'}…
        </span>{' '}
        <span className={styles.count}>
          {done} of {total} runs · {elapsed}
        </span>
      </p>
      <div className={styles.row}>
        <div
          className={styles.bar}
          role="progressbar"
          aria-label="Sweep runs done"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={percent}
          aria-valuetext={`${done} of ${total} runs, ${elapsed} elapsed`}
        >
          <div className={styles.fill} style={{ width: `${percent}%` }} />
        </div>
        <button type="button" className={styles.cancel} onClick={() => store.getState().cancel()}>
          Cancel
        </button>
      </div>
    </section>
  );
}

/** "Copy as text": the table for a mailing-list reply. */
function CopyText({ text, what }: { text: string; what: string }) {
  const [status, setStatus] = useState('');
  const copy = async (): Promise<void> => {
    try {
      await navigator.clipboard.writeText(text);
      setStatus('Copied');
    } catch {
      setStatus('Copy failed: select the text below');
    }
    setTimeout(() => setStatus(''), 2500);
  };
  return (
    <span className={styles.copy}>
      <button type="button" className={styles.button} onClick={() => void copy()}>
        {what}
      </button>
      <span role="status" className={styles.status}>
        {status}
      </span>
    </span>
  );
}

/** The charts, the warnings, the table and the command of the sweep last run. */
function Results({ store, mechanisms, onOpen }: { store: SweepStore; mechanisms: readonly MechanismInfo[]; onOpen: (href: string) => void }) {
  const sweep = useSweep(store, (s) => s.sweep);
  const report = useSweep(store, (s) => s.report);
  const runs = useSweep(store, (s) => s.runs);
  const table = useSweep(store, (s) => s.table);
  const mode = useSweep(store, (s) => s.mode);
  const warnings = useSweep(store, (s) => s.warnings);
  const modeName = useId();
  const multiples = useMemo(() => (sweep && report ? smallMultiples(report, sweep.plan, sweep.base, runs, mode) : []), [sweep, report, runs, mode]);
  const docs = useMemo(() => {
    const out: Record<string, string> = {};
    for (const m of mechanisms) for (const c of [...m.counters, ...m.metrics]) out[c.name] ??= `${c.doc} (${unitOf(c.name)})`;
    return out;
  }, [mechanisms]);
  if (!sweep) return null;
  const { plan, base, request } = sweep;
  const first = report?.toggle_values[0] ?? '';
  const seedsText = plan.seeds.length === 1 ? `seed ${plan.seeds[0]}` : `seeds ${plan.seeds[0]}–${plan.seeds.at(-1)}`;
  return (
    <section className={styles.results} aria-label="Sweep results">
      <div className={styles.resultsHead}>
        <h3 className={styles.resultsTitle}>
          {base.label}: <code>{plan.toggle}</code> {plan.toggleValues.map(toggleValueText).join(' → ')}
          {plan.vary ? (
            <>
              {' '}
              over <code>{plan.vary.name}</code> = {plan.vary.values.map(formatCount).join(', ')}
            </>
          ) : null}
          , {seedsText}
        </h3>
        <fieldset className={styles.mode}>
          <legend className="visually-hidden">Show</legend>
          <label>
            <input type="radio" name={modeName} checked={mode === 'change'} onChange={() => store.getState().setMode('change')} /> Change against {first}
          </label>
          <label>
            <input type="radio" name={modeName} checked={mode === 'absolute'} onChange={() => store.getState().setMode('absolute')} /> Values
          </label>
        </fieldset>
      </div>
      <Columns store={store} mechanisms={mechanisms} />
      {report && report.runs_done > 0 ? (
        <SweepCharts
          multiples={multiples}
          xValues={plan.vary?.values ?? []}
          xName={plan.vary?.name ?? null}
          withZero={mode === 'change'}
          seeds={plan.seeds.length}
          docs={docs}
          onOpen={onOpen}
        />
      ) : (
        <p className={styles.hint}>No run has finished yet.</p>
      )}
      {warnings.length > 0 && (
        <div className={styles.warnings} role="alert">
          <p>Some runs did less than the scenario meant:</p>
          <ul>
            {warnings.slice(0, 8).map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </div>
      )}
      {table !== '' && report !== null && report.runs_done > 0 && (
        <div className={styles.text}>
          <div className={styles.textHead}>
            <h4 className={styles.textTitle}>As text</h4>
            <CopyText text={table} what="Copy as text" />
          </div>
          <pre className={styles.table} aria-label="Sweep table">
            {table}
          </pre>
          <p className={styles.command}>
            The same on the command line: <code>{cliCommand(base, request)}</code>
            {base.scenario.kind === 'custom' ? ' (scenario.toml: the custom scenario)' : ''}
          </p>
        </div>
      )}
    </section>
  );
}

/** The dialog's body (rendered only while it is open). */
function SweepBody({ store, onClose }: { store: SweepStore; onClose: () => void }) {
  const app = useAppStoreApi();
  const engine = useAppStore((s) => s.engine);
  const patches = useAppStore((s) => s.patches);
  const mechanisms = useAppStore((s) => s.mechanisms);
  const scenario = useAppStore((s) => s.scenario);
  const scenarioText = useAppStore((s) => s.scenarioText);
  const toggles = useAppStore((s) => s.toggleOverrides);
  const paramOverrides = useAppStore((s) => s.paramOverrides);
  const summary = useAppStore((s) => s.runs.a.summary);
  const status = useSweep(store, (s) => s.status);
  const form = useSweep(store, (s) => s.form);
  const params = useMemo(() => summary?.params ?? [], [summary]);

  // A form from another scenario: a toggle or parameter this one lacks is replaced (the values typed stay).
  useEffect(() => {
    const patch: Parameters<SweepState['setForm']>[0] = {};
    if (!patches.some((p) => p.id === form.toggle)) patch.toggle = defaultToggle(patches, summary?.functions ?? []);
    if (form.vary !== '' && !params.some((p) => p.name === form.vary)) patch.vary = params[0]?.name ?? '';
    if (form.toggle === '' && form.vary === '' && form.values === '' && params[0]) patch.vary = params[0].name;
    if (Object.keys(patch).length > 0) store.getState().setForm(patch);
  }, [store, patches, params, summary, form.toggle, form.vary, form.values]);

  const label = scenarioLabel(scenario);
  const run = (): void => {
    if (!engine || !scenario) return;
    // The link of each run names the scenario as the lab's own link does (a built-in one with its text's hash), at no seed.
    const ref: ScenarioRef = scenario.kind === 'builtin' ? { kind: 'builtin', id: scenario.id, hash: fnv1a32Hex(scenarioText) } : { kind: 'custom', text: scenario.text };
    const fixed = Object.fromEntries(Object.entries(paramOverrides).filter(([name]) => name !== store.getState().form.vary));
    const base: SweepBase = { scenario: ref, scenarioText, label, toggles, params: fixed };
    void store.getState().start(engine, base);
  };
  let statusLine: ReactNode = null;
  if (status.kind === 'done') statusLine = `${formatCount(status.total)} runs in ${formatElapsedMs(status.elapsedMs)} on ${status.workers} worker${status.workers === 1 ? '' : 's'}.`;
  if (status.kind === 'cancelled') statusLine = status.done === 0 ? `Cancelled before any of the ${status.total} runs finished.` : `Cancelled: ${status.done} of ${status.total} runs were done; they are shown.`;
  if (status.kind === 'planning') statusLine = 'Checking…';
  return (
    <>
      <p className={styles.help}>
        A toggle's effect over one parameter's values and over seeds, as <code>mmviz sweep</code> prints it: each run goes to the end, counters only, on {label}{' '}
        with the lab's toggles and parameters. Each dot opens its run.
      </p>
      <Form store={store} params={params} onRun={run} />
      {status.kind === 'running' && <Progress store={store} startedAtMs={status.startedAtMs} done={status.done} total={status.total} workers={status.workers} label={label} />}
      {status.kind === 'failed' && (
        <p className={styles.fieldError} role="alert">
          {status.message}
        </p>
      )}
      {statusLine && (
        <p className={styles.statusLine} role="status">
          {statusLine}
        </p>
      )}
      <Results
        store={store}
        mechanisms={mechanisms}
        onOpen={(href) => {
          onClose();
          // The dot's link may be the address bar's already: then no hashchange shows it.
          followLink(app, href);
        }}
      />
    </>
  );
}

/** The header button and the sweep's dialog. */
export function SweepButton({ store = sweepStore }: { store?: SweepStore }) {
  const [open, setOpen] = useState(false);
  const hasScenario = useAppStore((s) => s.runs.a.summary !== null);
  const scenario = useAppStore((s) => s.scenario);
  const running = useSweep(store, (s) => s.status.kind === 'running');
  return (
    <>
      <button
        type="button"
        className={styles.headerButton}
        onClick={() => setOpen(true)}
        disabled={!hasScenario}
        aria-haspopup="dialog"
        title="Run a toggle's effect over a parameter's values and seeds (mmviz sweep), drawn as small multiples"
      >
        Sweep…{running ? ' (running)' : ''}
      </button>
      <Dialog open={open} onClose={() => setOpen(false)} title={`Sweep: ${scenarioLabel(scenario)}`} className={styles.dialog}>
        <SweepBody store={store} onClose={() => setOpen(false)} />
      </Dialog>
    </>
  );
}
