// @ts-check
// Which local modes a game offers, from its modes (GET /api/games or the
// local core's games): solo and the daily board where a mode takes one
// seat, against the AI where a mode for two or more has AI seats, and
// pass-and-play where a mode takes two or more; a real-time game only
// against the AI. Small and pure: the lobby imports it without loading
// the core.

import { t } from '../i18n.js';

/** @typedef {import('./runner.js').LocalMode} LocalMode */
/** @typedef {import('../api.js').GameInfo} GameInfo */
/** @typedef {import('../api.js').Mode} Mode */

/**
 * The local modes in the order the lobby offers them, with the keys of
 * their labels (modeLabel).
 */
export const LOCAL_MODES = /** @type {const} */ ([
  // i18n: local.mode.*
  { id: 'solo', key: 'local.mode.solo' },
  { id: 'ai', key: 'local.mode.ai' },
  { id: 'pass', key: 'local.mode.pass' },
  { id: 'daily', key: 'local.mode.daily' },
]);

/**
 * A local mode's label in the language shown; an unknown mode, as it is.
 * @param {string} id
 */
export function modeLabel(id) {
  const m = LOCAL_MODES.find((x) => x.id === id);
  return m ? t(m.key) : id;
}

/**
 * The game mode a local mode plays: the first of the game's modes that
 * fits it, or undefined.
 * @param {GameInfo} info
 * @param {LocalMode} local
 * @returns {Mode|undefined}
 */
export function gameModeFor(info, local) {
  const modes = info.modes || [];
  // A real-time game is played against the AI only: one keyboard cannot
  // be passed around at 20 ticks a second, and its board is not daily.
  if (/** @type {any} */ (info).tick && local !== 'ai') return undefined;
  switch (local) {
    case 'solo':
    case 'daily':
      return modes.find((m) => m.minSeats <= 1);
    case 'ai':
      return modes.find((m) => m.ai && m.maxSeats >= 2);
    case 'pass':
      return modes.find((m) => m.maxSeats >= 2);
  }
  return undefined;
}

/**
 * The local modes a game offers.
 * @param {GameInfo} info
 * @returns {LocalMode[]}
 */
export function localModes(info) {
  return LOCAL_MODES.map((m) => m.id).filter((m) => gameModeFor(info, m));
}

/**
 * How many seats a local mode plays a game mode with.
 * @param {Mode} mode
 * @param {LocalMode} local
 */
export function seatCount(mode, local) {
  return local === 'solo' || local === 'daily' ? 1 : Math.max(2, mode.minSeats);
}
