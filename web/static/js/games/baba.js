// @ts-check
// Baba: one level of the Baba engine, played together. Every seat moves
// the same YOU objects; pushing word blocks changes the rules. Nothing is
// hidden, so players and spectators see the same view. Views replace the
// state; "delta" beats are applied exactly as core/babagame's View.Apply
// does (games/baba/view.js). No rule is computed here: where things go,
// what the rules become, winning and losing are the server's.
//
// Input, for a seated player while the level is being played: the arrow
// keys and WASD step, Z or Backspace undoes, R restarts (pressed twice: a
// restart cannot be undone) — anywhere on the page but in a text field —
// and the on-screen arrows, Undo and Restart. Commands go one at a time,
// each after the receipt of the one before, so that quick presses are
// played in order and in turns control none is sent out of turn. In turns
// control only the seat whose turn it is may step; any seat may undo or
// restart.
//
// DOM hooks: #baba[data-level][data-control][data-phase][data-moves]
// [data-won][data-lost][data-turn][data-mine] · #baba-board
// [data-cols][data-rows] with .baba-obj[data-id][data-kind][data-x][data-y]
// (data-word on word blocks; data-you, data-win on the objects that are
// YOU, WIN) · #baba-status[data-state] (playing, lost, won, ended,
// waiting) · #baba-moves[data-moves] · #baba-rules li[data-rule]
// [data-active] · #baba-pad button[data-dir] · #baba-undo ·
// #baba-restart[data-armed] · #baba-result[data-status][data-winners] ·
// #new-game.

import { h, clear } from '../ui.js';
import { t } from '../i18n.js';
import { fromWire, applyBeats } from './baba/view.js';
import { tileOf, wordOf, wordClass } from './baba/tiles.js';
import { configOf, levelOf, LEVELS } from './baba/settings.js';

// The page module's contract: registry.js.
export const id = 'baba';
export const rulesVersion = 'baba/1';
export const icon = 'baba';
export const tagline = t('baba.tagline');
export { describe, defaults, settingsForm } from './baba/settings.js';

/** @typedef {import('./baba/view.js').View} View */
/** @typedef {import('./baba/view.js').Obj} Obj */
/** @typedef {'up'|'down'|'left'|'right'} Dir */
/** @typedef {{type: 'step', dir: Dir}|{type: 'undo'}|{type: 'restart'}} Command */

/** @type {Record<string, Dir>} */
const DIR_KEYS = {
  ArrowUp: 'up', ArrowDown: 'down', ArrowLeft: 'left', ArrowRight: 'right',
  w: 'up', W: 'up', s: 'down', S: 'down', a: 'left', A: 'left', d: 'right', D: 'right',
};
const ARROWS = /** @type {Record<Dir, string>} */ ({ up: '▲', down: '▼', left: '◀', right: '▶' });
const QUEUE_MAX = 8;        // key presses kept while a command is in flight
const RESTART_ARM_MS = 3000; // how long the first press of restart waits for the second

/** "1 move", "6 moves". @param {number} n */
function movesText(n) { return t(n === 1 ? 'baba.moves.one' : 'baba.moves.other', { n }); } // i18n: baba.moves.*

/**
 * A thing's name for screen readers ("rock"); a kind this page does not
 * know, as it is.
 * @param {string} kind
 */
function thingName(kind) {
  const key = `baba.thing.${kind}`; // i18n: baba.thing.*
  const s = t(key);
  return s === key ? kind : s;
}

/**
 * @param {import('../registry.js').GameContext} ctx
 * @returns {import('../registry.js').GameView}
 */
