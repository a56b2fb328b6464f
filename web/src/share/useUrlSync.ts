// Keeps the URL fragment in step with the shareable state (debounced
// history.replaceState) and applies fragments pasted into the address bar. A jump a person
// makes (a Why? hop, a chapter, a plot, the first divergence; the store's `historyMark`)
// leaves a history entry: the frame jumped from is written first, and the next write after it,
// whoever makes it (the debounced follower, or Copy link writing the URL at once), is pushed,
// so Back returns to where the jump started even when the person moves on (End, a step) before
// the debounce has written the frame the jump landed on. An embed writes no URL at all: inside
// another page's iframe its history entries would be that page's, and its link is the host's.
import { useEffect } from 'react';
import { linkBase } from '../base/build';
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

/**
 * A jump was made and the entry it started from is written: the next URL written for a
 * different frame is a new history entry. One per window, like the history it speaks of.
 */
let entryPending = false;

/**
 * Writes the current state to the URL now: a new history entry when `push` or when a jump left
 * one pending, else in place. Returns the full link.
 */
export function writeUrlNow(store: AppStore, push = false): string {
  const fragment = currentFragment(store);
  if (fragment !== null && window.location.hash !== `#${fragment}`) {
    if (push || entryPending) window.history.pushState(window.history.state, '', `#${fragment}`);
    else window.history.replaceState(window.history.state, '', `#${fragment}`);
    entryPending = false;
  }
  return window.location.href;
}

/** Forgets a pending history entry (for tests, and when the hook stops). */
export function resetPendingEntry(): void {
  entryPending = false;
}

/** Writes the URL now and returns the link to share: the current fragment at the lab's public address (base/build.ts). */
export function currentLink(store: AppStore): string {
  writeUrlNow(store);
  return `${linkBase(window.location)}${window.location.hash}`;
}

/**
 * A plain click on a link to a lab state (`#…`) that the lab lets the browser follow: a
 * fragment other than the address bar's fires hashchange (applied by the hook below), but the
 * same one fires nothing, so its state is applied here: the run the link names is shown again
 * at its step, reloaded if another run is on screen (or loading) and moved if it is that run.
 */
export function followLink(store: AppStore, href: string): void {
  if (!href.startsWith('#')) return;
  // Compared as the browser writes them (percent-encoding and all).
  if (new URL(href, window.location.href).hash !== window.location.hash) return;
  void store.getState().applyFragment(href.slice(1));
}

/** Hook: syncs store → URL (debounced) and URL → store on hashchange. */
export function useUrlSync(): void {
  const store = useAppStoreApi();
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let lastFragment = currentFragment(store);
    const unsubscribe = store.subscribe((state, previous) => {
      if (state.mode === 'embed') return;
      if (state.historyMark !== previous.historyMark && !state.loading) {
        // The frame jumped from is still the state's: it goes in the address bar now (as a new
        // entry if an earlier jump's landing is still pending), and the frame jumped to will be
        // the next entry.
        clearTimeout(timer);
        writeUrlNow(store);
        lastFragment = currentFragment(store);
        entryPending = true;
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
        if (store.getState().loading || store.getState().urlHold !== null || store.getState().mode === 'embed') return;
        writeUrlNow(store);
      }, URL_DEBOUNCE_MS);
    });
    const onHashChange = (): void => {
      // Back, Forward or a pasted link: the history is the person's now, no jump entry is owed.
      entryPending = false;
      const hash = window.location.hash.replace(/^#/, '');
      if (hash === currentFragment(store)) return;
      void store.getState().applyFragment(hash);
    };
    window.addEventListener('hashchange', onHashChange);
    return () => {
      clearTimeout(timer);
      resetPendingEntry();
      unsubscribe();
      window.removeEventListener('hashchange', onHashChange);
    };
  }, [store]);
}
