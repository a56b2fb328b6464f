// Whether the key sheet is open: opened by "?" (useKeyboard) or the header's Keys button, closed
// by its dialog. Outside the app store, like the theme: it is no part of a run.
import { useSyncExternalStore } from 'react';

let open = false;
const listeners = new Set<() => void>();

function set(next: boolean): void {
  if (next === open) return;
  open = next;
  for (const l of listeners) l();
}

/** Opens the key sheet. */
export function openKeySheet(): void {
  set(true);
}

/** Closes the key sheet. */
export function closeKeySheet(): void {
  set(false);
}

/** Hook: true while the key sheet is open. */
export function useKeySheetOpen(): boolean {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => open,
    () => false,
  );
}
