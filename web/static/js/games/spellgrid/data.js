// @ts-check
// What the SpellGrid page knows that its views do not carry: the cards'
// printed faces (a view names the cards in hand and the minions in play,
// nothing more) and the levels' titles and notes.
//
// CARDS is a copy of the card files every SpellGrid game loads
// (core/cards/cards/*.json, card-engine.md §3.7); web/spellgrid_test.go
// checks it against cards.Library(), so a new or changed card fails there
// until it is copied here. LEVELS is a copy of the titles and notes of
// core/spellgridgame/levels/levels.json, checked the same way. A name the
// page does not know still shows, as a bare card.

/**
 * A card's printed face. target is a spell's: "character" or "minion"
 * when it needs one (on a SpellGrid, a minion standing on the grid).
 * @typedef {object} CardFace
 * @property {'minion'|'spell'} type
 * @property {number} cost
 * @property {number} [attack]
 * @property {number} [health]
 * @property {string} [target]
 * @property {string} text
 * @property {string} [noun]    a minion's noun on the grid
 * @property {boolean} [token]
 */

/** @type {Record<string, CardFace>} */
export const CARDS = {
  'Wisp': { type: 'minion', cost: 0, attack: 1, health: 1, text: '', noun: 'WISP' },
  'Bloodfen Raptor': { type: 'minion', cost: 2, attack: 3, health: 2, text: '', noun: 'RAPTOR' },
  'Chillwind Yeti': { type: 'minion', cost: 4, attack: 4, health: 5, text: '', noun: 'YETI' },
  'Leper Gnome': { type: 'minion', cost: 1, attack: 2, health: 1, text: 'Deathrattle: Deal 2 damage to the enemy hero.', noun: 'GNOME' },
  'Loot Hoarder': { type: 'minion', cost: 2, attack: 2, health: 1, text: 'Deathrattle: Draw a card.', noun: 'HOARDER' },
  'Harvest Golem': { type: 'minion', cost: 3, attack: 2, health: 3, text: 'Deathrattle: Summon a 2/1 Damaged Golem.', noun: 'GOLEM' },
  'Damaged Golem': { type: 'minion', cost: 1, attack: 2, health: 1, text: '', noun: 'GOLEM', token: true },
  'Haunted Creeper': { type: 'minion', cost: 2, attack: 1, health: 2, text: 'Deathrattle: Summon two 1/1 Spectral Spiders.', noun: 'CREEPER' },
  'Spectral Spider': { type: 'minion', cost: 1, attack: 1, health: 1, text: '', noun: 'SPIDER', token: true },
  'Abomination': { type: 'minion', cost: 5, attack: 4, health: 4, text: 'Taunt. Deathrattle: Deal 2 damage to ALL characters.', noun: 'ABOMINATION' },
  'Unstable Ghoul': { type: 'minion', cost: 2, attack: 1, health: 3, text: 'Taunt. Deathrattle: Deal 1 damage to all minions.', noun: 'GHOUL' },
  'Baron Rivendare': { type: 'minion', cost: 4, attack: 1, health: 7, text: 'Your minions trigger their Deathrattles twice.', noun: 'BARON' },
  'Novice Engineer': { type: 'minion', cost: 2, attack: 1, health: 1, text: 'Battlecry: Draw a card.', noun: 'ENGINEER' },
  'Acolyte of Pain': { type: 'minion', cost: 3, attack: 1, health: 3, text: 'Whenever this minion takes damage, draw a card.', noun: 'ACOLYTE' },
  'Knife Juggler': { type: 'minion', cost: 2, attack: 3, health: 2, text: 'After you summon a minion, deal 1 damage to a random enemy.', noun: 'JUGGLER' },
  'Wild Pyromancer': { type: 'minion', cost: 2, attack: 3, health: 2, text: 'After you cast a spell, deal 1 damage to ALL minions.', noun: 'PYROMANCER' },
  'Armorsmith': { type: 'minion', cost: 2, attack: 1, health: 4, text: 'Whenever a friendly minion takes damage, gain 1 Armor.', noun: 'ARMORSMITH' },
  'Cult Master': { type: 'minion', cost: 4, attack: 4, health: 2, text: 'After a friendly minion dies, draw a card.', noun: 'CULTIST' },
  'Raid Leader': { type: 'minion', cost: 3, attack: 2, health: 2, text: 'Your other minions have +1 Attack.', noun: 'LEADER' },
  'Stormwind Champion': { type: 'minion', cost: 7, attack: 6, health: 6, text: 'Your other minions have +1/+1.', noun: 'CHAMPION' },
  'Fireball': { type: 'spell', cost: 4, target: 'character', text: 'Deal 6 damage.' },
  'Flamestrike': { type: 'spell', cost: 7, text: 'Deal 4 damage to all enemy minions.' },
  'Arcane Missiles': { type: 'spell', cost: 1, text: 'Deal 3 damage randomly split among all enemy characters.' },
  'Twisting Nether': { type: 'spell', cost: 8, text: 'Destroy all minions.' },
  'Hellfire': { type: 'spell', cost: 4, text: 'Deal 3 damage to ALL characters.' },
  'Whirlwind': { type: 'spell', cost: 1, text: 'Deal 1 damage to ALL minions.' },
  'Shield Block': { type: 'spell', cost: 3, text: 'Gain 5 Armor. Draw a card.' },
  'Arcane Intellect': { type: 'spell', cost: 3, text: 'Draw 2 cards.' },
  'Rune Scribe': { type: 'minion', cost: 1, attack: 1, health: 1, text: 'Deathrattle: Write WIN on this tile.', noun: 'SCRIBE' },
  'Workshop': { type: 'spell', cost: 1, text: 'Assemble a minion in your hand.' },
};

/**
 * The levels, in the server's order: id, title and the note that hints at
 * the idea.
 * @type {{id: string, title: string, note: string}[]}
 */
export const LEVELS = [
  { id: "scribe", title: "The scribe's last word", note: "Play the Rune Scribe where WIN is missing, then let it die: its Deathrattle writes WIN on its tile." },
  { id: "double", title: "Twice dead", note: "The Unstable Ghoul's Deathrattle hurts every minion by 1; the raptors have 2 health. Make DEATHRATTLE IS DOUBLE first." },
  { id: "golem", title: "The golem in the way", note: "A Harvest Golem leaves a Damaged Golem behind, and every GOLEM is STOP." },
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
 * A level's title and note; for an id this page does not know, the id.
 * @param {string} id
 */
export function levelInfo(id) {
  return LEVELS.find((l) => l.id === id) || { id, title: id, note: '' };
}
