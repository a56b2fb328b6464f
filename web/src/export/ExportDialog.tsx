// "Export…": the frame on screen as SVG or PNG (with the scenario, the step and the link in a
// caption), or a range of steps as a .zip of SVGs, one per step, for slides.
import { useId, useRef, useState } from 'react';
import { formatCount } from '../base/format';
import { reportAbout } from '../panels/reportAbout';
import { currentLink } from '../share/useUrlSync';
import { useAppStore, useAppStoreApi, useCursor } from '../store/context';
import { Dialog } from '../widgets/Dialog';
import type { AppStore } from '../store/appStore';
import { buildFrameSvg, download, machineParts, svgToPng, type ExportColours } from './svgExport';
import styles from './ExportDialog.module.css';

/** Most frames one step-range export takes (each is an SVG of the whole machine). */
export const MAX_RANGE_FRAMES = 200;

/** The theme's page, text and link colours, for the exported file's background and caption (the browser's own page colours, CSS system colours, if a token is missing). */
function themeColours(): ExportColours {
  const css = getComputedStyle(document.documentElement);
  const get = (name: string, fallback: string): string => css.getPropertyValue(name).trim() || fallback;
  return { background: get('--bg', 'Canvas'), text: get('--ink', 'CanvasText'), link: get('--text-blue', 'LinkText') };
}

/** Waits until the browser has painted what React rendered last. */
function painted(): Promise<void> {
  return new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve())));
}

/** The frame on screen as an SVG document, with its caption; null when no run is on screen. */
export function currentFrameSvg(store: AppStore): { svg: string; name: string } | null {
  const s = store.getState();
  const summary = s.runs.a.summary;
  const frame = s.runs.a.frame;
  const parts = machineParts();
  if (!summary || !frame || parts.length === 0) return null;
  const frameB = s.ab ? s.runs.b.frame : null;
  const about = reportAbout({ summary, frame, frameB, choice: s.ab?.choice ?? null, patches: s.patches, overrides: s.toggleOverrides, paramOverrides: s.paramOverrides });
  const events = [frame, frameB].flatMap((f, i) => (f?.event ? [`${frameB ? `${i === 0 ? 'A' : 'B'}: ` : ''}CPU ${f.event.cpu}: ${f.event.narration}`] : []));
  const svg = buildFrameSvg(parts, { lines: [...about.slice(0, 3), ...events], link: currentLink(store) }, themeColours());
  const step = frameB ? `${frame.step}-b${frameB.step}` : String(frame.step);
  return { svg, name: `${summary.id}-step-${step}` };
}

/** Parses a step field: a whole number in [0, last], or a message saying what is wrong. */
export function parseStep(text: string, last: number, what: string): number | string {
  const cleaned = text.replace(/[\s,_]/g, '');
  if (!/^\d+$/.test(cleaned)) return `${what} must be a whole number of steps (got "${text}")`;
  const n = Number(cleaned);
  if (n > last) return `${what} is past the last step (${formatCount(last)})`;
  return n;
}

