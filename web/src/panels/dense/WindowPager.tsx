// Pages a windowed dense view: the frame holds one window of a large machine's PTEs or frames
// (see store/bulkWindow.ts); these controls ask for the window before or after it, or for the one
// holding a vpn or pfn typed in. The window asked for is fetched through the store like a seek.
import { useId, useState, type FormEvent, type ReactNode } from 'react';
import type { BulkWindow } from '../../engine/bulk';
import { fmt } from './denseMath';
import styles from './Dense.module.css';

/** "0x1f" (hex) or "31" (decimal) to a whole number, or null. */
export function parseIndex(text: string): number | null {
  const t = text.trim().replace(/[_,\s]/g, '');
  if (/^0x[0-9a-f]+$/i.test(t)) return parseInt(t.slice(2), 16);
  if (/^\d+$/.test(t)) return parseInt(t, 10);
  return null;
}

export interface WindowPagerProps {
  /** "PTEs" or "frames". */
  what: string;
  /** What the frame shown holds. */
  shown: BulkWindow;
  /** Start of the window asked for last: while it differs from `shown.offset`, the new window is on its way. */
  asked: number;
  /** Items a window holds. */
  size: number;
  /** Asks for the window starting at `start` (the store clamps it). */
  onPage: (start: number) => void;
  /** Name of the go-to field, e.g. "vpn" or "pfn". */
  goName: string;
  goPlaceholder: string;
  /** Goes to what the text names; returns a problem to show, or null. */
  onGo: (text: string) => string | null;
  /** Controls before the field (a pid picker). */
  children?: ReactNode;
  /** What was gone to, described once the window holds it; null when nothing was. */
  found?: string | null;
}

/** "PTEs 65,537–100,000 of 100,000 · Earlier / Later · Go to vpn [...]". */
export function WindowPager({ what, shown, asked, size, onPage, goName, goPlaceholder, onGo, children, found }: WindowPagerProps) {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const inputId = useId();
  const pending = asked !== shown.offset;
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    setProblem(onGo(text));
  };
  return (
    <div className={styles.pager} role="group" aria-label={`Window of ${what}`}>
      <span className={styles.pagerRange}>
        {what} {fmt(shown.offset + 1)}–{fmt(shown.offset + shown.count)} of {fmt(shown.total)}
      </span>
      <button type="button" className={styles.pagerButton} disabled={shown.offset === 0} onClick={() => onPage(shown.offset - size)}>
        Earlier {what}
      </button>
      <button type="button" className={styles.pagerButton} disabled={shown.offset + shown.count >= shown.total} onClick={() => onPage(shown.offset + size)}>
        Later {what}
      </button>
      <form className={styles.pagerForm} onSubmit={submit}>
        {children}
        <label htmlFor={inputId}>Go to {goName}</label>
        <input
          id={inputId}
          className={styles.pagerInput}
          value={text}
          placeholder={goPlaceholder}
          spellCheck={false}
          aria-invalid={problem !== null}
          onChange={(e) => {
            setText(e.target.value);
            setProblem(null);
          }}
        />
        <button type="submit" className={styles.pagerButton}>
          Go
        </button>
      </form>
      <span role="status" className={problem ? styles.pagerProblem : styles.pagerStatus}>
        {problem ?? (pending ? `loading the window of ${what}…` : (found ?? ''))}
      </span>
    </div>
  );
}
