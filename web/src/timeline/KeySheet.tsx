// The key sheet: a modal dialog listing every shortcut, opened by "?" or the header's
// "Keys" button, closed by Escape or its Close button; focus goes back where it was (widgets/Dialog).
import { closeKeySheet, openKeySheet, useKeySheetOpen } from './keySheetStore';
import { LECTURE_SHORTCUTS, SHORTCUTS } from './keys';
import { Dialog } from '../widgets/Dialog';
import styles from './KeySheet.module.css';

/** The header's button that opens the key sheet. */
export function KeySheetButton() {
  return (
    <button type="button" className={styles.open} onClick={openKeySheet} aria-haspopup="dialog" aria-keyshortcuts="?" title="Keyboard shortcuts (?)">
      Keys <kbd className={styles.hint}>?</kbd>
    </button>
  );
}

/** The dialog (mounted once, in the app); in lecture mode it lists lecture mode's keys. Nothing in it takes focus but Close, which has it. */
export function KeySheet({ lecture = false }: { lecture?: boolean }) {
  const open = useKeySheetOpen();
  return (
    <Dialog open={open} onClose={closeKeySheet} title="Keyboard shortcuts" className={styles.dialog}>
      {lecture ? (
        <p className={styles.note}>
          Lecture mode: a clicker&rsquo;s keys work whatever has focus, except that a guess&rsquo;s text field keeps its keys and a
          button or checkbox reached with Tab keeps Space.
        </p>
      ) : (
        <p className={styles.note}>
          These work whatever has focus, except that a text field keeps its keys (PageUp and PageDown still change the chapter) and a
          dropdown reached with Tab keeps its arrows.
        </p>
      )}
      <table className={styles.table}>
        <thead>
          <tr>
            <th scope="col">Keys</th>
            <th scope="col">What they do</th>
          </tr>
        </thead>
        <tbody>
          {(lecture ? LECTURE_SHORTCUTS : SHORTCUTS).map((s) => (
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
    </Dialog>
  );
}
