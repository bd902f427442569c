// @ts-check
// The card duel (core/cardgame): two heroes, their boards of minions, my
// hand as cards and the other hand as card backs, mana, decks, whose turn
// it is, a log of what happened, End turn and Concede, and the result.
// Views replace the state; beats are applied as deltas exactly as the
// core's View.Apply does (games/cards/model.js), except on a view that is
// over: the update that ends a match carries the view after its beats,
// which only go to the log then. A spectator sees both
// hands as backs; the view never names a card in a hidden hand.
//
// Playing: click (or tap) a card of my hand that is playable — it is
// highlighted — to play it; a spell that needs a target then asks for one
// (the characters it may hit are highlighted). To attack, click one of my
// ready minions, then its target: a Taunt minion when the other side has
// one, else any enemy minion or the enemy hero. Clicking the selected
// card or minion again, or Cancel, or Escape, drops the choice.
//
// Keyboard: Tab reaches every card, minion and hero; the arrow keys move
// within a row (left, right) and between the rows (up, down: the enemy
// hero and board, my board and hero, my hand); Enter or Space acts on the
// focused one; E ends my turn; Escape cancels a choice.
//
// DOM hooks: #cd-status (data-phase, data-turn: the active seat, data-turn-no:
// the turn's number, data-mine, data-choosing:
// play or attack, data-busy while a command is unanswered), .cd-side[data-seat][data-side=top|bottom] with
// .cd-hero[data-id][data-health][data-armor] (button), .cd-mana[data-mana]
// [data-max], .cd-deck[data-deck], .cd-hand-count[data-hand]; the hands
// #cd-hand-{seat}: .cd-card[data-id][data-name][data-cost][data-playable]
// (my own) or .cd-back (hidden); the boards #cd-board-{seat} with
// .cd-minion[data-id][data-name][data-attack][data-health][data-ready]
// [data-taunt]; on any of these data-selected, and data-target when it is
// a valid target of the current choice; #cd-end, #cd-cancel, #cd-concede
// (data-confirm after the first click); #cd-log li[data-kind]; #cd-result
// (data-status: won, draw, conceded or the room's status; data-winner) and
// #new-game.

import { h, clear } from '../ui.js';
import { t } from '../i18n.js';
import { card as cardInfo, cardName, cardText, PAIR } from './cards/catalog.js';
import { copyView, applyBeat, describeBeat, minionOf } from './cards/model.js';

// The page module's contract: registry.js.
export const id = 'cards';
export const rulesVersion = 'cards/2';
export const icon = 'cards';
export const tagline = t('cards.tagline');

/** @typedef {import('../api.js').GameInfo} GameInfo */
/** @typedef {import('./cards/model.js').View} View */
/** @typedef {import('./cards/model.js').LogLine} LogLine */

const MAX_BOARD = 7;
const LOG_LINES = 60;

/** @param {GameInfo} _info */
export function defaults(_info) { return {}; }

/**
 * Which decks settings give: the starter deck for both seats (no decks),
 * the pair of PAIR, or decks of the room's own (set through the API).
 * @param {any} settings
 * @returns {'starter'|'pair'|'own'}
 */
function deckChoice(settings) {
  const d = settings?.decks;
  if (!Array.isArray(d) || d.every((x) => x == null)) return 'starter';
  const same = (/** @type {any} */ a, /** @type {readonly string[]} */ b) => Array.isArray(a) && a.length === b.length && a.every((x, i) => x === b[i]);
  return d.length === 2 && same(d[0], PAIR.raiders) && same(d[1], PAIR.wardens) ? 'pair' : 'own';
}

/** @param {GameInfo} _info @param {any} settings */
export function describe(_info, settings) {
  return t(`cards.describe.${deckChoice(settings)}`); // i18n: cards.describe.*
}

/**
 * The decks: the starter deck for both seats, or two different decks of
 * 20 (quicker; seat 0 gets the raiders, seat 1 the wardens). A room made
 * through the API with decks of its own keeps them.
 * @param {GameInfo} _info
 * @param {any} init
 * @param {string} prefix
 * @returns {import('../registry.js').SettingsForm}
 */
