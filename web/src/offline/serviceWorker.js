// The lab's service worker: after the first load, the whole static build (the page, its
// scripts, the engine's workers and its wasm module) comes from a cache, so the lab opens and
// runs with the network off. The build writes this file out as sw.js with two constants in
// front of it (vite.config.ts, `offlinePlugin`): BUILD, the build's id, and ASSETS, every file
// of the build. Each build has a cache of its own; a new build waits until the page says
// "reload" (SKIP_WAITING) so a lecture in progress is never switched under the speaker, and
// then deletes the caches of older builds.
const CACHE = `mmviz-${BUILD}`;

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(ASSETS)));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('mmviz-') && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('message', (event) => {
  if (event.data === 'SKIP_WAITING') self.skipWaiting();
  if (event.data === 'BUILD') event.source?.postMessage({ build: BUILD });
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      // The page itself, whatever its query or fragment: the cached index.html.
      const key = request.mode === 'navigate' ? new URL('./', self.location.href).href : request;
      const hit = await cache.match(key, { ignoreSearch: request.mode === 'navigate' });
      if (hit) return hit;
      try {
        return await fetch(request);
      } catch (err) {
        // Offline and not cached: a navigation falls back to the page.
        const page = await cache.match(new URL('./', self.location.href).href);
        if (page) return page;
        throw err;
      }
    })(),
  );
});
