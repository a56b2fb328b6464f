// The lab's one modal dialog frame (About, Export…, Edit…, Machine…, Measured…, Sweep…,
// Explore…, the key sheet). A native <dialog> opened with showModal, so the page behind is
// inert and the backdrop sits in the browser's top layer, with what a keyboard or
// screen-reader user expects of a modal (WAI-ARIA APG, "Dialog (Modal)"): role dialog,
// aria-modal, named by its visible title (aria-labelledby); on open the focus goes to the
// body's first control (or where the owner says), Tab and Shift+Tab stay inside, Escape and
// Close ask the owner to close, and the focus goes back to what had it before (the opener).
// The owner holds `open`; the body is rendered only while it is open. Keys typed inside an
// open dialog belong to it: the lab's and lecture mode's shortcuts skip `dialog[open]`.
import { useId, useLayoutEffect, useRef, type KeyboardEvent, type ReactNode } from 'react';
import styles from './Dialog.module.css';

/** Elements that can take the focus (filtered further by `tabbables`). */
const FOCUSABLE = 'a[href], button, input, select, textarea, summary, iframe, [tabindex], [contenteditable]:not([contenteditable="false"])';

/** The controls Tab reaches inside `root`, in document order (a radio group once: its checked radio, else its first). */
export function tabbables(root: HTMLElement): HTMLElement[] {
  const radios = [...root.querySelectorAll<HTMLInputElement>('input[type="radio"]')];
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => {
    if (el.getAttribute('tabindex') !== null && el.tabIndex < 0) return false;
    if (el.matches(':disabled') || el.closest('[inert], [hidden]')) return false;
    // Layout-free environments (tests) have no checkVisibility: everything counts as shown there.
    if (typeof el.checkVisibility === 'function' && !el.checkVisibility({ visibilityProperty: true })) return false;
    if (el instanceof HTMLInputElement && el.type === 'radio' && el.name !== '') {
      const group = radios.filter((r) => r.name === el.name);
      return el === (group.find((r) => r.checked) ?? group[0]);
    }
    return true;
  });
}

/** True when `a` comes before `b` in the document (or contains it). */
function precedes(a: Node, b: Node): boolean {
  return (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
}

/** Props of a Dialog. */
export interface DialogProps {
  /** Whether the dialog is shown. */
  open: boolean;
  /** Close or Escape was used: the owner sets `open` to false (and may do more, e.g. stop work). */
  onClose: () => void;
  /** The visible title (a heading); it names the dialog. */
  title: ReactNode;
  /** Shown after the title in the head, before Close (e.g. a status line). */
  headExtra?: ReactNode;
  /** The owner's class for the frame's size (width, height, max-height). */
  className?: string;
  /** The owner's class for the body (e.g. a column that fills the frame). */
  bodyClassName?: string;
  /** What has the focus on open: a selector within the body, 'title', or (default) the body's first control, else Close. */
  initialFocus?: string;
  /** Close is disabled (Escape still asks `onClose`). */
  closeDisabled?: boolean;
  /** The body, rendered only while open. */
  children: ReactNode;
}

/** A modal dialog with a title, a Close button and a body. */
export function Dialog({ open, onClose, title, headExtra, className, bodyClassName, initialFocus, closeDisabled = false, children }: DialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const body = useRef<HTMLDivElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const close = useRef<HTMLButtonElement>(null);
  const opener = useRef<HTMLElement | null>(null);
  // Whether the browser's own modal is in use (it handles Escape); jsdom has none.
  const native = useRef(false);
  const titleId = useId();

  // A layout effect: the frame opens and closes in the same paint as its body appears and goes.
  useLayoutEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (open && !d.open) {
      opener.current = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
      native.current = typeof d.showModal === 'function';
      if (native.current) d.showModal();
      else d.setAttribute('open', '');
      const target =
        initialFocus === 'title'
          ? heading.current
          : initialFocus !== undefined
            ? body.current?.querySelector<HTMLElement>(initialFocus)
            : (body.current && tabbables(body.current)[0]) ?? close.current;
      (target ?? close.current)?.focus();
    } else if (!open) {
      if (d.open) {
        if (typeof d.close === 'function') d.close();
        else d.removeAttribute('open');
      }
      // Back to the opener (browsers differ in whether closing a modal does this).
      const back = opener.current;
      opener.current = null;
      if (back && back.isConnected) back.focus({ preventScroll: true });
    }
  }, [open, initialFocus]);

  const onKeyDown = (e: KeyboardEvent<HTMLDialogElement>): void => {
    if (e.defaultPrevented) return;
    if (e.key === 'Escape' && !native.current) {
      // Without the browser's modal nothing turns Escape into a close request.
      e.preventDefault();
      onClose();
      return;
    }
    if (e.key !== 'Tab' || !dialog.current) return;
    // The focus stays inside: past the last control Tab goes to the first, and Shift+Tab back.
    const list = tabbables(dialog.current);
    const first = list[0];
    const last = list[list.length - 1];
    const active = document.activeElement;
    if (!first || !last || !(active instanceof HTMLElement)) return;
    const i = list.indexOf(active);
    if (e.shiftKey && (i === 0 || (i < 0 && precedes(active, first)))) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && (i === list.length - 1 || (i < 0 && precedes(last, active)))) {
      e.preventDefault();
      first.focus();
    }
  };

  return (
    <dialog
      ref={dialog}
      className={`${styles.dialog} ${className ?? ''}`}
      aria-modal="true"
      aria-labelledby={titleId}
      // The browser closed it (Escape): tell the owner, whose state still says open.
      onClose={() => open && onClose()}
      onKeyDown={onKeyDown}
    >
      {open && (
        <>
          <div className={styles.head}>
            <div className={styles.heading}>
              <h2 id={titleId} ref={heading} className={styles.title} tabIndex={-1}>
                {title}
              </h2>
              {headExtra}
            </div>
            <button ref={close} type="button" className={styles.close} onClick={onClose} disabled={closeDisabled}>
              Close
            </button>
          </div>
          <div ref={body} className={bodyClassName}>
            {children}
          </div>
        </>
      )}
    </dialog>
  );
}
