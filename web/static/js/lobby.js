// @ts-check
// The front page: pick a game and its settings, give a name, create a room
// (listed publicly or not), play now with whoever waits, or open a room by
// its code; the public rooms open to join or to watch, the rooms this
// browser holds a seat in, and the best times of every ranked board.

import * as api from './api.js';
import { TokenStore } from './client.js';
import { entries, loadPage, noPageText } from './registry.js';
import { settingsForm, modeOf, describe } from './settings.js';
import { h, clear, icon, savedName, saveName, formatTime, myMatches } from './ui.js';
import { t, lang, num, localizeGame } from './i18n.js';
import { LOCAL_MODES, localModes } from './local/modes.js';
import { SETUP_KEY } from './local/setup.js';
import { go } from './nav.js';
import { ratingsCard } from './ratings.js';

/** @typedef {import('./registry.js').GameEntry} GameEntry */

/** How often the open rooms are asked again while the page is visible. */
const OPEN_ROOMS_MS = 5000;

/** @param {HTMLElement} app */
export async function showLobby(app) {
  document.title = t('app.lobby.title');
  clear(app);
  app.className = 'app app-lobby';
  const status = h('p', { class: 'muted', text: t('app.lobby.loading') });
  app.append(status);
  /** @type {GameEntry[]} */
  let games;
  try {
    games = await entries();
  } catch (err) {
    status.textContent = t('app.lobby.noAnswer', { why: /** @type {Error} */ (err).message });
    status.append(' ', h('button', { class: 'btn', type: 'button', on: { click: () => showLobby(app) } }, t('app.lobby.retry')));
    app.append(await offlineCard());
    return;
  }
  if (!games.length) {
    status.textContent = t('app.lobby.noGames');
    return;
  }
  const names = games.filter((g) => g.page).map((g) => g.info.name);
  const which = names.length ? new Intl.ListFormat(lang(), { type: 'disjunction' }).format(names) : t('app.lobby.games');
  const open = openRoomsCard(games);
  clear(app);
  app.append(
    h('section', { class: 'hero' },
      h('h1', { text: t('app.lobby.heroTitle') }),
      h('p', { text: t('app.lobby.heroText', { games: which }) })),
    h('div', { class: 'lobby-grid' }, createCard(games, open),
      h('div', { class: 'lobby-side' }, joinCard(games), open.el, bestTimesCard(games), ratingsCard(games), howCard())));
}

/**
 * Starts loading the local core of a game (its WebAssembly module: fetched
 * and compiled once per page), for local play about to open.
 * @param {GameEntry} g
 */
function startCore(g) {
  import('./local/core.js').then((c) => c.loadCore(g.info.id)).catch(() => { /* the play page reports it */ });
}

let prepared = false;

/**
 * Loads, once the lobby is drawn, the scripts of local play, the local
 * core's manifest and Go's loader (small files), so that a click on a
 * local mode waits only for the game's core: its module is fetched at the
 * press, never before.
 */
function preparePlay() {
  if (prepared) return;
  prepared = true;
  setTimeout(() => {
    import('./local/page.js').catch(() => { /* loaded again at the click */ });
    import('./local/core.js').then((c) => c.prepare()).catch(() => { /* asked again at the click */ });
  }, 0);
}

/**
 * A local mode's label (local/modes.js), in the language shown.
 * @param {string} m
 */
function localLabel(m) {
  const x = /** @type {any} */ (LOCAL_MODES.find((l) => l.id === m));
  if (!x) return m;
  return x.key ? t(x.key) : x.label;
}

/**
 * How many play a game, from its modes: "1–4 players".
 * @param {import('./api.js').GameInfo} info
 */
function seatsText(info) {
  const modes = info.modes || [];
  if (!modes.length) return '';
  const min = Math.min(...modes.map((m) => m.minSeats)), max = Math.max(...modes.map((m) => m.maxSeats));
  if (max === 1) return t('app.lobby.onePlayer');
  return t('app.lobby.players', { n: min === max ? min : `${min}–${max}` });
}

