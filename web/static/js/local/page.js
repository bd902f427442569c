// @ts-check
// The local play page, /play/{game}?mode=solo|ai|pass|daily: a game played
// in this page on the WebAssembly core, with no room and no server once
// the page has loaded. The game renders in its own page module, exactly
// as in a room (registry.js's GameView): this page plays the room's part —
// views, beats, the room info and the result — from the local runner
// (runner.js), and adds what local play has: undo, a new game, the
// pass-and-play hand-off screen and the daily game's shareable line.
// Pass-and-play may have a turn clock (the lobby's settings.clock), kept
// by the runner and shown above the game by the room's display
// (turnclock.js).

import { loadCore } from './core.js';
import { LocalSession, today } from './runner.js';
import { LOCAL_MODES, gameModeFor, localModes, modeLabel, seatCount } from './modes.js';
import { SETUP_KEY } from './setup.js';
import { games, loadPage, noPageText, follow } from '../registry.js';
import { h, clear, icon, showNotice, savedName, copyText } from '../ui.js';
import { t, localizeGame } from '../i18n.js';
import { TurnClockView, describeClock } from '../turnclock.js';

/** @typedef {import('./runner.js').LocalMode} LocalMode */
/** @typedef {import('./runner.js').LocalState} LocalState */
/** @typedef {import('../api.js').GameInfo} GameInfo */

/**
 * A notice of the runner (English, with a code) in the language shown;
 * a notice of the game's rules goes on as it is.
 * @param {any} n
 */
function localNotice(n) {
  switch (n.code) {
    case 'closed': return { ...n, message: t('local.notice.closed') };
    case 'handoff': return { ...n, message: t('local.notice.handoff', { name: n.name || '' }) };
    case 'wrong-seat': return { ...n, message: t('local.notice.watching') };
    case 'paused': return { ...n, message: t('local.notice.paused') };
    case 'undo-refused': return { ...n, message: undoWhy(n.reason, n.limit) || n.message };
  }
  return n;
}

/**
 * Why undo is refused, in the language shown ('' when it is not).
 * @param {string|undefined} reason
 * @param {number|null|undefined} limit
 */
function undoWhy(reason, limit) {
  if (!reason) return '';
  return t(`local.undo.why.${reason}`, { n: limit ?? 0 }); // i18n: local.undo.why.*
}


/**
 * @param {HTMLElement} app
 * @param {string} gameId
 * @param {string} modeParam
 */
export async function showLocal(app, gameId, modeParam) {
  clear(app);
  app.className = 'app app-local';
  const status = h('p', { class: 'muted', id: 'local-status', text: t('local.loading') });
  app.append(status);
  const fail = (/** @type {string} */ text) => {
    status.textContent = text;
    status.append(' ', h('a', { href: '/', text: t('local.back') }));
  };
  let core, info, page;
  try {
    // The core, the server's registry and the game's page, all at once:
    // the first interaction waits for the slowest, not for their sum.
    const registry = games().catch(() => null);
    const pageP = loadPage(gameId);
    core = await loadCore(gameId);
    info = await gameInfo(core, gameId, registry);
    page = await pageP;
  } catch (err) {
    return fail(t('local.fail.load', { err: /** @type {Error} */ (err).message }));
  }
  if (!info) return fail(t('local.fail.game', { game: gameId }));
  if (!page) return fail(noPageText(info));
  const mode = /** @type {LocalMode} */ (modeParam);
  const gameMode = LOCAL_MODES.some((m) => m.id === mode) ? gameModeFor(info, mode) : undefined;
  if (!gameMode) {
    const offered = localModes(info).map(modeLabel).join(t('local.sep'));
    return fail(offered ? t('local.fail.mode.offered', { game: info.name, modes: offered }) : t('local.fail.mode', { game: info.name }));
  }
  new LocalPage(app, core, info, page, mode, gameMode).start();
}

/**
 * The game's registry entry: the server's, else the local core's own (the
 * same fields), so that a page loaded earlier plays with the server gone.
 * @param {import('./core.js').LocalCore} core
 * @param {string} id
 * @param {Promise<{games: GameInfo[]}|null>} registry  the server's, or null when it is away
 * @returns {Promise<GameInfo|undefined>}
 */
