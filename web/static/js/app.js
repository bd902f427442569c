// @ts-check
// The entry point: / is the lobby, /r/{CODE} a room, /play/{game}?mode=…
// a game on this device (loaded on demand with the local core).

import { takeAuthFromFragment } from './api.js';
import { loadLocale, t, LANGS, lang, setLang } from './i18n.js';

// A site that signs its players in opens roomd with #auth=<its JWT>
// (PROTOCOL.md §2.9): kept for this tab, and out of the address bar.
takeAuthFromFragment();

const app = /** @type {HTMLElement} */ (document.getElementById('app'));
const m = /^\/r\/([A-Za-z0-9]{1,32})\/?$/.exec(location.pathname);
const local = /^\/play\/([a-z0-9][a-z0-9_-]{0,63})\/?$/.exec(location.pathname);

// Each route loads only its own page's modules, while the words load
// (nothing of them draws before loadLocale). Local play starts its game's
// core — the largest download and compile — at once.
const page = m ? import('./room.js') : local ? import('./local/page.js') : import('./lobby.js');
if (local) import('./local/core.js').then((c) => c.loadCore(local[1])).catch(() => { /* the page reports it */ });

// The words first (English or Japanese: i18n.js), then the page.
await loadLocale();
languageSwitch();
const mod = /** @type {any} */ (await page);
if (m) mod.showRoom(app, m[1]);
else if (local) mod.showLocal(app, local[1], new URLSearchParams(location.search).get('mode') || 'solo');
else mod.showLobby(app);

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