/**
 * @param {GameEntry[]} games
 * @param {{supported: () => boolean|null, refresh: () => void}} open  the open rooms panel
 */
function createCard(games, open) {
  let current = games.find((g) => g.page) || games[0];
  const formSlot = h('div', { class: 'form-slot' });
  /** @type {import('./registry.js').SettingsForm|null} */
  let form = null;
  const name = /** @type {HTMLInputElement} */ (h('input', { id: 'new-name', name: 'name', type: 'text', autocomplete: 'nickname',
    maxlength: '32', placeholder: t('app.lobby.namePlaceholder'), value: savedName() }));
  const error = h('p', { class: 'form-error', id: 'create-error', role: 'alert', hidden: true });
  const button = /** @type {HTMLButtonElement} */ (h('button', { class: 'btn btn-primary btn-big', id: 'create', type: 'submit' }, t('app.lobby.create')));
  // Listed in GET /api/rooms (the open rooms panel), or reachable by its
  // code only (the default).
  const publicBox = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', id: 'new-public', name: 'public' }));
  const publicField = h('div', { class: 'field field-check', id: 'new-public-field' },
    publicBox, h('label', { for: publicBox.id, text: t('app.lobby.public') }));
  // Quick play: a seat in a public room of this game and mode that waits
  // for players, or a new public room (POST /api/quickplay).
  const quick = /** @type {HTMLButtonElement} */ (h('button', { class: 'btn btn-big', id: 'quickplay', type: 'button' }, t('app.lobby.quickplay')));
  const quickHint = h('p', { class: 'muted small', id: 'quickplay-hint', text: t('app.lobby.quickplayHint') });
  // Rated quick play (PROTOCOL.md §2.13): a signed-in player waits for an
  // opponent of similar rating in a mode of two seats.
  const rated = ratedPlay(() => current, readFormLater, (msg) => {
    error.textContent = msg;
    error.hidden = false;
  });
  // Play on this device: the same settings, played by the page on the
  // game's rules compiled to WebAssembly, with no room (local/page.js).
  const local = h('div', { class: 'local-play', id: 'local-play' });
  /** @param {GameEntry} g */
  const localButtons = (g) => {
    const modes = g.page ? localModes(g.info) : [];
    local.hidden = !modes.length;
    clear(local).append(h('p', { class: 'muted small', text: t('app.lobby.localIntro') }),
      h('div', { class: 'actions' }, ...modes.map((m) => h('button', {
        class: 'btn', type: 'button', id: `local-${m}`, dataset: { localMode: m },
        // The core starts loading as the button is pressed, before the
        // click (the release) that opens the game.
        on: { pointerdown: (/** @type {PointerEvent} */ e) => { if (e.button === 0) startCore(g); }, click: () => playHere(g, m) },
      }, localLabel(m)))));
    if (modes.length) preparePlay();
  };
  /** readForm, for what is made before it. */
  function readFormLater() { return readForm(); }
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
    startCore(g);
    go(`/play/${encodeURIComponent(g.info.id)}?mode=${m}`); // drawn in this document (nav.js)
  };
  /** Quick play and the public box are for modes of more than one seat. */
  const multiSeat = () => {
    const read = readFormQuietly(readForm);
    const mode = current.page && read ? modeOf(current.info, read.settings) : undefined;
    const several = !!mode && mode.maxSeats > 1;
    publicField.hidden = !several;
    quick.hidden = quickHint.hidden = !several || open.supported() === false;
    rated.show(current.info.id, mode);
  };
  // Today's ranked daily of the chosen board, when the game has one.
  const daily = dailySection(() => current, readForm);
  formSlot.addEventListener('change', () => { daily.refresh(); multiSeat(); });
  /** @param {GameEntry} g */
  const choose = (g) => {
    current = g;
    error.hidden = true;
    localButtons(g);
    if (g.page) {
      form = settingsForm(g.info, g.page, g.page.defaults?.(g.info) || {}, 'new'); // i18n-ok (an id prefix)
      clear(formSlot).append(form.el);
    } else {
      form = null;
      clear(formSlot).append(h('p', { class: 'no-page', id: 'no-page', role: 'status', dataset: { game: g.info.id }, text: noPageText(g.info) }));
    }
    button.disabled = !g.page;
    quick.disabled = !g.page;
    daily.refresh();
    multiSeat();
  };
  const picker = h('div', { class: 'game-picker', role: 'radiogroup', 'aria-label': t('app.lobby.game') },
    ...games.map((g) => {
      const input = h('input', { type: 'radio', name: 'game', value: g.info.id, id: `game-${g.info.id}`, checked: g === current });
      input.addEventListener('change', () => choose(g));
      return h('label', { class: 'game-choice', for: `game-${g.info.id}`, dataset: { game: g.info.id, page: String(!!g.page) } },
        input, icon(g.page?.icon || 'logo'),
        h('span', { class: 'game-choice-name', text: g.info.name || g.info.id }),
        h('span', { class: 'game-choice-sub', text: g.page ? g.page.tagline || seatsText(g.info) : t('app.lobby.notInBuild') }));
    }));
  choose(current);
  // Once the server says whether it lists rooms, quick play shows or hides.
  addEventListener('roomd:open-rooms', multiSeat);
  const el = h('form', { class: 'panel create-card', id: 'create-form', novalidate: true },
    h('h2', { text: t('app.lobby.newGame') }),
    picker,
    formSlot,
    h('div', { class: 'field' }, h('label', { for: name.id, text: t('app.lobby.yourName') }), name),
    publicField,
    error,
    h('div', { class: 'actions create-actions' }, button, quick, rated.button),
    quickHint,
    rated.hint,
    rated.panel,
    local,
    daily.el);
  el.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (!form) return;
    const read = readForm();
    if (!read) return;
    const { settings, who } = read;
    button.disabled = true;
    button.textContent = t('app.lobby.creating');
    try {
      const single = modeOf(current.info, settings)?.maxSeats === 1;
      const res = await api.createRoom(current.info.id, settings, who || t('app.player'), !single && publicBox.checked ? { public: true } : undefined);
      // A mode for one seat has nothing to wait for: the room starts at once.
      enterRoom(res, single);
    } catch (err) {
      error.textContent = /** @type {Error} */ (err).message;
      error.hidden = false;
      button.disabled = false;
      button.textContent = t('app.lobby.create');
    }
  });
  quick.addEventListener('click', async () => {
    if (!form) return;
    const read = readForm();
    if (!read) return;
    quick.disabled = true;
    quick.textContent = t('app.lobby.quickplayBusy');
    try {
      enterRoom(await api.quickPlay(current.info.id, read.settings, read.who || t('app.player')), false);
    } catch (err) {
      const e = /** @type {api.APIError} */ (err);
      error.textContent = e.status === 404 ? t('app.lobby.quickplayNone') : e.message;
      error.hidden = false;
      quick.disabled = false;
      quick.textContent = t('app.lobby.quickplay');
    }
  });
  return el;
}

