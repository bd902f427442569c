// @ts-check
// Baba's settings (core/babagame's Config, PROTOCOL.md §5): the level and
// who may step ("shared": any seat at any time; "turns": the seats in
// turn). The only mode is coop, so the shared form adds no mode choice and
// the config has no "mode" member.

import { h } from '../../ui.js';
import { t } from '../../i18n.js';

/** @typedef {import('../../api.js').GameInfo} GameInfo */

/**
 * The levels, in the order of core/babagame's LevelIDs, with the titles
 * and notes of their files (core/babagame/levels/*.json), in English: the
 * page shows them in the language chosen (levelOf).
 */
export const LEVELS = Object.freeze([
  { id: 'baba-is-you', name: 'Baba Is You', note: 'Push the rock out of the way and touch the flag.' },
  { id: 'rock-is-you', name: 'Rock Is You', note: 'Baba is walled in; the rock is not. Become the rock.' },
  { id: 'wall-is-stop', name: 'Wall Is Stop', note: 'The flag is behind a wall. Break the rule that makes the wall stop you.' },
  { id: 'rock-is-flag', name: 'Rock Is Flag', note: 'There is no flag to touch. Make one.' },
  { id: 'water-is-sink', name: 'Water Is Sink', note: 'A river bars the way. Whatever goes in sinks, and the water with it.' },
  { id: 'lava-is-hot', name: 'Lava Is Hot', note: 'Baba melts in lava, unless Baba stops being melt.' },
]);

/** The controls: who may step. */
export const CONTROLS = Object.freeze(['shared', 'turns']);

/**
 * A level by id, its name and note in the language shown; an id this page
 * does not know (a newer server) gets a name made from the id.
 * @param {string|undefined} id
 * @returns {{id: string, name: string, note: string, n: number}}
 */
export function levelOf(id) {
  const i = LEVELS.findIndex((l) => l.id === id);
  if (i >= 0) {
    const l = LEVELS[i];
    // i18n: baba.level.*
    return { id: l.id, name: t(`baba.level.${l.id}.name`), note: t(`baba.level.${l.id}.note`), n: i + 1 };
  }
  const words = String(id || 'level').split('-').map((w) => w.charAt(0).toUpperCase() + w.slice(1));
  return { id: String(id || ''), name: words.join(' '), note: '', n: 0 };
}

/**
 * A config with the defaults applied.
 * @param {any} settings
 * @returns {{level: string, control: string}}
 */
export function configOf(settings) {
  const s = settings || {};
  return {
    level: typeof s.level === 'string' && s.level ? s.level : LEVELS[0].id,
    control: s.control === 'turns' ? 'turns' : 'shared',
  };
}

/**
 * The settings in one line: "Level 1 · Baba Is You · shared control".
 * @param {GameInfo|undefined} _info
 * @param {any} settings
 */
export function describe(_info, settings) {
  const c = configOf(settings);
  const l = levelOf(c.level);
  return t(l.n ? 'baba.describe.level' : 'baba.describe', { n: l.n, name: l.name, control: t(`baba.control.${c.control}.short`) }); // i18n: baba.control.* // i18n: baba.describe*
}

/** @param {GameInfo} _info */
export function defaults(_info) { return { level: LEVELS[0].id, control: 'shared' }; }

/**
 * The level and the control.
 * @param {GameInfo} _info
 * @param {any} init
 * @param {string} prefix
 * @returns {import('../../registry.js').SettingsForm}
 */
export function settingsForm(_info, init, prefix) {
  const c = configOf(init);
  const levels = LEVELS.some((l) => l.id === c.level) ? LEVELS : [...LEVELS, levelOf(c.level)];
  const level = /** @type {HTMLSelectElement} */ (h('select', { id: `${prefix}-level`, name: 'level' },
    ...levels.map((l, i) => h('option', { value: l.id, selected: l.id === c.level }, `${i + 1}. ${levelOf(l.id).name}`))));
  const control = /** @type {HTMLSelectElement} */ (h('select', { id: `${prefix}-control`, name: 'control' },
    ...CONTROLS.map((x) => h('option', { value: x, selected: x === c.control }, t(`baba.control.${x}`)))));
  const note = h('p', { class: 'hint baba-level-note', id: `${prefix}-level-note`, text: levelOf(c.level).note });
  level.addEventListener('change', () => { note.textContent = levelOf(level.value).note; });
  /** @param {HTMLElement} input @param {string} label */
  const field = (input, label) => h('div', { class: 'field field-small' }, h('label', { for: input.id, text: label }), input);
  return {
    el: h('div', { class: 'settings-fields baba-settings' },
      field(level, t('baba.field.level')), note,
      field(control, t('baba.field.control')),
      h('p', { class: 'hint', text: t('baba.settings.hint') })),
    read() {
      if (!level.value) throw new Error(t('baba.error.level'));
      if (!CONTROLS.includes(control.value)) throw new Error(t('baba.error.control'));
      return { level: level.value, control: control.value };
    },
  };
}
