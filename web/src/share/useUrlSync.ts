// Keeps the URL fragment in step with the shareable state (debounced
// history.replaceState) and applies fragments pasted into the address bar.
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

/** Writes the current state to the URL now; returns the full link. */
export function writeUrlNow(store: AppStore): string {
  const fragment = currentFragment(store);
  if (fragment !== null && window.location.hash !== `#${fragment}`) {
    window.history.replaceState(window.history.state, '', `#${fragment}`);
  }
  return window.location.href;
}

/** Hook: syncs store → URL (debounced) and URL → store on hashchange. */
export function useUrlSync(): void {
  const store = useAppStoreApi();
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let lastFragment = currentFragment(store);
    const unsubscribe = store.subscribe((state, previous) => {
      // While a load runs, the address bar keeps what was asked for (e.g. a
      // pasted link still opening); it follows the screen again once the load
      // ends, however it ended: shown, failed, superseded or cancelled.
      if (state.loading) return;
      const fragment = currentFragment(store);
      if (fragment === null) return;
      const loadEnded = previous.loading !== null;
      const hash = window.location.hash;
      const stale = loadEnded && hash !== '' && hash !== `#${fragment}`;
      if (fragment === lastFragment && !stale) return;
      lastFragment = fragment;
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (!store.getState().loading) writeUrlNow(store);
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
