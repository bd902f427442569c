// @ts-check
// Baba's settings (core/babagame's Config, PROTOCOL.md §5): the level and
// who may step ("shared": any seat at any time; "turns": the seats in
// turn). The only mode is coop, so the shared form adds no mode choice and
// the config has no "mode" member.

import { h } from '../../ui.js';

/** @typedef {import('../../api.js').GameInfo} GameInfo */

/**
 * The levels, in the order of core/babagame's LevelIDs, with the titles
 * and notes of their files (core/babagame/levels/*.json).
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
export const CONTROLS = Object.freeze([
  { id: 'shared', name: 'Shared', text: 'anyone steps at any time' },
  { id: 'turns', name: 'Taking turns', text: 'the players step in turn' },
]);

/**
 * A level by id; an id this page does not know (a newer server) gets a
 * name made from the id.
 * @param {string|undefined} id
 * @returns {{id: string, name: string, note: string, n: number}}
 */
export function levelOf(id) {
  const i = LEVELS.findIndex((l) => l.id === id);
  if (i >= 0) return { ...LEVELS[i], n: i + 1 };
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
  return `${l.n ? `Level ${l.n} · ` : ''}${l.name} · ${c.control === 'turns' ? 'taking turns' : 'shared control'}`;
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
    ...levels.map((l, i) => h('option', { value: l.id, selected: l.id === c.level }, `${i + 1}. ${l.name}`))));
  const control = /** @type {HTMLSelectElement} */ (h('select', { id: `${prefix}-control`, name: 'control' },
    ...CONTROLS.map((x) => h('option', { value: x.id, selected: x.id === c.control }, `${x.name} — ${x.text}`))));
  const note = h('p', { class: 'hint baba-level-note', id: `${prefix}-level-note`, text: levelOf(c.level).note });
  level.addEventListener('change', () => { note.textContent = levelOf(level.value).note; });
  /** @param {HTMLElement} input @param {string} label */
  const field = (input, label) => h('div', { class: 'field field-small' }, h('label', { for: input.id, text: label }), input);
  return {
    el: h('div', { class: 'settings-fields baba-settings' },
      field(level, 'Level'), note,
      field(control, 'Who moves'),
      h('p', { class: 'hint', text: 'Push the word blocks to change the rules. Everyone moves the same YOU: arrow keys or WASD step, Z undoes, R twice restarts. 1–4 players.' })),
    read() {
      if (!level.value) throw new Error('Choose a level.');
      if (!CONTROLS.some((x) => x.id === control.value)) throw new Error('Choose who moves: shared or taking turns.');
      return { level: level.value, control: control.value };
    },
  };
}