/**
 * The rating window of a ticket that has waited ms (PROTOCOL.md §2.13):
 * ±100, 50 more every 5 s, at most ±500; -1 (unbounded) from 60 s.
 * @param {number} ms
 */
export function ratedWindow(ms) {
  if (ms >= 60000) return -1;
  return Math.min(100 + 50 * Math.floor(Math.max(ms, 0) / 5000), 500);
}

/**
 * The lobby's rated match: its button and hint, and the panel that shows
 * the wait (time waited, the rating window) with a cancel button; paired,
 * the page goes to the room.
 * @param {() => GameEntry} game    the game chosen
 * @param {() => ({settings: Record<string, any>, who: string}|null)} readForm
 * @param {(msg: string) => void} fail   shows an error
 */
function ratedPlay(game, readForm, fail) {
  const button = /** @type {HTMLButtonElement} */ (h('button', { class: 'btn btn-big', id: 'rated-play', type: 'button', hidden: true }, t('app.lobby.rated')));
  const hint = h('p', { class: 'muted small', id: 'rated-hint', hidden: true, text: t('app.lobby.ratedHint') });
  const status = h('p', { id: 'rated-status', role: 'status', 'aria-live': 'polite' });
  const cancel = /** @type {HTMLButtonElement} */ (h('button', { class: 'btn', id: 'rated-cancel', type: 'button' }, t('app.lobby.ratedCancel')));
  const panel = h('div', { class: 'rated-wait', id: 'rated-wait', hidden: true }, status, h('div', { class: 'actions' }, cancel));
  /** @type {{ticket: api.RatedTicket, abort: AbortController, timer: number}|null} */
  let waiting = null;
  let shown = false;
  /** The server's rated modes ("game/mode"), once known; the choice shown last. */
  /** @type {string[]|null} */
  let rated = null;
  /** @type {[string, import('./api.js').Mode|undefined]} */
  let last = ['', undefined];
  api.ratedModes().then((m) => { rated = m; show(...last); }, () => { rated = []; });
  /**
   * Shows the button for a signed-in player in a rated mode of two seats.
   * @param {string} gameID @param {import('./api.js').Mode|undefined} mode
   */
  const show = (gameID, mode) => {
    last = [gameID, mode];
    shown = !!mode && !!api.authToken() && mode.minSeats <= 2 && mode.maxSeats >= 2 && !!rated?.includes(`${gameID}/${mode.id}`);
    if (!waiting) button.hidden = hint.hidden = !shown;
  };
  const stop = () => {
    if (waiting) clearInterval(waiting.timer);
    waiting = null;
    panel.hidden = true;
    button.hidden = hint.hidden = !shown;
    button.disabled = false;
  };
  /** @param {api.RatedTicket} ticket */
  const seated = (ticket) => {
    const o = ticket.outcome || {};
    if (o.error || !o.room || !o.token) throw new Error(o.error || t('app.lobby.ratedNoSeat'));
    status.textContent = t('app.lobby.ratedFound', { name: o.opponent || '?' });
    enterRoom({ room: o.room, token: o.token }, false);
  };
  button.addEventListener('click', async () => {
    const read = readForm();
    if (!read || waiting) return;
    button.disabled = true;
    let ticket;
    try {
      ticket = await api.ratedPlay(game().info.id, read.settings, read.who || t('app.player'));
    } catch (err) {
      fail(/** @type {Error} */ (err).message);
      button.disabled = false;
      return;
    }
    const since = Date.now() - (ticket.waitedMs || 0);
    const show = () => {
      const ms = Date.now() - since, w = ratedWindow(ms), s = num(Math.floor(ms / 1000));
      status.textContent = w < 0 ? t('app.lobby.ratedWaitingAny', { s }) : t('app.lobby.ratedWaiting', { s, w: num(w) });
      panel.dataset.window = String(w);
    };
    const abort = new AbortController();
    waiting = { ticket, abort, timer: window.setInterval(show, 1000) };
    show();
    panel.hidden = false;
    button.hidden = hint.hidden = true;
    try {
      while (ticket.state !== 'settled') ticket = await api.pollRated(ticket, 20000, abort.signal);
      if (waiting) clearInterval(waiting.timer);
      seated(ticket);
    } catch (err) {
      if (abort.signal.aborted) return; // cancelled
      stop();
      fail(/** @type {Error} */ (err).message);
    }
  });
  cancel.addEventListener('click', async () => {
    const w = waiting;
    if (!w) return;
    stop();
    w.abort.abort();
    try {
      await api.cancelRated(w.ticket);
    } catch (err) {
      const e = /** @type {api.APIError} */ (err);
      if (e.status !== 409) return fail(e.message);
      // Paired already: the seat is on its way.
      try { seated(await api.pollRated(w.ticket, 25000, new AbortController().signal)); } catch (err2) { fail(/** @type {Error} */ (err2).message); }
    }
  });
  return { button, hint, panel, show };
}

