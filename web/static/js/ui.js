// @ts-check
// Small DOM helpers shared by the pages: element building, the notices
// area, the connection indicator and a few formatters.

import { t } from './i18n.js';

/**
 * Builds an element. attrs: class, text, dataset ({...}), on ({click: fn}),
 * hidden, disabled, and any other attribute by name. Children may be
 * strings, nodes, or null/false (skipped).
 * @param {string} tag
 * @param {Record<string, any>} [attrs]
 * @param {...(Node|string|null|undefined|false)} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v == null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'on') for (const [ev, fn] of Object.entries(v)) el.addEventListener(ev, fn);
    else if (k === 'hidden' || k === 'disabled' || k === 'checked' || k === 'selected' || k === 'required' || k === 'readOnly') /** @type {any} */ (el)[k] = !!v;
    else if (k === 'value') /** @type {any} */ (el).value = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) {
    if (c == null || c === false) continue;
    el.append(c);
  }
  return el;
}

/**
 * An inline SVG icon from the sprite-free set below, sized by CSS.
 * @param {string} name
 */
export function icon(name) {
  const img = h('img', { class: 'icon', src: `${assets()}/img/${name}.svg`, alt: '', 'aria-hidden': 'true' });
  return img;
}

/** The URL prefix of this build's static files. */
export function assets() {
  const meta = /** @type {HTMLMetaElement|null} */ (document.querySelector('meta[name="roomd-assets"]'));
  return meta?.content || '';
}

/** @param {Element} el */
export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
  return el;
}

// The common codes in friendlier words (i18n: app.notice.code.*): the key
// is the code with ':' as '.', e.g. app.notice.code.game.NotYourTurn.
const FRIENDLY = new Set(['game:NotYourTurn', 'game:GameOver', 'game:AlreadyRevealed', 'game:NotRevealed', 'game:NothingToChord',
  'game:RunOver', 'game:OutOfBounds', 'game:AtStart', 'game:Finished', 'game:NotInHand', 'game:InvalidTarget', 'game:TileNotFree',
  'game:NothingToUndo', 'game:TooMany', 'wrong-seat', 'not-host', 'room-full', 'rate-limited', 'storage-unavailable', 'stale',
  'offline', 'epoch-changed']);

/**
 * A readable sentence for a notice: the server's message, with the common
 * codes given friendlier words.
 * @param {{code: string, message: string}} n
 */
export function noticeText(n) {
  if (n.code === 'game:NotHidden') {
    return /flag/i.test(n.message) ? t('app.notice.flagged') : t('app.notice.code.game.AlreadyRevealed');
  }
  if (n.code === 'game:ChordUnsatisfied') {
    const m = /shows (\d+) but has (\d+) flags?/.exec(n.message);
    return m ? (m[1] === '1' ? t('app.notice.chord.one', { need: m[1], has: m[2] }) : t('app.notice.chord.many', { need: m[1], has: m[2] })) : t('app.notice.chord.none');
  }
  if (FRIENDLY.has(n.code)) return t(`app.notice.code.${n.code.replace(':', '.')}`);
  const msg = String(n.message || n.code || t('app.notice.unknown'));
  return msg.charAt(0).toUpperCase() + msg.slice(1);
}

/** Notices about the connection: gone as soon as the page is online again. */
const CONNECTION_CODES = ['offline', 'reconnecting', 'restarting', 'storage-unavailable'];

/** How long a notice stays, by kind: information goes quickest. */
const NOTICE_MS = /** @type {Record<string, number>} */ ({ info: 3500, warn: 5000, error: 6000 });

/**
 * Shows a notice in #notices for a while (top right under the bar; a thin
 * strip on phones: app.css), each with a dismiss button. Notices with the
 * same code and text replace each other, so repeated refusals do not pile
 * up. Connection notices go when the connection is back (setConn).
 * @param {{code: string, message: string, temporary?: boolean}} n
 * @param {{sticky?: boolean, kind?: string}} [opts]
 */
