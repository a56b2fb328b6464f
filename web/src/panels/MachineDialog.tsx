// "Machine from numactl --hardware": a box to paste a real machine's `numactl --hardware`
// output into, another for the same machine's `lscpu` (optional: CPU lists where numactl
// gives none, and the last-level cache per CPU), one for its `/proc/zoneinfo` (optional: each
// node's zone sizes, watermarks and pageset sizes, MachineZones.tsx), a live preview of what the engine reads
// from them (nodes, CPUs, sizes, distances, caches) or its error with the line marked, and
// "Use this machine", which opens the current scenario as a custom one on that machine. The text lives in the store (and the
// tab's sessionStorage): closing the dialog, an error or a reload loses nothing.
import { useEffect, useId, useRef, useState } from 'react';
import { chooseMemScale, cpuRanges, errorLine, errorWithoutLine, formatMb, MAX_MEM_SCALE, nodePages, scenarioOnMachine, simulatedPages } from '../base/numactl';
import { errorMessage } from '../engine/engine';
import type { Lscpu, NumaHardware } from '../engine/types';
import { useAppStore, useAppStoreApi } from '../store/context';
import { Dialog } from '../widgets/Dialog';
import styles from './MachineDialog.module.css';
import { MachineZones } from './MachineZones';
import { NumberedTextarea, PasteBox, selectLine, usePasteParse } from './PasteBox';

/** What the engine made of the text: nothing yet, the machine, or its message. */
type Parsed = { kind: 'empty' } | { kind: 'ok'; hw: NumaHardware } | { kind: 'error'; message: string };

/** How long typing must pause before the text is parsed again (ms). */
const PARSE_DEBOUNCE_MS = 120;

