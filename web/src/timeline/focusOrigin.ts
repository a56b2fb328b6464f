// Which element got focus from a pointer (a click) rather than from the keyboard: the key
// mapping (keys.ts) sends arrows and Space to the lab from a control the user clicked, and
// leaves them to a control the user reached with Tab.

/** How long after a pointer press a focus change still counts as made by it (a label's click focuses its control on release). */
const POINTER_FOCUS_WINDOW_MS = 1_500;

/** Tracks the origin of focus on `win` until the returned function is called. */
export function trackFocusOrigin(win: Window): { pointerFocused: (el: Element | null) => boolean; stop: () => void } {
  let lastPointerDownMs = -Infinity;
  let byPointer: Element | null = null;
  const now = (): number => win.performance.now();
  const onPointerDown = (e: Event): void => {
    lastPointerDownMs = now();
    // A click on the element that already has focus (or on its label) makes it pointer-focused too.
    const active = win.document.activeElement;
    const target = e.target instanceof Node ? e.target : null;
    if (!active || !target || active === win.document.body) return;
    const label = active instanceof HTMLInputElement || active instanceof HTMLSelectElement ? active.labels?.[0] : null;
    if (active.contains(target) || label?.contains(target)) byPointer = active;
  };
  const onKeyDown = (e: KeyboardEvent): void => {
    // A key pressed since the last click means the next focus change is the keyboard's (Tab, a skip link, Enter on a button).
    if (e.key === 'Tab' || e.key === 'Enter' || e.key === 'Escape') lastPointerDownMs = -Infinity;
  };
  const onFocusIn = (e: FocusEvent): void => {
    byPointer = now() - lastPointerDownMs < POINTER_FOCUS_WINDOW_MS && e.target instanceof Element ? e.target : null;
  };
  win.addEventListener('pointerdown', onPointerDown, true);
  win.addEventListener('keydown', onKeyDown, true);
  win.addEventListener('focusin', onFocusIn, true);
  return {
    pointerFocused: (el) => el !== null && el === byPointer,
    stop: () => {
      win.removeEventListener('pointerdown', onPointerDown, true);
      win.removeEventListener('keydown', onKeyDown, true);
      win.removeEventListener('focusin', onFocusIn, true);
    },
  };
}