/**
 * Goes to a room just created or joined: its seat token kept, and — for a
 * room of one seat — started as soon as the page is in.
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
 * A board's name for a title, in the language shown: the page module's
 * (boardTitle, "初級"), else the id capitalized ("Beginner").
 * @param {GameEntry} g
 * @param {string} board
 */
function boardLabel(g, board) {
  if (g.page?.boardTitle) return g.page.boardTitle(board);
  return board.charAt(0).toUpperCase() + board.slice(1);
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
  // The last refusal, shown again when the panel is redrawn for the same
  // day and board (the panel follows the form as it is typed in: a redraw
  // must not wipe the answer to a click, nor may an answer that arrives
  // after a redraw land in the panel it replaced).
  /** @type {{key: string, text: string}|null} */
  let refusal = null;
  /** The panel drawn last: its day and board, and its error line. */
  let shown = { key: '', err: /** @type {HTMLElement|null} */ (null) };
  /** @param {string} key @param {string} text */
  const refuse = (key, text) => {
    refusal = { key, text };
    if (shown.key === key && shown.err) {
      shown.err.textContent = text;
      shown.err.hidden = false;
    }
  };
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
    const tg = target(g, read?.settings || {});
    if (!tg) { el.hidden = true; return; }
    let info = null;
    try { info = await api.daily(g.info.id, tg.board, { mode: tg.mode.id }); } catch { info = null; }
    if (n !== seq) return;
    if (!info) {
      el.hidden = false;
      clear(el).append(h('h3', { text: t('app.daily.title') }),
        h('p', { class: 'muted small', id: 'daily-none', text: t('app.daily.none') }));
      return;
    }
    const d = info;
    const label = boardLabel(g, d.board);
    const key = d.day + '\x00' + d.board;
    const err = h('p', { class: 'form-error', id: 'daily-error', role: 'alert', hidden: true });
    shown = { key, err };
    if (refusal?.key === key) refuse(key, refusal.text);
    const play = /** @type {HTMLButtonElement} */ (h('button', { class: 'btn', type: 'button', id: 'daily-play' }, t('app.daily.play', { board: label })));
    play.addEventListener('click', async () => {
      const r = readForm();
      if (!r) return;
      const tt = target(game(), r.settings);
      if (!tt) return;
      if (!r.who) {
        refuse(key, t('app.daily.needName'));
        return;
      }
      refusal = null;
      if (shown.err) shown.err.hidden = true;
      play.disabled = true;
      try {
        enterRoom(await api.createRoom(game().info.id, tt.settings, r.who, { daily: true }), true);
      } catch (e) {
        refuse(key, /** @type {Error} */ (e).message);
        play.disabled = false;
      }
    });
    el.hidden = false;
    el.dataset.day = d.day;
    el.dataset.board = d.board;
    clear(el).append(
      h('h3', { text: t('app.daily.heading', { board: label, day: d.day }) }),
      h('p', { class: 'muted small', text: t('app.daily.about') + ' ' },
        h('code', { id: 'daily-commitment', title: d.commitment, text: d.commitment.slice(0, 12) + '…' }), '.'), // i18n-ok
      d.scores.length
        ? h('ol', { class: 'scores', id: 'daily-scores' }, ...d.scores.map((s) => h('li', {},
          h('span', { class: 'score-name', text: s.name }), h('span', { class: 'score-time', text: formatTime(s.value) }))))
        : h('p', { class: 'muted small', id: 'daily-scores-empty', text: t('app.daily.empty') }),
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

/**
 * A room's phase in words.
 * @param {string} phase
 */
function phaseText(phase) {
  switch (phase) {
    case 'lobby': return t('app.phase.lobby');
    case 'running': return t('app.phase.running');
    case 'ended': return t('app.phase.ended');
    default: return phase;
  }
}

/**
 * A room's game and settings in one line: "Minesweeper · Race · Beginner…".
 * @param {GameEntry[]} games
 * @param {string} gameId
 * @param {any} settings
 */
function roomLine(games, gameId, settings) {
  const g = games.find((x) => x.info.id === gameId);
  if (!g) return gameId;
  const what = describe(g.info, g.page, settings || {});
  return what ? `${g.info.name} · ${what}` : g.info.name; // i18n-ok
}

/** @param {GameEntry[]} games */
function joinCard(games) {
  const code = /** @type {HTMLInputElement} */ (h('input', { id: 'join-code', name: 'code', type: 'text', autocomplete: 'off',
    autocapitalize: 'characters', spellcheck: 'false', maxlength: '32', placeholder: 'K7QXMP', pattern: '[A-Za-z0-9]+', // i18n-ok
    'aria-label': t('app.lobby.code') }));
  const el = h('form', { class: 'panel join-card', id: 'join-form' },
    h('h2', { text: t('app.lobby.joinTitle') }),
    h('p', { class: 'muted', text: t('app.lobby.joinText') }),
    h('div', { class: 'inline-field' }, code, h('button', { class: 'btn', type: 'submit' }, t('app.lobby.open'))));
  el.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const c = code.value.trim().toUpperCase();
    if (/^[A-Z0-9]{1,32}$/.test(c)) location.assign('/r/' + c);
  });
  const recent = recentRooms();
  if (recent.length) {
    const list = h('ul', { class: 'recent', id: 'recent' });
    const head = h('h3', { text: t('app.lobby.yourRooms') });
    el.append(head, list);
    const tokens = new TokenStore();
    // Each room as it is now; a room the server no longer has (404) is
    // dropped with its token.
    Promise.all(recent.map(async (c) => {
      const li = h('li', { class: 'recent-room', dataset: { code: c, state: 'loading' } },
        h('a', { href: '/r/' + c, class: 'code', text: c }));
      list.append(li);
      try {
        const info = await api.roomInfo(c);
        li.dataset.state = 'ready';
        li.dataset.phase = info.phase;
        li.append(h('span', { class: 'recent-game', text: roomLine(games, info.game.id, info.settings) }),
          h('span', { class: 'recent-meta muted small', text: t('app.lobby.roomMeta', {
            phase: phaseText(info.phase), seats: info.seats.length, max: info.maxSeats }) }));
      } catch (err) {
        if (/** @type {api.APIError} */ (err).status === 404) {
          tokens.forget(c);
          li.remove();
        } else {
          li.dataset.state = 'unknown';
        }
      }
    })).then(() => { if (!list.children.length) { head.remove(); list.remove(); } });
  }
  return el;
}

