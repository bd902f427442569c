// @ts-check
// What the SpellGrid page knows that its views do not carry: the cards'
// printed faces (a view names the cards in hand and the minions in play,
// nothing more) and the levels' titles and notes.
//
// CARDS is the card duel's catalogue (../cards/catalog.js), every card of
// the files a SpellGrid game loads (core/cards/cards/*.json, card-engine.md
// §3.7); web/spellgrid_test.go checks it against cards.Library(). LEVELS
// is a copy of the titles and notes of
// core/spellgridgame/levels/levels.json, checked the same way. A name the
// page does not know still shows, as a bare card.

import { CARDS } from '../cards/catalog.js';
import { t } from '../../i18n.js';

/** @typedef {import('../cards/catalog.js').CardInfo} CardFace */

export { CARDS };

/**
 * The levels, in the server's order: id, title and the note that hints at
 * the idea.
 * @type {{id: string, title: string, note: string}[]}
 */
export const LEVELS = [
  { id: "scribe", title: "The scribe's last word", note: "Play the Rune Scribe where WIN is missing, then let it die: its Deathrattle writes WIN on its tile." }, // i18n-ok: levels.json English, shown through levelInfo
  { id: "double", title: "Twice dead", note: "The Unstable Ghoul's Deathrattle hurts every minion by 1; the raptors have 2 health. Make DEATHRATTLE IS DOUBLE first." }, // i18n-ok: levels.json English, shown through levelInfo
  { id: "golem", title: "The golem in the way", note: "A Harvest Golem leaves a Damaged Golem behind, and every GOLEM is STOP." }, // i18n-ok: levels.json English, shown through levelInfo
];

/**
 * A card's face, or null for a name this page does not know.
 * @param {string} name
 * @returns {CardFace|null}
 */
export function cardFace(name) {
  return Object.prototype.hasOwnProperty.call(CARDS, name) ? CARDS[name] : null;
}

/**
 * A level's title and note in the language shown (LEVELS keeps the
 * English of levels.json); for an id this page does not know, the id.
 * @param {string} id
 * @returns {{id: string, title: string, note: string}}
 */
export function levelInfo(id) {
  const l = LEVELS.find((x) => x.id === id);
  if (!l) return { id, title: id, note: '' };
  // i18n: spellgrid.level.*
  return { id, title: t(`spellgrid.level.${id}.title`), note: t(`spellgrid.level.${id}.note`) };
}
