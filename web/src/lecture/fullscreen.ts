// The Fullscreen API, wrapped: lecture mode asks for full screen when a person enters it (the
// browser allows it only from a click or a key press), and works in a window when refused.

/** Whether the document shows an element full screen. */
export function isFullscreen(): boolean {
  return typeof document !== 'undefined' && document.fullscreenElement !== null && document.fullscreenElement !== undefined;
}

/** Asks to show `element` full screen; resolves to false when the browser refuses (no user gesture, an iframe without `allowfullscreen`, no API). */
export async function enterFullscreen(element: HTMLElement): Promise<boolean> {
  if (isFullscreen()) return true;
  if (typeof element.requestFullscreen !== 'function') return false;
  try {
    await element.requestFullscreen({ navigationUI: 'hide' });
    return true;
  } catch {
    return false;
  }
}

// Set while leaving full screen on purpose (the button, F) rather than with Escape.
let leavingOnPurpose = false;

/** Whether the last exit from full screen was asked for by the lab (not Escape); reading it clears it. */
export function consumeLeftOnPurpose(): boolean {
  const was = leavingOnPurpose;
  leavingOnPurpose = false;
  return was;
}

/** Leaves full screen if the document is in it (`onPurpose`: a button or F, which keep lecture mode). */
export async function exitFullscreen(onPurpose = false): Promise<void> {
  if (!isFullscreen() || typeof document.exitFullscreen !== 'function') return;
  leavingOnPurpose = onPurpose;
  try {
    await document.exitFullscreen();
  } catch {
    // Already left (Escape pressed meanwhile): nothing to do.
  }
}
