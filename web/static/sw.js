// The service worker (served as /sw.js, {{ASSETS}} replaced by this build's
// asset prefix): it keeps what a visit loaded so that the page still opens
// when roomd cannot be reached, and the lobby then offers play on this
// device (the local core, once loaded, is kept too). Rooms need the
// server: sockets and the API are never cached.
//
//   - this build's assets (immutable, versioned): from the cache, else
//     the network (and kept);
//   - pages (/, /r/…, /play/…): from the network, else the cached page —
//     the same app shell for every route;
//   - anything else (the API, the socket, metrics): the network only.
//
// A new build's worker takes over at once and drops the old build's
// caches.

const ASSETS = '{{ASSETS}}';
const CACHE = `roomd-${ASSETS.split('/').pop()}`;
const SHELL = '/';

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((c) => c.add(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) if (key.startsWith('roomd-') && key !== CACHE) await caches.delete(key);
    await self.clients.claim();
  })());
});

/** How long after its first fetch a module of the local core is kept. */
const KEEP_AFTER_MS = 3000;

/**
 * Keeps url in cache KEEP_AFTER_MS from now, unless it is there already.
 * @param {Cache} cache
 * @param {string} url
 */
async function keepLater(cache, url) {
  await new Promise((ok) => setTimeout(ok, KEEP_AFTER_MS));
  try {
    if (!(await cache.match(url))) await cache.add(url);
  } catch { /* offline and not in the HTTP cache: kept at the next fetch */ }
}

self.addEventListener('fetch', (event) => {
  const req = event.request;
  const url = new URL(req.url);
  if (req.method !== 'GET' || url.origin !== self.location.origin) return;
  if (url.pathname.startsWith(ASSETS + '/')) {
    event.respondWith((async () => {
      const cache = await caches.open(CACHE);
      const hit = await cache.match(req);
      if (hit) return hit;
      const res = await fetch(req);
      if (!res.ok) return res;
      // A module of the local core (megabytes) is compiled by the page as
      // it arrives: a copy into the cache at the same time would compete
      // with that compile for the CPU (and a cloned answer goes through
      // this worker). It is kept a few seconds later, from the browser's
      // HTTP cache, which serves it until then (the file is immutable).
      // Anything else is kept while the page already reads it.
      if (url.pathname.endsWith('.wasm')) event.waitUntil(keepLater(cache, req.url));
      else event.waitUntil(cache.put(req, res.clone()));
      return res;
    })());
    return;
  }
  if (req.mode === 'navigate') {
    event.respondWith((async () => {
      try {
        const res = await fetch(req);
        if (res.ok && url.pathname === SHELL) (await caches.open(CACHE)).put(SHELL, res.clone());
        return res;
      } catch (err) {
        const shell = await (await caches.open(CACHE)).match(SHELL);
        if (shell) return shell;
        throw err;
      }
    })());
  }
});