export function create(ctx) {
  const title = h('h2', { class: 'baba-title' });
  const note = h('p', { class: 'baba-note muted' });
  const status = h('p', { class: 'baba-status', id: 'baba-status', role: 'status', 'aria-live': 'polite' });
  // A touch screen (a phone) steps with the pad alone: its words name the
  // pad's arrow buttons, not the keys.
  const touch = matchMedia('(pointer: coarse)');
  const moves = h('p', { class: 'baba-moves', id: 'baba-moves', dataset: { moves: '0' } });
  const summary = h('p', { class: 'baba-sr', id: 'baba-summary' });
  const board = h('div', { class: 'baba-board', id: 'baba-board', tabindex: '0', role: 'group',
    'aria-roledescription': t('baba.board.role'), 'aria-describedby': 'baba-summary' });
  const stage = h('div', { class: 'baba-stage' }, board);
  const pad = h('div', { class: 'baba-pad', id: 'baba-pad', role: 'group', 'aria-label': t('baba.pad') },
    // i18n: baba.step.*
    ...(/** @type {Dir[]} */ (['up', 'left', 'down', 'right'])).map((d) => h('button', { class: 'btn baba-pad-btn', type: 'button',
      'aria-label': t(`baba.step.${d}`), title: t(`baba.step.${d}`), text: ARROWS[d], dataset: { dir: d } })));
  const undoBtn = /** @type {HTMLButtonElement} */ (h('button', { class: 'btn baba-undo', id: 'baba-undo', type: 'button',
    title: t('baba.undo.title') }, t('baba.undo')));
  const restartBtn = /** @type {HTMLButtonElement} */ (h('button', { class: 'btn baba-restart', id: 'baba-restart', type: 'button',
    title: t('baba.restart.title') }, t('baba.restart')));
  const controls = h('div', { class: 'baba-controls', id: 'baba-controls' },
    pad, h('div', { class: 'baba-actions' }, undoBtn, restartBtn));
  const result = h('div', { class: 'panel baba-result', id: 'baba-result', hidden: true, role: 'status' });
  const rules = h('ul', { class: 'baba-rules', id: 'baba-rules', 'aria-label': t('baba.rules.label') });
  const help = h('p', { class: 'baba-help muted small', id: 'baba-help' });
  const el = h('div', { class: 'baba', id: 'baba' },
    result,
    h('div', { class: 'panel baba-main' },
      h('div', { class: 'baba-head' }, h('div', {}, title, note), moves),
      status, stage, summary, controls),
    h('div', { class: 'panel baba-info' }, h('h3', { class: 'baba-rules-title', text: t('baba.rules') }), rules, help));

  /** @type {View|null} */
  let view = null;
  /** @type {import('../client.js').RoomInfo|null} */
  let room = null;
  /** @type {number|null} */
  let seat = null;
  /** @type {import('../client.js').Result|null} */
  let ended = null;
  /** @type {Command[]} */
  let queue = [];
  let sending = false;
  let armedUntil = 0; // restart pressed once: the second press until then restarts
  /** @type {ReturnType<typeof setTimeout>|undefined} */
  let armTimer;
  let focused = false; // the board took the focus once the match ran
  /** @type {Map<number, {kind: string, el: HTMLElement}>} */
  const tiles = new Map();

  // ---- who may do what ----

  const running = () => room?.phase === 'running' && !ended;
  const seated = () => seat != null;
  /** Whether the level is being played by this seat: not won, the match on. */
  const live = () => !!view && seated() && running() && !view.won;
  const turnsControl = () => view?.turn != null;
  const myTurn = () => live() && (!turnsControl() || view?.turn === seat);

  /** @param {Command} cmd */
  function allowed(cmd) {
    if (!live() || !view) return false;
    if (cmd.type === 'step') return myTurn();
    return view.moves > 0;
  }

  // ---- commands, one at a time ----

  /** @param {Command} cmd */
  function send(cmd) {
    if (!allowed(cmd)) return;
    if (queue.length >= QUEUE_MAX) return;
    queue.push(cmd);
    pump();
  }

  async function pump() {
    if (sending) return;
    sending = true;
    try {
      while (queue.length) {
        const cmd = /** @type {Command} */ (queue.shift());
        // The view may have changed since the press (the level won,
        // the turn passed): what is no longer allowed is dropped, and
        // what came after it too.
        if (!allowed(cmd)) { queue = []; break; }
        render();
        const rc = await ctx.command(cmd);
        if (!rc.ok) queue = []; // the room page shows the refusal
      }
    } finally {
      sending = false;
      render();
    }
  }

  function undo() { disarm(); send({ type: 'undo' }); }

  /** The first press arms, the second (within RESTART_ARM_MS) restarts. */
  function restart() {
    if (!allowed({ type: 'restart' })) return;
    if (Date.now() < armedUntil) {
      disarm();
      send({ type: 'restart' });
      return;
    }
    armedUntil = Date.now() + RESTART_ARM_MS;
    clearTimeout(armTimer);
    armTimer = setTimeout(() => { armedUntil = 0; render(); }, RESTART_ARM_MS);
    render();
  }

  function disarm() {
    armedUntil = 0;
    clearTimeout(armTimer);
  }

  /** @param {KeyboardEvent} e */
  function onKey(e) {
    if (e.altKey || e.ctrlKey || e.metaKey || !el.isConnected || !live()) return;
    const target = /** @type {HTMLElement|null} */ (e.target);
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
    const dir = DIR_KEYS[e.key];
    if (dir) {
      e.preventDefault(); // no scrolling
      disarm();
      if (myTurn()) send({ type: 'step', dir });
    } else if (e.key === 'z' || e.key === 'Z' || e.key === 'Backspace') {
      e.preventDefault();
      undo();
    } else if ((e.key === 'r' || e.key === 'R') && !e.repeat) {
      e.preventDefault();
      restart();
    } else {
      return;
    }
    render();
  }
  document.addEventListener('keydown', onKey);

  for (const b of /** @type {NodeListOf<HTMLButtonElement>} */ (pad.querySelectorAll('button[data-dir]'))) {
    const dir = /** @type {Dir} */ (b.dataset.dir);
    b.addEventListener('click', () => { disarm(); send({ type: 'step', dir }); });
  }
  undoBtn.addEventListener('click', undo);
  restartBtn.addEventListener('click', restart);

  // ---- what is YOU and WIN (baba.md §3.5), to mark them ----

  /**
   * The properties the active rules give each name: "BABA IS YOU" gives
   * BABA YOU, "BABA IS NOT YOU" takes it away from whatever BABA names.
   * @param {string[]} active
   * @param {string} prop
   * @param {Obj} o
   */
  function has(active, prop, o) {
    const word = wordOf(o.kind);
    const names = word != null ? ['TEXT'] : [o.kind.toUpperCase(), 'ALL'];
    const yes = names.some((n) => active.includes(`${n} IS ${prop}`));
    return yes && !names.some((n) => active.includes(`${n} IS NOT ${prop}`));
  }

  // ---- showing it ----

  function renderBoard() {
    if (!view) return;
    const v = view;
    board.style.setProperty('--cols', String(v.width));
    board.style.setProperty('--rows', String(v.height));
    board.dataset.cols = String(v.width);
    board.dataset.rows = String(v.height);
    const seen = new Set();
    const you = [], win = [];
    for (const o of v.objects) {
      seen.add(o.id);
      let t = tiles.get(o.id);
      if (!t || t.kind !== o.kind) {
        // A new object, or a conversion (the same id, another kind).
        t?.el.remove();
        t = { kind: o.kind, el: tileOf(o.kind) };
        t.el.dataset.id = String(o.id);
        t.el.dataset.kind = o.kind;
        tiles.set(o.id, t);
        board.append(t.el);
      }
      t.el.dataset.x = String(o.x);
      t.el.dataset.y = String(o.y);
      t.el.style.setProperty('--x', String(o.x));
      t.el.style.setProperty('--y', String(o.y));
      const isYou = has(v.activeRules, 'YOU', o), isWin = has(v.activeRules, 'WIN', o);
      if (isYou) { t.el.dataset.you = 'true'; you.push(o); } else delete t.el.dataset.you;
      if (isWin) { t.el.dataset.win = 'true'; win.push(o); } else delete t.el.dataset.win;
    }
    for (const [oid, t] of tiles) {
      if (!seen.has(oid)) {
        t.el.remove();
        tiles.delete(oid);
      }
    }
    // For screen readers: the level in words, what is YOU and WIN first.
    /** @param {Obj} o */
    const name = (o) => { const w = wordOf(o.kind); return w != null ? t('baba.sr.word', { word: w }) : thingName(o.kind); };
    /** @param {Obj} o */
    const at = (o) => t('baba.sr.at', { name: name(o), x: o.x + 1, y: o.y + 1 });
    const sep = t('baba.sr.sep');
    summary.textContent = [
      t('baba.sr.size', { w: v.width, h: v.height }),
      you.length ? t('baba.sr.you', { list: you.map(at).join(sep) }) : t('baba.sr.noyou'),
      win.length ? t('baba.sr.win', { list: win.map(at).join(sep) }) : '',
      t('baba.sr.all', { list: v.objects.map(at).join(sep) }),
    ].filter(Boolean).join(' ');
    const label = !live() ? 'baba.board.label' : touch.matches ? 'baba.board.label.live.touch' : 'baba.board.label.live';
    board.setAttribute('aria-label', t(label, { level: levelOf(v.level).name })); // i18n: baba.board.label*
  }

  function renderRules() {
    if (!view) return;
    const active = new Set(view.activeRules);
    clear(rules);
    for (const r of view.rules) {
      const on = active.has(r);
      const li = h('li', { class: 'baba-rule', dataset: { rule: r, active: String(on) },
        title: on ? (r === 'TEXT IS PUSH' ? t('baba.rule.always') : t('baba.rule.on')) : t('baba.rule.off') },
      ...r.split(' ').map((w) => h('span', { class: 'baba-chip', dataset: { word: w, class: wordClass(w) }, text: w })));
      if (!on) li.append(h('span', { class: 'baba-sr', text: ` ${t('baba.rule.cancelled')}` }));
      rules.append(li);
    }
    if (!view.rules.length) rules.append(h('li', { class: 'muted', text: t('baba.rules.none') }));
  }

  function render() {
    if (!view) return;
    const v = view;
    const level = levelOf(v.level);
    const cfg = configOf(room?.settings);
    const mine = myTurn();
    const canRevert = live() && v.moves > 0;
    el.dataset.level = v.level;
    el.dataset.control = turnsControl() ? 'turns' : cfg.control;
    el.dataset.phase = v.won ? 'won' : ended ? 'ended' : 'playing';
    el.dataset.moves = String(v.moves);
    el.dataset.won = String(v.won);
    el.dataset.lost = String(v.lost);
    el.dataset.mine = String(mine);
    if (v.turn != null) el.dataset.turn = String(v.turn); else delete el.dataset.turn;

    const named = level.n ? t('baba.title.level', { n: level.n, name: level.name }) : level.name;
    title.textContent = room?.match && room.match > 1 ? t('baba.title.game', { title: named, n: room.match }) : named;
    note.textContent = level.note;
    moves.dataset.moves = String(v.moves);
    moves.textContent = movesText(v.moves);

    // The status line.
    let state, text;
    if (v.won) {
      state = 'won';
      text = t('baba.status.won', { moves: movesText(v.moves) });
    } else if (ended) {
      state = 'ended';
      text = t('baba.status.ended', { status: ended.status });
    } else if (v.lost) {
      state = 'lost';
      text = t('baba.status.lost');
    } else if (!seated()) {
      state = 'waiting';
      text = v.turn != null ? t('baba.status.watch.turn', { name: ctx.seatName(v.turn) }) : t('baba.status.watch');
    } else if (v.turn != null && !mine) {
      state = 'waiting';
      text = t('baba.status.wait', { name: ctx.seatName(v.turn) });
    } else if (v.turn != null) {
      state = 'playing';
      text = touch.matches ? t('baba.status.turn.touch') : t('baba.status.turn');
    } else {
      state = 'playing';
      text = touch.matches ? t('baba.status.shared.touch') : t('baba.status.shared');
    }
    const armed = Date.now() < armedUntil;
    if (armed && live()) text = touch.matches ? t('baba.status.armed.touch') : t('baba.status.armed');
    status.dataset.state = state;
    status.dataset.mine = String(mine);
    if (v.turn != null) status.dataset.turn = String(v.turn); else delete status.dataset.turn;
    if (status.textContent !== text) status.textContent = text;
    document.title = t(v.turn != null && mine ? 'baba.doc.turn' : 'baba.doc', { code: room?.code || '' }); // i18n: baba.doc*

    // The controls: hidden for spectators, disabled when they would be refused.
    controls.hidden = !seated();
    for (const b of /** @type {NodeListOf<HTMLButtonElement>} */ (pad.querySelectorAll('button'))) b.disabled = !mine;
    undoBtn.disabled = !canRevert;
    restartBtn.disabled = !canRevert;
    restartBtn.dataset.armed = String(armed && canRevert);
    restartBtn.textContent = armed && canRevert ? t('baba.restart.armed') : t('baba.restart');
    board.dataset.live = String(live());
    board.dataset.mine = String(mine);
    help.textContent = !seated() ? t('baba.help') : touch.matches ? t('baba.help.player.touch') : t('baba.help.player');

    renderBoard();
    renderRules();
    renderResult();

    // A player's keys work at once: the board takes the focus when the
    // level starts, unless something else has it.
    if (!focused && live() && el.isConnected && (document.activeElement === document.body || !document.activeElement)) {
      focused = true;
      board.focus({ preventScroll: true });
    }
  }

  /** The result panel: the level won, or the room's verdict (a resignation). */
  function renderResult() {
    if (!view || (!view.won && !ended)) {
      result.hidden = true;
      return;
    }
    const level = levelOf(view.level);
    const next = level.n && level.n < LEVELS.length ? LEVELS[level.n] : null;
    const won = view.won;
    const host = ctx.isHost();
    // Rebuilt only when it says something else: it is a live region.
    const key = JSON.stringify([view.level, won, view.moves, ended?.status, ended?.winners, host]);
    if (!result.hidden && result.dataset.key === key) return;
    result.hidden = false;
    result.dataset.key = key;
    result.dataset.status = ended?.status || (won ? 'won' : '');
    result.dataset.winners = (ended?.winners || []).join(',');
    const actions = h('div', { class: 'actions' },
      host
        ? h('button', { class: 'btn btn-primary', id: 'new-game', type: 'button', on: { click: () => ctx.newGame() } }, t('baba.again'))
        : h('p', { class: 'muted', text: t('baba.again.host') }));
    clear(result).append(
      h('h2', { text: won ? t('baba.result.won') : t('baba.result.ended') }),
      h('p', { text: won
        ? t('baba.result.solved', { level: level.name, moves: movesText(view.moves) })
        : t('baba.result.why', { status: ended?.status || t('baba.result.over') }) }));
    if (won && next) {
      // The next level is a rematch under new settings, the seats kept.
      if (host) {
        const settings = { ...configOf(room?.settings), level: next.id };
        actions.prepend(h('button', { class: 'btn btn-primary', id: 'baba-next', type: 'button',
          on: { click: () => ctx.newGame(settings) } }, t('baba.next', { name: levelOf(next.id).name })));
        actions.querySelector('#new-game')?.classList.remove('btn-primary');
      } else {
        result.append(h('p', { class: 'muted small', text: t('baba.next.host', { n: level.n + 1, name: levelOf(next.id).name }) }));
      }
    }
    result.append(actions);
  }

  return {
    el,
    setView(v) {
      view = v ? fromWire(v) : null;
      queue = [];
      focused = false; // a new match (a rematch) takes the focus again
      disarm();
      render();
    },
    applyBeats(beats) {
      if (!view) return;
      applyBeats(view, beats);
      render();
    },
    setRoom(info, s) {
      room = info;
      seat = s;
      render();
    },
    setResult(res) {
      ended = res || null;
      if (ended) queue = [];
      render();
    },
    setClocks() {},
    destroy() {
      document.removeEventListener('keydown', onKey);
      clearTimeout(armTimer);
      el.remove();
    },
  };
}
