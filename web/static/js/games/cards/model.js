// @ts-check
// The card duel's view model: the server's view (core/cardgame/view.go)
// and its beats (event.go), applied exactly as the core's View.Apply does,
// and one line of the page's log per beat worth telling.
//
// The view:
//   {"phase":"active","turn":3,"active":1,"first":0,"seat":0,
//    "players":[PLAYER,PLAYER]}  (+ "winner":W once won, "conceded":true)
// where seat is the viewer's (-1: a spectator) and a PLAYER is
//   {"hero":{"id":1,"health":30,"armor":0},"mana":2,"maxMana":3,"deck":24,
//    "hand":[{"id":7,"name":"Wisp","cost":0} or {"id":7} when hidden,…],
//    "board":[{"id":9,"name":"Bloodfen Raptor","attack":3,"health":2,"order":4,
//              "taunt"?:true,"ready"?:true},…],
//    "graveyard":[{"id":11,"name":"Fireball"},…]}
// The beats: turn, play, attack, end, and the engine's Summoned, Damaged,
// Triggered, Destroyed, DeathPhase, Drew, Fatigue, ArmorGained,
// StatsChanged, SpellCast (Drew's "card" and "cost" only for the drawing
// seat, or when the card burned).

import { t } from '../../i18n.js';
import { cardName } from './catalog.js';

/**
 * @typedef {{id: number, health: number, armor: number}} Hero
 * @typedef {{id: number, name?: string, cost?: number}} HandCard
 * @typedef {{id: number, name: string, attack: number, health: number, order: number, taunt?: boolean, ready?: boolean}} Minion
 * @typedef {{id: number, name: string}} Dead
 * @typedef {{hero: Hero, mana: number, maxMana: number, deck: number, hand: HandCard[], board: Minion[], graveyard: Dead[]}} SeatView
 * @typedef {{phase: string, turn: number, active: number, first: number, seat: number, winner?: number, conceded?: boolean, players: SeatView[]}} View
 */

/**
 * A deep copy of a view the server sent, with every list present: the
 * page changes its copy as beats come.
 * @param {any} v
 * @returns {View|null}
 */
export function copyView(v) {
  if (!v || typeof v !== 'object' || !Array.isArray(v.players) || v.players.length !== 2) return null;
  /** @param {any} p @returns {SeatView} */
  const side = (p) => ({
    hero: { id: num(p?.hero?.id), health: num(p?.hero?.health), armor: num(p?.hero?.armor) },
    mana: num(p?.mana),
    maxMana: num(p?.maxMana),
    deck: num(p?.deck),
    hand: list(p?.hand).map((c) => (c?.name != null ? { id: num(c.id), name: String(c.name), cost: num(c.cost) } : { id: num(c?.id) })),
    board: list(p?.board).map((m) => ({ ...m, id: num(m?.id), name: String(m?.name ?? ''), attack: num(m?.attack), health: num(m?.health), order: num(m?.order) })),
    graveyard: list(p?.graveyard).map((d) => ({ id: num(d?.id), name: String(d?.name ?? '') })),
  });
  /** @type {View} */
  const out = {
    phase: String(v.phase || ''), turn: num(v.turn), active: num(v.active), first: num(v.first),
    seat: typeof v.seat === 'number' ? v.seat : -1, players: [side(v.players[0]), side(v.players[1])],
  };
  if (typeof v.winner === 'number') out.winner = v.winner;
  if (v.conceded) out.conceded = true;
  return out;
}

/** @param {any} x @returns {any[]} */
function list(x) { return Array.isArray(x) ? x : []; }

/** @param {any} x */
function num(x) { return typeof x === 'number' && Number.isFinite(x) ? x : 0; }

/**
 * The minion with this id on either board, or undefined.
 * @param {View} v
 * @param {number} id
 */
export function minionOf(v, id) {
  for (const p of v.players) {
    const m = p.board.find((x) => x.id === id);
    if (m) return m;
  }
  return undefined;
}

/**
 * The seat whose hero has this id, or -1.
 * @param {View} v
 * @param {number} id
 */
export function heroSeat(v, id) {
  return v.players.findIndex((p) => p.hero.id === id);
}

/**
 * Applies one beat to v, as core/cardgame's (*View).apply does; beats of
 * other types (Triggered, DeathPhase, Fatigue, SpellCast) change nothing.
 * A beat that names a seat the view does not have is skipped.
 * @param {View} v
 * @param {any} e
 */
