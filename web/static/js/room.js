// @ts-check
// The room page, /r/{CODE}: joining (as a player or a spectator), the
// room's lobby (seats, settings, ready, start, AI, removal), the game, and
// the connection's states. Games render in their page modules (loaded by
// registry.js from the room's game id); this page hands them views, beats,
// the room and the clocks.

import * as api from './api.js';
import { RoomClient, TokenStore, Close } from './client.js';
import { games, loadPage, noPageText } from './registry.js';
import { describe, settingsForm } from './settings.js';
import { ChatPanel } from './chat.js';
import { h, clear, icon, setConn, showNotice, copyText, savedName, saveName } from './ui.js';

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
    /** why the server refused this tab's sign-in (auth-required), for the banner */
    this.authRefusal = '';
  }

  async init() {
    document.title = `Room ${this.code} · roomd`;
    const label = document.getElementById('room-label');
    if (label) { label.hidden = false; label.textContent = this.code; }
    clear(this.app);
    this.app.className = 'app app-room';
    this.banner = h('div', { id: 'banner', class: 'banner', role: 'alert', hidden: true });
    this.main = h('section', { class: 'room-main', id: 'room-main' });
    this.side = h('aside', { class: 'room-side', id: 'room-side' });
    this.app.append(this.banner, h('div', { class: 'room-layout' }, this.main, this.side));
    this.main.append(h('p', { class: 'muted', text: 'Finding the room…' }));

    let info;
    try {
      const [list, room] = await Promise.all([games().catch(() => null), api.roomInfo(this.code)]);
      info = room;
      this.gameInfo = list?.games.find((g) => g.id === room.game.id);
      this.page = await loadPage(room.game.id);
    } catch (err) {
      const e = /** @type {api.APIError} */ (err);
      if (e.status === 404) {
        this.tokens.forget(this.code);
        return this.gone('no-room');
      }
      clear(this.main).append(h('div', { class: 'panel' }, h('p', { text: 'The server did not answer: ' + e.message }),
        h('button', { class: 'btn', type: 'button', on: { click: () => this.init() } }, 'Try again')));
      return;
    }
    this.info = info;
    if (!this.page) {
      clear(this.main).append(h('div', { class: 'panel gone', id: 'no-page', dataset: { game: info.game.id } },
        h('h2', { text: `${this.gameInfo?.name || info.game.id} · room ${this.code}` }),
        h('p', { class: 'no-page', text: noPageText({ id: info.game.id, name: this.gameInfo?.name }) }),
        h('a', { class: 'btn btn-primary', href: '/' }, 'Back to the lobby')));
      this.renderSide();
      return;
    }
    const params = new URLSearchParams(location.search);
    if (this.tokens.get(this.code)) this.connect(false, '');
    else if (params.has('watch')) this.connect(true, '');
    else this.showJoin(info);
  }

  /** @param {import('./client.js').RoomInfo} info */
  showJoin(info) {
    const open = info.phase === 'lobby' && info.seats.length < info.maxSeats;
    const name = /** @type {HTMLInputElement} */ (h('input', { id: 'join-name', type: 'text', autocomplete: 'nickname', maxlength: '32',
      placeholder: 'Your name', value: savedName() }));
    const join = h('button', { class: 'btn btn-primary btn-big', id: 'join-player', type: 'submit', disabled: !open }, 'Join as player');
    const watch = h('button', { class: 'btn btn-big', id: 'join-watch', type: 'button' }, 'Watch');
    const form = h('form', { class: 'panel join-panel' },
      h('h2', { text: `${this.gameInfo?.name || info.game.id} · room ${this.code}` }),
      h('p', { class: 'muted', text: describe(this.gameInfo, this.page, info.settings) }),
      h('p', { text: open
        ? `${info.seats.map((s) => s.name).join(', ')} ${info.seats.length === 1 ? 'is' : 'are'} waiting. Take a seat, or watch.`
        : info.phase === 'lobby' ? 'Every seat is taken — you can watch.' : 'The game has started — you can watch it live.' }),
      open && h('div', { class: 'field' }, h('label', { for: name.id, text: 'Your name' }), name),
      h('div', { class: 'actions' }, open && join, watch));
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      saveName(name.value.trim());
      this.connect(false, name.value.trim() || 'Player');
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
    const client = new RoomClient({ room: this.code, name, watch, tokens: this.tokens, auth: api.authToken(),
      game: { id: mod.id, rulesVersion: mod.rulesVersion, build: BUILD } });
    this.client = client;
    this.chat = new ChatPanel({
      send: (text) => client.chat(text),
      report: (id) => client.report(id),
      control: (ctl) => client.control(ctl),
    });
    client.on('chat', (m) => this.chat?.add(m.messages));
    clear(/** @type {HTMLElement} */ (this.main)).append(h('p', { class: 'muted', id: 'connecting', text: 'Connecting…' }));
    client.on('state', (d) => this.onState(d));
    client.on('snapshot', (s) => this.onSnapshot(s));
    client.on('update', (u) => this.onUpdate(u));
    client.on('tick', (t) => this.game?.applyTick?.(t.tick, t.beats));
    client.on('presence', (p) => this.onPresence(p));
    client.on('clocks', (c) => this.game?.setClocks(c));
    client.on('notice', (n) => this.onNotice(n));
    client.on('bye', (b) => { if (b.code === Close.RESTARTING) setConn('reconnecting', 'server restarting…'); });
    addEventListener('pagehide', () => client.stop(), { once: true });
    client.start();
  }

  /** @param {{state: string, code: number, replaced: boolean}} d */
  onState(d) {
    setConn(d.state);
    if (this.info) this.chat?.setRoom(this.info, this.client?.seat ?? null, d.state === 'online');
    if (d.state === 'online') this.hideBanner();
    if (d.state !== 'closed') return;
    switch (d.code) {
      case Close.REPLACED:
        return this.showBanner('replaced', 'This game is open in another tab — take it back to play here.',
          h('button', { class: 'btn btn-primary', id: 'takeback', type: 'button', on: { click: () => this.client?.takeBack() } }, 'Take it back'));
      case Close.LEFT:
        return this.showBanner('left', this.removedByHost ? 'The host removed your seat.' : 'You left your seat.',
          h('button', { class: 'btn', type: 'button', on: { click: () => location.reload() } }, 'Join again'),
          h('a', { class: 'btn', href: '/' }, 'Back to the lobby'));
      case Close.UPDATE_REQUIRED:
        return this.showBanner('update', 'Update required: this room runs a newer version of the game. Reload the page to update.',
          h('button', { class: 'btn btn-primary', id: 'reload', type: 'button', on: { click: () => location.reload() } }, 'Reload'));
      case Close.UNAUTHORIZED:
        return this.showBanner('auth', this.authRefusal || 'This server plays only with players its site signed in: sign in on the site, then open the room again.',
          h('a', { class: 'btn', href: '/' }, 'Back to the lobby'));
      case Close.ROOM_CLOSED:
        return this.gone('closed');
      case Close.BAD_TOKEN:
        return this.showBanner('left', 'This seat is no longer yours (it was given up or removed).',
          h('button', { class: 'btn', type: 'button', on: { click: () => location.reload() } }, 'Join again'),
          h('a', { class: 'btn', href: '/' }, 'Back to the lobby'));
      case Close.LOCKED:
        return this.showBanner('closed', 'This room is locked: it needs the host\'s invite.',
          h('a', { class: 'btn', href: '/' }, 'Back to the lobby'));
      default:
        return this.showBanner('closed', 'Disconnected from the room.',
          h('button', { class: 'btn', type: 'button', on: { click: () => location.reload() } }, 'Reconnect'));
    }
  }

  /** @param {string} kind @param {string} text @param {...HTMLElement} buttons */
  showBanner(kind, text, ...buttons) {
    const b = /** @type {HTMLElement} */ (this.banner);
    clear(b).append(h('span', { class: 'banner-text', text }), h('span', { class: 'banner-actions' }, ...buttons));
    b.dataset.kind = kind;
    b.hidden = false;
    document.getElementById('connecting')?.remove(); // the banner says what became of it
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
    clear(/** @type {HTMLElement} */ (this.main)).append(h('div', { class: 'panel gone', id: 'gone', dataset: { why } },
      h('h2', { text: why === 'no-room' ? `There is no room ${this.code}` : `Room ${this.code} is closed` }),
      h('p', { text: why === 'no-room' ? 'It may have closed, or the code is mistyped.' : 'Rooms close when everyone has gone for a while.' }),
      h('a', { class: 'btn btn-primary', href: '/' }, 'Start a new game')));
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
    if (s.epochChanged) showNotice({ code: 'epoch-changed', message: 'The room was restored from an earlier point.' });
    this.info = s.room;
    this.result = s.result || null;
    this.render();
    if (this.game) {
      if (s.view) this.game.setView(s.view, s.tick || 0);
      this.game.setResult(s.room.phase === 'ended' ? this.result : null);
    }
    this.maybeAutostart();
  }

  /** @param {any} u */
  onUpdate(u) {
    if (u.room) this.info = u.room;
    if (u.result) this.result = u.result;
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
  }

  /** @param {any} p */
  onPresence(p) {
    if (!this.info) return;
    this.info.connected = p.connected;
    this.info.spectators = p.spectators;
    this.info.clocks = p.clocks;
    for (const s of this.info.seats) s.connected = p.connected.includes(s.seat);
    this.renderSide();
    // A real-time match pauses while no player is there (PROTOCOL.md §2.7).
    const paused = !!p.paused;
    if (paused !== !!this.info.paused) {
      this.info.paused = paused;
      this.game?.setRoom(this.info, this.client?.seat ?? null);
    }
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
      seatName: (i) => this.info?.seats[i]?.name || `Seat ${i + 1}`,
      serverNow: () => this.client ? this.client.serverNow() : Date.now(),
      resync: () => this.client?.resync(),
      rtt: () => this.client?.rtt() ?? 0,
      game: this.gameInfo,
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
      if (host && this.gameInfo) {
        const form = settingsForm(this.gameInfo, this.page, info.settings, 'room');
        const save = h('button', { class: 'btn', id: 'save-settings', type: 'submit' }, 'Save settings');
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
    if (seat == null) {
      actions.append(h('p', { class: 'muted', text: 'You are watching. The game starts when the host starts it.' }));
      if (info.seats.length < info.maxSeats) {
        actions.append(h('button', { class: 'btn', id: 'take-seat', type: 'button', on: { click: () => this.connect(false, savedName() || 'Player') } }, 'Take a seat'));
      }
      return;
    }
    if (host) {
      const notReady = info.seats.filter((s) => !s.ai && !s.ready && s.seat !== seat);
      actions.append(h('button', { class: 'btn btn-primary btn-big', id: 'start', type: 'button',
        on: { click: () => this.control({ op: 'start' }) } }, 'Start game'));
      if (info.ai && info.seats.length < info.maxSeats) {
        actions.append(h('button', { class: 'btn', id: 'fill-ai', type: 'button',
          on: { click: () => this.control({ op: 'fill-with-ai', count: need > 0 ? need : 1 }) } }, need > 1 ? `Add ${need} AI players` : 'Add an AI player'));
      }
      const hint = need > 0 ? `Waiting for ${need} more player${need === 1 ? '' : 's'} — share the link${info.ai ? ' or add an AI' : ''}.`
        : notReady.length ? `Waiting for ${notReady.map((s) => s.name).join(', ')} to be ready.`
        : info.seats.length === 1 && info.maxSeats > 1 ? 'Share the link to play together — or start on your own.' : 'Everyone is ready.';
      actions.append(h('p', { class: 'muted lobby-hint', id: 'lobby-hint', text: hint }));
    } else if (me) {
      actions.append(h('button', { class: 'btn btn-big ' + (me.ready ? 'btn-ready' : 'btn-primary'), id: 'ready', type: 'button',
        'aria-pressed': me.ready ? 'true' : 'false', dataset: { ready: String(me.ready) },
        on: { click: () => this.control({ op: 'ready', ready: !me.ready }) } }, me.ready ? 'Ready ✓' : "I'm ready"));
      actions.append(h('p', { class: 'muted lobby-hint', id: 'lobby-hint',
        text: me.ready ? 'Waiting for the host to start. Need a moment? Tap again.' : 'Say you are ready, then the host starts.' }));
    }
  }

  renderSide() {
    const side = /** @type {HTMLElement} */ (this.side);
    const info = this.info;
    clear(side);
    if (!info) return;
    const link = `${location.origin}/r/${this.code}`;
    const input = /** @type {HTMLInputElement} */ (h('input', { id: 'share-link', type: 'text', readOnly: true, value: link, 'aria-label': 'Room link' }));
    const copy = h('button', { class: 'btn', id: 'copy-link', type: 'button' }, 'Copy');
    copy.addEventListener('click', async () => {
      const ok = await copyText(link, input);
      copy.textContent = ok ? 'Copied!' : 'Select & copy';
      setTimeout(() => { copy.textContent = 'Copy'; }, 1800);
    });
    const share = h('div', { class: 'panel share' },
      h('h3', { text: 'Invite' }),
      h('div', { class: 'inline-field' }, input, copy),
      h('p', { class: 'muted small' }, 'Room code ', h('strong', { class: 'code', text: this.code }),
        ' · ', h('a', { href: `/r/${this.code}?watch`, text: 'spectator link' })));
    if (typeof navigator.share === 'function') {
      share.append(h('button', { class: 'btn btn-small', type: 'button',
        on: { click: () => navigator.share({ title: 'Join my roomd game', url: link }).catch(() => {}) } }, 'Share…'));
    }
    const seat = this.client?.seat ?? null;
    const host = seat != null && info.host === seat;
    const list = h('ul', { class: 'seats', id: 'seats' });
    for (const s of info.seats) {
      const you = s.seat === seat;
      const removable = host && !you && !s.ai;
      const mutable = host && !you && !s.ai;
      list.append(h('li', { class: 'seat' + (you ? ' seat-you' : ''),
        dataset: { seat: String(s.seat), ready: String(s.ready), connected: String(s.connected || s.ai), ai: String(s.ai) } },
        h('span', { class: 'seat-dot', title: s.ai ? 'AI' : s.connected ? 'connected' : 'not connected', 'aria-hidden': 'true' }),
        h('span', { class: 'seat-name', text: s.name }),
        you && h('span', { class: 'badge badge-you', text: 'you' }),
        info.host === s.seat && h('span', { class: 'badge badge-host', text: 'host' }),
        s.ai && h('span', { class: 'badge badge-ai', text: 'AI' }),
        info.phase === 'lobby' && !s.ai && info.host !== s.seat && h('span', { class: 'badge ' + (s.ready ? 'badge-ready' : 'badge-wait'), text: s.ready ? 'ready' : 'not ready' }),
        s.muted && h('span', { class: 'badge badge-wait', text: 'muted' }),
        mutable && h('button', { class: 'btn btn-small btn-quiet mute-seat', type: 'button', 'aria-pressed': String(!!s.muted),
          'aria-label': `${s.muted ? 'Unmute' : 'Mute'} ${s.name}`, dataset: { seat: String(s.seat) },
          on: { click: () => this.control({ op: 'mute', seat: s.seat, muted: !s.muted }) } }, s.muted ? 'Unmute' : 'Mute'),
        removable && h('button', { class: 'btn btn-small btn-quiet remove-seat', type: 'button', 'aria-label': `Remove ${s.name}`,
          dataset: { seat: String(s.seat) }, on: { click: () => {
            if (info.phase !== 'running' || confirm(`Remove ${s.name} from the match? ${this.gameInfo?.modes?.find((m) => m.id === info.mode)?.ai ? 'The AI plays their seat to the end.' : 'They resign.'}`)) {
              this.control({ op: 'remove-seat', seat: s.seat });
            }
          } } }, 'Remove')));
    }
    if (info.phase === 'lobby') {
      for (let i = info.seats.length; i < info.maxSeats; i++) {
        list.append(h('li', { class: 'seat seat-open' }, h('span', { class: 'seat-dot', 'aria-hidden': 'true' }), h('span', { class: 'seat-name', text: 'open seat' })));
      }
    }
    const players = h('div', { class: 'panel players' },
      h('h3', {}, 'Players ', h('span', { class: 'muted small', text: `${info.seats.length}/${info.maxSeats}` })),
      list,
      h('p', { class: 'muted small', id: 'spectators', dataset: { count: String(info.spectators) } },
        info.spectators === 1 ? '1 spectator' : `${info.spectators} spectators`,
        seat == null && this.client ? ' (including you)' : ''));
    if (seat != null && this.client?.state === 'online') {
      players.append(h('button', { class: 'btn btn-small btn-quiet', id: 'leave', type: 'button',
        on: { click: () => { if (info.phase !== 'running' || confirm('Leave this game? Your seat will be given up.')) this.client?.leave(); } } }, 'Leave room'));
    }
    side.append(share, players);
    if (this.chat && this.client) {
      this.chat.setRoom(info, seat, this.client.state === 'online');
      side.append(this.chat.el);
    }
  }
}