/** The header's Export button and its dialog. */
export function ExportButton() {
  const store = useAppStoreApi();
  const [shown, setShown] = useState(false);
  const fromId = useId();
  const toId = useId();
  const cursor = useCursor();
  const ab = useAppStore((s) => s.ab !== null);
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [status, setStatus] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const cancel = useRef(false);

  const open = (): void => {
    setFrom(String(cursor.position));
    setTo(String(Math.min(cursor.last, cursor.position + 20)));
    setStatus('');
    setError('');
    setShown(true);
  };

  // Close, or Escape (which also stops a range being exported; Close is disabled meanwhile).
  const close = (): void => {
    cancel.current = true;
    setShown(false);
  };

  const exportFrame = async (kind: 'svg' | 'png'): Promise<void> => {
    setError('');
    const out = currentFrameSvg(store);
    if (!out) {
      setError('Nothing to export yet: open a scenario first.');
      return;
    }
    try {
      if (kind === 'svg') download(new Blob([out.svg], { type: 'image/svg+xml' }), `${out.name}.svg`);
      else download(await svgToPng(out.svg), `${out.name}.png`);
      setStatus(`Saved ${out.name}.${kind}`);
    } catch (e) {
      setError(`The ${kind.toUpperCase()} could not be made: ${e instanceof Error ? e.message : String(e)}`);
    }
  };

  const exportRange = async (): Promise<void> => {
    setError('');
    const a = parseStep(from, cursor.last, 'From');
    const b = parseStep(to, cursor.last, 'To');
    if (typeof a === 'string' || typeof b === 'string') {
      setError(typeof a === 'string' ? a : String(b));
      return;
    }
    if (b < a) {
      setError(`To (${formatCount(b)}) is before From (${formatCount(a)})`);
      return;
    }
    if (b - a + 1 > MAX_RANGE_FRAMES) {
      setError(`${formatCount(b - a + 1)} frames is more than ${MAX_RANGE_FRAMES} at once: export a shorter range`);
      return;
    }
    const back = cursor.position;
    setBusy(true);
    cancel.current = false;
    // The zip code is fetched when a range is first exported, not with the page.
    const { zipSync, strToU8 } = await import('fflate');
    const files: Record<string, Uint8Array> = {};
    let name = 'mmviz';
    try {
      for (let p = a; p <= b && !cancel.current; p++) {
        setStatus(`Frame ${formatCount(p - a + 1)} of ${formatCount(b - a + 1)}…`);
        await store.getState().seek(p);
        await painted();
        const out = currentFrameSvg(store);
        if (!out) throw new Error('the run went away while exporting');
        name = out.name.replace(/-step-.*$/, '');
        files[`${out.name}.svg`] = strToU8(out.svg);
      }
      if (cancel.current) {
        setStatus('Cancelled: nothing saved');
      } else {
        const zip = zipSync(files, { level: 6 });
        download(new Blob([zip], { type: 'application/zip' }), `${name}-steps-${a}-${b}.zip`);
        setStatus(`Saved ${Object.keys(files).length} SVGs in ${name}-steps-${a}-${b}.zip`);
      }
    } catch (e) {
      setError(`The export stopped: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      await store.getState().seek(back);
      setBusy(false);
    }
  };

  return (
    <>
      <button type="button" className={styles.button} aria-haspopup="dialog" onClick={open}>
        Export…
      </button>
      <Dialog open={shown} onClose={close} title="Export for slides" className={styles.dialog} closeDisabled={busy}>
        <p>
          The machine drawing{ab ? 's of A and B side by side' : ''} as on screen, in the current theme, with a caption: the scenario, what was changed, the step,
          and the link that reopens it.
        </p>
        <div className={styles.row}>
          <button type="button" className={styles.button} disabled={busy} onClick={() => void exportFrame('svg')}>
            Frame as SVG
          </button>
          <button type="button" className={styles.button} disabled={busy} onClick={() => void exportFrame('png')}>
            Frame as PNG
          </button>
        </div>
        <fieldset className={styles.range}>
          <legend>A range of {ab ? 'positions (A and B together)' : 'steps'}: one SVG per step, in a .zip</legend>
          <div className={styles.row}>
            <label htmlFor={fromId}>From</label>
            <input id={fromId} inputMode="numeric" value={from} disabled={busy} onChange={(e) => setFrom(e.target.value)} />
            <label htmlFor={toId}>To</label>
            <input id={toId} inputMode="numeric" value={to} disabled={busy} onChange={(e) => setTo(e.target.value)} />
            <button type="button" className={styles.button} disabled={busy} onClick={() => void exportRange()}>
              Steps as SVGs (.zip)
            </button>
            {busy && (
              <button type="button" className={styles.button} onClick={() => (cancel.current = true)}>
                Cancel
              </button>
            )}
          </div>
          <small>At most {MAX_RANGE_FRAMES} steps at once; the lab returns to step {formatCount(cursor.position)} after.</small>
        </fieldset>
        <p role="status" className={styles.status}>
          {status}
        </p>
        {error && (
          <p role="alert" className={styles.error}>
            {error}
          </p>
        )}
      </Dialog>
    </>
  );
}
