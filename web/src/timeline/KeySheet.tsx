// The key sheet: a modal dialog listing every shortcut, opened by "?" or the header's
// "Keys" button, closed by Escape or its Close button; focus goes back where it was.
import { useEffect, useId, useRef } from 'react';
import { closeKeySheet, openKeySheet, useKeySheetOpen } from './keySheetStore';
import { SHORTCUTS } from './keys';
import styles from './KeySheet.module.css';

/** The header's button that opens the key sheet. */
export function KeySheetButton() {
  return (
    <button type="button" className={styles.open} onClick={openKeySheet} aria-haspopup="dialog" aria-keyshortcuts="?" title="Keyboard shortcuts (?)">
      Keys <kbd className={styles.hint}>?</kbd>
    </button>
  );
}

/** The dialog (mounted once, in the app). */
export function KeySheet() {
  const open = useKeySheetOpen();
  const dialog = useRef<HTMLDialogElement>(null);
  const returnTo = useRef<HTMLElement | null>(null);
  const titleId = useId();
  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (open && !d.open) {
      returnTo.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      if (typeof d.showModal === 'function') d.showModal();
      else d.setAttribute('open', '');
      d.querySelector<HTMLButtonElement>('button')?.focus();
    } else if (!open) {
      if (d.open) {
        if (typeof d.close === 'function') d.close();
        else d.removeAttribute('open');
      }
      // Back to where the user was (the browser does this after showModal too; not every one does).
      const back = returnTo.current;
      returnTo.current = null;
      if (back && back.isConnected && back !== document.body) back.focus({ preventScroll: true });
    }
  }, [open]);
  return (
    <dialog ref={dialog} className={styles.dialog} aria-labelledby={titleId} onClose={closeKeySheet}>
      {open && (
        <>
          <div className={styles.head}>
            <h2 id={titleId} className={styles.title}>
              Keyboard shortcuts
            </h2>
            <button type="button" className={styles.close} onClick={closeKeySheet}>
              Close
            </button>
          </div>
          <p className={styles.note}>
            These work whatever has focus, except that a text field keeps its keys (PageUp and PageDown still change the chapter) and a
            dropdown reached with Tab keeps its arrows.
          </p>
          <table className={styles.table}>
            <thead>
              <tr>
                <th scope="col">Keys</th>
                <th scope="col">What they do</th>
              </tr>
            </thead>
            <tbody>
              {SHORTCUTS.map((s) => (
                <tr key={s.what}>
                  <th scope="row" className={styles.keys}>
                    {s.keys.map((k, i) => (
                      <span key={k}>
                        {i > 0 && ' '}
                        <kbd>{k}</kbd>
                      </span>
                    ))}
                  </th>
                  <td>{s.what}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </dialog>
  );
}
