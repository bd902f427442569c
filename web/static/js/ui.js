// @ts-check
// Small DOM helpers shared by the pages: element building, the notices
// area, the connection indicator and a few formatters.

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

const friendly = /** @type {Record<string, string>} */ ({
  'game:NotYourTurn': "It's not your turn",
  'game:GameOver': 'The game is over',
  'game:AlreadyRevealed': 'That cell is already revealed',
  'game:NotRevealed': 'Only a revealed number can be chorded',
  'game:NothingToChord': 'Nothing left to open around that number',
  'game:RunOver': 'Your board is lost — the race goes on without you',
  'game:OutOfBounds': 'That is off the board',
  'game:AtStart': 'No step to undo yet',
  'game:Finished': 'The level is won — the host can start it again or go on',
  'game:NotInHand': 'That card is no longer in your hand',
  'game:InvalidTarget': 'That spell cannot go there',
  'game:TileNotFree': 'That tile is not free',
  'game:NothingToUndo': 'Nothing to undo',
  'wrong-seat': 'Spectators cannot play',
  'not-host': 'Only the host can do that',
  'room-full': 'Every seat is taken — you are watching',
  'rate-limited': 'Too fast — slow down a little',
  'storage-unavailable': 'The server could not save that; trying again shortly',
  'stale': 'Your view was behind — it has been refreshed',
});

/**
 * A readable sentence for a notice: the server's message, with the common
 * codes given friendlier words.
 * @param {{code: string, message: string}} n
 */
export function noticeText(n) {
  if (n.code === 'game:NotHidden') {
    return /flag/i.test(n.message) ? 'That cell is flagged — unflag it first' : 'That cell is already revealed';
  }
  if (n.code === 'game:ChordUnsatisfied') {
    const m = /shows (\d+) but has (\d+) flags?/.exec(n.message);
    return m ? `That number needs ${m[1]} flag${m[1] === '1' ? '' : 's'} around it (it has ${m[2]})` : 'That number has no mine around it';
  }
  if (n.code === 'game:TooMany') return 'There are not that many left';
  const f = friendly[n.code];
  if (f) return f;
  const msg = String(n.message || n.code || 'Something went wrong');
  return msg.charAt(0).toUpperCase() + msg.slice(1);
}

/**
 * Shows a notice in #notices for a while. Notices with the same code and
 * text replace each other, so repeated refusals do not pile up.
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
  const close = h('button', { class: 'notice-close', type: 'button', 'aria-label': 'Dismiss' }, '×');
  const el = h('div', { class: 'notice notice-' + (opts.kind || kindOf(n.code)), role: 'status', dataset: { code: n.code } },
    h('span', { class: 'notice-text', text }), close);
  close.addEventListener('click', () => el.remove());
  area.append(el);
  while (area.children.length > 4) area.firstElementChild?.remove();
  if (!opts.sticky) setTimeout(() => el.remove(), 7000);
}

/** @param {string} code */
function kindOf(code) {
  if (code === 'offline' || code === 'storage-unavailable' || code === 'rate-limited') return 'warn';
  if (code === 'name-replaced' || code === 'epoch-changed' || code === 'room-full' || code === 'stale') return 'info';
  return 'error';
}

const connLabels = /** @type {Record<string, string>} */ ({
  connecting: 'connecting…',
  online: 'online',
  reconnecting: 'reconnecting…',
  closed: 'closed',
});

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
  if (l) l.textContent = label || connLabels[state] || state;
}

/**
 * Seconds with milliseconds, for results: 12.345 s.
 * @param {number} ms
 */
export function formatTime(ms) {
  if (!Number.isFinite(ms)) return '—';
  return (Math.max(0, ms) / 1000).toFixed(3) + ' s';
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
