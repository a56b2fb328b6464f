// The editor's autosave: every change to a scenario's text is kept in the browser's local
// storage, so a reload, a closed tab or a crash loses nothing. One draft per scenario the edit
// started from (a built-in's id, or "custom" for a scenario opened from a link or pasted).

/** A saved edit. */
export interface Draft {
  /** The edited text. */
  text: string;
  /** The text the edit started from (to tell whether anything was changed). */
  base: string;
  /** When it was saved, ms since the epoch. */
  savedAt: number;
}

/** The storage key of a scenario's draft. */
export function draftKey(scenario: string): string {
  return `mmviz.draft.${scenario}`;
}

/** The largest draft kept (local storage holds about 5 MB per site; scenarios are a few KB). */
export const MAX_DRAFT_CHARS = 1_000_000;

/** Reads a scenario's draft; null when there is none or it cannot be read. */
export function loadDraft(storage: Pick<Storage, 'getItem'> | null, scenario: string): Draft | null {
  try {
    const raw = storage?.getItem(draftKey(scenario));
    if (!raw) return null;
    const d = JSON.parse(raw) as Partial<Draft>;
    if (typeof d.text !== 'string' || typeof d.base !== 'string' || typeof d.savedAt !== 'number') return null;
    return { text: d.text, base: d.base, savedAt: d.savedAt };
  } catch {
    return null;
  }
}

/** Saves a draft; returns a message when it could not be kept (storage full, private mode, too large), else null. */
export function saveDraft(storage: Pick<Storage, 'setItem'> | null, scenario: string, draft: Draft): string | null {
  if (!storage) return 'this browser gives the page no local storage: the edit is not saved (copy it before you close the tab)';
  if (draft.text.length > MAX_DRAFT_CHARS) return `the text is ${draft.text.length.toLocaleString('en')} characters, more than the ${MAX_DRAFT_CHARS.toLocaleString('en')} the autosave keeps: copy it before you close the tab`;
  try {
    storage.setItem(draftKey(scenario), JSON.stringify(draft));
    return null;
  } catch (e) {
    return `the browser refused to save the edit (${e instanceof Error ? e.message : String(e)}): copy it before you close the tab`;
  }
}

/** Forgets a scenario's draft. */
export function clearDraft(storage: Pick<Storage, 'removeItem'> | null, scenario: string): void {
  try {
    storage?.removeItem(draftKey(scenario));
  } catch {
    // Nothing to do: a draft that cannot be removed is offered again, which loses nothing.
  }
}

/** The page's local storage, or null where it is unavailable (some private modes throw on access). */
export function pageStorage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}
