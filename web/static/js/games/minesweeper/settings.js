// @ts-check
// Minesweeper's settings (PROTOCOL.md §5): the preset levels its config
// schema describes, a board's size, the leaderboard's name of a config, the
// one-line description, and the form's own fields (level, or custom rows ×
// cols × mines; the shared form adds the mode).

import { h } from '../../ui.js';
import { modeOf } from '../../settings.js';
import { t } from '../../i18n.js';

/** @typedef {import('../../api.js').GameInfo} GameInfo */
/** @typedef {{id: string, rows: number, cols: number, mines: number}} Level */

const levelIds = ['beginner', 'intermediate', 'expert', 'nightmare', 'custom'];

/**
 * A level's name in the language shown ("Beginner"), or its id when the
 * client does not know it.
 * @param {string} id
 */
export function levelName(id) {
  // i18n: minesweeper.level.*
  const key = 'minesweeper.level.' + id;
  return levelIds.includes(id) ? t(key) : id;
}

/**
 * A mode's name in the language shown ("Co-op"), else fallback.
 * @param {string} id
 * @param {string} [fallback]
 */
export function modeName(id, fallback) {
  // i18n: minesweeper.mode.*
  const key = 'minesweeper.mode.' + id;
  return ['solo', 'coop', 'race'].includes(id) ? t(key) : fallback || id;
}

/** "10 mines", "1 mine". @param {number} n */
export function minesText(n) {
  return n === 1 ? t('minesweeper.mines.one') : t('minesweeper.mines.other', { n });
}

/**
 * A board as players read it: "Intermediate", or "Custom 12 × 24, 40 mines".
 * @param {any} settings
 * @param {Level[]} levels
 */
export function boardLabel(settings, levels) {
  const id = boardName(settings, levels);
  if (levels.some((l) => l.id === id)) return levelName(id);
  const b = boardOf(settings, levels);
  return t('minesweeper.board.custom', { rows: b.rows, cols: b.cols, mines: minesText(b.mines) });
}

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
 * A one-line description of a config: "Co-op · Beginner 9×9, 10 mines".
 * @param {GameInfo|undefined} info
 * @param {any} settings
 */
export function describe(info, settings) {
  const s = settings || {};
  const b = boardOf(s, levelsOf(info?.configSchema));
  const mode = info ? modeOf(info, s) : undefined;
  const lv = levelName(s.level && s.level !== 'custom' ? s.level : 'custom');
  return t('minesweeper.describe', { mode: mode ? modeName(mode.id, mode.name) : modeName('solo'), level: lv, rows: b.rows, cols: b.cols, mines: minesText(b.mines) });
}

/** @param {GameInfo} info */
export function defaults(info) {
  return { mode: info.modes?.[0]?.id || 'solo', level: 'beginner' };
}

/**
 * The level and the custom board's fields.
 * @param {GameInfo} info
 * @param {any} init
 * @param {string} prefix
 * @returns {import('../../registry.js').SettingsForm}
 */
export function settingsForm(info, init, prefix) {
  const levels = levelsOf(info.configSchema);
  const initLevel = init.level || (Number.isInteger(init.rows) ? 'custom' : 'beginner');
  const level = /** @type {HTMLSelectElement} */ (h('select', { id: `${prefix}-level`, name: 'level' },
    ...levels.map((l) => h('option', { value: l.id, selected: initLevel === l.id },
      t('minesweeper.form.level-option', { level: levelName(l.id), rows: l.rows, cols: l.cols, mines: minesText(l.mines) }))),
    h('option', { value: 'custom', selected: initLevel === 'custom' }, t('minesweeper.form.custom'))));
  const b = boardOf(init, levels);
  /** @param {string} name @param {string} label @param {number} value @param {number} min @param {number} max */
  const num = (name, label, value, min, max) => {
    const input = /** @type {HTMLInputElement} */ (h('input', { id: `${prefix}-${name}`, name, type: 'number', inputmode: 'numeric',
      min: String(min), max: String(max), step: '1', value: String(value), required: true }));
    return { input, el: h('div', { class: 'field field-small' }, h('label', { for: input.id, text: label }), input) };
  };
  const rows = num('rows', t('minesweeper.form.rows'), b.rows, 1, 100);
  const cols = num('cols', t('minesweeper.form.cols'), b.cols, 1, 100);
  const mines = num('mines', t('minesweeper.form.mines'), b.mines, 0, 9999);
  const custom = h('div', { class: 'custom-fields', id: `${prefix}-custom`, hidden: initLevel !== 'custom' }, rows.el, cols.el, mines.el);
  level.addEventListener('change', () => { custom.hidden = level.value !== 'custom'; });
  return {
    el: h('div', { class: 'settings-fields' },
      h('div', { class: 'field' }, h('label', { for: level.id, text: t('minesweeper.form.level') }), level),
      custom),
    read() {
      if (level.value !== 'custom') return { level: level.value };
      const r = Number(rows.input.value), c = Number(cols.input.value), m = Number(mines.input.value);
      if (![r, c, m].every(Number.isInteger)) throw new Error(t('minesweeper.form.whole'));
      if (r < 1 || r > 100 || c < 1 || c > 100) throw new Error(t('minesweeper.form.size-range'));
      if (m < 0 || m > r * c - 1) throw new Error(t('minesweeper.form.mines-range', { max: r * c - 1, rows: r, cols: c }));
      return { level: 'custom', rows: r, cols: c, mines: m };
    },
  };
}
