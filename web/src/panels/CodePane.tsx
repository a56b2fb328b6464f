// Code pane: our pseudo-code of the kernel function the current step is in,
// for the active toggle value, with the current line highlighted; optional
// before/after side-by-side view for functions a patch changes.
import { useId, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { sideBySideDiff } from '../base/diff';
import { functionLabel } from '../base/format';
import { shownListing, type ListingChoice } from '../engine/listing';
import type { CodeListing } from '../engine/types';
import { useAppStore, useRun } from '../store/context';
import styles from './CodePane.module.css';
import panel from './Panel.module.css';

/** Scrolls `container` so that its descendant `target` is visible (without scrolling the page). */
function scrollWithin(container: HTMLElement | null, target: HTMLElement | null): void {
  if (!container || !target) return;
  const top = target.offsetTop;
  const bottom = top + target.offsetHeight;
  if (top < container.scrollTop || bottom > container.scrollTop + container.clientHeight) {
    container.scrollTop = Math.max(0, top - container.clientHeight / 3);
  }
}

function Listing({ listing, currentLine }: { listing: CodeListing; currentLine: string | null }) {
  const box = useRef<HTMLOListElement>(null);
  const current = useRef<HTMLLIElement>(null);
  useLayoutEffect(() => scrollWithin(box.current, current.current), [currentLine, listing]);
  return (
    <ol ref={box} className={styles.listing} aria-label={`${listing.function}, ${listing.follows}`}>
      {listing.lines.map((line, i) => {
        const isCurrent = line.id !== '' && line.id === currentLine;
        return (
          <li key={`${line.id}-${i}`} ref={isCurrent ? current : undefined} className={isCurrent ? styles.current : styles.line} aria-current={isCurrent ? 'true' : undefined}>
            <span className={styles.lineNo} aria-hidden="true">
              {i + 1}
            </span>
            <code className={styles.code}>{line.text || ' '}</code>
          </li>
        );
      })}
    </ol>
  );
}

function DiffView({ choice, currentLine }: { choice: ListingChoice; currentLine: string | null }) {
  const rows = useMemo(
    () => sideBySideDiff(choice.before.lines.map((l) => l.text), choice.after.lines.map((l) => l.text)),
    [choice.before, choice.after],
  );
  const box = useRef<HTMLDivElement>(null);
  const current = useRef<HTMLTableRowElement>(null);
  useLayoutEffect(() => scrollWithin(box.current, current.current), [currentLine, choice]);
  const label = (side: 'before' | 'after'): string => {
    const values = choice.patch.valueLabels;
    return side === 'before' ? `before (${values[0] ?? 'off'})` : `after (${choice.patch.kind === 'bool' ? (values[1] ?? 'on') : values.slice(1).join(' / ')})`;
  };
  return (
    <div ref={box} className={styles.diffBox}>
      <table className={styles.diff} aria-label={`${choice.before.function}: before and after the patch`}>
        <thead>
          <tr>
            <th scope="col" colSpan={2} className={choice.side === 'before' ? styles.activeSide : undefined}>
              {label('before')} <span className={styles.follows}>{choice.before.follows}</span>
            </th>
            <th scope="col" colSpan={2} className={choice.side === 'after' ? styles.activeSide : undefined}>
              {label('after')} <span className={styles.follows}>{choice.after.follows}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => {
            const left = row.left === null ? null : choice.before.lines[row.left];
            const right = row.right === null ? null : choice.after.lines[row.right];
            const activeLine = choice.side === 'before' ? left : right;
            const isCurrent = activeLine !== null && activeLine !== undefined && activeLine.id !== '' && activeLine.id === currentLine;
            return (
              <tr key={i} ref={isCurrent ? current : undefined} className={`${styles[row.kind] ?? ''} ${isCurrent ? styles.currentRow : ''}`} aria-current={isCurrent ? 'true' : undefined}>
                <td className={styles.lineNo}>{row.left === null ? '' : row.left + 1}</td>
                <td className={styles.diffCode}>
                  <code>{left?.text ?? ''}</code>
                </td>
                <td className={styles.lineNo}>{row.right === null ? '' : row.right + 1}</td>
                <td className={styles.diffCode}>
                  <code>{right?.text ?? ''}</code>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** The code pane. */
export function CodePane() {
  const titleId = useId();
  const code = useRun((r) => r.frame?.code ?? null);
  const patches = useAppStore((s) => s.patches);
  const toggles = useRun((r) => r.summary?.toggles);
  const listings = useRun((r) => r.summary?.listings);
  const [diff, setDiff] = useState(false);
  const shown = useMemo(
    () => (code && toggles ? shownListing(listings ?? [], patches, toggles, code.function) : null),
    [code, listings, patches, toggles],
  );
  const choice = shown?.choice ?? null;
  const differs =
    choice !== null &&
    (choice.before.lines.length !== choice.after.lines.length || choice.before.lines.some((l, i) => l.text !== choice.after.lines[i]?.text));
  const currentLine = code?.line || null;

  return (
    <section className={panel.panel} aria-labelledby={titleId}>
      <h2 id={titleId} className={panel.title}>
        Code
        {code ? <code className={styles.fn}>{functionLabel(code.function)}</code> : <span className={panel.subtitle}>no kernel function at this step</span>}
        {shown && !(diff && differs) && <span className={panel.subtitle}>{shown.listing.follows}</span>}
        {differs && (
          <button type="button" className={panel.smallButton} aria-pressed={diff} onClick={() => setDiff(!diff)}>
            Compare before/after
          </button>
        )}
      </h2>
      {code && !shown && (
        <p className={styles.none}>
          <code>{functionLabel(code.function)}</code>: no listing
        </p>
      )}
      {shown && (choice && diff && differs ? <DiffView choice={choice} currentLine={currentLine} /> : <Listing listing={shown.listing} currentLine={currentLine} />)}
      {!code && <p className={styles.none}>The CPU of this step is in user space or idle.</p>}
    </section>
  );
}
