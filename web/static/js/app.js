// @ts-check
// The entry point: / is the lobby, /r/{CODE} a room.

import { showLobby } from './lobby.js';
import { showRoom } from './room.js';

const app = /** @type {HTMLElement} */ (document.getElementById('app'));
const m = /^\/r\/([A-Za-z0-9]{1,32})\/?$/.exec(location.pathname);
if (m) showRoom(app, m[1]);
else showLobby(app);

// A page restored from the back-forward cache has closed its socket on the
// way out: start again.
addEventListener('pageshow', (e) => { if (e.persisted) location.reload(); });
