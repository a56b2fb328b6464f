// "Measured…": what a real machine says beside what the model does. Two `/proc/vmstat`
// snapshots (before and after, and the seconds between them if known): their difference goes
// into the Counters panel beside the simulated counters of the same names, labelled as a
// measurement of that machine. `/proc/zoneinfo`: each zone's sizes, watermarks and pagesets
// beside what the model derives for a zone of that size, and what the model does not use.
// The texts live in the store (and the tab's sessionStorage): closing, an error or a reload
// loses nothing.
import { useId, useState } from 'react';
import { formatCount } from '../base/format';
import type { VmstatDelta, ZoneInfo } from '../engine/types';
import { useAppStore } from '../store/context';
import { Dialog } from '../widgets/Dialog';
import styles from './MachineDialog.module.css';
import { NumberedTextarea, PasteBox, PasteError, usePasteParse } from './PasteBox';
import own from './RealityDialog.module.css';

/** Seconds from the interval box: null when blank, NaN when not a positive number. */
export function intervalSeconds(text: string): number | null {
  const t = text.trim();
  if (t === '') return null;
  const v = Number(t);
  return Number.isFinite(v) && v > 0 ? v : Number.NaN;
}

/** The counters of a delta the run also has, in the run's order. */
export function sharedCounters(delta: VmstatDelta, runCounters: readonly string[]): string[] {
  const real = new Set(delta.changes.map((c) => c.name));
  return runCounters.filter((n) => real.has(n));
}