export function settingsForm(_info, init, prefix) {
  const initial = deckChoice(init);
  const select = /** @type {HTMLSelectElement} */ (h('select', { id: `${prefix}-decks`, name: 'decks' },
    h('option', { value: 'starter', text: t('cards.decks.starter'), selected: initial === 'starter' }),
    h('option', { value: 'pair', text: t('cards.decks.pair'), selected: initial === 'pair' }),
    initial === 'own' ? h('option', { value: 'own', text: t('cards.decks.own'), selected: true }) : null));
  return {
    el: h('div', { class: 'settings-fields' },
      h('div', { class: 'field' }, h('label', { for: select.id, text: t('cards.decks') }), select),
      h('p', { class: 'hint', text: t('cards.settings.hint') })),
    read() {
      switch (select.value) {
        case 'pair': return { decks: ['raiders', 'wardens'] }; // the server's presets (core/cardgame)
        case 'own': return { decks: init.decks };
      }
      return {};
    },
  };
}

/**
 * What the viewer has chosen and not yet done: a card of the hand to play
 * on a target, or a minion to attack with.
 * @typedef {{kind: 'play', id: number} | {kind: 'attack', id: number} | null} Choice
 */

/**
 * @param {import('../registry.js').GameContext} ctx
 * @returns {import('../registry.js').GameView}
 */
