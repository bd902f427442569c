// @ts-check
// The settings form of a game (its config, PROTOCOL.md §1), built from
// GET /api/games: Minesweeper's mode and level (or custom rows × cols ×
// mines), Hidden Nim's pile. The lobby uses it to create a room and the
// host uses it to change the room's settings.

import { h } from './ui.js';

/** @typedef {import('./api.js').GameInfo} GameInfo */
/** @typedef {{id: string, rows: number, cols: number, mines: number}} Level */

const levelNames = /** @type {Record<string, string>} */ ({
  beginner: 'Beginner', intermediate: 'Intermediate', expert: 'Expert', nightmare: 'Nightmare', custom: 'Custom',
});

/**
 * The preset levels a Minesweeper config schema describes: each
 * `if level = X then rows/cols/mines = const` of its allOf.
 * @param {any} schema
 * @returns {Level[]}
 */
export function levelsOf(schema) {
  /** @type {Level[]} */
  const out = [];
  for (const rule of schema?.allOf || []) {
    const id = rule?.if?.properties?.level?.const;
    const p = rule?.then?.properties;
    if (typeof id === 'string' && p?.rows?.const && p?.cols?.const && p?.mines?.const != null) {
      out.push({ id, rows: p.rows.const, cols: p.cols.const, mines: p.mines.const });
    }
  }
  if (!out.length) { // a schema without presets: the classic ones
    out.push({ id: 'beginner', rows: 9, cols: 9, mines: 10 }, { id: 'intermediate', rows: 16, cols: 16, mines: 40 },
      { id: 'expert', rows: 16, cols: 30, mines: 99 });
  }
  return out;
}

/**
 * Rows, cols and mines of a Minesweeper config.
 * @param {any} settings
 * @param {Level[]} levels
 */
export function boardOf(settings, levels) {
  const s = settings || {};
  if (Number.isInteger(s.rows) && Number.isInteger(s.cols) && Number.isInteger(s.mines)) return { rows: s.rows, cols: s.cols, mines: s.mines };
  const lv = levels.find((l) => l.id === (s.level || 'beginner')) || levels[0];
  return { rows: lv.rows, cols: lv.cols, mines: lv.mines };
}

/**
 * The leaderboard's name for a config: the preset's id when the dimensions
 * are a preset's, else custom-RxCxM.
 * @param {any} settings
 * @param {Level[]} levels
 */
export function boardName(settings, levels) {
  const b = boardOf(settings, levels);
  const lv = levels.find((l) => l.rows === b.rows && l.cols === b.cols && l.mines === b.mines);
  return lv ? lv.id : `custom-${b.rows}x${b.cols}x${b.mines}`;
}

/**
 * A one-line description of a room's settings.
 * @param {GameInfo|undefined} game
 * @param {any} settings
 */
export function describe(game, settings) {
  if (!game) return '';
  const s = settings || {};
  if (game.id === 'minesweeper') {
    const levels = levelsOf(game.configSchema);
    const b = boardOf(s, levels);
    const mode = game.modes.find((m) => m.id === (s.mode || 'solo'));
    const lv = s.level && s.level !== 'custom' ? levelNames[s.level] || s.level : 'Custom';
    return `${mode ? mode.name : 'Solo'} · ${lv} ${b.rows}×${b.cols}, ${b.mines} mine${b.mines === 1 ? '' : 's'}`;
  }
  if (game.id === 'nim') return `Pile of ${s.pile || 21}`;
  return JSON.stringify(s);
}

/**
 * A form for game's settings. read() returns the settings object, or
 * throws an Error with a readable message.
 * @param {GameInfo} game
 * @param {any} [initial]
 * @param {string} [prefix]  id prefix, so that two forms can share a page
 */
export function settingsForm(game, initial, prefix = 'set') {
  if (game.id === 'minesweeper') return minesweeperForm(game, initial || {}, prefix);
  if (game.id === 'nim') return nimForm(initial || {}, prefix);
  const area = /** @type {HTMLTextAreaElement} */ (h('textarea', { id: `${prefix}-json`, rows: '3' }));
  area.value = JSON.stringify(initial || {});
  return {
    el: h('div', { class: 'field' }, h('label', { for: area.id, text: 'Settings (JSON)' }), area),
    read: () => JSON.parse(area.value || '{}'),
  };
}