/** The vmstat part: two boxes, the interval, what they give, and "Show beside the counters". */
function VmstatSection() {
  const pastes = useAppStore((s) => s.pastes);
  const setPaste = useAppStore((s) => s.setPaste);
  const reality = useAppStore((s) => s.reality);
  const setReality = useAppStore((s) => s.setReality);
  const runCounters = useAppStore((s) => s.runs.a.summary?.counterNames ?? []);
  const parsed = usePasteParse('vmstat', [pastes.vmstatBefore, pastes.vmstatAfter]);
  const ids = { before: useId(), after: useId(), interval: useId(), status: useId() };
  const interval = intervalSeconds(pastes.vmstatInterval);
  const intervalOk = interval === null || !Number.isNaN(interval);
  // The engine's message says which snapshot: "line N: before: ..." / "line N: after: ...".
  const errorIn = parsed.kind === 'error' ? (/\bline \d+: after: /.test(parsed.message) ? 'after' : 'before') : null;
  const mark = (box: 'before' | 'after'): number | null => {
    if (parsed.kind !== 'error' || errorIn !== box) return null;
    const m = /\bline (\d+)\b/.exec(parsed.message);
    return m ? Number(m[1]) : null;
  };
  const shared = parsed.kind === 'ok' ? sharedCounters(parsed.value, runCounters) : [];
  const changed = parsed.kind === 'ok' ? parsed.value.changes.filter((c) => c.delta !== 0).length : 0;
  return (
    <section className={own.section} aria-labelledby={`${ids.status}-h`}>
      <h3 id={`${ids.status}-h`} className={own.heading}>
        Two <code>/proc/vmstat</code> snapshots
      </h3>
      <p className={styles.help}>
        Run <code>cat /proc/vmstat</code>, your workload, <code>cat /proc/vmstat</code> again, and paste both. Their difference is shown beside the simulated counters of the same
        names: a measurement of your machine, not of the model.
      </p>
      <div className={own.pair}>
        {(['before', 'after'] as const).map((box) => (
          <div key={box} className={own.half}>
            <label htmlFor={ids[box]} className={styles.label}>
              {box === 'before' ? 'Before' : 'After'}
            </label>
            <NumberedTextarea
              id={ids[box]}
              text={box === 'before' ? pastes.vmstatBefore : pastes.vmstatAfter}
              onChange={(t) => setPaste(box === 'before' ? 'vmstatBefore' : 'vmstatAfter', t)}
              mark={mark(box)}
              describedBy={ids.status}
              placeholder={'$ cat /proc/vmstat\nnr_free_pages 1052928\npgfault 583875828\n...'}
              rows={8}
              testId={`vmstat-${box}`}
            />
          </div>
        ))}
      </div>
      <div className={styles.use}>
        <label htmlFor={ids.interval} className={styles.label}>
          Seconds between them
        </label>
        <input
          id={ids.interval}
          className={styles.scale}
          inputMode="decimal"
          value={pastes.vmstatInterval}
          placeholder="optional"
          aria-invalid={!intervalOk}
          data-testid="vmstat-interval"
          onChange={(e) => setPaste('vmstatInterval', e.target.value)}
        />
        <span className={styles.scaleNote}>{intervalOk ? (interval === null ? 'without it, the changes are shown as totals' : 'the changes are shown per second') : 'a number of seconds above 0'}</span>
      </div>
      <div id={ids.status} className={styles.status}>
        {parsed.kind === 'empty' && <p className={styles.note}>Paste both snapshots.</p>}
        {parsed.kind === 'error' && errorIn && (
          <PasteError
            message={parsed.message.replace(/\b(line \d+: )(?:before|after): /, '$1')}
            text={errorIn === 'before' ? pastes.vmstatBefore : pastes.vmstatAfter}
            areaId={ids[errorIn]}
            testId="vmstat-error"
            what={`${errorIn === 'before' ? 'Before' : 'After'} snapshot`}
          />
        )}
        {parsed.kind === 'ok' && (
          <>
            <p className={styles.note} data-testid="vmstat-summary">
              {parsed.value.changes.length} counters in both snapshots, {changed} changed. {shared.length} of them the simulation counts too
              {shared.length > 0 ? `: ${shared.slice(0, 8).join(', ')}${shared.length > 8 ? ', …' : ''}` : ''}.
              {parsed.value.only_before.length + parsed.value.only_after.length > 0 &&
                ` Only in one snapshot (left out): ${[...parsed.value.only_before, ...parsed.value.only_after].slice(0, 6).join(', ')}${parsed.value.only_before.length + parsed.value.only_after.length > 6 ? ', …' : ''}.`}
            </p>
            <div className={styles.use}>
              <button
                type="button"
                className={styles.primary}
                disabled={!intervalOk || shared.length === 0}
                onClick={() => setReality({ delta: parsed.value, intervalS: interval })}
              >
                Show beside the counters
              </button>
              {reality && (
                <button type="button" className={styles.button} onClick={() => setReality(null)}>
                  Stop showing
                </button>
              )}
              {reality && <span className={styles.scaleNote}>Shown in the Counters panel{reality.intervalS !== null ? `, per second over ${reality.intervalS} s` : ''}.</span>}
            </div>
          </>
        )}
      </div>
    </section>
  );
}

/** The pagesets' values as "a" or "a–b" over the CPUs. */
function span(values: number[]): string {
  if (values.length === 0) return '—';
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  return lo === hi ? formatCount(lo) : `${formatCount(lo)}–${formatCount(hi)}`;
}

