// Registers the service worker (offline use after the first load) in the built site, and tells
// the store when a new build is installed and waiting, so the person can reload into it.
import type { AppStore } from '../store/appStore';

/** Registers `sw.js` (production builds only); reports a waiting new build with a Reload action. */
export function registerServiceWorker(store: AppStore): void {
  if (!import.meta.env.PROD || typeof navigator === 'undefined' || !('serviceWorker' in navigator)) return;
  const offer = (worker: ServiceWorker): void => {
    store.getState().report('A new version of the lab is installed. Reload to use it (this page keeps running the version it opened with).', 'info', {
      label: 'Reload now',
      run: () => {
        navigator.serviceWorker.addEventListener('controllerchange', () => window.location.reload(), { once: true });
        worker.postMessage('SKIP_WAITING');
      },
    });
  };
  navigator.serviceWorker.register('./sw.js').then(
    (reg) => {
      // A build installed in an earlier visit that still waits for this page.
      if (reg.waiting && navigator.serviceWorker.controller) offer(reg.waiting);
      reg.addEventListener('updatefound', () => {
        const installing = reg.installing;
        installing?.addEventListener('statechange', () => {
          // Installed while another build controls the page: a new version, not the first install.
          if (installing.state === 'installed' && navigator.serviceWorker.controller) offer(installing);
        });
      });
    },
    (err: unknown) => {
      store.getState().report(`The lab could not be made available offline: ${err instanceof Error ? err.message : String(err)}`, 'info');
    },
  );
}
