// @ts-check
// The room page, /r/{CODE}: joining (as a player or a spectator), the
// room's lobby (seats, settings, ready, start, AI, removal), the game, and
// the connection's states. Games render in their page modules (loaded by
// registry.js from the room's game id); this page hands them views, beats,
// the room and the clocks.

import * as api from './api.js';
import { RoomClient, TokenStore, Close } from './client.js';
import { games, loadPage, noPageText, follow } from './registry.js';
import { describe, settingsForm } from './settings.js';
import { ChatPanel } from './chat.js';
import { TurnClockView } from './turnclock.js';
import { h, clear, icon, setConn, showNotice, copyText, savedName, saveName, rememberMatch } from './ui.js';
import { t } from './i18n.js';

/** @typedef {import('./registry.js').GamePage} GamePage */
/** @typedef {import('./registry.js').GameContext} GameContext */
/** @typedef {import('./registry.js').GameView} GameView */

/** The client's build, sent in hello. */
const BUILD = 'web-1';

/**
 * @param {HTMLElement} app
 * @param {string} code
 */
export async function showRoom(app, code) {
  const page = new RoomPage(app, code.toUpperCase());
  await page.init();
}

class RoomPage {
  /** @param {HTMLElement} app @param {string} code */
  constructor(app, code) {
    this.app = app;
    this.code = code;
    this.tokens = new TokenStore();
    /** @type {RoomClient|null} */
    this.client = null;
    /** @type {import('./client.js').RoomInfo|null} */
    this.info = null;
    /** @type {import('./api.js').GameInfo|undefined} */
    this.gameInfo = undefined;
    /** @type {GamePage|null} */
    this.page = null;
    /** @type {GameView|null} */
    this.game = null;
    /** @type {import('./client.js').Result|null} */
    this.result = null;
    this.watching = false;
    this.settingsKey = '';
    this.removedByHost = false;
    /** @type {ChatPanel|null} */
    this.chat = null;
    /** this tab's seat is gone (left, removed): the page shows it as a visitor's */
    this.left = false;
    /** why the server refused this tab's sign-in (auth-required), for the banner */
    /** a locked room's invite: from the link, or the server's for a seated player */
    this.invite = '';
    this.authRefusal = '';
    /** the connection went away after being online: what the room shows is not live */
    this.offline = false;
    /** the connection has been online once */
    this.wasOnline = false;
    /** @type {ReturnType<typeof setInterval>|undefined} a quick-play room's countdown */
    this.quickTimer = undefined;
    // The match's turn clocks (room.turnClock): above the game, and by
    // each seat in the list.
    this.clock = new TurnClockView({
      seatName: (i) => this.info?.seats[i]?.name || t('app.room.seatN', { n: i + 1 }),
      seat: () => this.left ? null : this.client?.seat ?? null,
      className: 'turn-clocks-room',
    });
  }

  async init() {
    document.title = t('app.room.docTitle', { code: this.code });
    const label = document.getElementById('room-label');
    if (label) { label.hidden = false; label.textContent = this.code; }
    clear(this.app);
    this.app.className = 'app app-room';
    this.banner = h('div', { id: 'banner', class: 'banner', role: 'alert', hidden: true });
    this.main = h('section', { class: 'room-main', id: 'room-main' });
    this.side = h('aside', { class: 'room-side', id: 'room-side' });
    // The page's heading, for screen readers: the panels below carry the
    // titles people see.
    this.h1 = h('h1', { class: 'sr-only', id: 'room-title', text: t('app.room.docTitle', { code: this.code }) });
    const column = h('div', { class: 'room-column', id: 'room-column' }, this.clock.el, this.main);
    this.column = column;
    this.app.append(this.h1, this.banner, h('div', { class: 'room-layout' }, column, this.side));
    this.main.append(h('p', { class: 'muted', id: 'finding', text: t('app.room.finding') }));

    let info;
    try {
      const [list, room] = await Promise.all([games().catch(() => null), api.roomInfo(this.code)]);
      info = room;
      this.gameInfo = list?.games.find((g) => g.id === room.game.id);
      this.h1.textContent = t('app.room.heading', { game: this.gameInfo?.name || room.game.id, code: this.code });
      this.page = await loadPage(room.game.id);
    } catch (err) {
      const e = /** @type {api.APIError} */ (err);
      if (e.status === 404) {
        this.tokens.forget(this.code);
        return this.gone('no-room');
      }
      clear(this.main).append(h('div', { class: 'panel' }, h('p', { text: t('app.lobby.noAnswer', { why: e.message }) }),
        h('button', { class: 'btn', type: 'button', on: { click: () => this.init() } }, t('app.lobby.retry'))));
      return;
    }
    this.info = info;
    if (!this.page) {
      clear(this.main).append(h('div', { class: 'panel gone', id: 'no-page', dataset: { game: info.game.id } },
        h('h2', { text: t('app.room.heading', { game: this.gameInfo?.name || info.game.id, code: this.code }) }),
        h('p', { class: 'no-page', text: noPageText({ id: info.game.id, name: this.gameInfo?.name }) }),
        h('a', { class: 'btn btn-primary', href: '/' }, t('app.room.toLobby'))));
      this.renderSide();
      return;
    }
    const params = new URLSearchParams(location.search);
    // A locked room's invite link carries its invite (?invite=…): kept for
    // the hello, and out of the address bar once read.
    if (params.get('invite')) {
      this.invite = params.get('invite') || '';
      params.delete('invite');
      history.replaceState(null, '', location.pathname + (params.size ? '?' + params : ''));
    }
    if (this.tokens.get(this.code)) this.connect(false, '');
    else if (params.has('watch')) this.connect(true, '');
    else this.showJoin(info);
  }

