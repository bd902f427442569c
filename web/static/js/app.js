// @ts-check
// The entry point: / is the lobby, /r/{CODE} a room, /play/{game}?mode=…
// a game on this device (loaded on demand with the local core; opened from
// the lobby in the lobby's own document, nav.js).

import { takeAuthFromFragment } from './api.js';
import { loadLocale, t, LANGS, lang, setLang } from './i18n.js';
import { setRouter } from './nav.js';

// A site that signs its players in opens roomd with #auth=<its JWT>
// (PROTOCOL.md §2.9): kept for this tab, and out of the address bar.
takeAuthFromFragment();

const app = /** @type {HTMLElement} */ (document.getElementById('app'));
const ROOM = /^\/r\/([A-Za-z0-9]{1,32})\/?$/;
const LOCAL = /^\/play\/([a-z0-9][a-z0-9_-]{0,63})\/?$/;
const m = ROOM.exec(location.pathname);
const local = LOCAL.exec(location.pathname);

/**
 * Starts loading the local core of a game: the largest download and
 * compile of local play, so before anything else its page needs.
 * @param {string} game
 */
function startCore(game) {
  import('./local/core.js').then((c) => c.loadCore(game)).catch(() => { /* the page reports it */ });
}

/** The local mode the address asks for. */
function localMode() {
  return new URLSearchParams(location.search).get('mode') || 'solo';
}

// Each route loads only its own page's modules, while the words load
// (nothing of them draws before loadLocale). Local play starts its game's
// core — the largest download and compile — at once.
const page = m ? import('./room.js') : local ? import('./local/page.js') : import('./lobby.js');
if (local) startCore(local[1]);

// The words first (English or Japanese: i18n.js), then the page.
await loadLocale();
languageSwitch();
const mod = /** @type {any} */ (await page);
if (m) mod.showRoom(app, m[1]);
else if (local) mod.showLocal(app, local[1], localMode());
else mod.showLobby(app);

// The address this document shows. The lobby opens local play in this
// document (nav.js): the words, the registry and the game's page module
// are loaded already, and the core starts at the click. Any other address
// — and going back or forward to another one — loads its page.
let shown = location.pathname + location.search;
setRouter(() => {
  shown = location.pathname + location.search;
  const l = LOCAL.exec(location.pathname);
  if (!l) {
    location.reload();
    return;
  }
  startCore(l[1]);
  scrollTo(0, 0);
  import('./local/page.js').then((p) => p.showLocal(app, l[1], localMode()), () => location.reload());
});
addEventListener('popstate', () => {
  if (location.pathname + location.search !== shown) location.reload();
});

// The service worker keeps the app and the local core for a visit with no
// server (sw.js); a browser without one just goes online.
if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('/sw.js').catch((err) => console.warn('roomd: no service worker:', err?.message || err));
}

/** The top bar's language switch (#lang), and its static words. */
function languageSwitch() {
  const bar = document.querySelector('.topbar');
  const sel = /** @type {HTMLSelectElement} */ (document.createElement('select'));
  sel.id = 'lang';
  sel.className = 'lang';
  sel.setAttribute('aria-label', t('app.lang.label'));
  for (const l of LANGS) {
    const o = document.createElement('option');
    o.value = l.id;
    o.textContent = l.name; // each language in its own words
    o.selected = l.id === lang();
    sel.append(o);
  }
  sel.addEventListener('change', () => setLang(sel.value));
  bar?.append(sel);
  const home = document.querySelector('.brand');
  home?.setAttribute('aria-label', t('app.home'));
  const label = document.querySelector('#conn .conn-label');
  if (label) label.textContent = t('app.conn.idle');
}

// A page restored from the back-forward cache has closed its socket on the
// way out: start again.
addEventListener('pageshow', (e) => { if (e.persisted) location.reload(); });