/**
 * The public rooms: open to join (their lobby has a free seat) or running
 * to watch. Polled every 5 s while the page is visible, not pushed over a
 * lobby socket: it is simple, a GET is cacheable, and a visitor who only
 * looks costs no socket; five seconds is quick enough for a list people
 * read. A server that lists no rooms (404) hides the panel.
 * @param {GameEntry[]} games
 */
function openRoomsCard(games) {
  const joinList = h('ul', { class: 'open-list', id: 'open-join', 'aria-label': t('app.open.toJoin') });
  const watchList = h('ul', { class: 'open-list', id: 'open-watch', 'aria-label': t('app.open.toWatch') });
  const empty = h('p', { class: 'muted small', id: 'open-empty', text: t('app.open.empty'), hidden: true });
  const joinHead = h('h3', { text: t('app.open.toJoin') });
  const watchHead = h('h3', { text: t('app.open.toWatch') });
  const el = h('section', { class: 'panel open-rooms', id: 'open-rooms', 'aria-live': 'polite', dataset: { state: 'loading' } },
    h('h2', { text: t('app.open.title') }), empty, joinHead, joinList, watchHead, watchList);
  /** @type {boolean|null} */
  let supported = null;
  /** @type {ReturnType<typeof setTimeout>|undefined} */
  let timer;
  let busy = false;
  /** @param {api.OpenRoom} r @param {boolean} join */
  const item = (r, join) => h('li', { class: 'open-room', dataset: { code: r.code, phase: r.phase, game: r.game } },
    h('div', { class: 'open-what' },
      h('span', { class: 'open-game', text: roomLine(games, r.game, { ...(r.settings || {}), mode: r.settings?.mode ?? r.mode }) }),
      h('span', { class: 'open-meta muted small', text: [
        t('app.open.seats', { seats: r.seats, max: r.maxSeats }),
        r.players?.length ? r.players.join(', ') : '',
        r.spectators ? t('app.open.spectators', { n: r.spectators }) : '',
      ].filter(Boolean).join(' · ') })), // i18n-ok
    join
      ? h('a', { class: 'btn btn-small btn-primary open-join', href: '/r/' + encodeURIComponent(r.code),
        'aria-label': t('app.open.joinRoom', { code: r.code }) }, t('app.open.join'))
      : h('a', { class: 'btn btn-small open-watch', href: '/r/' + encodeURIComponent(r.code) + '?watch',
        'aria-label': t('app.open.watchRoom', { code: r.code }) }, t('app.open.watch')));
  const refresh = async () => {
    clearTimeout(timer);
    if (busy) return;
    busy = true;
    try {
      const page = await api.listRooms({ limit: 40 });
      if (!page) {
        supported = false;
        el.hidden = true;
        el.dataset.state = 'none';
        dispatchEvent(new Event('roomd:open-rooms'));
        return; // no public rooms on this server: nothing to poll
      }
      if (supported !== true) { supported = true; dispatchEvent(new Event('roomd:open-rooms')); }
      const joinable = page.rooms.filter((r) => r.phase === 'lobby' && r.free > 0);
      // "Playing now": matches that run, never a lobby that has not
      // started (a full one, or a quick-play room counting down).
      const watchable = page.rooms.filter((r) => r.phase === 'running');
      clear(joinList).append(...joinable.map((r) => item(r, true)));
      clear(watchList).append(...watchable.map((r) => item(r, false)));
      joinHead.hidden = joinList.hidden = !joinable.length;
      watchHead.hidden = watchList.hidden = !watchable.length;
      empty.hidden = joinable.length + watchable.length > 0;
      el.hidden = false;
      el.dataset.state = empty.hidden ? 'ready' : 'empty';
    } catch {
      el.dataset.state = 'error'; // try again at the next turn
    } finally {
      busy = false;
    }
    // The lobby may be gone from the document (local play drawn in its
    // place, nav.js): then the poll stops.
    if (supported && el.isConnected && document.visibilityState === 'visible') timer = setTimeout(refresh, OPEN_ROOMS_MS);
  };
  document.addEventListener('visibilitychange', () => {
    if (supported === false || !el.isConnected) return;
    if (document.visibilityState === 'visible') refresh();
    else clearTimeout(timer);
  });
  refresh();
  return { el, refresh, supported: () => supported };
}

