// @ts-check
// The front page: pick a game and its settings, give a name, create a room;
// or open a room by its code.

import * as api from './api.js';
import { TokenStore } from './client.js';
import { entries, loadPage, noPageText } from './registry.js';
import { settingsForm, modeOf } from './settings.js';
import { h, clear, icon, savedName, saveName, formatTime } from './ui.js';
import { LOCAL_MODES, localModes } from './local/modes.js';
import { SETUP_KEY } from './local/setup.js';

/** @typedef {import('./registry.js').GameEntry} GameEntry */

/** @param {HTMLElement} app */
export async function showLobby(app) {
  document.title = 'roomd — play together';
  clear(app);
  app.className = 'app app-lobby';
  const status = h('p', { class: 'muted', text: 'Loading games…' });
  app.append(status);
  /** @type {GameEntry[]} */
  let games;
  try {
    games = await entries();
  } catch (err) {
    status.textContent = 'The server did not answer: ' + /** @type {Error} */ (err).message;
    status.append(' ', h('button', { class: 'btn', type: 'button', on: { click: () => showLobby(app) } }, 'Try again'));
    app.append(await offlineCard());
    return;
  }
  if (!games.length) {
    status.textContent = 'This server offers no games.';
    return;
  }
  const names = games.filter((g) => g.page).map((g) => g.info.name);
  const which = names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : names[0] || 'games';
  clear(app);
  app.append(
    h('section', { class: 'hero' },
      h('h1', { text: 'Play together, live.' }),
      h('p', { text: `Start a room, share its link, and play ${which} with friends — or just watch.` })),
    h('div', { class: 'lobby-grid' }, createCard(games), h('div', { class: 'lobby-side' }, joinCard(), howCard())));
}

/**
 * How many play a game, from its modes: "1–4 players".
 * @param {import('./api.js').GameInfo} info
 */
function seatsText(info) {
  const modes = info.modes || [];
  if (!modes.length) return '';
  const min = Math.min(...modes.map((m) => m.minSeats)), max = Math.max(...modes.map((m) => m.maxSeats));
  return `${min === max ? min : `${min}–${max}`} player${max === 1 ? '' : 's'}`;
}

/** @param {GameEntry[]} games */
function createCard(games) {
  let current = games.find((g) => g.page) || games[0];
  const formSlot = h('div', { class: 'form-slot' });
  /** @type {import('./registry.js').SettingsForm|null} */
  let form = null;
  const name = /** @type {HTMLInputElement} */ (h('input', { id: 'new-name', name: 'name', type: 'text', autocomplete: 'nickname',
    maxlength: '32', placeholder: 'Your name', value: savedName() }));
  const error = h('p', { class: 'form-error', id: 'create-error', role: 'alert', hidden: true });
  const button = /** @type {HTMLButtonElement} */ (h('button', { class: 'btn btn-primary btn-big', id: 'create', type: 'submit' }, 'Create room'));
  // Play on this device: the same settings, played by the page on the
  // game's rules compiled to WebAssembly, with no room (local/page.js).
  const local = h('div', { class: 'local-play', id: 'local-play' });
  /** @param {GameEntry} g */
  const localButtons = (g) => {
    const modes = g.page ? localModes(g.info) : [];
    local.hidden = !modes.length;
    clear(local).append(h('p', { class: 'muted small', text: 'Or play on this device, no room needed:' }),
      h('div', { class: 'actions' }, ...modes.map((m) => h('button', {
        class: 'btn', type: 'button', id: `local-${m}`, dataset: { localMode: m },
        on: { click: () => playHere(g, m) },
      }, LOCAL_MODES.find((x) => x.id === m)?.label || m))));
  };
  /**
   * The form's settings and the name (remembered), or null with the
   * form's complaint shown.
   * @returns {{settings: Record<string, any>, who: string}|null}
   */
  const readForm = () => {
    error.hidden = true;
    try {
      const settings = form ? form.read() : {};
      const who = name.value.trim();
      saveName(who);
      return { settings, who };
    } catch (err) {
      error.textContent = /** @type {Error} */ (err).message;
      error.hidden = false;
      return null;
    }
  };
  /** @param {GameEntry} g @param {string} m */
  const playHere = (g, m) => {
    const read = readForm();
    if (!read) return;
    const { settings, who } = read;
    try { sessionStorage.setItem(SETUP_KEY, JSON.stringify({ game: g.info.id, settings, name: who })); } catch { /* defaults then */ }
    location.assign(`/play/${encodeURIComponent(g.info.id)}?mode=${m}`);
  };
  // Today's ranked daily of the chosen board, when the game has one.
  const daily = dailySection(() => current, readForm);
  formSlot.addEventListener('change', () => daily.refresh());
  /** @param {GameEntry} g */
  const choose = (g) => {
    current = g;
    error.hidden = true;
    localButtons(g);
    if (g.page) {
      form = settingsForm(g.info, g.page, g.page.defaults?.(g.info) || {}, 'new');
      clear(formSlot).append(form.el);
    } else {
      form = null;
      clear(formSlot).append(h('p', { class: 'no-page', id: 'no-page', role: 'status', dataset: { game: g.info.id }, text: noPageText(g.info) }));
    }
    button.disabled = !g.page;
    daily.refresh();
  };
  const picker = h('div', { class: 'game-picker', role: 'radiogroup', 'aria-label': 'Game' },
    ...games.map((g) => {
      const input = h('input', { type: 'radio', name: 'game', value: g.info.id, id: `game-${g.info.id}`, checked: g === current });
      input.addEventListener('change', () => choose(g));
      return h('label', { class: 'game-choice', for: `game-${g.info.id}`, dataset: { game: g.info.id, page: String(!!g.page) } },
        input, icon(g.page?.icon || 'logo'),
        h('span', { class: 'game-choice-name', text: g.info.name || g.info.id }),
        h('span', { class: 'game-choice-sub', text: g.page ? g.page.tagline || seatsText(g.info) : 'Not in this build' }));
    }));
  choose(current);
  const el = h('form', { class: 'panel create-card', id: 'create-form', novalidate: true },
    h('h2', { text: 'New game' }),
    picker,
    formSlot,
    h('div', { class: 'field' }, h('label', { for: name.id, text: 'Your name' }), name),
    error,
    button,
    local,
    daily.el);
  el.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (!form) return;
    const read = readForm();
    if (!read) return;
    const { settings, who } = read;
    button.disabled = true;
    button.textContent = 'Creating…';
    try {
      const res = await api.createRoom(current.info.id, settings, who || 'Player');
      // A mode for one seat has nothing to wait for: the room starts at once.
      enterRoom(res, modeOf(current.info, settings)?.maxSeats === 1);
    } catch (err) {
      error.textContent = /** @type {Error} */ (err).message;
      error.hidden = false;
      button.disabled = false;
      button.textContent = 'Create room';
    }
  });
  return el;
}

