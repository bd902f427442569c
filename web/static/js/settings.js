// @ts-check
// The settings form of any game (its config, PROTOCOL.md §1): the mode,
// chosen from the modes GET /api/games lists when there are several, then
// the game's own fields from its page module (settingsForm), or a JSON
// field when the page has none. The lobby uses it to create a room and the
// host uses it to change the room's settings. A game whose info says
// turnClock gets the turn clock's choice too (settings.clock: none, a
// limit per move, a chess clock; turnclock.js).

import { h } from './ui.js';
import { t } from './i18n.js';
import { clockField, clockSetting, describeClock } from './turnclock.js';

/** @typedef {import('./api.js').GameInfo} GameInfo */
/** @typedef {import('./registry.js').GamePage} GamePage */
/** @typedef {import('./registry.js').SettingsForm} SettingsForm */

/**
 * The label of a mode in a choice: its name and how many play it.
 * @param {import('./api.js').Mode} m
 */
export function modeLabel(m) {
  if (m.maxSeats <= 1) return m.name;
  return t('app.settings.modeLabel', { mode: m.name, n: m.minSeats === m.maxSeats ? m.minSeats : `${m.minSeats}–${m.maxSeats}` });
}

/**
 * The mode a config plays: its "mode" member, else the game's first.
 * @param {GameInfo} info
 * @param {any} settings
 */
export function modeOf(info, settings) {
  const modes = info.modes || [];
  return modes.find((m) => m.id === settings?.mode) || modes[0];
}

/**
 * A one-line description of a room's settings.
 * @param {GameInfo|undefined} info
 * @param {GamePage|null|undefined} page
 * @param {any} settings
 */
export function describe(info, page, settings) {
  if (!info) return '';
  const { clock, ...s } = settings || {};
  const timed = clockSetting(clock) ? ' · ' + describeClock(clock) : '';
  if (page?.describe) return page.describe(info, s) + timed;
  const parts = [];
  if ((info.modes || []).length > 1) parts.push(modeOf(info, s)?.name || s.mode);
  for (const [k, v] of Object.entries(s)) {
    if (k !== 'mode') parts.push(`${k} ${typeof v === 'object' ? JSON.stringify(v) : v}`);
  }
  return parts.join(' · ') + timed;
}

/**
 * A form for a game's settings. read() returns the settings object, or
 * throws an Error with a readable message.
 * @param {GameInfo} info
 * @param {GamePage|null} page
 * @param {any} [initial]
 * @param {string} [prefix]  id prefix, so that two forms can share a page
 * @returns {SettingsForm}
 */
export function settingsForm(info, page, initial, prefix = 'set') {
  const { clock: initClock, ...init } = initial || {};
  const modes = info.modes || [];
  /** @type {HTMLSelectElement|null} */
  let mode = null;
  if (modes.length > 1) {
    const current = modeOf(info, init)?.id;
    mode = /** @type {HTMLSelectElement} */ (h('select', { id: `${prefix}-mode`, name: 'mode' },
      ...modes.map((m) => h('option', { value: m.id, selected: m.id === current }, modeLabel(m)))));
  }
  const own = page?.settingsForm ? page.settingsForm(info, init, prefix) : jsonForm(init, prefix, !!mode);
  const clock = info.turnClock ? clockField(initClock, prefix) : null;
  const el = h('div', { class: 'settings-form', dataset: { game: info.id } },
    mode && h('div', { class: 'field' }, h('label', { for: mode.id, text: t('app.settings.mode') }), mode),
    own.el,
    clock?.el);
  return {
    el,
    read() {
      const s = own.read();
      const c = clock?.read();
      if (clock) delete s.clock; // the choice above says it
      return { ...(mode ? { mode: mode.value } : {}), ...s, ...(c ? { clock: c } : {}) };
    },
  };
}

/**
 * The settings as JSON, for a game whose page has no form.
 * @param {any} init
 * @param {string} prefix
 * @param {boolean} withoutMode  the mode is chosen apart
 * @returns {SettingsForm}
 */
function jsonForm(init, prefix, withoutMode) {
  const rest = { ...init };
  if (withoutMode) delete rest.mode;
  const area = /** @type {HTMLTextAreaElement} */ (h('textarea', { id: `${prefix}-json`, rows: '3' }));
  area.value = JSON.stringify(rest);
  return {
    el: h('div', { class: 'field' }, h('label', { for: area.id, text: t('app.settings.json') }), area),
    read() {
      let v;
      try { v = JSON.parse(area.value || '{}'); } catch { throw new Error(t('app.settings.badJSON')); }
      if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error(t('app.settings.notObject'));
      return v;
    },
  };
}