/**
 * The best times (and scores): per ranked game, board and mode, today,
 * this week or all time, with the entries this browser played marked.
 * @param {GameEntry[]} games
 */
function bestTimesCard(games) {
  const ranked = games.filter((g) => g.info.ranking && (g.info.ranking.boards || []).length);
  const el = h('section', { class: 'panel best-times', id: 'best-times', hidden: !ranked.length, dataset: { state: 'loading' } });
  if (!ranked.length) return el;
  const game = /** @type {HTMLSelectElement} */ (h('select', { id: 'best-game' },
    ...ranked.map((g) => h('option', { value: g.info.id }, g.info.name || g.info.id))));
  const board = /** @type {HTMLSelectElement} */ (h('select', { id: 'best-board' }));
  const mode = /** @type {HTMLSelectElement} */ (h('select', { id: 'best-mode' }));
  let period = /** @type {'day'|'week'|'all'} */ ('all');
  const periods = h('div', { class: 'segmented', id: 'best-period', role: 'group', 'aria-label': t('app.best.period') },
    ...[['day', t('app.best.day')], ['week', t('app.best.week')], ['all', t('app.best.all')]].map(([id, label]) =>
      h('button', { class: 'btn btn-small', type: 'button', 'aria-pressed': String(id === period), dataset: { period: id },
        on: { click: () => { period = /** @type {any} */ (id); show(); } } }, label)));
  const list = h('ol', { class: 'scores best-list', id: 'best-list' });
  const empty = h('p', { class: 'muted small', id: 'best-empty', hidden: true, text: t('app.best.empty') });
  const note = h('p', { class: 'muted small best-note', text: t('app.best.note') });
  el.append(h('h2', { text: t('app.best.title') }),
    h('div', { class: 'best-filters' },
      h('label', { class: 'field' }, h('span', { text: t('app.best.game') }), game),
      h('label', { class: 'field' }, h('span', { text: t('app.best.board') }), board),
      h('label', { class: 'field' }, h('span', { text: t('app.best.mode') }), mode)),
    periods, list, empty, note);
  const entry = () => /** @type {GameEntry} */ (ranked.find((g) => g.info.id === game.value) || ranked[0]);
  const fill = () => {
    const g = entry();
    clear(board).append(...(g.info.ranking?.boards || []).map((b) => h('option', { value: b }, boardLabel(g, b))));
    clear(mode).append(...(g.info.modes || []).map((m) => h('option', { value: m.id }, m.name)));
  };
  let seq = 0;
  const show = async () => {
    const n = ++seq;
    for (const b of periods.querySelectorAll('button')) b.setAttribute('aria-pressed', String(/** @type {HTMLElement} */ (b).dataset.period === period));
    el.dataset.state = 'loading';
    const g = entry();
    const scores = await api.leaderboard(g.info.id, board.value, mode.value, period);
    if (n !== seq) return;
    const mine = new Set(myMatches());
    const time = g.info.ranking?.by !== 'score';
    clear(list).append(...(scores || []).map((s, i) => {
      const own = s.room != null && s.match != null && mine.has(`${s.room}/${s.match}`);
      return h('li', { class: 'best-entry' + (own ? ' best-mine' : ''), dataset: { mine: String(own), rank: String(i + 1) } },
        h('span', { class: 'score-name', text: s.name }),
        own && h('span', { class: 'badge badge-you', text: t('app.best.you') }),
        h('span', { class: 'score-time', text: time ? formatTime(s.value) : num(s.value) }));
    }));
    empty.hidden = !!scores?.length;
    el.dataset.state = scores?.length ? 'ready' : 'empty';
  };
  game.addEventListener('change', () => { fill(); show(); });
  board.addEventListener('change', show);
  mode.addEventListener('change', show);
  fill();
  show();
  return el;
}