/** Parses the store's numactl text with the engine, the latest text only. */
function useParsed(text: string): Parsed {
  const engine = useAppStore((s) => s.engine);
  // The result for the latest text parsed; while the engine reads newer text, the last one stays shown.
  const [got, setGot] = useState<Parsed>({ kind: 'empty' });
  const empty = text.trim() === '' || !engine;
  useEffect(() => {
    if (empty) return;
    let stale = false;
    const timer = setTimeout(() => {
      engine.parseNumactl(text).then(
        (hw) => {
          if (!stale) setGot({ kind: 'ok', hw });
        },
        (err: unknown) => {
          if (!stale) setGot({ kind: 'error', message: errorMessage(err) });
        },
      );
    }, PARSE_DEBOUNCE_MS);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [empty, engine, text]);
  return empty ? { kind: 'empty' } : got;
}

/** The preview of a machine: its nodes and distances, and what the simulation makes of it at `scale`. */
function MachinePreview({ hw, scale }: { hw: NumaHardware; scale: number }) {
  const cpus = hw.nodes.reduce((n, node) => n + node.cpus.length, 0);
  const mb = hw.nodes.reduce((n, node) => n + node.size_mb, 0);
  return (
    <div className={styles.preview}>
      <p className={styles.summary} data-testid="numactl-summary">
        {hw.nodes.length} node{hw.nodes.length === 1 ? '' : 's'}, {cpus} CPU{cpus === 1 ? '' : 's'}, {formatMb(mb)}
      </p>
      <table className={styles.table} aria-label="Nodes">
        <thead>
          <tr>
            <th scope="col">Node</th>
            <th scope="col">CPUs</th>
            <th scope="col">Size</th>
            <th scope="col">Free</th>
            <th scope="col">Simulated pages</th>
          </tr>
        </thead>
        <tbody>
          {hw.nodes.map((n) => (
            <tr key={n.id}>
              <th scope="row">{n.id}</th>
              <td className={styles.cpus}>
                {cpuRanges(n.cpus)}
                {n.cpus.length > 0 && <span className={styles.count}> ({n.cpus.length})</span>}
              </td>
              <td className={styles.num}>{formatMb(n.size_mb)}</td>
              <td className={styles.num}>{n.free_mb === null ? '—' : formatMb(n.free_mb)}</td>
              <td className={styles.num}>{nodePages(n.size_mb, scale).toLocaleString('en-US')}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {hw.distances ? (
        <table className={styles.table} aria-label="Node distances">
          <caption className={styles.caption}>Distances (10 = local)</caption>
          <thead>
            <tr>
              <th scope="col">from \ to</th>
              {hw.nodes.map((n) => (
                <th key={n.id} scope="col">
                  {n.id}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {hw.distances.map((row, i) => (
              <tr key={hw.nodes[i]?.id ?? i}>
                <th scope="row">{hw.nodes[i]?.id ?? i}</th>
                {row.map((d, j) => (
                  <td key={j} className={i === j ? styles.local : styles.num}>
                    {d}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className={styles.note}>No distance table in the text.</p>
      )}
    </div>
  );
}

/** KiB/MiB/GiB for a cache size in bytes. */
function formatBytes(b: number): string {
  if (b >= 1 << 30) return `${+(b / (1 << 30)).toFixed(1)} GiB`;
  if (b >= 1 << 20) return `${+(b / (1 << 20)).toFixed(1)} MiB`;
  return `${+(b / 1024).toFixed(1)} KiB`;
}

/** One line of what lscpu says: CPUs, sockets x cores x threads, nodes, caches, the LLC share per CPU. */
export function lscpuSummary(l: Lscpu): string {
  const parts: string[] = [];
  if (l.cpus !== null) parts.push(`${l.cpus} CPUs`);
  if (l.sockets !== null && l.cores_per_socket !== null && l.threads_per_core !== null)
    parts.push(`${l.sockets} socket${l.sockets === 1 ? '' : 's'} × ${l.cores_per_socket} cores × ${l.threads_per_core} threads`);
  if (l.nodes.length > 0) parts.push(`${l.nodes.length} NUMA node${l.nodes.length === 1 ? '' : 's'} with CPU lists`);
  if (l.caches.length > 0) parts.push(l.caches.map((c) => `${c.level} ${formatBytes(c.bytes)}${c.total ? '' : ' each'}`).join(', '));
  return parts.join('; ');
}

/** The dialog's body (rendered only while it is open). */
function MachineForm({ onClose }: { onClose: () => void }) {
  const store = useAppStoreApi();
  const text = useAppStore((s) => s.numactlText);
  const setText = useAppStore((s) => s.setNumactlText);
  const parsedAlone = useParsed(text);
  const lscpuText = useAppStore((s) => s.pastes.lscpu);
  const setPaste = useAppStore((s) => s.setPaste);
  const lscpu = usePasteParse('lscpu', [lscpuText]);
  // Both read: numactl's machine with lscpu's CPU lists (the engine checks they agree).
  const merged = usePasteParse('machine', [text, lscpuText], parsedAlone.kind === 'ok' && lscpu.kind === 'ok');
  const parsed: Parsed = parsedAlone.kind === 'ok' && merged.kind === 'ok' ? { kind: 'ok', hw: merged.value } : parsedAlone;
  const lscpuBlocks = lscpu.kind === 'error' || merged.kind === 'error' || (lscpu.kind === 'ok' && parsedAlone.kind === 'ok' && merged.kind === 'empty');
  const ids = { text: useId(), status: useId(), scale: useId() };
  const area = useRef<HTMLDivElement>(null);
  const [scaleText, setScaleText] = useState<string | null>(null);
  const [useError, setUseError] = useState<{ message: string; scenarioText: string } | null>(null);
  const [busy, setBusy] = useState(false);

  const chosen = parsed.kind === 'ok' ? chooseMemScale(parsed.hw) : 1;
  const scaleValue = scaleText === null ? chosen : Number(scaleText);
  const scaleOk = Number.isInteger(scaleValue) && scaleValue >= 1 && scaleValue <= MAX_MEM_SCALE;
  const mark = parsed.kind === 'error' ? errorLine(parsed.message) : null;
  const lines = text.split('\n');
  // The same machine's /proc/zoneinfo (optional, shared with Measured…): what the run takes from it at this scale.
  const zoneinfoText = useAppStore((s) => s.pastes.zoneinfo);
  const zones = usePasteParse('zones', [text, lscpu.kind === 'ok' ? lscpuText : '', zoneinfoText, String(scaleOk ? scaleValue : chosen)], parsed.kind === 'ok' && !lscpuBlocks, [1]);
  const zonesBlock = zoneinfoText.trim() !== '' && zones.kind !== 'ok';

  const use = async (): Promise<void> => {
    if (parsed.kind !== 'ok' || !scaleOk) return;
    const s = store.getState();
    if (!s.engine || !s.scenario) return;
    const scenarioText = scenarioOnMachine(s.scenarioText, text, scaleValue, lscpu.kind === 'ok' ? lscpuText : '', zones.kind === 'ok' ? zoneinfoText : '');
    setUseError(null);
    setBusy(true);
    try {
      // Read it first: the engine's message (line and field) is shown here, with the text kept.
      await s.engine.describe(scenarioText, s.paramOverrides);
    } catch (err) {
      setUseError({ message: errorMessage(err), scenarioText });
      setBusy(false);
      return;
    }
    const opened = await s.open({ scenario: { kind: 'custom', text: scenarioText }, toggles: s.toggleOverrides, params: s.paramOverrides, step: 0 });
    setBusy(false);
    if (opened) onClose();
    else setUseError({ message: 'see the message at the top of the page.', scenarioText });
  };

  return (
    <>
      <p className={styles.help}>
        Paste what <code>numactl --hardware</code> prints on a real machine (a prompt line, ranges, odd spacing are fine), and if you have them the same machine’s{' '}
        <code>lscpu</code> and <code>/proc/zoneinfo</code>. The current scenario then runs on its nodes, CPUs and distances (and its zones’ sizes, watermarks and pageset sizes).
      </p>
      <label htmlFor={ids.text} className={styles.label}>
        <code>numactl --hardware</code> output
      </label>
      <div ref={area}>
        <NumberedTextarea
          id={ids.text}
          text={text}
          onChange={(t) => {
            setText(t);
            setUseError(null);
          }}
          mark={mark}
          describedBy={ids.status}
          placeholder={'$ numactl --hardware\navailable: 2 nodes (0-1)\nnode 0 cpus: 0 1 2 3\nnode 0 size: 16000 MB\n...'}
          testId="numactl-text"
        />
      </div>
      <div id={ids.status} className={styles.status}>
        {parsed.kind === 'empty' && <p className={styles.note}>Nothing pasted yet.</p>}
        {parsed.kind === 'error' && (
          <div className={styles.error} role="alert" data-testid="numactl-error">
            <p className={styles.errorText}>
              {mark !== null ? <strong>Line {mark}:</strong> : <strong>Cannot read this:</strong>} {errorWithoutLine(parsed.message)}
            </p>
            {mark !== null && lines[mark - 1] !== undefined && (
              <button
                type="button"
                className={styles.lineButton}
                title="Select this line in the box"
                onClick={() => selectLine(area.current?.querySelector('textarea') ?? null, mark)}
              >
                <span className={styles.lineNo}>{mark}</span>
                <code className={styles.lineText}>{lines[mark - 1] === '' ? '(empty line)' : lines[mark - 1]}</code>
              </button>
            )}
          </div>
        )}
        {parsed.kind === 'ok' && <MachinePreview hw={parsed.hw} scale={scaleOk ? scaleValue : chosen} />}
      </div>
      <PasteBox
        label={
          <>
            <code>lscpu</code> output of the same machine <span className={styles.count}>(optional)</span>
          </>
        }
        text={lscpuText}
        onChange={(t) => {
          setPaste('lscpu', t);
          setUseError(null);
        }}
        error={lscpu.kind === 'error' ? lscpu.message : merged.kind === 'error' ? merged.message : null}
        what="lscpu"
        placeholder={'$ lscpu\nCPU(s):              8\nNUMA node0 CPU(s):   0-3\n...'}
        rows={7}
        testId="lscpu-text"
        errorTestId="lscpu-error"
      >
        {lscpu.kind === 'empty' && <p className={styles.note}>Nothing pasted: CPU lists come from numactl, the last-level cache share from the scenario.</p>}
        {lscpu.kind === 'ok' && (
          <p className={styles.note} data-testid="lscpu-summary">
            {lscpuSummary(lscpu.value)}
            {lscpu.value.llc_slice_kb !== null
              ? `. The model's last-level cache per CPU (knob llc_slice_kb) becomes ${lscpu.value.llc_slice_kb.toLocaleString('en-US')} KiB (${lscpu.value.llc_note ?? ''}) unless the scenario sets it.`
              : '. No last-level cache size to derive llc_slice_kb from: the scenario keeps its own.'}
            {merged.kind === 'ok' ? ' CPU lists checked against numactl.' : ''}
          </p>
        )}
      </PasteBox>
      <MachineZones parsed={zones} scale={scaleOk ? scaleValue : chosen} numactlOk={parsed.kind === 'ok'} />
      {parsed.kind === 'ok' && (
        <div className={styles.use}>
          <label htmlFor={ids.scale} className={styles.label}>
            Memory scale
          </label>
          <input
            id={ids.scale}
            className={styles.scale}
            type="number"
            min={1}
            max={MAX_MEM_SCALE}
            step={1}
            value={scaleText ?? String(chosen)}
            aria-invalid={!scaleOk}
            onChange={(e) => setScaleText(e.target.value)}
          />
          <span className={styles.scaleNote} data-testid="numactl-scale">
            {scaleOk
              ? `real 4 KiB pages per simulated page: ${simulatedPages(parsed.hw, scaleValue).toLocaleString('en-US')} simulated pages${scaleText === null ? ' (chosen to stay under 65,536)' : ''}`
              : `a whole number from 1 to ${MAX_MEM_SCALE.toLocaleString('en-US')}`}
          </span>
          <button type="button" className={styles.primary} disabled={!scaleOk || busy || lscpuBlocks || zonesBlock} onClick={() => void use()}>
            {busy ? 'Opening…' : 'Use this machine'}
          </button>
        </div>
      )}
      {useError && (
        <div className={styles.error} role="alert" data-testid="machine-use-error">
          <p className={styles.errorText}>
            <strong>The scenario cannot run on this machine:</strong> {useError.message}
          </p>
          <p className={styles.note}>
            {/unknown field `(numactl|mem_scale)`/.test(useError.message)
              ? 'This build of the engine cannot run a scenario on pasted numactl text yet ([machine] numactl = ...): rebuild it from a newer mmviz. Your pasted text is kept.'
              : 'Your pasted text is kept: edit the scenario (its threads name CPUs and nodes) or paste another machine.'}
          </p>
          <details className={styles.scenario}>
            <summary>The scenario text the line number refers to</summary>
            <pre className={styles.scenarioText}>
              {useError.scenarioText.split('\n').map((l, i) => (
                <span key={i} className={errorLine(useError.message) === i + 1 ? styles.scenarioMark : undefined}>
                  {`${String(i + 1).padStart(4)}  ${l}\n`}
                </span>
              ))}
            </pre>
          </details>
        </div>
      )}
    </>
  );
}

/** The header button and its modal dialog. */
export function MachineDialogButton() {
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
        title="Run this scenario on a real machine: paste its numactl --hardware output"
      >
        Machine…
      </button>
      {/* The body's first control, the numactl box, has the focus: pasting is what the dialog is for. */}
      <Dialog
        open={open}
        onClose={() => setOpen(false)}
        title={
          <>
            Machine from <code>numactl --hardware</code>
          </>
        }
        className={styles.dialog}
      >
        <MachineForm onClose={() => setOpen(false)} />
      </Dialog>
    </>
  );
}