/**
 * Goes to a room just created: its seat token kept, and — for a room of
 * one seat — started as soon as the page is in.
 * @param {{room: string, token: string}} res
 * @param {boolean} autostart
 */
function enterRoom(res, autostart) {
  new TokenStore().set(res.room, res.token);
  if (autostart) {
    try { sessionStorage.setItem('roomd.autostart.' + res.room, '1'); } catch { /* start by hand */ }
  }
  location.assign('/r/' + encodeURIComponent(res.room));
}

/**
 * The one-seat mode a game's ranked daily is played in: games that keep
 * leaderboards and are not real-time (PROTOCOL.md §2.8).
 * @param {import('./api.js').GameInfo} info
 */
export function dailyMode(info) {
  if (!info.ranking || info.tick) return undefined;
  return (info.modes || []).find((m) => m.maxSeats === 1);
}

/**
 * The lobby's ranked daily: today's board of the form's level, its
 * commitment, its list so far, and a button that plays it (one attempt a
 * day, in a room of its own).
 * @param {() => GameEntry} game
 * @param {() => {settings: Record<string, any>, who: string}|null} readForm
 */
function dailySection(game, readForm) {
  const el = h('section', { class: 'daily', id: 'daily', hidden: true, 'aria-live': 'polite' });
  let seq = 0;
  /** @param {GameEntry} g @param {Record<string, any>} settings */
  const target = (g, settings) => {
    const mode = dailyMode(g.info);
    if (!mode || !g.page?.board) return null;
    const s = { ...settings, mode: mode.id };
    return { mode, settings: s, board: g.page.board(g.info, s) };
  };
  const refresh = async () => {
    const n = ++seq;
    const g = game();
    const read = readFormQuietly(readForm);
    const t = target(g, read?.settings || {});
    if (!t) { el.hidden = true; return; }
    let info = null;
    try { info = await api.daily(g.info.id, t.board, { mode: t.mode.id }); } catch { info = null; }
    if (n !== seq) return;
    if (!info) {
      el.hidden = false;
      clear(el).append(h('h3', { text: 'Ranked daily' }),
        h('p', { class: 'muted small', id: 'daily-none', text: `There is no ranked daily for this board: pick a standard level.` }));
      return;
    }
    const d = info;
    const label = d.board.charAt(0).toUpperCase() + d.board.slice(1);
    const err = h('p', { class: 'form-error', id: 'daily-error', role: 'alert', hidden: true });
    const play = /** @type {HTMLButtonElement} */ (h('button', { class: 'btn', type: 'button', id: 'daily-play' }, `Play today's ${label} daily`));
    play.addEventListener('click', async () => {
      const r = readForm();
      if (!r) return;
      const tt = target(game(), r.settings);
      if (!tt) return;
      if (!r.who) {
        err.textContent = 'The ranked daily needs your name: it goes on the day\'s list.';
        err.hidden = false;
        return;
      }
      play.disabled = true;
      try {
        enterRoom(await api.createRoom(game().info.id, tt.settings, r.who, { daily: true }), true);
      } catch (e) {
        err.textContent = /** @type {Error} */ (e).message;
        err.hidden = false;
        play.disabled = false;
      }
    });
    el.hidden = false;
    el.dataset.day = d.day;
    el.dataset.board = d.board;
    clear(el).append(
      h('h3', { text: `Ranked daily · ${label} · ${d.day}` }),
      h('p', { class: 'muted small', text: 'One board for everyone today (UTC), one attempt each, timed by the server. ' +
        'Its secret is disclosed when the day ends; until then the server is bound by its commitment ' },
        h('code', { id: 'daily-commitment', title: d.commitment, text: d.commitment.slice(0, 12) + '…' }), '.'),
      d.scores.length
        ? h('ol', { class: 'scores', id: 'daily-scores' }, ...d.scores.map((s) => h('li', {},
          h('span', { class: 'score-name', text: s.name }), h('span', { class: 'score-time', text: formatTime(s.value) }))))
        : h('p', { class: 'muted small', id: 'daily-scores-empty', text: 'Nobody has cleared today\'s board yet.' }),
      play, err);
  };
  return { el, refresh };
}