export function create(ctx) {
  const heading = h('h2', { class: 'cd-title' });
  const status = h('p', { class: 'cd-status', id: 'cd-status', role: 'status', 'aria-live': 'polite' });
  const top = h('section', { class: 'cd-side', dataset: { side: 'top' } });
  const boards = h('div', { class: 'cd-boards' });
  const bottom = h('section', { class: 'cd-side', dataset: { side: 'bottom' } });
  const endBtn = /** @type {HTMLButtonElement} */ (h('button', { class: 'btn btn-primary cd-end', id: 'cd-end', type: 'button', 'aria-keyshortcuts': 'E' }, t('cards.end')));
  const cancelBtn = /** @type {HTMLButtonElement} */ (h('button', { class: 'btn cd-cancel', id: 'cd-cancel', type: 'button', hidden: true, 'aria-keyshortcuts': 'Escape' }, t('cards.cancel')));
  const concedeBtn = /** @type {HTMLButtonElement} */ (h('button', { class: 'btn btn-quiet cd-concede', id: 'cd-concede', type: 'button' }, t('cards.concede')));
  const controls = h('div', { class: 'cd-controls' }, cancelBtn, concedeBtn, endBtn);
  const log = h('ol', { class: 'cd-log-list', id: 'cd-log', 'aria-label': t('cards.log.label') });
  const result = h('div', { class: 'panel cd-result', id: 'cd-result', hidden: true, role: 'region', 'aria-label': t('cards.result') });
  const table = h('div', { class: 'panel cd-table' },
    h('div', { class: 'cd-head' }, h('div', { class: 'cd-head-text' }, heading, status), controls),
    top, boards, bottom);
  const el = h('div', { class: 'cd' }, result, table,
    h('section', { class: 'panel cd-log', 'aria-label': t('cards.log') }, h('h3', { text: t('cards.log') }), log));

  /** @type {View|null} */
  let view = null;
  /** @type {number|undefined} the room's match number the view is of */
  let viewMatch;
  /** @type {import('../client.js').RoomInfo|null} */
  let room = null;
  /** @type {number|null} */
  let seat = null;
  /** @type {import('../client.js').Result|null} */
  let ended = null;
  let busy = false;
  /** @type {Choice} */
  let choice = null;
  /** @type {LogLine[]} */
  let lines = [];
  /** @type {number|null} the seat whose view wrote lines */
  let linesSeat = null;
  let confirmConcede = false;
  /** @type {ReturnType<typeof setTimeout>|undefined} */
  let confirmTimer;

  const handSizes = new ResizeObserver((entries) => { for (const e of entries) handEdges(/** @type {HTMLElement} */ (e.target)); });
  endBtn.addEventListener('click', () => endTurn());
  cancelBtn.addEventListener('click', () => { choice = null; render(); });
  concedeBtn.addEventListener('click', () => concede());
  el.addEventListener('keydown', onKey);
  document.addEventListener('keydown', onGlobalKey);

  /** The seat shown at the bottom: mine, or seat 0 for a spectator. */
  function me() { return seat === 0 || seat === 1 ? seat : 0; }

  /**
   * A seat's name; mine is "You", except in pass and play, where every
   * seat is someone at this device. @param {number} s
   */
  function who(s) { return s === seat && !ctx.shared ? t('cards.you') : ctx.seatName(s); }

  function running() { return !!view && view.phase === 'active' && !ended && room?.phase === 'running'; }

  function myTurn() { return running() && seat != null && view?.active === seat; }

  /** A card of my hand I can play now. @param {{id: number, name?: string, cost?: number}} c */
  function playable(c) {
    if (!myTurn() || busy || !view || seat == null) return false;
    const info = cardInfo(c.name);
    const mine = view.players[seat];
    if (!info || (c.cost ?? info.cost) > mine.mana) return false;
    if (info.type === 'minion') return mine.board.length < MAX_BOARD;
    if (info.target) return targetsOfSpell(info.target).length > 0;
    return true;
  }

  /** The characters a spell may target. @param {string} kind */
  function targetsOfSpell(kind) {
    if (!view) return [];
    /** @type {number[]} */
    const out = [];
    for (const p of view.players) {
      if (kind === 'character') out.push(p.hero.id);
      for (const m of p.board) out.push(m.id);
    }
    return out;
  }

  /** One of my minions that may attack now. @param {import('./cards/model.js').Minion} m */
  function canAttack(m) { return myTurn() && !busy && !!m.ready && m.attack > 0; }

  /** What my minions may attack: the enemy's Taunt minions, else its minions and its hero. */
  function defenders() {
    if (!view || seat == null) return [];
    const foe = view.players[1 - seat];
    const taunts = foe.board.filter((m) => m.taunt);
    return taunts.length ? taunts.map((m) => m.id) : [foe.hero.id, ...foe.board.map((m) => m.id)];
  }

  /** The ids the current choice may be completed with. */
  function targets() {
    if (!choice || !view || seat == null) return new Set();
    if (choice.kind === 'attack') return new Set(defenders());
    const c = view.players[seat].hand.find((x) => x.id === choice?.id);
    const info = cardInfo(c?.name);
    return new Set(info?.target ? targetsOfSpell(info.target) : []);
  }

  /** @param {any} cmd */
  async function send(cmd) {
    if (busy) return;
    busy = true;
    choice = null;
    render();
    try { await ctx.command(cmd); } finally { busy = false; render(); }
  }

  /** A click on a card of my hand. @param {number} cardId */
  function onHand(cardId) {
    if (!view || seat == null) return;
    if (choice?.kind === 'play' && choice.id === cardId) { choice = null; render(); return; }
    const c = view.players[seat].hand.find((x) => x.id === cardId);
    if (!c || !playable(c)) return;
    if (cardInfo(c.name)?.target) {
      choice = { kind: 'play', id: cardId };
      render();
      return;
    }
    send({ type: 'play', card: cardId });
  }

  /** A click on a character (a minion or a hero). @param {number} charId */
  function onCharacter(charId) {
    if (!view) return;
    if (choice && targets().has(charId)) {
      const cmd = choice.kind === 'play'
        ? { type: 'play', card: choice.id, target: charId }
        : { type: 'attack', attacker: choice.id, defender: charId };
      send(cmd);
      return;
    }
    if (choice?.kind === 'attack' && choice.id === charId) { choice = null; render(); return; }
    const m = minionOf(view, charId);
    if (m && seat != null && view.players[seat].board.includes(m) && canAttack(m)) {
      choice = { kind: 'attack', id: charId };
      render();
    }
  }

  function endTurn() {
    if (!myTurn() || busy) return;
    send({ type: 'end' });
  }

  function concede() {
    if (!running() || seat == null || busy) return;
    if (!confirmConcede) {
      confirmConcede = true;
      clearTimeout(confirmTimer);
      confirmTimer = setTimeout(() => { confirmConcede = false; render(); }, 4000);
      render();
      return;
    }
    confirmConcede = false;
    clearTimeout(confirmTimer);
    send({ type: 'concede' });
  }

  /** E ends my turn, Escape drops a choice — unless typing in a field. @param {KeyboardEvent} ev */
  function onGlobalKey(ev) {
    if (!el.isConnected || ev.ctrlKey || ev.metaKey || ev.altKey || ev.defaultPrevented) return;
    const target = /** @type {HTMLElement|null} */ (ev.target);
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
    if (ev.key === 'Escape' && (choice || confirmConcede)) {
      ev.preventDefault();
      choice = null;
      confirmConcede = false;
      render();
    } else if ((ev.key === 'e' || ev.key === 'E') && myTurn() && !busy) {
      ev.preventDefault();
      endTurn();
    }
  }

  /** The arrow keys move the focus along a row and between the rows. @param {KeyboardEvent} ev */
  function onKey(ev) {
    const d = /** @type {Record<string, number[]>} */ ({ ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] })[ev.key];
    const at = /** @type {HTMLElement|null} */ (document.activeElement);
    if (!d || !at || !el.contains(at) || !at.dataset.nav) return;
    const rows = navRows();
    let r = rows.findIndex((row) => row.includes(at));
    if (r < 0) return;
    ev.preventDefault();
    let c = rows[r].indexOf(at);
    if (d[0]) {
      // The next row that has something in it, at the nearest place.
      let n = r + d[0];
      while (n >= 0 && n < rows.length && !rows[n].length) n += d[0];
      if (n < 0 || n >= rows.length) return;
      c = Math.round((c / Math.max(1, rows[r].length - 1)) * (rows[n].length - 1)) || 0;
      r = n;
    } else {
      c = Math.min(rows[r].length - 1, Math.max(0, c + d[1]));
    }
    rows[r][c]?.focus();
  }

  /** The rows the arrow keys move between, top to bottom. */
  function navRows() {
    const order = ['top-hero', 'top-board', 'bottom-board', 'bottom-hero', 'bottom-hand'];
    return order.map((k) => /** @type {HTMLElement[]} */ ([...el.querySelectorAll(`[data-nav="${k}"]`)]));
  }

  /** @param {any[]} beats */
  function applyBeats(beats) {
    if (!view || !Array.isArray(beats)) return;
    const v = view;
    // The update that ends a match carries the view after its beats (the
    // room page hands over the view, then the beats): they are in it
    // already, so they only go to the log. Nothing changes a view that is
    // over.
    const told = v.phase !== 'active';
    for (const e of beats) {
      const line = describeBeat(v, e, (s) => ctx.seatName(s), ctx.shared ? null : seat);
      if (line) lines.push(line);
      if (!told) applyBeat(v, e);
    }
    if (lines.length > LOG_LINES) lines = lines.slice(-LOG_LINES);
    // A choice the beats made impossible (the card left, the minion died).
    if (choice && seat != null) {
      const c = choice;
      const still = c.kind === 'play'
        ? v.players[seat].hand.some((x) => x.id === c.id && playable(x))
        : v.players[seat].board.some((m) => m.id === c.id && canAttack(m));
      if (!still) choice = null;
    }
    render();
  }

  /** What the last render showed: a render that would show the same skips the rebuild. */
  let shown = '';

  function render() {
    if (!view) return;
    const v = view;
    // Rebuilding replaces the buttons; doing it only when something
    // changed keeps a click that is under way from losing its target.
    const sig = JSON.stringify([v, choice, busy, seat, room?.phase, room?.match, room?.code, ended?.status, ended?.winners,
      confirmConcede, lines.length, lines[lines.length - 1]?.text, ctx.isHost(), ctx.seatName(0), ctx.seatName(1)]);
    if (sig === shown) return;
    shown = sig;
    const focusKey = el.contains(document.activeElement) ? /** @type {HTMLElement} */ (document.activeElement).dataset.key : undefined;
    const focusRow = el.contains(document.activeElement) ? /** @type {HTMLElement} */ (document.activeElement).dataset.nav : undefined;
    const mine = myTurn();
    const live = running();
    if (choice && !mine) choice = null;
    const tset = targets();

    heading.textContent = room?.match ? t('cards.title.game', { game: room.match, turn: v.turn }) : t('cards.title', { turn: v.turn });
    status.dataset.phase = v.phase;
    status.dataset.turn = String(v.active);
    status.dataset.turnNo = String(v.turn);
    status.dataset.mine = String(mine);
    if (choice) status.dataset.choosing = choice.kind; else delete status.dataset.choosing;
    status.dataset.busy = String(busy);
    status.textContent = statusText(v, mine);
    document.title = t(mine ? 'cards.doc.turn' : 'cards.doc', { code: room?.code || '' }); // i18n: cards.doc*

    const low = me(), high = 1 - low;
    renderSide(top, high, 'top', tset);
    renderSide(bottom, low, 'bottom', tset);
    clear(boards).append(renderBoard(high, 'top', tset), renderBoard(low, 'bottom', tset));

    endBtn.hidden = seat == null || !live;
    endBtn.disabled = !mine || busy;
    cancelBtn.hidden = !choice;
    concedeBtn.hidden = seat == null || !live;
    concedeBtn.disabled = busy;
    concedeBtn.textContent = confirmConcede ? t('cards.concede.confirm') : t('cards.concede');
    if (confirmConcede) concedeBtn.dataset.confirm = 'true'; else delete concedeBtn.dataset.confirm;

    clear(log);
    for (let i = lines.length - 1; i >= 0; i--) {
      const l = lines[i];
      const li = h('li', { class: `cd-log-${l.kind}`, dataset: { kind: l.kind }, text: l.text });
      if (l.seat != null) li.dataset.seat = String(l.seat);
      log.append(li);
    }
    // An empty log: nothing happened yet, or this page came in later (a
    // spectator, or a player's reload) and has the log from that turn on.
    if (!lines.length) {
      const from = v.turn <= 1 ? t('cards.log.none') : seat == null ? t('cards.log.from', { turn: v.turn }) : t('cards.log.since', { turn: v.turn });
      log.append(h('li', { class: 'muted', text: from }));
    }

    renderResult();

    // Keep the keyboard's place across the rebuild.
    if (focusKey && !el.contains(document.activeElement)) {
      const again = /** @type {HTMLElement|null} */ (el.querySelector(`[data-key="${focusKey}"]`))
        || (focusRow ? /** @type {HTMLElement|null} */ (el.querySelector(`[data-nav="${focusRow}"]`)) : null)
        || (endBtn.hidden ? null : endBtn);
      again?.focus();
    }
  }

  /** @param {View} v @param {boolean} mine */
  function statusText(v, mine) {
    if (v.phase !== 'active' || ended) return resultTitle(v);
    if (room?.phase !== 'running') return t('cards.status.paused');
    if (mine && choice?.kind === 'play') {
      const c = v.players[seat ?? 0].hand.find((x) => x.id === choice?.id);
      return t('cards.status.target', { card: c?.name ? cardName(c.name) : t('cards.status.theCard') });
    }
    if (mine && choice?.kind === 'attack') {
      const m = minionOf(v, choice.id);
      return t('cards.status.attack', { minion: m ? cardName(m.name) : t('cards.status.yourMinion') });
    }
    if (mine) return t('cards.status.turn');
    return t(seat == null ? 'cards.status.toPlay' : 'cards.status.thinking', { name: ctx.seatName(v.active) }); // i18n: cards.status.t*
  }

  /**
   * A seat's hero, mana, deck and hand.
   * @param {HTMLElement} box @param {number} s @param {'top'|'bottom'} side @param {Set<number>} tset
   */
  function renderSide(box, s, side, tset) {
    const v = /** @type {View} */ (view);
    const p = v.players[s];
    box.dataset.seat = String(s);
    box.dataset.active = String(v.active === s && v.phase === 'active');
    const name = who(s);
    const life = Math.max(0, p.hero.health);
    const hero = /** @type {HTMLButtonElement} */ (h('button', {
      class: 'cd-hero', type: 'button', dataset: { id: String(p.hero.id), key: `hero:${p.hero.id}`, nav: `${side}-hero`,
        health: String(p.hero.health), armor: String(p.hero.armor) },
    },
    // The button's name is its text: a sentence for screen readers that
    // starts with the name it shows (as speech input expects), the
    // drawn parts hidden from them. A hero below zero shows 0.
    h('span', { class: 'sr-only', text: t(p.hero.armor ? 'cards.hero.label.armor' : 'cards.hero.label', { // i18n: cards.hero.label*
      name, health: life, armor: p.hero.armor,
    }) + (tset.has(p.hero.id) ? t('cards.target') : '') }),
    h('span', { class: 'cd-hero-name', 'aria-hidden': 'true', text: name }),
    h('span', { class: 'cd-life', 'aria-hidden': 'true' }, h('span', { class: 'cd-heart', text: '♥' }), String(life)),
    p.hero.armor > 0 ? h('span', { class: 'cd-armor', 'aria-hidden': 'true', text: t('cards.armor', { n: p.hero.armor }) }) : null));
    mark(hero, p.hero.id, tset, false);
    hero.addEventListener('click', () => onCharacter(p.hero.id));

    const crystals = h('span', { class: 'cd-crystals', 'aria-hidden': 'true' });
    for (let i = 0; i < p.maxMana; i++) crystals.append(h('span', { class: i < p.mana ? 'cd-crystal cd-crystal-full' : 'cd-crystal' }));
    const stats = h('div', { class: 'cd-stats' },
      h('span', { class: 'cd-mana', dataset: { mana: String(p.mana), max: String(p.maxMana) }, title: t('cards.mana') },
        h('span', { class: 'cd-stat-label', text: `${t('cards.mana')} ` }), `${p.mana}/${p.maxMana}`, crystals),
      h('span', { class: 'cd-deck', dataset: { deck: String(p.deck) }, title: t('cards.deck.title') }, h('span', { class: 'cd-stat-label', text: `${t('cards.deck')} ` }), String(p.deck)),
      h('span', { class: 'cd-hand-count', dataset: { hand: String(p.hand.length) }, title: t('cards.hand.title') }, h('span', { class: 'cd-stat-label', text: `${t('cards.hand')} ` }), String(p.hand.length)));

    const hand = h('div', { class: 'cd-hand', id: `cd-hand-${s}`, role: 'group' });
    if (s === seat) {
      // A hand wider than the screen scrolls sideways: its edges fade where
      // more cards are (data-more: start, end or both).
      hand.addEventListener('scroll', () => handEdges(hand), { passive: true });
      handSizes.disconnect();
      handSizes.observe(hand);
      hand.setAttribute('aria-label', t('cards.hand.mine', { n: p.hand.length }));
      for (const c of p.hand) hand.append(renderCard(c));
      if (!p.hand.length) hand.append(h('p', { class: 'muted cd-empty', text: t('cards.hand.empty') }));
    } else {
      hand.setAttribute('aria-label', t('cards.hand.hidden', { name, n: p.hand.length }));
      hand.classList.add('cd-hand-hidden');
      for (const c of p.hand) hand.append(h('div', { class: 'cd-back', 'aria-hidden': 'true', dataset: { id: String(c.id) } }));
    }
    if (s === seat) clear(box).append(h('div', { class: 'cd-bar' }, hero, stats), hand);
    else clear(box).append(h('div', { class: 'cd-bar' }, hero, stats, hand));
  }

  /** Marks which sides of the hand have more cards than it shows. @param {HTMLElement} hand */
  function handEdges(hand) {
    const left = hand.scrollLeft > 2, right = hand.scrollLeft + hand.clientWidth < hand.scrollWidth - 2;
    const more = left && right ? 'both' : left ? 'start' : right ? 'end' : '';
    if (more) hand.dataset.more = more; else delete hand.dataset.more;
  }

  /** A card of my hand. @param {{id: number, name?: string, cost?: number}} c */
  function renderCard(c) {
    const info = cardInfo(c.name);
    const ok = playable(c);
    const selected = choice?.kind === 'play' && choice.id === c.id;
    const cost = c.cost ?? info?.cost ?? 0;
    const kind = info?.type === 'spell' ? t('cards.kind.spell') : t('cards.kind.minion');
    const name = cardName(c.name), text = cardText(c.name);
    const stats = info?.type === 'minion' ? t('cards.card.stats', { attack: info.attack ?? 0, health: info.health ?? 0 }) : '';
    const b = /** @type {HTMLButtonElement} */ (h('button', {
      class: `cd-card cd-card-${info?.type || 'minion'}`, type: 'button',
      dataset: { id: String(c.id), key: `hand:${c.id}`, nav: 'bottom-hand', name: c.name || '', cost: String(cost), playable: String(ok) },
      'aria-disabled': String(!ok && !selected), 'aria-pressed': String(selected),
    },
    // The button's name is its text: a sentence that starts with what the
    // card shows (its name, then its text), the drawn parts hidden.
    h('span', { class: 'sr-only', text: t('cards.card.label', { name, text: text ? t('cards.card.text', { text }) : '', kind, cost }) + stats + (ok ? t('cards.playable') : '') }),
    h('span', { class: 'cd-cost', text: String(cost), 'aria-hidden': 'true' }),
    h('span', { class: 'cd-card-name', 'aria-hidden': 'true', text: name || '?' }),
    h('span', { class: 'cd-card-text', 'aria-hidden': 'true', text }),
    info?.type === 'minion'
      ? h('span', { class: 'cd-card-stats', 'aria-hidden': 'true' },
        h('span', { class: 'cd-atk', text: String(info.attack) }), h('span', { class: 'cd-hp', text: String(info.health) }))
      : h('span', { class: 'cd-card-kind', text: kind, 'aria-hidden': 'true' })));
    if (selected) b.dataset.selected = 'true';
    b.addEventListener('click', () => onHand(c.id));
    return b;
  }

  /** A seat's minions. @param {number} s @param {'top'|'bottom'} side @param {Set<number>} tset */
  function renderBoard(s, side, tset) {
    const v = /** @type {View} */ (view);
    const p = v.players[s];
    const row = h('div', { class: 'cd-board', id: `cd-board-${s}`, role: 'group', dataset: { seat: String(s), side },
      'aria-label': s === seat ? t('cards.board.mine', { n: p.board.length }) : t('cards.board', { name: who(s), n: p.board.length }) });
    for (const m of p.board) {
      const name = cardName(m.name), text = cardText(m.name);
      const mineAndReady = s === seat && canAttack(m);
      const b = /** @type {HTMLButtonElement} */ (h('button', {
        class: 'cd-minion', type: 'button',
        dataset: { id: String(m.id), key: `minion:${m.id}`, nav: `${side}-board`, name: m.name, attack: String(m.attack), health: String(m.health),
          ready: String(!!m.ready), can: String(mineAndReady) },
        title: text || name,
      },
      // The name is the text: a sentence that starts with the minion's name.
      h('span', { class: 'sr-only', text: t('cards.minion.label', { name, attack: m.attack, health: m.health })
          + (m.taunt ? t('cards.minion.taunt') : '') + (s === seat && m.ready ? t('cards.minion.ready') : '')
          + (text ? t('cards.minion.text', { text }) : '') + (tset.has(m.id) ? t('cards.target') : '') }),
      m.taunt ? h('span', { class: 'cd-taunt', text: t('cards.taunt'), 'aria-hidden': 'true' }) : null,
      h('span', { class: 'cd-minion-name', 'aria-hidden': 'true', text: name }),
      h('span', { class: 'cd-card-stats', 'aria-hidden': 'true' },
        h('span', { class: 'cd-atk', text: String(m.attack) }), h('span', { class: 'cd-hp', text: String(m.health) }))));
      if (m.taunt) b.dataset.taunt = 'true';
      mark(b, m.id, tset, choice?.kind === 'attack' && choice.id === m.id);
      b.setAttribute('aria-disabled', String(!mineAndReady && !tset.has(m.id) && !b.dataset.selected));
      b.addEventListener('click', () => onCharacter(m.id));
      row.append(b);
    }
    if (!p.board.length) row.append(h('p', { class: 'muted cd-empty', text: t('cards.board.empty') }));
    return row;
  }

  /** Marks a character as a target of the choice, or as the chosen one. */
  function mark(/** @type {HTMLElement} */ b, /** @type {number} */ charId, /** @type {Set<number>} */ tset, /** @type {boolean} */ selected) {
    if (tset.has(charId)) b.dataset.target = 'true';
    if (selected) {
      b.dataset.selected = 'true';
      b.setAttribute('aria-pressed', 'true');
    }
    if (b.classList.contains('cd-hero')) b.setAttribute('aria-disabled', String(!tset.has(charId)));
  }

  /** @param {View} v */
  function resultTitle(v) {
    if (v.phase === 'draw') return t('cards.result.draw');
    const w = resultWinner(v);
    if (w == null) return t('cards.result.ended');
    return w === seat ? t('cards.result.won') : t('cards.result.wins', { name: ctx.seatName(w) });
  }

  /** @param {View} v */
  function resultWinner(v) {
    if (typeof v.winner === 'number') return v.winner;
    const w = ended?.winners?.[0];
    return typeof w === 'number' ? w : null;
  }

  /** The result panel: the game's verdict, or the room's (a resignation). */
  function renderResult() {
    const v = /** @type {View} */ (view);
    const over = v.phase !== 'active';
    if (!over && !ended) {
      result.hidden = true;
      return;
    }
    const w = resultWinner(v);
    const st = ended?.status || v.phase;
    let line;
    if (v.phase === 'draw') line = v.turn >= 89 ? t('cards.result.limit') : t('cards.result.both');
    else if (v.conceded || st === 'conceded') {
      line = w === seat ? t('cards.result.otherConceded') : w === null ? t('cards.result.someoneConceded') : t('cards.result.whoConceded', { name: who(1 - w) });
    } else if (over) line = t(w === seat ? 'cards.result.ko.other' : seat == null ? 'cards.result.ko.a' : 'cards.result.ko.yours'); // i18n: cards.result.ko.*
    else if (st === 'timeout' && ended?.timedOut?.length) {
      const out = ended.timedOut[0];
      line = out === seat ? t('cards.result.youTimedOut') : t('cards.result.timedOut', { name: who(out) });
    } else line = st === 'resigned' ? t('cards.result.resigned') : t('cards.result.why', { status: st });
    result.hidden = false;
    result.dataset.status = st;
    result.dataset.winner = w == null ? '' : String(w);
    clear(result).append(
      h('h2', { text: resultTitle(v) }),
      h('p', { class: 'muted', text: line }),
      ctx.isHost()
        ? h('button', { class: 'btn btn-primary', id: 'new-game', type: 'button', on: { click: () => ctx.newGame() } }, t('cards.again'))
        : h('p', { class: 'muted', text: t('cards.again.host') }));
  }

  return {
    el,
    setView(v) {
      const fresh = copyView(v);
      if (!fresh) return;
      const newMatch = !view || fresh.turn < view.turn || room?.match !== viewMatch;
      view = fresh;
      viewMatch = room?.match;
      choice = null;
      // The log is written from one seat's view (the cards it drew): a
      // view of another seat (pass and play's hand-off) starts it afresh.
      if (newMatch || seat !== linesSeat) lines = [];
      linesSeat = seat;
      render();
    },
    applyBeats,
    setRoom(info, s) {
      room = info;
      seat = s;
      render();
    },
    setResult(res) {
      ended = res || null;
      render();
    },
    setClocks() {},
    destroy() {
      clearTimeout(confirmTimer);
      handSizes.disconnect();
      document.removeEventListener('keydown', onGlobalKey);
      el.remove();
    },
  };
}