async function gameInfo(core, id, registry) {
  const found = ((await registry)?.games || []).find((g) => g.id === id);
  if (found) return found; // else the server is away: ask the core
  const ans = core.call({ op: 'games' });
  const g = (ans.games || []).find((/** @type {GameInfo} */ g) => g.id === id);
  return g && localizeGame(g);
}

class LocalPage {
  /**
   * @param {HTMLElement} app
   * @param {import('./core.js').LocalCore} core
   * @param {GameInfo} info
   * @param {import('../registry.js').GamePage} page
   * @param {LocalMode} mode
   * @param {import('../api.js').Mode} gameMode
   */
  constructor(app, core, info, page, mode, gameMode) {
    this.app = app;
    this.core = core;
    this.info = info;
    this.page = page;
    this.mode = mode;
    this.gameMode = gameMode;
    /** @type {LocalSession|null} */
    this.session = null;
    /** @type {import('../registry.js').GameView|null} */
    this.game = null;
    /** @type {LocalState|null} */
    this.state = null;
    this.ended = false;
    this.storage = (() => { try { return localStorage; } catch { return null; } })();
    /** @type {any} the turn clock setting of the next new game (pass-and-play) */
    this.clockSetting = null;
    this.clock = new TurnClockView({
      seatName: (i) => this.session?.seats[i]?.name || t('local.seat', { n: i + 1 }),
      seat: () => this.state?.viewer ?? null,
    });
  }

  /** Resumes this game's save in this mode, or starts a new game. */
  start() {
    const label = modeLabel(this.mode);
    document.title = t('local.doc', { game: this.info.name, mode: label });
    this.main = h('section', { class: 'room-main local-main', id: 'local-main' });
    this.handoff = h('div', { class: 'panel local-handoff', id: 'local-handoff', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'local-handoff-title', hidden: true });
    this.undoButton = /** @type {HTMLButtonElement} */ (h('button', { class: 'btn', id: 'local-undo', type: 'button', on: { click: () => this.undo() } }, t('local.undo')));
    this.undoText = h('p', { class: 'muted small', id: 'local-undos' });
    this.clockText = h('p', { class: 'muted small', id: 'local-clock', hidden: true });
    this.share = h('div', { class: 'local-share', id: 'local-share', hidden: true });
    const side = h('aside', { class: 'room-side' },
      h('section', { class: 'panel local-panel', id: 'local-panel', dataset: { mode: this.mode } },
        h('h2', {}, icon(this.page.icon || 'logo'), ' ', this.info.name),
        h('p', { class: 'local-mode', text: t('local.mode.line', { mode: label }) }),
        this.mode === 'daily' ? h('p', { class: 'muted small', text: t('local.daily.line', { day: today() }) }) : null,
        h('div', { class: 'actions' }, this.undoButton,
          h('button', { class: 'btn', id: 'local-new', type: 'button', on: { click: () => this.newGame() } }, t('local.new'))),
        this.undoText, this.clockText, this.share,
        h('p', {}, h('a', { href: '/', text: t('local.back') }))));
    clear(this.app).append(this.handoff, h('div', { class: 'room-grid' }, this.main, side));
    // A real-time game stops while the page is hidden.
    document.addEventListener('visibilitychange', () => {
      if (document.hidden) this.session?.pause();
      else this.session?.resumeTicking();
    });

    const saved = this.readSave();
    if (saved) {
      const r = LocalSession.restore(this.core, saved, this.sessionOpts());
      if ('session' in r) {
        this.session = r.session;
        this.clockSetting = r.session.clock;
        this.mount();
        this.session.resume();
        showNotice({ code: 'local-resumed', message: t('local.resumed') }, { kind: 'info' });
        return;
      }
      // i18n: local.restore.*
      showNotice({ code: 'local-save', message: t(`local.restore.${r.code}`, r.params) }, { kind: 'warn' });
    }
    this.newGame();
  }

  /** The save of this game and mode, if any. */
  readSave() {
    try {
      const raw = this.storage?.getItem(LocalSession.key(this.info.id, this.mode));
      return raw ? JSON.parse(raw) : null;
    } catch {
      return null;
    }
  }

