// @ts-check
// The snake arena's settings (core/snake's Config, PROTOCOL.md §5): the
// boards and speeds, the one-line description, and the form's own fields
// (board, speed, time limit, food; the arena is the only mode, so the
// shared form adds no mode choice).

import { h } from '../../ui.js';

/** @typedef {import('../../api.js').GameInfo} GameInfo */

/** The arenas, smallest first: size and how many snakes they hold. */
export const BOARDS = Object.freeze([
  { id: 'small', name: 'Small', rows: 16, cols: 16, seats: 4 },
  { id: 'medium', name: 'Medium', rows: 24, cols: 24, seats: 8 },
  { id: 'large', name: 'Large', rows: 32, cols: 32, seats: 8 },
]);

/** The speeds: the ticks between two moves. */
export const SPEEDS = Object.freeze([
  { id: 'slow', name: 'Slow', movesEvery: 4 },
  { id: 'normal', name: 'Normal', movesEvery: 3 },
  { id: 'fast', name: 'Fast', movesEvery: 2 },
]);

/** Time limits offered, in seconds (the rules take 30 to 600). */
const TIMES = [30, 60, 90, 120, 180, 300, 600];
const MIN_TIME = 30, MAX_TIME = 600, MAX_FOOD = 16;

/** The defaults of a config that names nothing. */
const DEFAULTS = Object.freeze({ board: 'medium', speed: 'normal', timeLimit: 120, food: 3 });

/**
 * A time in seconds, in words: "30 s", "2 min", "1 min 30 s".
 * @param {number} s
 */
export function timeWords(s) {
  const m = Math.floor(s / 60), r = s % 60;
  if (!m) return `${r} s`;
  return r ? `${m} min ${r} s` : `${m} min`;
}

/**
 * A config with the defaults applied.
 * @param {any} settings
 * @returns {{board: string, speed: string, timeLimit: number, food: number}}
 */
export function configOf(settings) {
  const s = settings || {};
  return {
    board: BOARDS.some((b) => b.id === s.board) ? s.board : DEFAULTS.board,
    speed: SPEEDS.some((x) => x.id === s.speed) ? s.speed : DEFAULTS.speed,
    timeLimit: Number.isInteger(s.timeLimit) ? s.timeLimit : DEFAULTS.timeLimit,
    food: Number.isInteger(s.food) ? s.food : DEFAULTS.food,
  };
}

/**
 * The settings in one line: "Medium 24×24 · normal speed · 2 min · 3 food".
 * @param {GameInfo|undefined} _info
 * @param {any} settings
 */
export function describe(_info, settings) {
  const c = configOf(settings);
  const b = BOARDS.find((x) => x.id === c.board) || BOARDS[1];
  const sp = SPEEDS.find((x) => x.id === c.speed) || SPEEDS[1];
  return `${b.name} ${b.rows}×${b.cols} · ${sp.name.toLowerCase()} speed · ${timeWords(c.timeLimit)} · ${c.food} food`;
}

/** @param {GameInfo} _info */
export function defaults(_info) { return { ...DEFAULTS }; }

/**
 * The board, speed, time limit and food.
 * @param {GameInfo} _info
 * @param {any} init
 * @param {string} prefix
 * @returns {import('../../registry.js').SettingsForm}
 */
export function settingsForm(_info, init, prefix) {
  const c = configOf(init);
  /** @param {string} name @param {[string|number, string][]} options @param {string|number} value */
  const select = (name, options, value) => /** @type {HTMLSelectElement} */ (h('select', { id: `${prefix}-${name}`, name },
    ...options.map(([v, label]) => h('option', { value: String(v), selected: String(v) === String(value) }, label))));
  const board = select('board', BOARDS.map((b) => [b.id, `${b.name} — ${b.rows}×${b.cols}, up to ${b.seats} players`]), c.board);
  const speed = select('speed', SPEEDS.map((x) => [x.id, x.name]), c.speed);
  const times = TIMES.includes(c.timeLimit) ? TIMES : [...TIMES, c.timeLimit].sort((a, b) => a - b);
  const time = select('time-limit', times.map((t) => [t, timeWords(t)]), c.timeLimit);
  const food = /** @type {HTMLInputElement} */ (h('input', { id: `${prefix}-food`, name: 'food', type: 'number', inputmode: 'numeric',
    min: '1', max: String(MAX_FOOD), step: '1', value: String(c.food), required: true }));
  /** @param {HTMLElement} input @param {string} label */
  const field = (input, label) => h('div', { class: 'field field-small' }, h('label', { for: input.id, text: label }), input);
  return {
    el: h('div', { class: 'settings-fields snake-settings' },
      field(board, 'Board'),
      h('div', { class: 'snake-settings-row' }, field(speed, 'Speed'), field(time, 'Time limit'), field(food, 'Food')),
      h('p', { class: 'hint', text: 'Steer with the arrow keys or WASD (swipe on a phone). Eat to grow; crash into a wall or a snake and you are out. The last snake wins — or the best score when time runs out.' })),
    read() {
      const t = Number(time.value), f = Number(food.value);
      if (!Number.isInteger(t) || t < MIN_TIME || t > MAX_TIME) throw new Error(`The time limit goes from ${MIN_TIME} to ${MAX_TIME} seconds.`);
      if (!Number.isInteger(f) || f < 1 || f > MAX_FOOD) throw new Error(`Food goes from 1 to ${MAX_FOOD}.`);
      return { board: board.value, speed: speed.value, timeLimit: t, food: f };
    },
  };
}
