// @ts-check
// SpellGrid's view model: the view the server sends and the one "delta"
// beat per command that turns it into the next one, applied exactly as
// core/spellgridgame's View.Apply does, so that the followed view is the
// server's projection, byte for byte once encoded (web/spellgrid_test.go
// checks it on every level's solution, undo and restart included). No DOM.
//
// The view (core/spellgridgame/view.go):
//   {"level","width","height","objects":[{"id","kind","x","y"}...],
//    "rules":[...],"activeRules":[...],"won","lost","moves",
//    "hand":[NAME...],"minions":[{"id","name","health","attack","x","y"}...]}
// objects and minions in id order, rules in byte order, hand in hand order.
// The beat (event.go):
//   {"type":"delta","moved"?:[{"id","x","y"}],"created"?:[OBJECT],"destroyed"?:[ID],
//    "rulesAdded"?,"rulesRemoved"?,"activeAdded"?,"activeRemoved"?,
//    "hand"?:[NAME...],"minions"?:[MINION],"minionsGone"?:[ID],"won","lost","moves"}

/** @typedef {{id: number, kind: string, x: number, y: number}} GridObject */
/** @typedef {{id: number, name: string, health: number, attack: number, x: number, y: number}} Minion */
/**
 * @typedef {object} View
 * @property {string} level
 * @property {number} width
 * @property {number} height
 * @property {GridObject[]} objects
 * @property {string[]} rules
 * @property {string[]} activeRules
 * @property {boolean} won
 * @property {boolean} lost
 * @property {number} moves
 * @property {string[]} hand
 * @property {Minion[]} minions
 */
/**
 * @typedef {object} Delta
 * @property {string} type
 * @property {{id: number, x: number, y: number}[]} [moved]
 * @property {GridObject[]} [created]
 * @property {number[]} [destroyed]
 * @property {string[]} [rulesAdded]
 * @property {string[]} [rulesRemoved]
 * @property {string[]} [activeAdded]
 * @property {string[]} [activeRemoved]
 * @property {string[]} [hand]
 * @property {Minion[]} [minions]
 * @property {number[]} [minionsGone]
 * @property {boolean} won
 * @property {boolean} lost
 * @property {number} moves
 */

/** @param {{id: number}} a @param {{id: number}} b */
const byId = (a, b) => a.id - b.id;

/**
 * Byte order of ASCII strings (the rules are upper-case words): Go's
 * sort.Strings; JavaScript's default sort compares UTF-16 code units,
 * which agree on ASCII.
 * @param {string} a @param {string} b
 */
const byBytes = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * A copy of a view the server sent, with its lists copied, so that apply
 * may change it. Members keep their order, so that JSON.stringify writes
 * them as the server does. A view without a grid is null.
 * @param {any} v
 * @returns {View|null}
 */
export function copyView(v) {
  if (!v || typeof v !== 'object' || !Array.isArray(v.objects)) return null;
  return {
    ...v,
    objects: v.objects.map((/** @type {GridObject} */ o) => ({ ...o })),
    rules: [...(v.rules || [])],
    activeRules: [...(v.activeRules || [])],
    hand: [...(v.hand || [])],
    minions: (v.minions || []).map((/** @type {Minion} */ m) => ({ ...m })),
  };
}

/**
 * Applies one update's beats to the view, in order (View.Apply). Beats of
 * another type are skipped.
 * @param {View} v
 * @param {any[]} beats
 */
export function applyBeats(v, beats) {
  for (const e of beats || []) {
    if (e && e.type === 'delta') applyDelta(v, e);
  }
}

/**
 * One delta: objects destroyed, moved and created (an object whose kind
 * changed is destroyed and created again), the rules lists edited, the
 * whole hand when it changed, minions new or changed replaced and those
 * gone removed, and the counters.
 * @param {View} v
 * @param {Delta} e
 */
export function applyDelta(v, e) {
  const destroyed = new Set(e.destroyed || []);
  v.objects = v.objects.filter((o) => !destroyed.has(o.id));
  for (const m of e.moved || []) {
    const o = v.objects.find((p) => p.id === m.id);
    if (o) { o.x = m.x; o.y = m.y; }
  }
  v.objects.push(...(e.created || []).map((o) => ({ ...o })));
  v.objects.sort(byId);
  v.rules = edit(v.rules, e.rulesRemoved, e.rulesAdded);
  v.activeRules = edit(v.activeRules, e.activeRemoved, e.activeAdded);
  if (Array.isArray(e.hand)) v.hand = [...e.hand];
  const changed = new Set([...(e.minionsGone || []), ...(e.minions || []).map((m) => m.id)]);
  v.minions = v.minions.filter((m) => !changed.has(m.id));
  v.minions.push(...(e.minions || []).map((m) => ({ ...m })));
  v.minions.sort(byId);
  v.won = e.won;
  v.lost = e.lost;
  v.moves = e.moves;
}

/**
 * A sorted rules list less the rules removed, plus those added, sorted.
 * @param {string[]} rules
 * @param {string[]|undefined} removed
 * @param {string[]|undefined} added
 */
function edit(rules, removed, added) {
  const gone = new Set(removed || []);
  return [...rules.filter((r) => !gone.has(r)), ...(added || [])].sort(byBytes);
}

/**
 * The properties the active rules give each noun: "BABA IS YOU" gives
 * baba YOU. Only plain "NOUN IS PROPERTY" rules count here; the page uses
 * them to mark what the player moves and what wins, nothing more.
 * @param {string[]} active
 * @returns {Map<string, Set<string>>} lower-case noun → upper-case words
 */
export function properties(active) {
  /** @type {Map<string, Set<string>>} */
  const out = new Map();
  for (const r of active || []) {
    const w = r.split(' ');
    if (w.length !== 3 || w[1] !== 'IS') continue;
    const noun = w[0].toLowerCase();
    if (!out.has(noun)) out.set(noun, new Set());
    /** @type {Set<string>} */ (out.get(noun)).add(w[2]);
  }
  return out;
}
