// A box to paste a machine's output into (numactl, lscpu, /proc/zoneinfo, /proc/vmstat): the
// lines numbered beside it, the line an error names marked, and the message with that line's
// text as a button that selects it (PasteBox: the three together, as Machine… and Measured… use them). What is pasted is only ever text: React puts it in the
// DOM as text nodes, never as markup. The engine reads it (readPaste), the latest text only.
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { MAX_PASTE_BYTES, sizeProblem } from '../base/limits';
import { errorLine, errorWithoutLine } from '../base/numactl';
import { errorMessage } from '../engine/engine';
import type { PasteKind, PasteKinds } from '../engine/types';
import { useAppStore } from '../store/context';
import styles from './MachineDialog.module.css';

/** What the engine made of some text: nothing yet, its reading, or its message. */
export type Parsed<T> = { kind: 'empty' } | { kind: 'ok'; value: T } | { kind: 'error'; message: string };

/** How long typing must pause before the text is parsed again (ms). */
const PARSE_DEBOUNCE_MS = 120;

/** Reads `texts` with the engine as `kind` (empty while one of them not in `mayBeBlank` is blank, or `enabled` is false), the latest texts only. */
export function usePasteParse<K extends PasteKind>(
  kind: K,
  texts: PasteKinds[K]['texts'],
  enabled = true,
  mayBeBlank: readonly number[] = [],
): Parsed<PasteKinds[K]['result']> {
  const engine = useAppStore((s) => s.engine);
  const [got, setGot] = useState<Parsed<PasteKinds[K]['result']>>({ kind: 'empty' });
  const key = JSON.stringify(texts);
  const empty = !enabled || texts.some((t, i) => t.trim() === '' && !mayBeBlank.includes(i)) || !engine;
  useEffect(() => {
    if (empty) return;
    let stale = false;
    const timer = setTimeout(() => {
      // Larger than the engine reads (limits.rs): said at once, the text kept, nothing sent to the worker.
      const over = (JSON.parse(key) as string[]).map((t) => sizeProblem('the text', t, MAX_PASTE_BYTES)).find((p) => p !== null);
      if (over) {
        setGot({ kind: 'error', message: `line 1: ${over}` });
        return;
      }
      engine.readPaste(kind, JSON.parse(key) as PasteKinds[K]['texts']).then(
        (value) => {
          if (!stale) setGot({ kind: 'ok', value });
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
  }, [empty, engine, kind, key]);
  return empty ? { kind: 'empty' } : got;
}

/** The most line numbers the gutter draws (far more than any machine's output has). */
export const MAX_GUTTER_LINES = 20_000;

/** Lines of `text`, counted without splitting it. */
function lineCount(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** The pasted text's lines with their numbers beside it; `mark` is the 1-based line an error names. */
export function NumberedTextarea({
  id,
  text,
  onChange,
  mark,
  describedBy,
  labelledBy,
  placeholder,
  rows = 14,
  testId,
}: {
  id: string;
  text: string;
  onChange: (t: string) => void;
  mark: number | null;
  describedBy: string;
  /** The id of what names the box when no <label> does (a section's heading). */
  labelledBy?: string;
  placeholder: string;
  rows?: number;
  testId?: string;
}) {
  const gutter = useRef<HTMLDivElement>(null);
  // The gutter numbers at most MAX_GUTTER_LINES lines: a 50 MB paste must not make a million elements.
  const count = Math.min(MAX_GUTTER_LINES, Math.max(1, lineCount(text)));
  const height = { height: `calc(${rows} * 1.45em + 0.8rem)` };
  return (
    <div className={styles.editor}>
      <div ref={gutter} className={styles.gutter} style={height} aria-hidden="true">
        {Array.from({ length: count }, (_, i) => (
          <div key={i} className={i + 1 === mark ? styles.gutterMark : undefined}>
            {i + 1}
          </div>
        ))}
      </div>
      <textarea
        id={id}
        className={styles.textarea}
        style={height}
        value={text}
        wrap="off"
        spellCheck={false}
        autoComplete="off"
        rows={rows}
        aria-invalid={mark !== null}
        aria-describedby={describedBy}
        aria-labelledby={labelledBy}
        placeholder={placeholder}
        data-testid={testId}
        onChange={(e) => onChange(e.target.value)}
        onScroll={(e) => {
          if (gutter.current) gutter.current.scrollTop = e.currentTarget.scrollTop;
        }}
      />
    </div>
  );
}

/** Selects line `n` (1-based) of a textarea and scrolls it into view. */
export function selectLine(area: HTMLTextAreaElement | null, n: number): void {
  if (!area) return;
  const lines = area.value.split('\n');
  const start = lines.slice(0, n - 1).reduce((sum, l) => sum + l.length + 1, 0);
  const end = start + (lines[n - 1]?.length ?? 0);
  area.focus();
  area.setSelectionRange(start, end);
  const lineHeight = parseFloat(getComputedStyle(area).lineHeight) || 20;
  area.scrollTop = Math.max(0, (n - 3) * lineHeight);
}

/** An engine message about `text`: "Line N:" and the message, and line N's text as a button that selects it in the box `areaId`. */
export function PasteError({ message, text, areaId, testId, what }: { message: string; text: string; areaId: string; testId: string; what: string }) {
  const mark = errorLine(message);
  const line = mark !== null ? text.split('\n')[mark - 1] : undefined;
  return (
    <div className={styles.error} role="alert" data-testid={testId}>
      <p className={styles.errorText}>
        {mark !== null ? (
          <strong>
            {what}, line {mark}:
          </strong>
        ) : (
          <strong>Cannot read the {what}:</strong>
        )}{' '}
        {errorWithoutLine(message.replace(/^(?:Error: )?(?:numactl|lscpu|zoneinfo) text (?=line \d+: )/, ''))}
      </p>
      {mark !== null && line !== undefined && (
        <button
          type="button"
          className={styles.lineButton}
          title="Select this line in the box"
          onClick={() => selectLine(document.getElementById(areaId) as HTMLTextAreaElement | null, mark)}
        >
          <span className={styles.lineNo}>{mark}</span>
          <code className={styles.lineText}>{line === '' ? '(empty line)' : line}</code>
        </button>
      )}
      <p className={styles.note}>Your pasted text is kept: fix it in the box.</p>
    </div>
  );
}

/**
 * One paste box: its label (or the heading `labelledBy` names), the numbered text, and under it
 * (its description) the engine's message about the text when `error` is one, with the line it
 * names marked in the box, and `children` (what was read, or a note).
 */
export function PasteBox({
  label,
  labelledBy,
  text,
  onChange,
  error,
  what,
  placeholder,
  rows,
  testId,
  errorTestId,
  children,
}: {
  label?: ReactNode;
  labelledBy?: string;
  text: string;
  onChange: (t: string) => void;
  /** The engine's message about this text, or null. */
  error: string | null;
  /** The text as the message names it ("zoneinfo", "lscpu"). */
  what: string;
  placeholder: string;
  rows?: number;
  testId: string;
  errorTestId: string;
  children?: ReactNode;
}) {
  const ids = { text: useId(), status: useId() };
  return (
    <>
      {label !== undefined && (
        <label htmlFor={ids.text} className={styles.label}>
          {label}
        </label>
      )}
      <NumberedTextarea
        id={ids.text}
        text={text}
        onChange={onChange}
        mark={error === null ? null : errorLine(error)}
        describedBy={ids.status}
        labelledBy={label === undefined ? labelledBy : undefined}
        placeholder={placeholder}
        rows={rows}
        testId={testId}
      />
      <div id={ids.status} className={styles.status}>
        {error !== null && <PasteError message={error} text={text} areaId={ids.text} testId={errorTestId} what={what} />}
        {children}
      </div>
    </>
  );
}