export function applyBeat(v, e) {
  if (!e || typeof e !== 'object') return;
  const seatOf = (/** @type {any} */ s) => (s === 0 || s === 1 ? v.players[s] : undefined);
  switch (e.type) {
    case 'turn': {
      const sv = seatOf(e.seat);
      if (!sv) return;
      v.turn = e.turn;
      v.active = e.seat;
      sv.mana = e.mana;
      sv.maxMana = e.maxMana;
      v.players.forEach((p, i) => { for (const m of p.board) m.ready = i === e.seat; });
      return;
    }
    case 'play': {
      const sv = seatOf(e.seat);
      if (!sv) return;
      sv.hand = sv.hand.filter((c) => c.id !== e.id);
      sv.mana -= num(e.cost);
      if (e.spell) sv.graveyard.push({ id: e.id, name: e.card });
      return;
    }
    case 'attack': {
      const m = minionOf(v, e.attacker);
      if (m) m.ready = false;
      return;
    }
    case 'end':
      v.phase = e.phase;
      v.conceded = !!e.conceded;
      if (typeof e.winner === 'number' && e.winner >= 0) v.winner = e.winner;
      return;
    case 'Summoned': {
      const sv = seatOf(e.seat);
      if (!sv) return;
      /** @type {Minion} */
      const m = { id: e.id, name: e.card, attack: e.attack, health: e.health, order: e.order };
      if (e.taunt) m.taunt = true;
      sv.board.push(m);
      return;
    }
    case 'Damaged': {
      for (const p of v.players) {
        if (p.hero.id === e.target) {
          const a = Math.min(Math.max(p.hero.armor, 0), e.amount);
          p.hero.armor -= a;
          p.hero.health -= e.amount - a;
          return;
        }
      }
      const m = minionOf(v, e.target);
      if (m) m.health -= e.amount;
      return;
    }
    case 'StatsChanged': {
      const m = minionOf(v, e.id);
      if (m) { m.attack = e.attack; m.health = e.health; }
      return;
    }
    case 'Destroyed':
      for (const p of v.players) {
        const i = p.board.findIndex((m) => m.id === e.id);
        if (i >= 0) {
          p.graveyard.push({ id: e.id, name: p.board[i].name });
          p.board.splice(i, 1);
        }
      }
      return;
    case 'Drew': {
      const sv = seatOf(e.player);
      if (!sv) return;
      sv.deck--;
      if (e.burned) sv.graveyard.push({ id: e.id, name: e.card });
      else sv.hand.push(e.card != null ? { id: e.id, name: e.card, cost: num(e.cost) } : { id: e.id });
      return;
    }
    case 'ArmorGained': {
      const sv = seatOf(e.player);
      if (sv) sv.hero.armor += e.amount;
    }
  }
}

/**
 * One line of the log: its kind (turn, drew, played, attacked, died,
 * damage, armor, fatigue, end) and its text.
 * @typedef {{kind: string, text: string, seat?: number}} LogLine
 */

/**
 * The log line of a beat, in the language shown, told before it is
 * applied to v (so that the names it mentions are still on the boards), or
 * null for a beat the log leaves out. who(seat) names a seat (its
 * player's name); mine is the viewer's seat (null: a spectator), told as
 * "You".
 * @param {View} v
 * @param {any} e
 * @param {(seat: number) => string} who
 * @param {number|null} [mine]
 * @returns {LogLine|null}
 */
export function describeBeat(v, e, who, mine = null) {
  if (!e || typeof e !== 'object') return null;
  const you = (/** @type {number} */ s) => s === mine;
  /** A seat as the subject of a sentence. @param {number} s */
  const subject = (s) => (you(s) ? t('cards.you') : who(s));
  /** @param {number} id */
  const name = (id) => {
    const h = heroSeat(v, id);
    if (h >= 0) return you(h) ? t('cards.log.yourHero') : t('cards.log.hero', { name: who(h) });
    const m = minionOf(v, id);
    if (m) return cardName(m.name);
    for (const p of v.players) {
      const c = p.hand.find((x) => x.id === id) || p.graveyard.find((x) => x.id === id);
      if (c?.name) return cardName(c.name);
    }
    return t('cards.log.card', { id });
  };
  switch (e.type) {
    case 'turn':
      return { kind: 'turn', seat: e.seat, text: you(e.seat)
        ? t('cards.log.turn.you', { turn: e.turn, mana: e.maxMana })
        : t('cards.log.turn', { turn: e.turn, name: who(e.seat), mana: e.maxMana }) };
    case 'play': {
      const p = { who: subject(e.seat), card: cardName(e.card), cost: e.cost };
      return { kind: 'played', seat: e.seat, text: e.target
        ? t('cards.log.played.on', { ...p, target: name(e.target) })
        : t('cards.log.played', p) };
    }
    case 'attack':
      return { kind: 'attacked', seat: e.seat, text: t('cards.log.attacked', { attacker: name(e.attacker), defender: name(e.defender) }) };
    case 'Damaged':
      return { kind: 'damage', text: t('cards.log.damage', { name: cap(name(e.target)), n: e.amount }) };
    case 'Destroyed':
      return { kind: 'died', text: t('cards.log.died', { name: cap(name(e.id)) }) };
    case 'Drew':
      if (e.burned) return { kind: 'drew', seat: e.player, text: t('cards.log.burned', { who: subject(e.player), card: cardName(e.card) }) };
      return { kind: 'drew', seat: e.player, text: e.card != null
        ? t('cards.log.drew', { who: subject(e.player), card: cardName(e.card) })
        : t('cards.log.drew.hidden', { who: subject(e.player) }) };
    case 'Fatigue':
      return { kind: 'fatigue', seat: e.player, text: t('cards.log.fatigue', { who: subject(e.player) }) };
    case 'ArmorGained':
      return { kind: 'armor', seat: e.player, text: t('cards.log.armor', { who: subject(e.player), n: e.amount }) };
    case 'end':
      if (e.phase === 'draw') return { kind: 'end', text: t('cards.log.draw') };
      if (typeof e.winner === 'number' && e.winner >= 0) {
        const w = you(e.winner) ? t('cards.log.win.you') : t('cards.log.win', { name: who(e.winner) });
        return { kind: 'end', text: e.conceded ? t('cards.log.conceded', { result: w }) : w };
      }
      return { kind: 'end', text: t('cards.log.over') };
  }
  return null;
}

/** @param {string} s */
function cap(s) { return s.charAt(0).toUpperCase() + s.slice(1); }
