// @ts-check
// The snake arena in the browser: a real-time game (20 ticks a second). The
// view comes from a snapshot or a new match, then moves by each tick's
// beats (games/snake/world.js); a <canvas> draws it every animation frame,
// each head sliding from its previous cell to its new one over one move
// period after the move arrived (games/snake/draw.js). No rule is computed
// here: where a snake goes, what it eats and when it dies are the server's.
//
// Input: the arrow keys and WASD (not while typing in a field), swipes on
// the board, and on-screen arrows on touch screens; only while the viewer's
// own snake is alive. A turn the snake could not take (the way it goes
// already, or back on itself, or a full queue of two) is not sent. A turn
// shows at once: the head looks the new way, with a chevron on the cell it
// will enter, until the server's tick queues the turn (from then on the
// view's queue holds it) and the move that takes it arrives; a refused
// receipt, or a tick that should have queued the turn and did not, drops
// it.
//
// DOM hooks: #snake[data-phase][data-seat][data-live][data-dir][data-predicted]
// [data-head][data-moves] · #snake-canvas · #snake-countdown[data-count] ·
// #snake-banner[data-kind] (paused, over) · #snake-status[data-tick][data-hz]
// [data-paused] · #snake-time[data-left] · #snake-scores
// li[data-seat][data-score][data-alive][data-you] · #snake-result[data-why]
// [data-winners] · #snake-pad button[data-dir] · #new-game · #snake-summary
// (the canvas's text alternative: each snake's score and whether it is out,
// read out by screen readers when it changes).

import { h, clear } from '../ui.js';
import { t, plural } from '../i18n.js';
import { fromWire, applyBeats, isDir, REVERSE, QUEUE_LEN } from './snake/world.js';
import { draw, colorOf } from './snake/draw.js';
import { describe } from './snake/settings.js';

// The page module's contract: registry.js.
export const id = 'snake';
export const rulesVersion = 'snake/1';
export const icon = 'snake';
export const tagline = t('snake.tagline');
export { describe, defaults, settingsForm } from './snake/settings.js';
/** A leaderboard board's name in the language shown ("小"). */
export { boardName as boardTitle } from './snake/settings.js';

/** @typedef {import('./snake/world.js').Dir} Dir */
/** @typedef {import('./snake/world.js').Cell} Cell */
/** @typedef {import('./snake/world.js').View} View */
/** @typedef {import('./snake/draw.js').Motion} Motion */
/** @typedef {import('./snake/draw.js').Ghost} Ghost */
/**
 * A turn the viewer asked for that no tick has queued yet: tick is the one
 * its receipt says it takes effect at (0 until the receipt).
 * @typedef {{dir: Dir, tick: number}} Prediction
 */

/** @type {Record<string, Dir>} */
const KEYS = {
  ArrowUp: 'up', ArrowDown: 'down', ArrowLeft: 'left', ArrowRight: 'right',
  w: 'up', W: 'up', s: 'down', S: 'down', a: 'left', A: 'left', d: 'right', D: 'right',
};
const ARROWS = /** @type {Record<Dir, string>} */ ({ up: '▲', down: '▼', left: '◀', right: '▶' });
const DEFAULT_HZ = 20;
const GO_MS = 600; // how long "Go!" shows

/**
 * @param {import('../registry.js').GameContext} ctx
 * @returns {import('../registry.js').GameView}
 */
