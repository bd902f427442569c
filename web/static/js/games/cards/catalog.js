// @ts-check
// Every card of the card engine (core/cards/cards/*.json: the starter set,
// its tokens and roomd's invented cards), as the card duel's and
// SpellGrid's pages show them: a view names a card and gives a hand card's
// cost, but not what the card does, so the pages keep this one copy of
// each card's type, attack, health, text, target, Taunt and grid noun.
// TestCards and TestSpellGridModules check that it equals
// core/cards.Library(), so a change to the card data that forgets this
// file fails there. Names and texts here are the engine's English (views
// and commands name cards so); cardName and cardText show them in the
// language chosen (cards.card.{key}.name, .text in i18n/*/cards.json).

import { t } from '../../i18n.js';

/**
 * A card as the page shows it: its type, cost, a minion's attack and
 * health, its rules text, the target a spell needs (character: a minion
 * or a hero; minion: a minion only), Taunt, and whether it is a token
 * (a minion an effect summons, never in a deck).
 * @typedef {object} CardInfo
 * @property {'minion'|'spell'} type
 * @property {number} cost
 * @property {number} [attack]
 * @property {number} [health]
 * @property {string} [text]
 * @property {'character'|'minion'} [target]
 * @property {boolean} [taunt]
 * @property {boolean} [token]
 * @property {string} [noun]    a minion's noun on a SpellGrid
 */

/** @type {Readonly<Record<string, CardInfo>>} */
export const CARDS = Object.freeze({
  'Wisp': { type: 'minion', cost: 0, attack: 1, health: 1, text: '', noun: 'WISP' },
  'Bloodfen Raptor': { type: 'minion', cost: 2, attack: 3, health: 2, text: '', noun: 'RAPTOR' },
  'Chillwind Yeti': { type: 'minion', cost: 4, attack: 4, health: 5, text: '', noun: 'YETI' },
  'Leper Gnome': { type: 'minion', cost: 1, attack: 2, health: 1, text: 'Deathrattle: Deal 2 damage to the enemy hero.', noun: 'GNOME' }, // i18n-ok: the engine's English (TestCards), shown through cardText
  'Loot Hoarder': { type: 'minion', cost: 2, attack: 2, health: 1, text: 'Deathrattle: Draw a card.', noun: 'HOARDER' }, // i18n-ok: the engine's English (TestCards), shown through cardText
  'Harvest Golem': { type: 'minion', cost: 3, attack: 2, health: 3, text: 'Deathrattle: Summon a 2/1 Damaged Golem.', noun: 'GOLEM' }, // i18n-ok: the engine's English (TestCards), shown through cardText
  'Damaged Golem': { type: 'minion', cost: 1, attack: 2, health: 1, text: '', noun: 'GOLEM', token: true },
  'Haunted Creeper': { type: 'minion', cost: 2, attack: 1, health: 2, text: 'Deathrattle: Summon two 1/1 Spectral Spiders.', noun: 'CREEPER' }, // i18n-ok: the engine's English (TestCards), shown through cardText
  'Spectral Spider': { type: 'minion', cost: 1, attack: 1, health: 1, text: '', noun: 'SPIDER', token: true },
  'Abomination': { type: 'minion', cost: 5, attack: 4, health: 4, text: 'Taunt. Deathrattle: Deal 2 damage to ALL characters.', taunt: true, noun: 'ABOMINATION' }, // i18n-ok: the engine's English (TestCards), shown through cardText
  'Unstable Ghoul': { type: 'minion', cost: 2, attack: 1, health: 3, text: 'Taunt. Deathrattle: Deal 1 damage to all minions.', taunt: true, noun: 'GHOUL' }, // i18n-ok: the engine's English (TestCards), shown through cardText
  'Baron Rivendare': { type: 'minion', cost: 4, attack: 1, health: 7, text: 'Your minions trigger their Deathrattles twice.', noun: 'BARON' }, // i18n-ok: the engine's English (TestCards), shown through cardText
  'Novice Engineer': { type: 'minion', cost: 2, attack: 1, health: 1, text: 'Battlecry: Draw a card.', noun: 'ENGINEER' }, // i18n-ok: the engine's English (TestCards), shown through cardText
  'Acolyte of Pain': { type: 'minion', cost: 3, attack: 1, health: 3, text: 'Whenever this minion takes damage, draw a card.', noun: 'ACOLYTE' }, // i18n-ok: the engine's English (TestCards), shown through cardText
  'Knife Juggler': { type: 'minion', cost: 2, attack: 3, health: 2, text: 'After you summon a minion, deal 1 damage to a random enemy.', noun: 'JUGGLER' }, // i18n-ok: the engine's English (TestCards), shown through cardText
  'Wild Pyromancer': { type: 'minion', cost: 2, attack: 3, health: 2, text: 'After you cast a spell, deal 1 damage to ALL minions.', noun: 'PYROMANCER' }, // i18n-ok: the engine's English (TestCards), shown through cardText
  'Armorsmith': { type: 'minion', cost: 2, attack: 1, health: 4, text: 'Whenever a friendly minion takes damage, gain 1 Armor.', noun: 'ARMORSMITH' }, // i18n-ok: the engine's English (TestCards), shown through cardText
  'Cult Master': { type: 'minion', cost: 4, attack: 4, health: 2, text: 'After a friendly minion dies, draw a card.', noun: 'CULTIST' }, // i18n-ok: the engine's English (TestCards), shown through cardText
  'Raid Leader': { type: 'minion', cost: 3, attack: 2, health: 2, text: 'Your other minions have +1 Attack.', noun: 'LEADER' }, // i18n-ok: the engine's English (TestCards), shown through cardText
  'Stormwind Champion': { type: 'minion', cost: 7, attack: 6, health: 6, text: 'Your other minions have +1/+1.', noun: 'CHAMPION' }, // i18n-ok: the engine's English (TestCards), shown through cardText
  'Fireball': { type: 'spell', cost: 4, target: 'character', text: 'Deal 6 damage.' }, // i18n-ok: the engine's English (TestCards), shown through cardText
  'Flamestrike': { type: 'spell', cost: 7, text: 'Deal 4 damage to all enemy minions.' }, // i18n-ok: the engine's English (TestCards), shown through cardText
  'Arcane Missiles': { type: 'spell', cost: 1, text: 'Deal 3 damage randomly split among all enemy characters.' }, // i18n-ok: the engine's English (TestCards), shown through cardText
  'Twisting Nether': { type: 'spell', cost: 8, text: 'Destroy all minions.' }, // i18n-ok: the engine's English (TestCards), shown through cardText
  'Hellfire': { type: 'spell', cost: 4, text: 'Deal 3 damage to ALL characters.' }, // i18n-ok: the engine's English (TestCards), shown through cardText
  'Whirlwind': { type: 'spell', cost: 1, text: 'Deal 1 damage to ALL minions.' }, // i18n-ok: the engine's English (TestCards), shown through cardText
  'Shield Block': { type: 'spell', cost: 3, text: 'Gain 5 Armor. Draw a card.' }, // i18n-ok: the engine's English (TestCards), shown through cardText
  'Arcane Intellect': { type: 'spell', cost: 3, text: 'Draw 2 cards.' }, // i18n-ok: the engine's English (TestCards), shown through cardText
  'Rune Scribe': { type: 'minion', cost: 1, attack: 1, health: 1, text: 'Deathrattle: Write WIN on this tile.', noun: 'SCRIBE' }, // i18n-ok: the engine's English (TestCards), shown through cardText
  'Workshop': { type: 'spell', cost: 1, text: 'Assemble a minion in your hand.' }, // i18n-ok: the engine's English (TestCards), shown through cardText
});

