// @ts-check
// The snake arena's settings (core/snake's Config, PROTOCOL.md §5): the
// boards and speeds, the one-line description, and the form's own fields
// (board, speed, time limit, food; the arena is the only mode, so the
// shared form adds no mode choice).

import { h } from '../../ui.js';
import { t } from '../../i18n.js';

/** @typedef {import('../../api.js').GameInfo} GameInfo */

/** The arenas, smallest first: size and how many snakes they hold (names: boardName). */
export const BOARDS = Object.freeze([
  { id: 'small', rows: 16, cols: 16, seats: 4 },
  { id: 'medium', rows: 24, cols: 24, seats: 8 },
  { id: 'large', rows: 32, cols: 32, seats: 8 },
]);

/** The speeds: the ticks between two moves (names: speedName). */
export const SPEEDS = Object.freeze([
  { id: 'slow', movesEvery: 4 },
  { id: 'normal', movesEvery: 3 },
  { id: 'fast', movesEvery: 2 },
]);

/** A board's name in the language shown. @param {string} id */
export function boardName(id) {
  return t(`snake.board.${id}`); // i18n: snake.board.*
}

/** A speed's name in the language shown. @param {string} id */
export function speedName(id) {
  return t(`snake.speed.${id}`); // i18n: snake.speed.*
}

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
  if (!m) return t('snake.time.s', { s: r });
  return r ? t('snake.time.minS', { m, s: r }) : t('snake.time.min', { m });
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
  return t('snake.describe', { board: boardName(b.id), rows: b.rows, cols: b.cols, speed: speedName(sp.id).toLowerCase(),
    time: timeWords(c.timeLimit), food: c.food });
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
  const board = select('board', BOARDS.map((b) => [b.id, t('snake.settings.boardOption', { board: boardName(b.id), rows: b.rows, cols: b.cols, seats: b.seats })]), c.board);
  const speed = select('speed', SPEEDS.map((x) => [x.id, speedName(x.id)]), c.speed);
  const times = TIMES.includes(c.timeLimit) ? TIMES : [...TIMES, c.timeLimit].sort((a, b) => a - b);
  const time = select('time-limit', times.map((t) => [t, timeWords(t)]), c.timeLimit);
  const food = /** @type {HTMLInputElement} */ (h('input', { id: `${prefix}-food`, name: 'food', type: 'number', inputmode: 'numeric',
    min: '1', max: String(MAX_FOOD), step: '1', value: String(c.food), required: true }));
  /** @param {HTMLElement} input @param {string} label */
  const field = (input, label) => h('div', { class: 'field field-small' }, h('label', { for: input.id, text: label }), input);
  return {
    el: h('div', { class: 'settings-fields snake-settings' },
      field(board, t('snake.settings.board')),
      h('div', { class: 'snake-settings-row' }, field(speed, t('snake.settings.speed')), field(time, t('snake.settings.timeLimit')),
        field(food, t('snake.settings.food'))),
      h('p', { class: 'hint', text: t('snake.settings.hint') })),
    read() {
      const t = Number(time.value), f = Number(food.value);
      if (!Number.isInteger(t) || t < MIN_TIME || t > MAX_TIME) throw new Error(t('snake.settings.timeRange', { min: MIN_TIME, max: MAX_TIME }));
      if (!Number.isInteger(f) || f < 1 || f > MAX_FOOD) throw new Error(t('snake.settings.foodRange', { min: 1, max: MAX_FOOD }));
      return { board: board.value, speed: speed.value, timeLimit: t, food: f };
    },
  };
}