export function showNotice(n, opts = {}) {
  const area = document.getElementById('notices');
  if (!area) return;
  const text = noticeText(n);
  for (const old of area.querySelectorAll('.notice')) {
    if (/** @type {HTMLElement} */ (old).dataset.code === n.code && old.querySelector('.notice-text')?.textContent === text) old.remove();
  }
  const kind = opts.kind || kindOf(n.code);
  const close = h('button', { class: 'notice-close', type: 'button', 'aria-label': t('app.notice.dismiss') }, '×'); // i18n-ok
  const el = h('div', { class: 'notice notice-' + kind, role: 'status', dataset: { code: n.code, kind } },
    h('span', { class: 'notice-text', text }), close);
  close.addEventListener('click', () => el.remove());
  area.append(el);
  while (area.children.length > 3) area.firstElementChild?.remove();
  if (!opts.sticky) setTimeout(() => el.remove(), NOTICE_MS[kind] || NOTICE_MS.error);
}

/** Removes the notices about the connection (it is back). */
export function clearConnectionNotices() {
  for (const el of document.querySelectorAll('#notices .notice')) {
    if (CONNECTION_CODES.includes(/** @type {HTMLElement} */ (el).dataset.code || '')) el.remove();
  }
}

/** @param {string} code */
function kindOf(code) {
  if (code === 'offline' || code === 'storage-unavailable' || code === 'rate-limited') return 'warn';
  if (code === 'name-replaced' || code === 'epoch-changed' || code === 'room-full' || code === 'stale') return 'info';
  return 'error';
}

const CONN_STATES = ['connecting', 'online', 'reconnecting', 'closed'];

/**
 * Shows the connection state on #conn (data-conn-state is the stable hook).
 * @param {string} state
 * @param {string} [label]
 */
export function setConn(state, label) {
  const el = document.getElementById('conn');
  if (!el) return;
  el.hidden = false;
  el.dataset.connState = state;
  document.body.dataset.conn = state;
  const l = el.querySelector('.conn-label');
  // i18n: app.conn.state.*
  if (l) l.textContent = label || (CONN_STATES.includes(state) ? t(`app.conn.state.${state}`) : state);
  if (state === 'online') clearConnectionNotices();
}

/**
 * Seconds with milliseconds, for results: 12.345 s.
 * @param {number} ms
 */
export function formatTime(ms) {
  if (!Number.isFinite(ms)) return '—'; // i18n-ok
  return t('app.seconds', { s: (Math.max(0, ms) / 1000).toFixed(3) });
}

/**
 * A three-digit LCD number, as the classic counters show: -99 to 999.
 * @param {number} n
 */
export function lcd(n) {
  n = Math.trunc(n);
  if (n < 0) return '-' + String(Math.min(99, -n)).padStart(2, '0');
  return String(Math.min(999, n)).padStart(3, '0');
}

/**
 * Copies text to the clipboard; falls back to selecting it.
 * @param {string} text
 * @param {HTMLInputElement} [input]
 */
export async function copyText(text, input) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    if (input) {
      input.focus();
      input.select();
      try { return document.execCommand('copy'); } catch { return false; }
    }
    return false;
  }
}

/** The stored player name, or ''. */
export function savedName() {
  try { return localStorage.getItem('roomd.name') || ''; } catch { return ''; }
}

/** @param {string} name */
export function saveName(name) {
  try { localStorage.setItem('roomd.name', name); } catch { /* not kept */ }
}

/** localStorage: the matches this browser played to a result. */
const MINE_KEY = 'roomd.mine';

/**
 * The matches this browser played to a result ("ROOM/match"), newest
 * last: the lobby's best times mark their entries.
 * @returns {string[]}
 */
export function myMatches() {
  try {
    const v = JSON.parse(localStorage.getItem(MINE_KEY) || '[]');
    return Array.isArray(v) ? v.filter((x) => typeof x === 'string') : [];
  } catch { return []; }
}

/**
 * Keeps a match this browser played to a result (the last 200).
 * @param {string} room
 * @param {number} match
 */
export function rememberMatch(room, match) {
  const key = `${room}/${match}`;
  const all = myMatches().filter((k) => k !== key);
  all.push(key);
  try { localStorage.setItem(MINE_KEY, JSON.stringify(all.slice(-200))); } catch { /* not kept */ }
}