/**
 * A card's key in the tables: its name in lower case, words joined by
 * "-" ("Bloodfen Raptor" → "bloodfen-raptor").
 * @param {string} name
 */
export function cardKey(name) {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

/**
 * A card's name in the language shown; a name this build does not know,
 * as it is. The views and commands keep the English name (the engine's).
 * @param {string|undefined} name
 * @returns {string}
 */
export function cardName(name) {
  if (name == null) return '';
  if (!card(name)) return name;
  return t(`cards.card.${cardKey(name)}.name`); // i18n: cards.card.*
}

/**
 * A card's rules text in the language shown ('' for none).
 * @param {string|undefined} name
 * @returns {string}
 */
export function cardText(name) {
  const c = card(name);
  if (!c?.text || name == null) return '';
  return t(`cards.card.${cardKey(name)}.text`);
}

/**
 * The card named name, or undefined for a name this build does not know.
 * @param {string|undefined} name
 * @returns {CardInfo|undefined}
 */
export function card(name) {
  return name != null && Object.hasOwn(CARDS, name) ? CARDS[name] : undefined;
}

/**
 * The two decks a room may give its seats instead of the starter deck
 * (the settings' "pair" choice): the server's presets "raiders" and
 * "wardens" (core/cardgame; TestCards checks they match), twenty cards
 * each, two copies of ten names, no name in both — raiders for seat 0,
 * wardens for seat 1. Shorter decks make quicker matches. The page sends
 * the names; it knows the cards to tell the pair in a room's settings.
 * @type {Readonly<{raiders: readonly string[], wardens: readonly string[]}>}
 */
export const PAIR = Object.freeze({
  raiders: twice('Leper Gnome', 'Bloodfen Raptor', 'Knife Juggler', 'Chillwind Yeti', 'Fireball',
    'Arcane Missiles', 'Wisp', 'Harvest Golem', 'Raid Leader', 'Stormwind Champion'),
  wardens: twice('Wild Pyromancer', 'Unstable Ghoul', 'Cult Master', 'Abomination', 'Loot Hoarder',
    'Novice Engineer', 'Haunted Creeper', 'Acolyte of Pain', 'Hellfire', 'Shield Block'),
});

/** @param {...string} names @returns {readonly string[]} each name twice, in order */
function twice(...names) { return Object.freeze(names.flatMap((n) => [n, n])); }