  /** @param {import('./client.js').RoomInfo} info */
  showJoin(info) {
    const open = info.phase === 'lobby' && info.seats.length < info.maxSeats;
    const name = /** @type {HTMLInputElement} */ (h('input', { id: 'join-name', type: 'text', autocomplete: 'nickname', maxlength: '32',
      placeholder: t('app.lobby.namePlaceholder'), value: savedName() }));
    const join = h('button', { class: 'btn btn-primary btn-big', id: 'join-player', type: 'submit', disabled: !open }, t('app.room.joinPlayer'));
    const watch = h('button', { class: 'btn btn-big', id: 'join-watch', type: 'button' }, t('app.open.watch'));
    const form = h('form', { class: 'panel join-panel' },
      h('h2', { text: t('app.room.heading', { game: this.gameInfo?.name || info.game.id, code: this.code }) }),
      h('p', { class: 'muted', text: describe(this.gameInfo, this.page, info.settings) }),
      h('p', { text: open
        ? (info.seats.length === 1 ? t('app.room.waitingOne', { names: info.seats[0].name }) : t('app.room.waitingMany', { names: info.seats.map((s) => s.name).join(', ') }))
        : info.phase === 'lobby' ? t('app.room.full') : t('app.room.started') }),
      open && h('div', { class: 'field' }, h('label', { for: name.id, text: t('app.lobby.yourName') }), name),
      h('div', { class: 'actions' }, open && join, watch));
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      saveName(name.value.trim());
      this.connect(false, name.value.trim() || t('app.player'));
    });
    watch.addEventListener('click', () => {
      const who = name.value.trim(); // a spectator's name shows in chat
      if (who) saveName(who);
      this.connect(true, who);
    });
    clear(/** @type {HTMLElement} */ (this.main)).append(form);
    this.renderSide();
  }

  /**
   * Opens the room's socket.
   * @param {boolean} watch
   * @param {string} name
   */
  connect(watch, name) {
    const mod = /** @type {GamePage} */ (this.page);
    this.watching = watch;
    this.client?.stop();
    const client = new RoomClient({ room: this.code, name, watch, tokens: this.tokens, auth: api.authToken(), invite: this.invite,
      game: { id: mod.id, rulesVersion: mod.rulesVersion, build: BUILD } });
    this.client = client;
    this.chat = new ChatPanel({
      send: (text) => client.chat(text),
      report: (id) => client.report(id),
      control: (ctl) => client.control(ctl),
    });
    client.on('chat', (m) => this.chat?.add(m.messages));
    clear(/** @type {HTMLElement} */ (this.main)).append(h('p', { class: 'muted', id: 'connecting', text: t('app.room.connecting') }));
    client.on('state', (d) => this.onState(d));
    client.on('snapshot', (s) => this.onSnapshot(s));
    client.on('update', (u) => this.onUpdate(u));
    client.on('tick', (t) => this.game?.applyTick?.(t.tick, t.beats));
    client.on('presence', (p) => this.onPresence(p));
    client.on('clocks', (c) => this.game?.setClocks(c));
    client.on('notice', (n) => this.onNotice(n));
    client.on('bye', (b) => { if (b.code === Close.RESTARTING) setConn('reconnecting', t('app.room.restarting')); });
    addEventListener('pagehide', () => client.stop(), { once: true });
    client.start();
  }

  /** @param {{state: string, code: number, replaced: boolean}} d */
  onState(d) {
    setConn(d.state);
    if (d.state !== 'online') this.clock.pause(); // the next snapshot starts it again
    this.showOffline(d.state);
    if (this.info) this.chat?.setRoom(this.info, this.client?.seat ?? null, d.state === 'online');
    if (d.state === 'online') this.hideBanner();
    if (d.state !== 'closed') return;
    const lobby = () => h('a', { class: 'btn', href: '/' }, t('app.room.toLobby'));
    const again = () => h('button', { class: 'btn', type: 'button', on: { click: () => location.reload() } }, t('app.room.joinAgain'));
    switch (d.code) {
      case Close.REPLACED:
        return this.showBanner('replaced', t('app.room.banner.replaced'),
          h('button', { class: 'btn btn-primary', id: 'takeback', type: 'button', on: { click: () => this.client?.takeBack() } }, t('app.room.takeBack')));
      case Close.LEFT:
        this.showBanner('left', this.removedByHost ? t('app.room.banner.removed') : t('app.room.banner.left'), again(), lobby());
        return this.showLeft(this.removedByHost ? 'removed' : 'left');
      case Close.UPDATE_REQUIRED:
        return this.showBanner('update', t('app.room.banner.update'),
          h('button', { class: 'btn btn-primary', id: 'reload', type: 'button', on: { click: () => location.reload() } }, t('app.room.reload')));
      case Close.UNAUTHORIZED:
        return this.showBanner('auth', this.authRefusal || t('app.room.banner.auth'), lobby());
      case Close.ROOM_CLOSED:
        return this.gone('closed');
      case Close.BAD_TOKEN:
        this.showBanner('left', t('app.room.banner.badToken'), again(), lobby());
        return this.showLeft('bad-token');
      case Close.LOCKED:
        return this.showBanner('closed', t('app.room.banner.locked'), lobby());
      default:
        return this.showBanner('closed', t('app.room.banner.closed'),
          h('button', { class: 'btn', type: 'button', on: { click: () => location.reload() } }, t('app.room.reconnect')));
    }
  }

  /**
   * While the connection is away (after it was online), the room says so
   * where the player looks (issue 43): no seat's dot is green (presence
   * unknown), the game is dimmed and takes no pointer, and the game's page
   * is told (setConnection: a spectator's line stops saying "live", a match
   * clock stands still). The next snapshot brings it all back.
   * @param {string} state
   */
  showOffline(state) {
    if (state === 'online') this.wasOnline = true;
    // Closed has its own look (the whole room faded, a banner says why).
    const offline = this.wasOnline && (state === 'reconnecting' || state === 'connecting');
    const column = /** @type {HTMLElement} */ (this.column);
    if (offline) column.dataset.offline = state;
    else delete column.dataset.offline;
    column.setAttribute('aria-busy', String(offline));
    this.game?.setConnection?.(state);
    if (offline === this.offline) return;
    this.offline = offline;
    if (this.info) this.renderSide();
  }

  /**
   * The page after this tab's seat is gone (left, removed by the host, or
   * given up elsewhere): the game's last view goes — its words are for the
   * players still in the room ("the host can start a new game") — and the
   * page says so, with the way back in, to watch, or to the lobby.
   * @param {'left'|'removed'|'bad-token'} why
   */
  showLeft(why) {
    this.game?.destroy();
    this.game = null;
    this.clock.set(null); // the match's clocks go with its view
    this.settingsKey = '';
    // i18n: app.room.left.*
    clear(/** @type {HTMLElement} */ (this.main)).append(h('div', { class: 'panel gone', id: 'left', dataset: { why } },
      h('h2', { text: t(`app.room.left.${why}`, { code: this.code }) }),
      h('p', { class: 'muted', text: t('app.room.leftText') }),
      h('div', { class: 'actions' },
        h('a', { class: 'btn btn-primary', id: 'left-lobby', href: '/' }, t('app.room.toLobby')),
        h('a', { class: 'btn', id: 'left-watch', href: `/r/${this.code}?watch` }, t('app.room.watchRoom')),
        h('a', { class: 'btn', id: 'left-join', href: `/r/${this.code}` }, t('app.room.joinAgain')))));
    delete document.body.dataset.phase;
    this.left = true;
    this.renderSide(); // no longer a player: no seat of ours, no leave button
  }

  /** @param {string} kind @param {string} text @param {...HTMLElement} buttons */
  showBanner(kind, text, ...buttons) {
    const b = /** @type {HTMLElement} */ (this.banner);
    clear(b).append(h('span', { class: 'banner-text', text }), h('span', { class: 'banner-actions' }, ...buttons));
    b.dataset.kind = kind;
    b.hidden = false;
    // The banner says what became of the connection: no placeholder stays under it.
    for (const id of ['connecting', 'finding']) document.getElementById(id)?.remove();
  }

  hideBanner() {
    const b = /** @type {HTMLElement} */ (this.banner);
    b.hidden = true;
    delete b.dataset.kind;
  }

  /** @param {'no-room'|'closed'} why */
  gone(why) {
    this.client?.stop();
    this.tokens.forget(this.code); // the room is gone: its token opens nothing
    setConn('closed');
    this.game?.destroy();
    this.game = null;
    this.clock.set(null);
    this.clock.setResult(null);
    clear(/** @type {HTMLElement} */ (this.main)).append(h('div', { class: 'panel gone', id: 'gone', dataset: { why } },
      h('h2', { text: (why === 'no-room' ? t('app.room.noRoom', { code: this.code }) : t('app.room.closed', { code: this.code })) }),
      h('p', { text: why === 'no-room' ? t('app.room.noRoomText') : t('app.room.closedText') }),
      h('a', { class: 'btn btn-primary', href: '/' }, t('app.room.newGame'))));
    clear(/** @type {HTMLElement} */ (this.side));
    this.hideBanner();
  }

  /** @param {any} n */
  onNotice(n) {
    if (n.code === 'seat-removed') this.removedByHost = true;
    if (n.code === 'auth-required') { this.authRefusal = n.message; return; } // the banner says it
    if (n.code === 'no-room') return;
    showNotice(n);
  }

  /** @param {any} s */
  onSnapshot(s) {
    if (s.epochChanged) showNotice({ code: 'epoch-changed', message: t('app.notice.code.epoch-changed') });
    if (s.invite) this.invite = s.invite; // seated players get a locked room's invite
    this.info = s.room;
    this.result = s.result || null;
    this.clock.setRoom(s.room);
    this.clock.set(s.room.turnClock ?? null);
    this.clock.setResult(s.room.phase === 'ended' ? this.result : null);
    this.render();
    if (this.game) {
      if (s.view) this.game.setView(s.view, s.tick || 0);
      this.game.setResult(s.room.phase === 'ended' ? this.result : null);
    }
    this.maybeAutostart();
  }

  /** @param {any} u */
  onUpdate(u) {
    if (u.invite) this.invite = u.invite; // the update that locks the room
    if (u.room) this.info = u.room;
    if (u.result) this.result = u.result;
    this.onTurnClock(u);
    if (u.room || u.seat != null) this.render();
    if (this.game) {
      const beats = Array.isArray(u.beats) && u.beats.length ? u.beats : null;
      if (u.view) {
        // An update's view is the match after the update: the update that
        // ends a match carries its beats and the view they lead to. The
        // beats go first, to the view they change (a page may log or
        // animate them), and the view then replaces it — never the beats
        // on top of the view that already holds them.
        if (beats) this.game.applyBeats(beats, u.by ?? null);
        this.result = null;
        this.game.setView(u.view, this.client?.lastTick ?? 0);
        this.game.setResult(null);
      } else if (beats) {
        this.game.applyBeats(beats, u.by ?? null);
      }
      if (u.result) this.game.setResult(u.result, true);
    }
    if (u.result) this.remember(u.result);
  }

  /**
   * An update's turn clock: its own (it changed), else its room's; a new
   * match clears the last one's result, the update that ends one shows it.
   * @param {any} u
   */
  onTurnClock(u) {
    if (u.room) this.clock.setRoom(u.room);
    if (u.view && !u.result) this.clock.setResult(null);
    if (u.turnClock) this.clock.set(u.turnClock);
    else if (u.room) this.clock.set(u.room.turnClock ?? null);
    if (u.result) this.clock.setResult(u.result);
  }

  /** @param {any} p */
  onPresence(p) {
    if (!this.info) return;
    this.info.connected = p.connected;
    this.info.spectators = p.spectators;
    this.info.clocks = p.clocks;
    for (const s of this.info.seats) s.connected = p.connected.includes(s.seat);
    // A quick-play room's countdown starts, or stops, with the seats'
    // connections (PROTOCOL.md, "Public rooms and quick play").
    const startsAt = p.startsAt || 0;
    if (startsAt !== (this.info.startsAt || 0)) {
      this.info.startsAt = startsAt;
      if (this.info.phase === 'lobby') return this.render();
    }
    this.renderSide();
    // A real-time match pauses while no player is there (PROTOCOL.md §2.7).
    const paused = !!p.paused;
    if (paused !== !!this.info.paused) {
      this.info.paused = paused;
      this.game?.setRoom(this.info, this.client?.seat ?? null);
    }
  }

  /**
   * Keeps the match that just ended, played from this browser, so that the
   * lobby's best times mark its entry (entries carry room and match).
   * @param {any} result
   */
  remember(result) {
    const match = result?.match ?? this.info?.match;
    if (this.client?.seat == null || match == null) return;
    rememberMatch(this.code, match);
  }

  maybeAutostart() {
    const key = 'roomd.autostart.' + this.code;
    let flag = null;
    try { flag = sessionStorage.getItem(key); sessionStorage.removeItem(key); } catch { /* none */ }
    if (flag && this.info?.phase === 'lobby' && this.isHost()) this.control({ op: 'start' });
  }

  isHost() {
    const seat = this.client?.seat;
    return seat != null && this.info?.host === seat;
  }

  /** @param {any} ctl */
  async control(ctl) {
    if (!this.client) return;
    return this.client.control(ctl);
  }

  /** Re-renders from the room info: the lobby or the game, and the side panel. */
  render() {
    const info = this.info;
    if (!info || !this.client) return;
    const seat = this.client.seat;
    // A closing room says "closed", a phase the protocol's schema does not list.
    if (/** @type {string} */ (info.phase) === 'closed') return this.gone('closed');
    clearInterval(this.quickTimer);
    if (info.phase === 'lobby') {
      if (this.game) {
        this.game.destroy();
        this.game = null;
      }
      this.renderLobby(info, seat);
    } else {
      this.settingsKey = '';
      if (!this.game) {
        const mod = /** @type {GamePage} */ (this.page);
        this.game = mod.create(this.gameContext());
        clear(/** @type {HTMLElement} */ (this.main)).append(this.game.el);
        this.game.setConnection?.(this.client.state);
      }
      this.game.setRoom(info, seat);
    }
    this.renderSide();
    document.body.dataset.phase = info.phase;
  }

  /** @returns {GameContext} */
  gameContext() {
    return {
      command: (cmd) => /** @type {RoomClient} */ (this.client).command(cmd),
      newGame: async (settings) => {
        if (!this.client || !this.isHost()) return;
        if (this.info?.phase === 'running') {
          const rc = await this.client.resign();
          if (!rc.ok) return;
        }
        await this.client.control(settings ? { op: 'rematch', settings } : { op: 'rematch' });
      },
      isHost: () => this.isHost(),
      seat: () => this.client?.seat ?? null,
      room: () => this.info,
      seatName: (i) => this.info?.seats[i]?.name || t('app.room.seatN', { n: i + 1 }),
      serverNow: () => this.client ? this.client.serverNow() : Date.now(),
      resync: () => this.client?.resync(),
      rtt: () => this.client?.rtt() ?? 0,
      game: this.gameInfo,
      follow: (view, beats) => follow(this.gameInfo?.id || '', view, beats),
    };
  }

  /**
   * @param {import('./client.js').RoomInfo} info
   * @param {number|null} seat
   */
  renderLobby(info, seat) {
    const main = /** @type {HTMLElement} */ (this.main);
    const host = seat != null && info.host === seat;
    const me = seat != null ? info.seats[seat] : null;
    const key = JSON.stringify([info.settings, host, info.match]);
    let panel = /** @type {HTMLElement|null} */ (main.querySelector('#lobby'));
    if (!panel || key !== this.settingsKey) {
      this.settingsKey = key;
      panel = h('div', { class: 'panel lobby-panel', id: 'lobby' });
      const title = h('h2', {}, icon(this.page?.icon || 'logo'), ' ', this.gameInfo?.name || info.game.id);
      panel.append(title);
      // A quick-play room's settings are what its players asked quick play
      // for: nobody changes them.
      if (host && this.gameInfo && !info.quick) {
        const form = settingsForm(this.gameInfo, this.page, info.settings, 'room');
        const save = h('button', { class: 'btn', id: 'save-settings', type: 'submit' }, t('app.room.saveSettings'));
        const f = h('form', { class: 'host-settings', id: 'host-settings' }, form.el, save);
        f.addEventListener('submit', async (ev) => {
          ev.preventDefault();
          let settings;
          try { settings = form.read(); } catch (err) {
            showNotice({ code: 'invalid-settings', message: /** @type {Error} */ (err).message });
            return;
          }
          await this.control({ op: 'settings', settings });
        });
        panel.append(f);
      } else {
        panel.append(h('p', { class: 'settings-text', id: 'settings-text', text: describe(this.gameInfo, this.page, info.settings) }));
      }
      panel.append(h('div', { class: 'actions', id: 'lobby-actions' }));
      clear(main).append(panel);
    }
    const actions = /** @type {HTMLElement} */ (panel.querySelector('#lobby-actions'));
    clear(actions);
    const need = Math.max(0, info.minSeats - info.seats.length);
    if (info.quick) return this.renderQuick(actions, info, seat, need);
    if (seat == null) {
      actions.append(h('p', { class: 'muted', text: t('app.room.watching') }));
      if (info.seats.length < info.maxSeats) {
        actions.append(h('button', { class: 'btn', id: 'take-seat', type: 'button', on: { click: () => this.connect(false, savedName() || t('app.player')) } }, t('app.room.takeSeat')));
      }
      return;
    }
    if (host) {
      const notReady = info.seats.filter((s) => !s.ai && !s.ready && s.seat !== seat);
      actions.append(h('button', { class: 'btn btn-primary btn-big', id: 'start', type: 'button',
        on: { click: () => this.control({ op: 'start' }) } }, t('app.room.start')));
      if (info.ai && info.seats.length < info.maxSeats) {
        actions.append(h('button', { class: 'btn', id: 'fill-ai', type: 'button',
          on: { click: () => this.control({ op: 'fill-with-ai', count: need > 0 ? need : 1 }) } }, need > 1 ? t('app.room.addAIs', { n: need }) : t('app.room.addAI')));
      }
      const hint = need > 0 ? (need === 1 ? (info.ai ? t('app.room.needOneAI', { n: need }) : t('app.room.needOne', { n: need }))
        : (info.ai ? t('app.room.needManyAI', { n: need }) : t('app.room.needMany', { n: need })))
        : notReady.length ? t('app.room.waitReady', { names: notReady.map((s) => s.name).join(', ') })
        : info.seats.length === 1 && info.maxSeats > 1 ? t('app.room.shareOrStart') : t('app.room.allReady');
      actions.append(h('p', { class: 'muted lobby-hint', id: 'lobby-hint', text: hint }));
    } else if (me) {
      actions.append(h('button', { class: 'btn btn-big ' + (me.ready ? 'btn-ready' : 'btn-primary'), id: 'ready', type: 'button',
        'aria-pressed': me.ready ? 'true' : 'false', dataset: { ready: String(me.ready) },
        on: { click: () => this.control({ op: 'ready', ready: !me.ready }) } }, me.ready ? t('app.room.readyDone') : t('app.room.ready')));
      actions.append(h('p', { class: 'muted lobby-hint', id: 'lobby-hint',
        text: me.ready ? t('app.room.readyHint') : t('app.room.notReadyHint') }));
    }
  }

  /**
   * A quick-play room's lobby: no ready and no start — the room starts its
   * match by itself once the mode's minimum seats are taken and connected,
   * after a countdown to room.startsAt (host ms) shown here.
   * @param {HTMLElement} actions
   * @param {import('./client.js').RoomInfo} info
   * @param {number|null} seat
   * @param {number} need
   */
  renderQuick(actions, info, seat, need) {
    const startsAt = info.startsAt || 0;
    if (startsAt) {
      const el = h('p', { class: 'quick-countdown', id: 'quick-countdown', role: 'status' });
      const show = () => {
        const left = Math.max(0, Math.ceil((startsAt - (this.client ? this.client.serverNow() : Date.now())) / 1000));
        if (el.dataset.left === String(left)) return;
        el.dataset.left = String(left);
        el.textContent = t('app.room.quickStarting', { n: left });
      };
      show();
      this.quickTimer = setInterval(() => { if (el.isConnected) show(); else clearInterval(this.quickTimer); }, 200);
      actions.append(el);
    }
    const text = startsAt ? (info.seats.length < info.maxSeats ? t('app.room.quickMore') : t('app.room.quickAll'))
      : need === 1 ? t('app.room.quickNeedOne', { n: need })
      : need > 1 ? t('app.room.quickNeedMany', { n: need })
      : t('app.room.quickConnecting');
    actions.append(h('p', { class: 'muted lobby-hint', id: 'lobby-hint', text }));
    if (seat == null && info.seats.length < info.maxSeats) {
      actions.append(h('button', { class: 'btn', id: 'take-seat', type: 'button', on: { click: () => this.connect(false, savedName() || t('app.player')) } }, t('app.room.takeSeat')));
    }
  }

  renderSide() {
    const side = /** @type {HTMLElement} */ (this.side);
    const info = this.info;
    clear(side);
    if (!info) return;
    const seat = this.left ? null : this.client?.seat ?? null;
    const host = seat != null && info.host === seat;
    // The code is what people say aloud, so it leads, with its own copy
    // button; the link below it takes the panel's whole width and wraps, so
    // that nothing of it is cut off.
    // A locked room's link carries its invite (seated players have it).
    const locked = /** @type {any} */ (info).access === 'locked' && this.invite;
    const link = `${location.origin}/r/${this.code}${locked ? '?invite=' + encodeURIComponent(this.invite) : ''}`;
    /** @param {string} id @param {string} text @param {string} label */
    const copyButton = (id, text, label) => {
      const b = h('button', { class: 'btn btn-small', id, type: 'button', 'aria-label': label }, t('app.room.copy'));
      b.addEventListener('click', async () => {
        const ok = await copyText(text);
        b.textContent = ok ? t('app.room.copied') : t('app.room.copyFailed');
        setTimeout(() => { b.textContent = t('app.room.copy'); }, 1800);
      });
      return b;
    };
    // The link wraps anywhere but inside the code (a text of its own, so
    // that it is never cut in two); focused, it is selected whole.
    const base = `${location.origin}/r/`;
    const input = h('p', { id: 'share-link', class: 'share-link', tabindex: '0', role: 'textbox', 'aria-readonly': 'true', 'aria-multiline': 'true', 'aria-label': t('app.room.link') },
      h('span', { text: base }), h('span', { class: 'share-link-code', text: this.code }),
      link.slice(base.length + this.code.length));
    input.addEventListener('focus', () => {
      const sel = getSelection();
      sel?.removeAllRanges();
      const range = document.createRange();
      range.selectNodeContents(input);
      sel?.addRange(range);
    });
    const share = h('div', { class: 'panel share' },
      h('h3', { text: t('app.room.invite') }),
      h('div', { class: 'share-code-row' },
        h('span', { class: 'muted small', text: t('app.room.code') }),
        h('strong', { class: 'code share-code', id: 'share-code', text: this.code }),
        copyButton('copy-code', this.code, t('app.room.copyCode'))),
      input,
      h('div', { class: 'share-actions' }, copyButton('copy-link', link, t('app.room.copyLink')),
        h('a', { class: 'small', id: 'spectator-link', href: `/r/${this.code}?watch${locked ? '&invite=' + encodeURIComponent(this.invite) : ''}`, text: t('app.room.spectatorLink') })));
    if (typeof navigator.share === 'function') {
      share.append(h('button', { class: 'btn btn-small', type: 'button',
        on: { click: () => navigator.share({ title: t('app.room.shareTitle'), url: link }).catch(() => {}) } }, t('app.room.share')));
    }
    // Who may find the room (PROTOCOL.md: public rooms are listed in the
    // lobby, unlisted ones need the code, locked ones the invite).
    const access = /** @type {string} */ (/** @type {any} */ (info).access || 'unlisted');
    if (host) {
      const sel = /** @type {HTMLSelectElement} */ (h('select', { id: 'room-access' },
        // i18n: app.room.access.*
        ...['public', 'unlisted', 'locked'].map((a) => h('option', { value: a, selected: a === access }, t(`app.room.access.${a}`)))));
      sel.addEventListener('change', async () => {
        const rc = await this.control({ op: 'access', access: sel.value });
        if (rc && !rc.ok) { sel.value = access; if (rc.notice) showNotice(rc.notice); }
      });
      share.append(h('div', { class: 'field share-access' }, h('label', { for: sel.id, text: t('app.room.accessLabel') }), sel));
    }
    // i18n: app.room.accessIs.*
    share.append(h('p', { class: 'muted small', id: 'room-access-text', dataset: { access } }, t(`app.room.accessIs.${access}`)));
    const list = h('ul', { class: 'seats', id: 'seats' });
    for (const s of info.seats) {
      const you = s.seat === seat;
      const removable = host && !you && !s.ai;
      const mutable = host && !you && !s.ai;
      // Offline, nobody's presence is known: no dot says "connected".
      const connected = this.offline ? 'unknown' : String(s.connected || s.ai);
      list.append(h('li', { class: 'seat' + (you ? ' seat-you' : ''),
        dataset: { seat: String(s.seat), ready: String(s.ready), connected, ai: String(s.ai) } },
        h('span', { class: 'seat-dot', title: this.offline ? t('app.room.connUnknown') : s.ai ? t('app.room.ai') : s.connected ? t('app.room.connected') : t('app.room.notConnected'), 'aria-hidden': 'true' }),
        h('span', { class: 'seat-name', text: s.name }),
        info.phase !== 'lobby' && this.clock.tc && this.clock.badge(s.seat),
        you && h('span', { class: 'badge badge-you', text: t('app.room.you') }),
        info.host === s.seat && h('span', { class: 'badge badge-host', text: t('app.room.host') }),
        s.ai && h('span', { class: 'badge badge-ai', text: t('app.room.ai') }),
        info.phase === 'lobby' && !info.quick && !s.ai && info.host !== s.seat && h('span', { class: 'badge ' + (s.ready ? 'badge-ready' : 'badge-wait'), text: s.ready ? t('app.room.isReady') : t('app.room.notReady') }),
        s.muted && h('span', { class: 'badge badge-wait', text: t('app.room.muted') }),
        mutable && h('button', { class: 'btn btn-small btn-quiet mute-seat', type: 'button', 'aria-pressed': String(!!s.muted),
          'aria-label': (s.muted ? t('app.room.unmuteName', { name: s.name }) : t('app.room.muteName', { name: s.name })), dataset: { seat: String(s.seat) },
          on: { click: () => this.control({ op: 'mute', seat: s.seat, muted: !s.muted }) } }, s.muted ? t('app.room.unmute') : t('app.room.mute')),
        removable && h('button', { class: 'btn btn-small btn-quiet remove-seat', type: 'button', 'aria-label': t('app.room.removeName', { name: s.name }),
          dataset: { seat: String(s.seat) }, on: { click: () => {
            if (info.phase !== 'running' || confirm(this.gameInfo?.modes?.find((m) => m.id === info.mode)?.ai ? t('app.room.removeAI', { name: s.name }) : t('app.room.removeResign', { name: s.name }))) {
              this.control({ op: 'remove-seat', seat: s.seat });
            }
          } } }, t('app.room.remove'))));
    }
    if (info.phase === 'lobby') {
      for (let i = info.seats.length; i < info.maxSeats; i++) {
        list.append(h('li', { class: 'seat seat-open' }, h('span', { class: 'seat-dot', 'aria-hidden': 'true' }), h('span', { class: 'seat-name', text: t('app.room.openSeat') })));
      }
    }
    const players = h('div', { class: 'panel players' },
      h('h3', {}, t('app.room.players'), ' ', h('span', { class: 'muted small', text: `${info.seats.length}/${info.maxSeats}` })), // i18n-ok
      list,
      h('p', { class: 'muted small', id: 'spectators', dataset: { count: String(info.spectators) } },
        (info.spectators === 1 ? t('app.room.spectatorOne', { n: 1 }) : t('app.room.spectators', { n: info.spectators })),
        seat == null && this.client && !this.left ? ' ' + t('app.room.includingYou') : ''));
    if (seat != null && this.client?.state === 'online') {
      players.append(h('button', { class: 'btn btn-small btn-quiet', id: 'leave', type: 'button',
        on: { click: () => { if (info.phase !== 'running' || confirm(t('app.room.leaveConfirm'))) this.client?.leave(); } } }, t('app.room.leave')));
    }
    side.append(share, players);
    if (this.chat && this.client && !this.left) {
      this.chat.setRoom(info, seat, this.client.state === 'online');
      side.append(this.chat.el);
    }
  }
}
