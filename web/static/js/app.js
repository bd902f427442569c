// @ts-check
// The entry point: / is the lobby, /r/{CODE} a room, /play/{game}?mode=…
// a game on this device (loaded on demand with the local core).

import { showLobby } from './lobby.js';
import { showRoom } from './room.js';
import { takeAuthFromFragment } from './api.js';

// A site that signs its players in opens roomd with #auth=<its JWT>
// (PROTOCOL.md §2.9): kept for this tab, and out of the address bar.
takeAuthFromFragment();

const app = /** @type {HTMLElement} */ (document.getElementById('app'));
const m = /^\/r\/([A-Za-z0-9]{1,32})\/?$/.exec(location.pathname);
const local = /^\/play\/([a-z0-9][a-z0-9_-]{0,63})\/?$/.exec(location.pathname);
if (m) showRoom(app, m[1]);
else if (local) import('./local/page.js').then((p) => p.showLocal(app, local[1], new URLSearchParams(location.search).get('mode') || 'solo'));
else showLobby(app);

// The service worker keeps the app and the local core for a visit with no
// server (sw.js); a browser without one just goes online.
if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('/sw.js').catch((err) => console.warn('roomd: no service worker:', err?.message || err));
}

// A page restored from the back-forward cache has closed its socket on the
// way out: start again.
addEventListener('pageshow', (e) => { if (e.persisted) location.reload(); });
