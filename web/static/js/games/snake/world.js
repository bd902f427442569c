// @ts-check
// The snake arena's view as the page keeps it: core/snake's View, replaced
// by a snapshot or a new match's view and moved by each tick's beats
// exactly as View.Apply does (no rule of the game is computed here: a move
// says which way each snake went, a death and a new food say where). No
// DOM, so it runs under Node as well.
//
// The view:
//   {"rows":24,"cols":24,"movesEvery":3,"start":60,"end":2460,"phase":"running",
//    "snakes":[{"body":[[6,5],[6,4],[6,3]],"dir":"right","alive":true,"score":0,"queue":["up"]}],
//    "food":[[3,9]], "winners":[0], "why":"last"}
// (queue on the viewer's own snake only; winners and why once over).
// The beats, in order within a tick:
//   {"t":"turn","s":2,"d":"up"}     the viewer's own turn, queued
//   {"t":"go"}                      the countdown is over
//   {"t":"move","d":"rl.u"}         one letter per seat: the way it moved, or '.'
//   {"t":"die","s":1,"at":[r,c],"why":"wall"}
//   {"t":"food","at":[r,c]}
//   {"t":"over","winners":[0],"why":"last"}

/** @typedef {[number, number]} Cell */
/** @typedef {'up'|'down'|'left'|'right'} Dir */
/** @typedef {{body: Cell[], dir: Dir, alive: boolean, score: number, queue: Dir[]}} Snake */
/**
 * @typedef {object} View
 * @property {number} rows
 * @property {number} cols
 * @property {number} movesEvery  ticks between two moves
 * @property {number} start       the tick the countdown ends at
 * @property {number} end         the last tick (the time limit)
 * @property {string} phase       countdown, running or over
 * @property {Snake[]} snakes
 * @property {Cell[]} food
 * @property {number[]} winners   once over
 * @property {string} why         once over: last, draw, time or dead
 */
/**
 * What a tick did, for the renderer: the seats that moved with the tail
 * each left (null when it ate and kept it), the deaths with the bodies
 * lost, whether the countdown ended and whether the match did.
 * @typedef {{moved: Map<number, Cell|null>, died: {seat: number, body: Cell[], at: Cell, why: string}[], go: boolean, over: boolean}} Changes
 */

/** @type {Readonly<Record<Dir, Cell>>} */
export const DELTA = Object.freeze({ up: [-1, 0], down: [1, 0], left: [0, -1], right: [0, 1] });
/** @type {Readonly<Record<Dir, Dir>>} */
export const REVERSE = Object.freeze({ up: 'down', down: 'up', left: 'right', right: 'left' });
/** @type {Readonly<Record<string, Dir>>} */
const BY_LETTER = Object.freeze({ u: 'up', d: 'down', l: 'left', r: 'right' });
/** How many turns a snake may have queued (core/snake's QueueLen). */
export const QUEUE_LEN = 2;

/** @param {any} d @returns {d is Dir} */
export function isDir(d) { return d === 'up' || d === 'down' || d === 'left' || d === 'right'; }

/** @param {any} c @returns {Cell} */
function cell(c) { return [Number(c?.[0]) | 0, Number(c?.[1]) | 0]; }

/**
 * A copy of a view as the server sent it, every member present.
 * @param {any} v
 * @returns {View}
 */
export function fromWire(v) {
  return {
    rows: v.rows | 0,
    cols: v.cols | 0,
    movesEvery: Math.max(1, v.movesEvery | 0),
    start: Number(v.start) || 0,
    end: Number(v.end) || 0,
    phase: String(v.phase || 'countdown'),
    snakes: (v.snakes || []).map((/** @type {any} */ s) => ({
      body: (s.body || []).map(cell),
      dir: isDir(s.dir) ? s.dir : 'right',
      alive: !!s.alive,
      score: s.score | 0,
      queue: (s.queue || []).filter(isDir),
    })),
    food: (v.food || []).map(cell),
    winners: Array.isArray(v.winners) ? [...v.winners] : [],
    why: String(v.why || ''),
  };
}

/** @param {Cell} a @param {Cell} b */
export function sameCell(a, b) { return a[0] === b[0] && a[1] === b[1]; }

/**
 * A view in the server's JSON form, members in its order (queue only when
 * not empty, winners and why once over): what the tests compare.
 * @param {View} v
 */
export function toWire(v) {
  return {
    rows: v.rows, cols: v.cols, movesEvery: v.movesEvery, start: v.start, end: v.end, phase: v.phase,
    snakes: v.snakes.map((s) => ({ body: s.body, dir: s.dir, alive: s.alive, score: s.score, ...(s.queue.length ? { queue: s.queue } : {}) })),
    food: v.food,
    ...(v.phase === 'over' ? { winners: v.winners, why: v.why } : {}),
  };
}

/**
 * Applies one tick's beats to v, in order, as core/snake's View.Apply.
 * @param {View} v
 * @param {any[]} beats
 * @returns {Changes}
 */
export function applyBeats(v, beats) {
  /** @type {Changes} */
  const ch = { moved: new Map(), died: [], go: false, over: false };
  for (const b of beats) {
    switch (b?.t) {
      case 'turn': {
        const sn = v.snakes[b.s];
        if (sn && isDir(b.d)) sn.queue.push(b.d);
        break;
      }
      case 'go':
        v.phase = 'running';
        ch.go = true;
        break;
      case 'move':
        move(v, String(b.d || ''), ch);
        break;
      case 'die': {
        const sn = v.snakes[b.s];
        if (!sn) break;
        ch.died.push({ seat: b.s, body: sn.body, at: cell(b.at), why: String(b.why || '') });
        sn.body = [];
        sn.alive = false;
        sn.queue = [];
        break;
      }
      case 'food': {
        // The food is kept in row-major order, as the server lists it.
        const at = cell(b.at);
        const k = v.food.findIndex((f) => f[0] > at[0] || (f[0] === at[0] && f[1] >= at[1]));
        if (k < 0) v.food.push(at);
        else if (!sameCell(v.food[k], at)) v.food.splice(k, 0, at);
        break;
      }
      case 'over':
        v.phase = 'over';
        v.winners = Array.isArray(b.winners) ? [...b.winners] : [];
        v.why = String(b.why || '');
        for (const sn of v.snakes) sn.queue = [];
        ch.over = true;
        break;
    }
  }
  return ch;
}

/**
 * A move: each snake that moved takes its first queued turn and its
 * direction, eats the food on its new head (keeping its tail, scoring a
 * point) or leaves its tail; every tail goes before any head is placed.
 * @param {View} v
 * @param {string} letters
 * @param {Changes} ch
 */
function move(v, letters, ch) {
  /** @type {[number, Cell][]} */
  const heads = [];
  for (let i = 0; i < v.snakes.length && i < letters.length; i++) {
    const sn = v.snakes[i];
    const d = BY_LETTER[letters[i]];
    if (!d || !sn.body.length) continue;
    sn.queue.shift();
    sn.dir = d;
    const head = /** @type {Cell} */ ([sn.body[0][0] + DELTA[d][0], sn.body[0][1] + DELTA[d][1]]);
    const k = v.food.findIndex((f) => sameCell(f, head));
    if (k >= 0) {
      v.food.splice(k, 1);
      sn.score++;
      ch.moved.set(i, null);
    } else {
      ch.moved.set(i, /** @type {Cell} */ (sn.body.pop()));
    }
    heads.push([i, head]);
  }
  for (const [i, head] of heads) v.snakes[i].body.unshift(head);
}
