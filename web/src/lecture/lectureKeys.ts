// Lecture mode's keys, as a pure mapping (tested). A presentation clicker sends PageDown /
// PageUp (some send arrows, Space or B); in lecture mode they move the lecture whatever has
// focus, since nothing else on a lecture screen takes them. Only a text box keeps the keys
// that edit it (arrows, Space, Home, End), so a guess can be typed.

/** What a key does in lecture mode. */
export type LectureCommand = 'next' | 'prev' | 'forward' | 'back' | 'first' | 'last' | 'togglePlay' | 'notes' | 'fullscreen' | 'exit' | 'reveal';

/** The parts of a keyboard event the mapping needs. */
export interface LectureKeyInput {
  key: string;
  shiftKey: boolean;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  /** The focused element takes typed text (an input for a guess, a text area). */
  targetTakesText: boolean;
}

/** Keys a text box keeps for itself in lecture mode. */
const TEXT_KEYS = new Set(['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'Home', 'End', ' ', 'Spacebar', 'n', 'N', 'f', 'F', 'p', 'P', 'k', 'K', 'r', 'R']);

/** The command for a key press in lecture mode, or null to leave the key alone. */
export function lectureCommandForKey(e: LectureKeyInput): LectureCommand | null {
  if (e.altKey || e.ctrlKey || e.metaKey) return null;
  if (e.targetTakesText && TEXT_KEYS.has(e.key)) return null;
  switch (e.key) {
    case 'PageDown':
      return 'next';
    case 'PageUp':
      return 'prev';
    case ' ':
    case 'Spacebar':
      return e.shiftKey ? 'prev' : 'next';
    case 'ArrowRight':
    case 'ArrowDown':
      return 'forward';
    case 'ArrowLeft':
    case 'ArrowUp':
      return 'back';
    case 'Home':
      return 'first';
    case 'End':
      return 'last';
    case 'p':
    case 'P':
    case 'k':
    case 'K':
      return 'togglePlay';
    case 'n':
    case 'N':
      return 'notes';
    case 'f':
    case 'F':
      return 'fullscreen';
    case 'r':
    case 'R':
      return 'reveal';
    case 'Escape':
    case 'Esc':
      return 'exit';
    default:
      return null;
  }
}
