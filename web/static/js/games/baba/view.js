// @ts-check
// Baba's view model: the view as the server sends it, and its "delta"
// beats applied exactly as core/babagame's View.Apply does, so that the
// page holds the view the server would project after each update.
//
// The view (core/babagame/view.go):
//   {"level","width","height","objects":[{"id","kind","x","y"},…],
//    "rules":[…],"activeRules":[…],"won","lost","moves","turn"?}
// A beat (core/babagame/event.go):
//   {"type":"delta","moved"?,"created"?,"destroyed"?,"rulesAdded"?,
//    "rulesRemoved"?,"activeAdded"?,"activeRemoved"?,"won","lost","moves","turn"?}

/** @typedef {{id: number, kind: string, x: number, y: number}} Obj */
/**
 * @typedef {object} View
 * @property {string} level
 * @property {number} width
 * @property {number} height
 * @property {Obj[]} objects   in id order
 * @property {string[]} rules  in byte order
 * @property {string[]} activeRules
 * @property {boolean} won
 * @property {boolean} lost
 * @property {number} moves
 * @property {number} [turn]   turns control: the seat to step next
 */

/** @param {any} o @returns {Obj} */
function obj(o) {
  return { id: Number(o?.id) || 0, kind: String(o?.kind ?? ''), x: Number(o?.x) || 0, y: Number(o?.y) || 0 };
}

/** @param {any} list @returns {any[]} */
const arr = (list) => (Array.isArray(list) ? list : []);

/**
 * A view of the wire, copied: the page may change it.
 * @param {any} v
 * @returns {View}
 */
export function fromWire(v) {
  /** @type {View} */
  const out = {
    level: String(v?.level ?? ''),
    width: Math.max(1, Math.min(64, Number(v?.width) || 1)),
    height: Math.max(1, Math.min(64, Number(v?.height) || 1)),
    objects: arr(v?.objects).map(obj),
    rules: arr(v?.rules).map(String),
    activeRules: arr(v?.activeRules).map(String),
    won: !!v?.won,
    lost: !!v?.lost,
    moves: Number(v?.moves) || 0,
  };
  if (typeof v?.turn === 'number') out.turn = v.turn;
  return out;
}

/** Byte order of ASCII strings (Go's sort.Strings), which JS's default sort is for them. */
const byteOrder = (/** @type {string} */ a, /** @type {string} */ b) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The sorted set list without removed and with added (babagame's applySet).
 * @param {string[]} list @param {any} added @param {any} removed
 */
function applySet(list, added, removed) {
  const rm = new Set(arr(removed).map(String));
  const out = list.filter((r) => !rm.has(r));
  for (const r of arr(added).map(String)) if (!out.includes(r)) out.push(r);
  return out.sort(byteOrder);
}

/**
 * Applies an update's beats to v, in order; other beat types are ignored.
 * @param {View} v
 * @param {any[]} beats
 */
export function applyBeats(v, beats) {
  for (const e of arr(beats)) {
    if (e?.type !== 'delta') continue;
    /** @type {Map<number, Obj>} */
    const changed = new Map(arr(e.moved).map((o) => [Number(o?.id), obj(o)]));
    const destroyed = new Set(arr(e.destroyed).map(Number));
    const objects = [];
    for (const o of v.objects) {
      if (destroyed.has(o.id)) continue;
      objects.push(changed.get(o.id) || o);
    }
    objects.push(...arr(e.created).map(obj));
    // A stable sort by id, as slices.SortStableFunc.
    v.objects = objects.map((o, i) => ({ o, i })).sort((a, b) => a.o.id - b.o.id || a.i - b.i).map((p) => p.o);
    v.rules = applySet(v.rules, e.rulesAdded, e.rulesRemoved);
    v.activeRules = applySet(v.activeRules, e.activeAdded, e.activeRemoved);
    v.won = !!e.won;
    v.lost = !!e.lost;
    v.moves = Number(e.moves) || 0;
    delete v.turn;
    if (typeof e.turn === 'number') v.turn = e.turn;
  }
}

