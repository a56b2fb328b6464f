// UI slice: banner messages, selection, hovered frame.
import type { StateCreator } from 'zustand';
import type { AppState, UiSlice } from './types';

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
});
