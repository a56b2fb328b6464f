// UI slice: banner messages, selection, hovered frame.
import type { StateCreator } from 'zustand';
import type { AppState, UiSlice } from './types';

let nextMessageId = 1;

/** Creates the UI slice. */
export const createUiSlice: StateCreator<AppState, [], [], UiSlice> = (set) => ({
  messages: [],
  selection: null,
  hoverPfn: null,
  report: (message, severity = 'error') =>
    set((s) =>
      s.messages.some((m) => m.message === message) ? s : { messages: [...s.messages, { id: nextMessageId++, message, severity }] },
    ),
  dismiss: (id) => set((s) => ({ messages: s.messages.filter((m) => m.id !== id) })),
  dismissAll: () => set({ messages: [] }),
  select: (selection) => set({ selection }),
  setHoverPfn: (hoverPfn) => set({ hoverPfn }),
});