export function create(ctx) {
  const canvas = /** @type {HTMLCanvasElement} */ (h('canvas', { class: 'snake-canvas', id: 'snake-canvas', tabindex: '0',
    role: 'img', 'aria-label': t('snake.arena'), 'aria-describedby': 'snake-summary' }));
  const count = h('div', { class: 'snake-count', id: 'snake-countdown', hidden: true, 'aria-live': 'assertive' });
  const banner = h('div', { class: 'snake-banner', id: 'snake-banner', hidden: true, role: 'status' });
  const stage = h('div', { class: 'snake-stage' }, canvas, h('div', { class: 'snake-overlay' }, count, banner));
  const pad = h('div', { class: 'snake-pad', id: 'snake-pad', role: 'group', 'aria-label': t('snake.pad'), hidden: true },
    ...(/** @type {Dir[]} */ (['up', 'left', 'down', 'right'])).map((d) => h('button', { class: 'snake-pad-btn', type: 'button',
      'aria-label': t(`snake.turn.${d}`), dataset: { dir: d }, text: ARROWS[d] }))); // i18n: snake.turn.*
  const status = h('p', { class: 'snake-status', id: 'snake-status' });
  const title = h('h2', { class: 'snake-title' });
  const settings = h('p', { class: 'snake-settings-text muted small' });
  const time = h('p', { class: 'snake-time', id: 'snake-time' });
  const scores = h('ol', { class: 'snake-scores', id: 'snake-scores' });
  const help = h('p', { class: 'snake-help muted small', id: 'snake-help' });
  const result = h('div', { class: 'snake-result', id: 'snake-result', hidden: true, role: 'status' });
  const summary = h('p', { class: 'snake-sr', id: 'snake-summary', 'aria-live': 'polite' });
  const side = h('div', { class: 'panel snake-side' }, title, settings, time, scores, result, help);
  const el = h('div', { class: 'snake', id: 'snake', dataset: { phase: 'countdown', moves: '0' } },
    h('div', { class: 'snake-play' }, stage, summary, pad, status), side);

  /** @type {View|null} */
  let view = null;
  let tick = 0;
  let hz = DEFAULT_HZ;
  /** @type {import('../client.js').RoomInfo|null} */
  let room = null;
  /** @type {number|null} */
  let seat = null;
  /** @type {import('../client.js').Result|null} */
  let ended = null;
  /** @type {Motion[]} */
  let motion = [];
  /** @type {Ghost[]} */
  let ghosts = [];
  /** @type {Prediction[]} */
  let pending = [];
  let goAt = -Infinity;
  let moves = 0;
  let dpr = 1;
  /** @type {{id: number, x: number, y: number}|null} */
  let swipe = null;

  const g = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d'));
  const coarse = matchMedia('(pointer: coarse)');

  // ---- the view ----

  /**
   * Replaces the view: a snapshot (joining, a resync, a reconnect) or a new
   * match. The tick is the one it is at; the ticks go on from there.
   * @param {any} v @param {number} [at]
   */
  function setView(v, at) {
    if (!v) return;
    view = fromWire(v);
    tick = at || 0;
    motion = view.snakes.map(() => ({ movedAt: -Infinity, prevTail: null }));
    ghosts = [];
    goAt = -Infinity;
    // Turns whose tick the view includes are in its queue (or were not
    // taken); those still to come stay predicted.
    pending = pending.filter((p) => !p.tick || p.tick > tick);
    if (view.phase === 'over' || !live()) pending = [];
    show();
  }

  /**
   * One tick: its beats, in order; the view is then at that tick.
   * @param {number} n @param {any[]} beats
   */
  function applyTick(n, beats) {
    if (!view) return;
    const now = performance.now();
    tick = n;
    // The viewer's own turns that this tick queues are predictions no more.
    for (const b of beats) {
      if (b?.t === 'turn' && b.s === seat && isDir(b.d)) {
        const k = pending.findIndex((p) => p.dir === b.d);
        if (k >= 0) pending.splice(k, 1);
      }
    }
    const ch = applyBeats(view, beats);
    for (const [i, tail] of ch.moved) motion[i] = { movedAt: now, prevTail: tail };
    if (ch.moved.size) moves++;
    for (const d of ch.died) ghosts.push({ seat: d.seat, body: d.body, at: d.at, time: now });
    ghosts = ghosts.filter((x) => now - x.time < 1500);
    if (ch.go) goAt = now;
    // A turn that should have been queued by now and was not, was not taken.
    pending = pending.filter((p) => !p.tick || p.tick > n);
    if (!live()) pending = [];
    show();
  }

  /** The viewer has a snake that can still turn. */
  function live() {
    const sn = view && seat != null ? view.snakes[seat] : null;
    return !!sn && sn.alive && view?.phase !== 'over' && room?.phase === 'running' && !ended;
  }

  /** The own snake's next direction when a turn is coming, else null. */
  function predicted() {
    const sn = view && seat != null ? view.snakes[seat] : null;
    if (!sn || !sn.alive) return null;
    const next = sn.queue[0] || pending[0]?.dir;
    return next && next !== sn.dir ? next : null;
  }

  // ---- input ----

  /**
   * Asks for a turn, unless the snake could not take it: the way it will
   * already go, back on itself, or with two turns queued.
   * @param {Dir} dir
   */
  function turn(dir) {
    if (!live() || !view || seat == null) return false;
    const sn = view.snakes[seat];
    const planned = [...sn.queue, ...pending.map((p) => p.dir)];
    const last = planned.at(-1) || sn.dir;
    if (planned.length >= QUEUE_LEN || dir === last || dir === REVERSE[last]) return false;
    /** @type {Prediction} */
    const p = { dir, tick: 0 };
    pending.push(p);
    show();
    ctx.command({ type: 'turn', dir }).then((rc) => {
      const k = pending.indexOf(p);
      if (k < 0) return; // already queued by its tick
      if (!rc.ok || !rc.tick || rc.tick <= tick) pending.splice(k, 1); // refused, or its tick came and went
      else p.tick = rc.tick;
      show();
    });
    return true;
  }

  /** @param {KeyboardEvent} e */
  function onKey(e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const dir = KEYS[e.key];
    if (!dir || !live() || !el.isConnected) return;
    const t = /** @type {HTMLElement|null} */ (e.target);
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    e.preventDefault(); // no scrolling
    turn(dir);
  }
  document.addEventListener('keydown', onKey);

  // Swipes on the board: a turn each time the finger has gone far enough
  // one way, so that one gesture can make two turns.
  canvas.addEventListener('pointerdown', (e) => {
    if (!live()) return;
    swipe = { id: e.pointerId, x: e.clientX, y: e.clientY };
    canvas.setPointerCapture?.(e.pointerId);
  });
  canvas.addEventListener('pointermove', (e) => {
    if (!swipe || swipe.id !== e.pointerId) return;
    const dx = e.clientX - swipe.x, dy = e.clientY - swipe.y;
    const far = Math.max(18, canvas.clientWidth * 0.05);
    if (Math.max(Math.abs(dx), Math.abs(dy)) < far) return;
    turn(Math.abs(dx) > Math.abs(dy) ? (dx > 0 ? 'right' : 'left') : (dy > 0 ? 'down' : 'up'));
    swipe = { id: e.pointerId, x: e.clientX, y: e.clientY };
  });
  const endSwipe = () => { swipe = null; };
  canvas.addEventListener('pointerup', endSwipe);
  canvas.addEventListener('pointercancel', endSwipe);

  // The on-screen arrows turn on the press, not the release.
  for (const b of /** @type {NodeListOf<HTMLButtonElement>} */ (pad.querySelectorAll('button[data-dir]'))) {
    const dir = /** @type {Dir} */ (b.dataset.dir);
    b.addEventListener('pointerdown', (e) => { e.preventDefault(); turn(dir); });
    b.addEventListener('click', (e) => { if (e.detail === 0) turn(dir); }); // Enter or Space
  }

  // ---- showing it ----

  /** Text and attributes, on every tick and change (the canvas has its own loop). */
  function show() {
    if (!view) return;
    const sn = seat != null ? view.snakes[seat] : null;
    const over = view.phase === 'over' || !!ended;
    const mine = live();
    const pred = predicted();
    el.dataset.phase = over ? 'over' : view.phase;
    el.dataset.seat = seat == null ? '' : String(seat);
    el.dataset.live = String(mine);
    el.dataset.moves = String(moves);
    if (sn) {
      el.dataset.dir = sn.dir;
      el.dataset.head = sn.body.length ? sn.body[0].join(',') : '';
    }
    if (pred) el.dataset.predicted = pred; else delete el.dataset.predicted;
    pad.hidden = !mine;

    // The countdown: 3, 2, 1 from the ticks left until the start.
    const paused = !!room?.paused && !over;
    const left = view.start - tick;
    if (paused) {
      count.hidden = true;
    } else if (view.phase === 'countdown' && left > 0 && !over) {
      const n = Math.ceil(left / hz);
      count.hidden = false;
      count.dataset.count = String(n);
      setText(count, String(n));
    } else if (!over && performance.now() - goAt < GO_MS) {
      count.hidden = false;
      count.dataset.count = '0';
      setText(count, t('snake.go'));
    } else {
      count.hidden = true;
    }

    if (paused) {
      banner.hidden = false;
      banner.dataset.kind = 'paused';
      setText(banner, t('snake.paused'));
    } else if (over) {
      banner.hidden = false;
      banner.dataset.kind = 'over';
      setText(banner, winnerLine());
    } else {
      banner.hidden = true;
    }

    const rtt = Math.round(ctx.rtt());
    status.dataset.tick = String(tick);
    status.dataset.hz = String(hz);
    status.dataset.paused = String(paused);
    const line = t('snake.status', { tick, hz, rtt: rtt ? t('snake.ms', { ms: rtt }) : '—' });
    setText(status, paused ? t('snake.statusPaused', { line }) : line);

    const secs = Math.max(0, Math.ceil((view.end - Math.max(tick, view.start)) / hz));
    time.dataset.left = String(secs);
    setText(time, over ? t('snake.matchOver') : view.phase === 'countdown'
      ? t('snake.startsIn', { n: Math.max(1, Math.ceil(left / hz)) })
      : t('snake.timeLeft', { time: clockText(secs) }));

    showScores();
    showResult(over);
    help.hidden = !mine;
    setText(help, coarse.matches ? t('snake.help.touch') : t('snake.help.keys'));
  }

  function showScores() {
    if (!view) return;
    const rows = view.snakes.map((sn, i) => ({ i, sn }));
    if (scores.children.length !== rows.length) {
      clear(scores);
      for (const { i } of rows) {
        const sw = h('span', { class: 'snake-swatch', 'aria-hidden': 'true' });
        sw.style.setProperty('--c', colorOf(i));
        scores.append(h('li', { dataset: { seat: String(i) } }, sw, h('span', { class: 'snake-name' }),
          h('span', { class: 'snake-out' }), h('span', { class: 'snake-score' })));
      }
    }
    for (const { i, sn } of rows) {
      const li = /** @type {HTMLElement} */ (scores.children[i]);
      li.dataset.score = String(sn.score);
      li.dataset.alive = String(sn.alive);
      li.dataset.you = String(i === seat);
      // The swatch shows the seat's number, or a cross once its snake is out.
      setText(/** @type {HTMLElement} */ (li.querySelector('.snake-swatch')), sn.alive ? String(i + 1) : '✕');
      setText(/** @type {HTMLElement} */ (li.querySelector('.snake-name')), nameOf(i));
      setText(/** @type {HTMLElement} */ (li.querySelector('.snake-out')), sn.alive ? '' : t('snake.out'));
      setText(/** @type {HTMLElement} */ (li.querySelector('.snake-score')), String(sn.score));
    }
    // The canvas's text alternative: who is in, who is out, the scores
    // (the same text until one of them changes, so it is read out then).
    // i18n: snake.summary.*
    setText(summary, rows.map(({ i, sn }) => plural(sn.alive ? 'snake.summary.alive' : 'snake.summary.out', sn.score,
      { name: nameOf(i), score: sn.score })).join(t('snake.summary.sep')));
  }

  /**
   * A seat's name in the scores, the viewer's marked "(you)" — unless the
   * name already says so (local play's "You").
   * @param {number} i
   */
  function nameOf(i) {
    const name = ctx.seatName(i);
    if (i !== seat || name.trim().toLowerCase() === t('snake.you').toLowerCase()) return name;
    return t('snake.nameYou', { name });
  }

  /** The match's winners and why: the view's once over, else the room's result (a resignation). */
  function outcome() {
    if (view?.phase === 'over') return { winners: view.winners, why: view.why };
    if (ended) return { winners: ended.winners || [], why: ended.status };
    return null;
  }

  function winnerLine() {
    const o = outcome();
    if (!o) return '';
    const names = o.winners.map((w) => (w === seat ? t('snake.you') : ctx.seatName(w)));
    if (!names.length) return o.why === 'dead' ? t('snake.gameOver') : t('snake.nobodyWins');
    if (names.length === 1) return o.winners[0] === seat ? t('snake.youWin') : t('snake.wins', { name: names[0] });
    return t('snake.drawBetween', { names: names.slice(0, -1).join(t('snake.listSep')), last: /** @type {string} */ (names.at(-1)) });
  }

  /** @param {boolean} over */
  function showResult(over) {
    const o = outcome();
    if (!over || !o) {
      result.hidden = true;
      return;
    }
    const why = ['last', 'draw', 'time', 'dead', 'resigned'].includes(o.why)
      ? t(`snake.why.${o.why}`) // i18n: snake.why.*
      : t('snake.why.other', { why: o.why });
    const key = JSON.stringify([o, seat, ctx.isHost()]);
    if (result.dataset.key === key && !result.hidden) return;
    result.dataset.key = key;
    result.dataset.why = o.why;
    result.dataset.winners = o.winners.join(',');
    result.hidden = false;
    clear(result).append(
      h('h3', { text: winnerLine() }),
      h('p', { class: 'muted', text: why }),
      ctx.isHost()
        ? h('button', { class: 'btn btn-primary', id: 'new-game', type: 'button', on: { click: () => ctx.newGame() }, text: t('snake.playAgain') })
        : h('p', { class: 'muted small', text: t('snake.hostRestarts') }));
  }

  // ---- the canvas ----

  /** Keeps the canvas's pixels those of its CSS box on this screen. */
  function fit() {
    dpr = Math.min(3, window.devicePixelRatio || 1);
    const w = Math.round(canvas.clientWidth * dpr), hgt = Math.round(canvas.clientHeight * dpr);
    if (w > 0 && hgt > 0 && (canvas.width !== w || canvas.height !== hgt)) {
      canvas.width = w;
      canvas.height = hgt;
    }
  }
  const resize = new ResizeObserver(fit);
  resize.observe(canvas);

  let raf = 0;
  /** @param {number} now */
  function frame(now) {
    raf = requestAnimationFrame(frame);
    if (!view || !canvas.width) return;
    if (!count.hidden && count.dataset.count === '0' && now - goAt >= GO_MS) count.hidden = true;
    draw(g, {
      view, motion, ghosts, now, dpr,
      period: (view.movesEvery * 1000) / hz,
      seat,
      predicted: predicted(),
      labels: view.phase === 'countdown' ? view.snakes.map((_, i) => (i === seat ? t('snake.you') : ctx.seatName(i))) : null,
    });
  }
  raf = requestAnimationFrame(frame);

  return {
    el,
    setView,
    applyTick,
    applyBeats() {}, // a real-time match's beats come in its ticks
    setRoom(info, s) {
      room = info;
      seat = s;
      hz = info.hz || ctx.game?.tick?.hz || DEFAULT_HZ;
      setText(title, info.match ? t('snake.headingMatch', { match: info.match }) : t('snake.heading'));
      setText(settings, describe(ctx.game, info.settings));
      show();
    },
    setResult(r) {
      ended = r || null;
      if (ended) pending = [];
      show();
    },
    setClocks() {},
    destroy() {
      cancelAnimationFrame(raf);
      resize.disconnect();
      document.removeEventListener('keydown', onKey);
      el.remove();
    },
  };
}

/** @param {HTMLElement} el @param {string} text */
function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

/** @param {number} secs */
function clockText(secs) {
  return `${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, '0')}`;
}