function howCard() {
  return h('section', { class: 'panel how-card' },
    h('h2', { text: t('app.how.title') }),
    h('ol', { class: 'how' },
      h('li', {}, h('strong', { text: t('app.how.create') }), ' — ', t('app.how.createText')), // i18n-ok
      h('li', {}, h('strong', { text: t('app.how.share') }), ' — ', t('app.how.shareText')), // i18n-ok
      h('li', {}, h('strong', { text: t('app.how.play') }), ' — ', t('app.how.playText'))), // i18n-ok
    h('p', { class: 'muted small', text: t('app.how.lost') }));
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
    h('h2', { text: t('app.offline.title') }),
    h('p', { class: 'muted', text: t('app.offline.text') }));
  try {
    const { loadCore, loadManifest } = await import('./local/core.js');
    const manifest = await loadManifest();
    // The modules this browser kept (a module never played was never fetched).
    const loaded = await Promise.allSettled(manifest.modules.map((m) => loadCore(m.games[0])));
    const cores = loaded.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const all = cores.flatMap((core) => core.call({ op: 'games' }).games || []).map(localizeGame).filter((/** @type {any} */ g) => localModes(g).length);
    // Only the games whose page this browser has kept can be shown.
    const pages = await Promise.all(all.map((/** @type {any} */ g) => loadPage(g.id)));
    const list = all.filter((/** @type {any} */ _, /** @type {number} */ i) => pages[i]);
    if (!list.length) throw new Error('no game page is kept'); // i18n-ok (shown inside app.offline.none)
    const rows = list.map((/** @type {any} */ g) =>
      h('div', { class: 'offline-game', dataset: { game: g.id } },
        h('strong', { text: g.name }), ' ',
        ...localModes(g).map((m) => h('a', { class: 'btn', href: `/play/${encodeURIComponent(g.id)}?mode=${m}`,
          id: `offline-${g.id}-${m}` }, localLabel(m)))));
    el.append(...rows);
  } catch (err) {
    el.append(h('p', { class: 'muted', id: 'offline-none', text: t('app.offline.none', { why: /** @type {Error} */ (err).message }) }));
  }
  return el;
}
