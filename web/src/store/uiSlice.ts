// UI slice: banner messages, selection, hovered frame.
import type { StateCreator } from 'zustand';
import type { AppState, PasteBox, UiSlice } from './types';

let nextMessageId = 1;

/** The sessionStorage key of the numactl box's text. */
export const NUMACTL_TEXT_KEY = 'mmviz.numactlText';

/** The numactl text kept in this tab's session ('' when there is none or storage is off). */
function storedNumactlText(): string {
  try {
    return globalThis.sessionStorage?.getItem(NUMACTL_TEXT_KEY) ?? '';
  } catch {
    return '';
  }
}

function storeNumactlText(text: string): void {
  try {
    if (text === '') globalThis.sessionStorage?.removeItem(NUMACTL_TEXT_KEY);
    else globalThis.sessionStorage?.setItem(NUMACTL_TEXT_KEY, text);
  } catch {
    // Storage full or off: the store still holds the text for this page.
  }
}

/** The boxes of pasted machine output besides numactl's, each kept in this tab's session under `mmviz.paste.<box>`. */
export const PASTE_BOXES = ['lscpu', 'zoneinfo', 'vmstatBefore', 'vmstatAfter', 'vmstatInterval'] as const;

function storedPastes(): Record<PasteBox, string> {
  const out = {} as Record<PasteBox, string>;
  for (const box of PASTE_BOXES) {
    try {
      out[box] = globalThis.sessionStorage?.getItem(`mmviz.paste.${box}`) ?? '';
    } catch {
      out[box] = '';
    }
  }
  return out;
}

function storePaste(box: PasteBox, text: string): void {
  try {
    if (text === '') globalThis.sessionStorage?.removeItem(`mmviz.paste.${box}`);
    else globalThis.sessionStorage?.setItem(`mmviz.paste.${box}`, text);
  } catch {
    // Storage full or off: the store still holds the text for this page.
  }
}

/** Creates the UI slice. */
export const createUiSlice: StateCreator<AppState, [], [], UiSlice> = (set) => ({
  messages: [],
  selection: null,
  hoverPfn: null,
  report: (message, severity = 'error', action) =>
    set((s) =>
      s.messages.some((m) => m.message === message) ? s : { messages: [...s.messages, { id: nextMessageId++, message, severity, ...(action ? { action } : {}) }] },
    ),
  dismiss: (id) => set((s) => ({ messages: s.messages.filter((m) => m.id !== id) })),
  dismissAll: () => set({ messages: [] }),
  select: (selection) => set({ selection }),
  setHoverPfn: (hoverPfn) => set({ hoverPfn }),
  plots: { counters: null, rate: false },
  setPlots: (plots) => set({ plots }),
  numactlText: storedNumactlText(),
  setNumactlText: (numactlText) => {
    storeNumactlText(numactlText);
    set({ numactlText });
  },
  pastes: storedPastes(),
  setPaste: (box, text) => {
    storePaste(box, text);
    set((s) => ({ pastes: { ...s.pastes, [box]: text } }));
  },
  reality: null,
  setReality: (reality) => set({ reality }),
});