  sessionOpts() {
    return {
      storage: this.storage, hz: /** @type {any} */ (this.info).tick?.hz || 0, onTimeout: this.info.onTimeout,
      onChange: (/** @type {LocalState} */ st, /** @type {any[]|null} */ beats) => this.onChange(st, beats),
      onTick: (/** @type {number} */ tick, /** @type {any[]} */ beats) => this.game?.applyTick?.(tick, beats),
    };
  }

  /**
   * A new game: the lobby's settings (or the page's defaults), under the
   * game mode this local mode plays.
   * @param {Record<string, any>} [settings]
   */
  newGame(settings) {
    const setup = this.takeSetup();
    // The turn clock is the runner's, not the rules': out of the config.
    if (setup) this.clockSetting = setup.settings?.clock ?? null;
    else if (settings && 'clock' in settings) this.clockSetting = settings.clock;
    let { clock: _, ...config } = settings || setup?.settings || this.session?.config || this.page.defaults?.(this.info) || {};
    if ((this.info.modes || []).length > 1) config = { ...config, mode: this.gameMode.id };
    // Pass and play: every seat is someone at this device, so none is "You".
    const unnamed = this.mode === 'pass' ? t('local.seat.player', { n: 1 }) : t('local.you');
    const me = (setup?.name || savedName() || unnamed).trim() || unnamed;
    const n = seatCount(this.gameMode, this.mode);
    const seats = Array.from({ length: n }, (_, i) => {
      if (i === 0) return { name: me, ai: false };
      return this.mode === 'ai' ? { name: n > 2 ? t('local.seat.ai.n', { n: i }) : t('local.seat.ai'), ai: true } : { name: t('local.seat.player', { n: i + 1 }), ai: false };
    });
    this.session?.dispose();
    try {
      this.session = new LocalSession(this.core, { game: this.info.id, mode: this.mode, seats, config, clock: this.clockSetting, ...this.sessionOpts() });
      this.mount();
      this.session.start();
    } catch (err) {
      showNotice({ code: 'local-start', message: t('local.fail.start', { err: /** @type {Error} */ (err).message }) }, { kind: 'error' });
    }
  }

  /** The settings the lobby left for this game, read once. */
  takeSetup() {
    try {
      const raw = sessionStorage.getItem(SETUP_KEY);
      sessionStorage.removeItem(SETUP_KEY);
      const s = raw ? JSON.parse(raw) : null;
      return s && s.game === this.info.id ? s : null;
    } catch {
      return null;
    }
  }

  /** A fresh game view in the page. */
  mount() {
    this.game?.destroy();
    this.state = null;
    this.ended = false;
    this.game = this.page.create(this.context());
    this.clock.set(null);
    this.clock.setResult(null);
    clear(/** @type {HTMLElement} */ (this.main)).append(this.clock.el, this.game.el);
  }

  /** @returns {import('../registry.js').GameContext} */
  context() {
    return {
      command: async (cmd) => {
        const rc = this.session ? this.session.command(cmd) : { ok: false, notice: { code: 'closed', message: t('local.notice.closed') } };
        if (!rc.ok && rc.notice) showNotice(localNotice(rc.notice));
        return /** @type {any} */ ({ id: '', ok: rc.ok, rev: 0, notice: rc.notice, tick: /** @type {any} */ (rc).tick });
      },
      newGame: async (settings) => this.newGame(settings),
      isHost: () => true,
      seat: () => this.state?.viewer ?? null,
      room: () => this.room(),
      seatName: (i) => this.session?.seats[i]?.name || t('local.seat', { n: i + 1 }),
      serverNow: () => Date.now(),
      resync: () => this.session?.resume(),
      rtt: () => 0,
      game: this.info,
      local: true,
      shared: this.mode === 'pass',
      follow: (view, beats) => follow(this.info?.id || '', view, beats),
    };
  }

