// Which element got focus from a pointer (a click on it or on its label) rather than from the
// keyboard or a script: the key mapping (keys.ts) sends arrows and Space to the lab from a
// control the user clicked, and leaves them to a control the user reached with Tab.

/** How long after a pointer press a focus change can still be its (a label's click focuses its control on release). */
const POINTER_FOCUS_WINDOW_MS = 1_500;

/** The labels of a form control, if it has any. */
function labelsOf(el: Element): readonly HTMLLabelElement[] {
  return el instanceof HTMLInputElement || el instanceof HTMLSelectElement || el instanceof HTMLTextAreaElement || el instanceof HTMLButtonElement ? [...(el.labels ?? [])] : [];
}

/** True when a press on `target` focuses `el`: it is inside `el` or inside one of its labels. */
function pressFocuses(el: Element, target: Node): boolean {
  return el.contains(target) || labelsOf(el).some((l) => l.contains(target));
}

/** Tracks the origin of focus on `win` until the returned function is called. */
export function trackFocusOrigin(win: Window): { pointerFocused: (el: Element | null) => boolean; stop: () => void } {
  let pressed: { target: Node; atMs: number } | null = null;
  let byPointer: Element | null = null;
  const onPointerDown = (e: Event): void => {
    const target = e.target instanceof Node ? e.target : null;
    pressed = target ? { target, atMs: win.performance.now() } : null;
    // A click on the element that already has focus (or on its label) makes it pointer-focused too.
    const active = win.document.activeElement;
    if (target && active && active !== win.document.body && pressFocuses(active, target)) byPointer = active;
  };
  const onKeyDown = (e: KeyboardEvent): void => {
    // A key that can move focus, pressed after the last click: the next focus change is the keyboard's.
    if (e.key === 'Tab' || e.key === 'Enter' || e.key === 'Escape') pressed = null;
  };
  const onFocusIn = (e: FocusEvent): void => {
    const el = e.target instanceof Element ? e.target : null;
    // Only the press's own focus counts: a script focusing another element after a click (a
    // dialog giving focus back, a test) leaves it the keyboard's.
    const recent = pressed !== null && win.performance.now() - pressed.atMs < POINTER_FOCUS_WINDOW_MS;
    byPointer = el && recent && pressed && pressFocuses(el, pressed.target) ? el : null;
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