/** The zoneinfo preview: every zone, the kernel's numbers beside the model's. */
function ZoneTable({ z }: { z: ZoneInfo }) {
  const opt = (v: number | null): string => (v === null ? '—' : formatCount(v));
  return (
    <>
      <table className={styles.table} aria-label="Zones" data-testid="zoneinfo-table">
        <thead>
          <tr>
            <th scope="col">Node</th>
            <th scope="col">Zone</th>
            <th scope="col">Present</th>
            <th scope="col">Managed</th>
            <th scope="col">Free</th>
            <th scope="col">min / low / high</th>
            <th scope="col">Model for this size</th>
            <th scope="col">PCP high</th>
            <th scope="col">PCP batch</th>
            <th scope="col">Model batch</th>
          </tr>
        </thead>
        <tbody>
          {z.zones.map((zone) => (
            <tr key={`${zone.node}:${zone.name}:${zone.line}`}>
              <th scope="row">{zone.node}</th>
              <td>{zone.name}</td>
              <td className={styles.num}>{opt(zone.present)}</td>
              <td className={styles.num}>{opt(zone.managed)}</td>
              <td className={styles.num}>{opt(zone.free)}</td>
              <td className={styles.num}>
                {formatCount(zone.min)} / {formatCount(zone.low)} / {formatCount(zone.high)}
              </td>
              <td className={styles.num}>{zone.model ? zone.model.wmarks.map(formatCount).join(' / ') : <span className={styles.count}>not modelled</span>}</td>
              <td className={styles.num}>{span(zone.pagesets.map((p) => p.high))}</td>
              <td className={styles.num}>{span(zone.pagesets.map((p) => p.batch))}</td>
              <td className={styles.num}>{zone.model ? formatCount(zone.model.batch) : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className={styles.note}>
        Pages of 4 KiB on most machines (a 64 KiB-page kernel prints the same numbers of bigger pages). “Model for this size”: the watermarks and batch the engine derives for a
        zone of these managed pages (<code>__setup_per_zone_wmarks</code> with <code>min_free_kbytes</code> from the {formatCount(z.lowmem_managed)} lowmem pages pasted,{' '}
        the pagesets’ batch, <code>max(1, zone_batchsize)</code>). A machine prints a higher min when <code>vm.min_free_kbytes</code> was raised, as transparent huge pages do (khugepaged’s{' '}
        <code>set_recommended_min_free_kbytes</code>); low and high sit <code>max(min / 4, managed / 1000)</code> above it, as in the model. The model has one Normal zone per
        node and no HighMem, Movable or Device zones.
      </p>
      <p className={styles.note} data-testid="zoneinfo-run-note">
        This table only compares. To run the scenario on these zones (sizes, watermarks, pageset sizes), open <strong>Machine…</strong> and paste the same machine’s{' '}
        <code>numactl --hardware</code>: this zoneinfo text is already in its zoneinfo box.
      </p>
      <p className={styles.note} data-testid="zoneinfo-unused">
        Read but not used by the model: {z.unused.join(', ')}.
      </p>
    </>
  );
}

/** The zoneinfo part. */
function ZoneinfoSection() {
  const text = useAppStore((s) => s.pastes.zoneinfo);
  const setPaste = useAppStore((s) => s.setPaste);
  const parsed = usePasteParse('zoneinfo', [text]);
  const heading = useId();
  return (
    <section className={own.section} aria-labelledby={heading}>
      <h3 id={heading} className={own.heading}>
        <code>/proc/zoneinfo</code>
      </h3>
      <PasteBox
        labelledBy={heading}
        text={text}
        onChange={(t) => setPaste('zoneinfo', t)}
        error={parsed.kind === 'error' ? parsed.message : null}
        what="zoneinfo"
        placeholder={'$ cat /proc/zoneinfo\nNode 0, zone   Normal\n  pages free     3977\n        min      5\n...'}
        rows={8}
        testId="zoneinfo-text"
        errorTestId="zoneinfo-error"
      >
        {parsed.kind === 'empty' && <p className={styles.note}>Nothing pasted yet.</p>}
        {parsed.kind === 'ok' && <ZoneTable z={parsed.value} />}
      </PasteBox>
    </section>
  );
}

/** The header button and its modal dialog. */
export function RealityDialogButton() {
  const [open, setOpen] = useState(false);
  const hasScenario = useAppStore((s) => s.runs.a.summary !== null);
  return (
    <>
      <button
        type="button"
        className={styles.button}
        onClick={() => setOpen(true)}
        disabled={!hasScenario}
        aria-haspopup="dialog"
        title="Compare with a real machine: paste two /proc/vmstat snapshots and /proc/zoneinfo"
      >
        Measured…
      </button>
      <Dialog open={open} onClose={() => setOpen(false)} title="Measured on your machine" className={styles.dialog}>
        <VmstatSection />
        <ZoneinfoSection />
      </Dialog>
    </>
  );
}
