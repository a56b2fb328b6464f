// Keyboard shortcuts of the transport, as a pure mapping (tested).

/** What a shortcut does. */
export type KeyCommand = 'back' | 'forward' | 'first' | 'last' | 'togglePlay' | 'prevChapter' | 'nextChapter';

/** The parts of a keyboard event the mapping needs. */
export interface KeyInput {
  key: string;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  /** Upper-case tag name of the event target, e.g. "INPUT". */
  targetTag: string;
  targetEditable: boolean;
  /** The target's role attribute, if any. */
  targetRole?: string | null;
  /** For INPUT targets: the input type (lower case), e.g. "text", "checkbox". */
  targetType?: string | null;
}

const TYPING_TAGS = new Set(['TEXTAREA', 'SELECT']);
const ACTIVATES_ON_SPACE = new Set(['BUTTON', 'A', 'SUMMARY']);
/** Inputs that do not take typing or arrow keys themselves: shortcuts work there, except space. */
const CLICK_INPUTS = new Set(['checkbox', 'radio', 'button', 'submit', 'reset']);

/** Returns the command for a key press, or null when the key must be left alone (typing, modifiers, unknown). */
export function commandForKey(e: KeyInput): KeyCommand | null {
  if (e.altKey || e.ctrlKey || e.metaKey) return null;
  if (TYPING_TAGS.has(e.targetTag) || e.targetEditable) return null;
  const clickInput = e.targetTag === 'INPUT' && CLICK_INPUTS.has((e.targetType ?? 'text').toLowerCase());
  if (e.targetTag === 'INPUT' && !clickInput) return null;
  if (e.targetRole === 'slider' || e.targetRole === 'textbox' || e.targetRole === 'spinbutton' || e.targetRole === 'combobox') return null;
  if (clickInput && (e.key === ' ' || e.key === 'Spacebar')) return null;
  switch (e.key) {
    case 'ArrowLeft':
      return 'back';
    case 'ArrowRight':
      return 'forward';
    case 'Home':
      return 'first';
    case 'End':
      return 'last';
    case 'PageUp':
      return 'prevChapter';
    case 'PageDown':
      return 'nextChapter';
    case ' ':
    case 'Spacebar':
      return ACTIVATES_ON_SPACE.has(e.targetTag) || e.targetRole === 'button' || e.targetRole === 'switch' ? null : 'togglePlay';
    default:
      return null;
  }
}
