// Keyboard shortcuts of the lab, as a pure mapping (tested), and the list the key sheet shows.
//
// The keys a lecture depends on (PageUp/PageDown, Space, arrows: what a clicker sends) drive the
// lab whatever has focus, except where a control needs them for itself:
// - typing (a text field, a textarea, contenteditable): only PageUp/PageDown go to the lab;
// - a closed <select>: PageUp/PageDown/Space go to the lab (they would pick another option or
//   open the list); the arrows stay with the select when it was reached with the keyboard (that is
//   how a keyboard user changes it), and go to the lab when it was last clicked (a mouse pick:
//   the lecturer's next key press is meant for the lab). An open list gets no key events at all;
// - the step scrubber: every key goes to the lab (PageUp/PageDown by chapter, Space plays);
// - buttons, links, switches and checkboxes keep Space (it activates them) when they were reached
//   with the keyboard; after a click, Space plays and pauses like everywhere else.

/** What a shortcut does. */
export type KeyCommand = 'back' | 'forward' | 'first' | 'last' | 'togglePlay' | 'prevChapter' | 'nextChapter' | 'keySheet';

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
  /** True when the target got focus from a pointer (a click), not from the keyboard. */
  targetPointerFocused?: boolean;
}

/** How a focused element uses keys. */
type TargetKind = 'text' | 'select' | 'range' | 'toggle' | 'radio' | 'button' | 'other';

/** Input types that take no typing. */
const TOGGLE_INPUTS = new Set(['checkbox']);
const BUTTON_INPUTS = new Set(['button', 'submit', 'reset', 'image', 'color', 'file']);
const BUTTON_TAGS = new Set(['BUTTON', 'A', 'SUMMARY']);
const BUTTON_ROLES = new Set(['button', 'link', 'menuitem', 'tab', 'option']);
const TEXT_ROLES = new Set(['textbox', 'searchbox', 'spinbutton', 'combobox']);

function targetKind(e: KeyInput): TargetKind {
  const role = e.targetRole ?? null;
  if (e.targetEditable || e.targetTag === 'TEXTAREA') return 'text';
  if (e.targetTag === 'SELECT') return 'select';
  if (e.targetTag === 'INPUT') {
    const type = (e.targetType ?? 'text').toLowerCase();
    if (type === 'range') return 'range';
    if (TOGGLE_INPUTS.has(type)) return 'toggle';
    if (type === 'radio') return 'radio';
    if (BUTTON_INPUTS.has(type)) return 'button';
    return 'text';
  }
  if (role !== null && TEXT_ROLES.has(role)) return 'text';
  if (role === 'slider') return 'text';
  if (role === 'switch' || role === 'checkbox') return 'toggle';
  if (BUTTON_TAGS.has(e.targetTag) || (role !== null && BUTTON_ROLES.has(role))) return 'button';
  return 'other';
}

function commandOf(key: string): KeyCommand | null {
  switch (key) {
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
      return 'togglePlay';
    case '?':
      return 'keySheet';
    default:
      return null;
  }
}

const ARROWS = new Set(['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End']);

/** Returns the command for a key press, or null when the key must be left to the focused control (or is no shortcut). */
export function commandForKey(e: KeyInput): KeyCommand | null {
  if (e.altKey || e.ctrlKey || e.metaKey) return null;
  const command = commandOf(e.key);
  if (command === null) return null;
  const chapterKey = command === 'prevChapter' || command === 'nextChapter';
  const space = command === 'togglePlay';
  const byPointer = e.targetPointerFocused === true;
  switch (targetKind(e)) {
    case 'text':
      return chapterKey ? command : null;
    case 'select':
      if (chapterKey || space) return command;
      return byPointer ? command : null;
    case 'range':
      return command;
    case 'radio':
      if (ARROWS.has(e.key) && !byPointer) return null;
      return space && !byPointer ? null : command;
    case 'toggle':
    case 'button':
      return space && !byPointer ? null : command;
    case 'other':
      return command;
  }
}

/** One line of the key sheet. */
export interface Shortcut {
  keys: readonly string[];
  what: string;
}

/** Every shortcut, as the key sheet lists them (the lab's keys first, then the ones inside controls). */
export const SHORTCUTS: readonly Shortcut[] = [
  { keys: ['Space'], what: 'Play / pause' },
  { keys: ['←', '→'], what: 'Step back / forward (pauses)' },
  { keys: ['PageUp', 'PageDown'], what: 'Previous / next chapter (a presentation clicker sends these)' },
  { keys: ['Home', 'End'], what: 'First / last step' },
  { keys: ['?'], what: 'This list of keys' },
  { keys: ['Esc'], what: 'Close this list, a dialog or a patch card' },
  { keys: ['Tab'], what: 'Next control; the first stop is “Skip to step controls”' },
  { keys: ['Enter'], what: 'In “Go to step”: go there (1234567 or 1,234,567)' },
  { keys: ['↑', '↓', '←', '→'], what: 'On the machine’s frames or in a dense grid: move between cells (Home, End: first, last); Enter selects' },
];

/** The keys `commandForKey` maps, as the sheet names them. */
export const MAPPED_KEY_NAMES: Readonly<Record<string, string>> = {
  ' ': 'Space',
  ArrowLeft: '←',
  ArrowRight: '→',
  Home: 'Home',
  End: 'End',
  PageUp: 'PageUp',
  PageDown: 'PageDown',
  '?': '?',
};