/**
 * @param {GameInfo} game
 * @param {any} init
 * @param {string} prefix
 */
function minesweeperForm(game, init, prefix) {
  const levels = levelsOf(game.configSchema);
  const mode = /** @type {HTMLSelectElement} */ (h('select', { id: `${prefix}-mode`, name: 'mode' },
    ...game.modes.map((m) => h('option', { value: m.id, selected: (init.mode || 'solo') === m.id },
      `${m.name}${m.maxSeats > 1 ? ` (${m.minSeats === m.maxSeats ? m.minSeats : `${m.minSeats}–${m.maxSeats}`} players)` : ''}`))));
  const initLevel = init.level || (Number.isInteger(init.rows) ? 'custom' : 'beginner');
  const level = /** @type {HTMLSelectElement} */ (h('select', { id: `${prefix}-level`, name: 'level' },
    ...levels.map((l) => h('option', { value: l.id, selected: initLevel === l.id },
      `${levelNames[l.id] || l.id} — ${l.rows}×${l.cols}, ${l.mines} mines`)),
    h('option', { value: 'custom', selected: initLevel === 'custom' }, 'Custom…')));
  const b = boardOf(init, levels);
  /** @param {string} name @param {string} label @param {number} value @param {number} min @param {number} max */
  const num = (name, label, value, min, max) => {
    const input = /** @type {HTMLInputElement} */ (h('input', { id: `${prefix}-${name}`, name, type: 'number', inputmode: 'numeric',
      min: String(min), max: String(max), step: '1', value: String(value), required: true }));
    return { input, el: h('div', { class: 'field field-small' }, h('label', { for: input.id, text: label }), input) };
  };
  const rows = num('rows', 'Rows', b.rows, 1, 100);
  const cols = num('cols', 'Columns', b.cols, 1, 100);
  const mines = num('mines', 'Mines', b.mines, 0, 9999);
  const custom = h('div', { class: 'custom-fields', id: `${prefix}-custom`, hidden: initLevel !== 'custom' }, rows.el, cols.el, mines.el);
  level.addEventListener('change', () => { custom.hidden = level.value !== 'custom'; });
  const el = h('div', { class: 'settings-form' },
    h('div', { class: 'field' }, h('label', { for: mode.id, text: 'Mode' }), mode),
    h('div', { class: 'field' }, h('label', { for: level.id, text: 'Level' }), level),
    custom);
  return {
    el,
    read() {
      /** @type {any} */
      const s = { mode: mode.value };
      if (level.value !== 'custom') {
        s.level = level.value;
        return s;
      }
      const r = Number(rows.input.value), c = Number(cols.input.value), m = Number(mines.input.value);
      if (![r, c, m].every(Number.isInteger)) throw new Error('Rows, columns and mines must be whole numbers.');
      if (r < 1 || r > 100 || c < 1 || c > 100) throw new Error('Rows and columns go from 1 to 100.');
      if (m < 0 || m > r * c - 1) throw new Error(`Mines go from 0 to ${r * c - 1} on a ${r}×${c} board.`);
      Object.assign(s, { level: 'custom', rows: r, cols: c, mines: m });
      return s;
    },
  };
}

/** @param {any} init @param {string} prefix */
function nimForm(init, prefix) {
  const pile = /** @type {HTMLInputElement} */ (h('input', { id: `${prefix}-pile`, name: 'pile', type: 'number', inputmode: 'numeric',
    min: '1', max: '1000', step: '1', value: String(init.pile || 21), required: true }));
  return {
    el: h('div', { class: 'settings-form' },
      h('div', { class: 'field' }, h('label', { for: pile.id, text: 'Pile size' }), pile),
      h('p', { class: 'hint', text: '2 to 4 players take 1, 2 or 3 in turn. Taking the last one wins — unless you took exactly your secret number.' })),
    read() {
      const n = Number(pile.value);
      if (!Number.isInteger(n) || n < 1 || n > 1000) throw new Error('The pile goes from 1 to 1000.');
      return { pile: n };
    },
  };
}