  /** The room info a page module reads, for a game on this device. */
  room() {
    const s = this.session, st = this.state;
    if (!s || !st) return null;
    const elapsed = s.log.at(-1)?.t ?? 0;
    return /** @type {any} */ ({
      code: 'LOCAL', phase: st.status?.over ? 'ended' : 'running', host: 0, hz: s.hz || undefined, paused: s.paused || undefined,
      seats: s.seats.map((x, i) => ({ seat: i, name: x.name, ready: true, ai: x.ai, connected: true })),
      settings: s.clock ? { ...s.config, clock: s.clock } : s.config, turnClock: st.turnClock || undefined, mode: this.gameMode.id, minSeats: this.gameMode.minSeats, maxSeats: this.gameMode.maxSeats,
      ai: !!this.gameMode.ai, game: { id: this.info.id, rulesVersion: s.rulesVersion },
      connected: s.seats.map((_, i) => i), spectators: 0, frozen: false, match: st.match, access: 'unlisted',
      clocks: { now: Date.now(), elapsedMs: elapsed, running: !!st.status?.started && !st.status?.over, startedAt: Date.now() - elapsed },
    });
  }

  /**
   * @param {LocalState} st
   * @param {any[]|null} beats
   */
  onChange(st, beats) {
    const first = !this.state || this.state.match !== st.match || this.state.viewer !== st.viewer;
    this.state = st;
    const game = this.game;
    if (!game) return;
    const room = this.room();
    game.setRoom(room, st.viewer);
    if (beats && !first) game.applyBeats(beats, null);
    else game.setView(st.view, this.session?.tick || 0);
    if (room) game.setClocks(room.clocks);
    this.clock.setRoom(room);
    this.clock.set(st.turnClock);
    const result = st.status?.over ? this.session?.result() || null : null;
    this.clock.setResult(result);
    if (result && !this.ended) {
      this.ended = true;
      this.session?.clearSave(); // a finished game is not offered again
      game.setResult(result, true);
    } else if (!result) {
      this.ended = false;
      game.setResult(null);
    }
    this.renderPanel(st);
  }

  /** @param {LocalState} st */
  renderPanel(st) {
    const undo = /** @type {HTMLButtonElement} */ (this.undoButton);
    undo.disabled = !st.undo.available;
    undo.title = undoWhy(st.undo.reason, st.undo.limit);
    undo.hidden = this.mode === 'pass' || this.mode === 'daily' || !!this.session?.hz;
    const u = /** @type {HTMLElement} */ (this.undoText);
    u.textContent = !st.undos ? '' : st.undo.remaining != null
      ? t('local.undos.left', { n: st.undos, left: st.undo.remaining })
      : t('local.undos', { n: st.undos });
    u.dataset.undos = String(st.undos);
    const c = /** @type {HTMLElement} */ (this.clockText);
    c.hidden = !this.session?.clock;
    c.textContent = this.session?.clock ? describeClock(this.session.clock) : '';
    document.body.dataset.phase = st.status?.over ? 'ended' : 'running';
    const hand = /** @type {HTMLElement} */ (this.handoff);
    if (st.handoff) {
      hand.hidden = false;
      hand.dataset.seat = String(st.handoff.seat);
      clear(hand).append(
        h('h2', { id: 'local-handoff-title', text: t('local.handoff', { name: st.handoff.name }) }),
        h('p', { class: 'muted', text: t('local.handoff.note') }),
        h('button', { class: 'btn btn-primary btn-big', id: 'local-reveal', type: 'button', on: { click: () => this.session?.reveal() } }, t('local.handoff.reveal', { name: st.handoff.name })));
      hand.querySelector('button')?.focus();
    } else {
      hand.hidden = true;
    }
    const share = /** @type {HTMLElement} */ (this.share);
    const sh = this.session?.share();
    const sk = `local.share.status.${sh?.status}`; // i18n: local.share.status.*
    const text = !sh ? '' : t(sh.undos ? 'local.share.undos' : 'local.share', { ...sh, status: t(sk) === sk ? sh.status : t(sk) }); // i18n: local.share*
    share.hidden = !text;
    if (text) {
      clear(share).append(h('p', { id: 'local-share-text', text }),
        h('button', { class: 'btn', type: 'button', on: { click: () => copyText(text) } }, t('local.copy')));
    }
  }

  undo() {
    const rc = this.session?.undo();
    if (rc && !rc.ok && rc.notice) showNotice(localNotice(rc.notice));
  }
}