/**
 * The form's values without showing its complaints (the daily follows the
 * form as it is typed in).
 * @param {() => {settings: Record<string, any>, who: string}|null} readForm
 */
function readFormQuietly(readForm) {
  const shown = /** @type {HTMLElement|null} */ (document.getElementById('create-error'));
  const was = shown?.hidden ?? true;
  const r = readForm();
  if (shown) shown.hidden = was;
  return r;
}

function joinCard() {
  const code = /** @type {HTMLInputElement} */ (h('input', { id: 'join-code', name: 'code', type: 'text', autocomplete: 'off',
    autocapitalize: 'characters', spellcheck: 'false', maxlength: '32', placeholder: 'K7QXMP', pattern: '[A-Za-z0-9]+' }));
  const el = h('form', { class: 'panel join-card', id: 'join-form' },
    h('h2', { text: 'Join a room' }),
    h('p', { class: 'muted', text: 'Got a link? Just open it. Or type the room code:' }),
    h('div', { class: 'inline-field' }, code, h('button', { class: 'btn', type: 'submit' }, 'Open')));
  el.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const c = code.value.trim().toUpperCase();
    if (/^[A-Z0-9]{1,32}$/.test(c)) location.assign('/r/' + c);
  });
  const recent = recentRooms();
  if (recent.length) {
    el.append(h('h3', { text: 'Your rooms' }),
      h('ul', { class: 'recent' }, ...recent.map((c) => h('li', {}, h('a', { href: '/r/' + c, text: c })))));
  }
  return el;
}

function howCard() {
  return h('section', { class: 'panel how-card' },
    h('h2', { text: 'How it works' }),
    h('ol', { class: 'how' },
      h('li', {}, h('strong', { text: 'Create a room' }), ' — pick a game and how to play it.'),
      h('li', {}, h('strong', { text: 'Share the link' }), ' — friends join as players, anyone can watch live.'),
      h('li', {}, h('strong', { text: 'Play' }), ' — the server keeps the game fair: nobody sees a mine or a secret early, and the clock is the host\'s.')),
    h('p', { class: 'muted small', text: 'Lost your connection? The game waits for you and picks up where you left it.' }));
}

/** Rooms this browser holds a seat token for. */
function recentRooms() {
  const out = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const k = localStorage.key(i) || '';
      if (k.startsWith('roomd.token.')) out.push(k.slice('roomd.token.'.length));
    }
  } catch { /* none */ }
  return out.sort().slice(0, 6);
}

/**
 * Play on this device while the server is away: the games of the local
 * core (kept by the service worker from an earlier visit), each with its
 * local modes, at their default settings.
 * @returns {Promise<HTMLElement>}
 */
async function offlineCard() {
  const el = h('section', { class: 'panel offline-card', id: 'offline-play' },
    h('h2', { text: 'Play on this device' }),
    h('p', { class: 'muted', text: 'Rooms need the server; these games play right here, with no connection.' }));
  try {
    const { loadCore, loadManifest } = await import('./local/core.js');
    const manifest = await loadManifest();
    // The modules this browser kept (a module never played was never fetched).
    const loaded = await Promise.allSettled(manifest.modules.map((m) => loadCore(m.games[0])));
    const cores = loaded.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const all = cores.flatMap((core) => core.call({ op: 'games' }).games || []).filter((/** @type {any} */ g) => localModes(g).length);
    // Only the games whose page this browser has kept can be shown.
    const pages = await Promise.all(all.map((/** @type {any} */ g) => loadPage(g.id)));
    const list = all.filter((/** @type {any} */ _, /** @type {number} */ i) => pages[i]);
    if (!list.length) throw new Error('no game page is kept');
    const rows = list.map((/** @type {any} */ g) =>
      h('div', { class: 'offline-game', dataset: { game: g.id } },
        h('strong', { text: g.name }), ' ',
        ...localModes(g).map((m) => h('a', { class: 'btn', href: `/play/${encodeURIComponent(g.id)}?mode=${m}`,
          id: `offline-${g.id}-${m}` }, LOCAL_MODES.find((x) => x.id === m)?.label || m))));
    el.append(...rows);
  } catch (err) {
    el.append(h('p', { class: 'muted', id: 'offline-none', text: `Nothing to play offline yet: the games are kept once this site has been visited online (${/** @type {Error} */ (err).message}).` }));
  }
  return el;
}
