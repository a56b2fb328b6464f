// Keeps the URL fragment in step with the shareable state (debounced
// history.replaceState) and applies fragments pasted into the address bar. A jump a person
// makes (a Why? hop, a chapter, a plot, the first divergence; the store's `historyMark`)
// leaves a history entry: the frame jumped from is written first, and the frame jumped to is
// pushed, so Back returns to where the jump started.
import { useEffect } from 'react';
import { selectShareState, type AppStore } from '../store/appStore';
import { useAppStoreApi } from '../store/context';
import { stateToUrl } from './url';

/** Delay before the URL follows the state, in milliseconds. */
export const URL_DEBOUNCE_MS = 250;

/** The fragment (without '#') for the store's current state, or null before a scenario is loaded. */
export function currentFragment(store: AppStore): string | null {
  const share = selectShareState(store.getState());
  return share ? stateToUrl(share) : null;
}

/** Writes the current state to the URL now (a new history entry when `push`); returns the full link. */
export function writeUrlNow(store: AppStore, push = false): string {
  const fragment = currentFragment(store);
  if (fragment !== null && window.location.hash !== `#${fragment}`) {
    if (push) window.history.pushState(window.history.state, '', `#${fragment}`);
    else window.history.replaceState(window.history.state, '', `#${fragment}`);
  }
  return window.location.href;
}

/** Hook: syncs store → URL (debounced) and URL → store on hashchange. */
export function useUrlSync(): void {
  const store = useAppStoreApi();
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let lastFragment = currentFragment(store);
    // A jump was asked for: the next URL written is a new history entry.
    let pushNext = false;
    const unsubscribe = store.subscribe((state, previous) => {
      if (state.historyMark !== previous.historyMark && !state.loading) {
        // The frame jumped from is still the state's: it goes in the address bar now.
        clearTimeout(timer);
        writeUrlNow(store);
        lastFragment = currentFragment(store);
        pushNext = true;
        return;
      }
      // While a load runs, the address bar keeps what was asked for (e.g. a
      // pasted link still opening); it follows the screen again once the load
      // ends, however it ended: shown, failed, superseded or cancelled. A link that
      // could not be read stays there until the person does something.
      if (state.loading || state.urlHold !== null) return;
      const fragment = currentFragment(store);
      if (fragment === null) return;
      // A load that ended, or a held link released, leaves the address bar behind the screen.
      const behind = previous.loading !== null || previous.urlHold !== null;
      const hash = window.location.hash;
      const stale = behind && hash !== '' && hash !== `#${fragment}`;
      if (fragment === lastFragment && !stale) return;
      lastFragment = fragment;
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (store.getState().loading || store.getState().urlHold !== null) return;
        writeUrlNow(store, pushNext);
        pushNext = false;
      }, URL_DEBOUNCE_MS);
    });
    const onHashChange = (): void => {
      const hash = window.location.hash.replace(/^#/, '');
      if (hash === currentFragment(store)) return;
      void store.getState().applyFragment(hash);
    };
    window.addEventListener('hashchange', onHashChange);
    return () => {
      clearTimeout(timer);
      unsubscribe();
      window.removeEventListener('hashchange', onHashChange);
    };
  }, [store]);
}
