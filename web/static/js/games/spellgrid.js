// @ts-check
// SpellGrid: a one-player puzzle on a Baba grid with a hand of cards
// (card-engine.md §9, core/spellgridgame). The player walks what IS YOU,
// pushes the word tiles to change the rules, casts the spells of the hand
// on the minions that stand on the grid, and plays minions from the hand
// onto free tiles, until something YOU meets something WIN. Undo and
// restart are commands of the rules. Nothing is hidden: a spectator sees
// the same grid and hand, and cannot act.
//
// The view and its one "delta" beat per command are followed in
// games/spellgrid/view.js, exactly as core/spellgridgame's View.Apply
// does; the cards' faces and the levels' titles are in
// games/spellgrid/data.js (views carry names only).
//
// Mouse and touch: choose a card of the hand, then a tile — a minion for
// a spell that targets one, a free tile for a minion; a spell without a
// target casts with its Cast button. The arrow pad steps.
// Keyboard (anywhere on the page): the arrow keys step while no card is
// chosen; 1–9 choose a card (Tab reaches the cards too, Enter or Space
// picks the focused one); with a card chosen, the arrow keys move the
// cursor on the grid, Enter casts or plays there (a spell without a
// target: Enter casts it) and Escape cancels; Z undoes, R restarts.
//
// DOM hooks: #sg (data-phase: playing, won, lost or ended; data-mine
// while the viewer can act), #sg-status (data-phase, data-moves),
// #sg-grid with .sg-tile[data-x][data-y] (data-cursor on the cursor's,
// data-target on those the chosen card may go to) holding
// .sg-obj[data-id][data-kind] (data-you, data-win), #sg-rules li,
// #sg-hand .sg-card[data-i][data-card][data-kind] (aria-pressed on the
// chosen one), #sg-cast, #sg-pad button[data-dir], #sg-undo, #sg-restart,
// #sg-msg (the last refusal), #sg-result[data-status][data-moves],
// #new-game. Settings field {prefix}-level.

import { h, clear, noticeText } from '../ui.js';
import { copyView, applyBeats, properties } from './spellgrid/view.js';
import { cardFace, levelInfo, LEVELS } from './spellgrid/data.js';
import { cardName, cardText } from './cards/catalog.js';
import { t } from '../i18n.js';

/** @typedef {import('./spellgrid/view.js').View} View */
/** @typedef {import('./spellgrid/view.js').GridObject} GridObject */
/** @typedef {import('../api.js').GameInfo} GameInfo */

// The page module's contract: registry.js.
export const id = 'spellgrid';
export const rulesVersion = 'spellgrid/1';
export const icon = 'spellgrid';
export const tagline = t('spellgrid.tagline');

/** The step directions by arrow key. */
const ARROWS = /** @type {Record<string, 'up'|'down'|'left'|'right'>} */ ({
  ArrowUp: 'up', ArrowDown: 'down', ArrowLeft: 'left', ArrowRight: 'right',
});
const DELTA = { up: [0, -1], down: [0, 1], left: [-1, 0], right: [1, 0] };
const PAD_GLYPH = { up: '↑', left: '←', down: '↓', right: '→' };

/** "1 move", "6 moves". @param {number} n */
function movesText(n) { return t(n === 1 ? 'spellgrid.moves.one' : 'spellgrid.moves.other', { n }); } // i18n: spellgrid.moves.*

/** This game's refusals with friendlier words (ui.js knows the shared ones): their keys. */
const REFUSALS = /** @type {Record<string, string>} */ ({
  'game:NotInHand': 'spellgrid.refusal.notInHand',
  'game:InvalidTarget': 'spellgrid.refusal.invalidTarget',
  'game:TileNotFree': 'spellgrid.refusal.tileNotFree',
  'game:NothingToUndo': 'spellgrid.refusal.nothingToUndo',
  'game:GameOver': 'spellgrid.refusal.gameOver',
}); // i18n: spellgrid.refusal.*

/**
 * The level ids the server offers (its config schema's enum), else this
 * page's.
 * @param {GameInfo|undefined} info
 * @returns {string[]}
 */
function levelIds(info) {
  const e = info?.configSchema?.properties?.level?.enum;
  return Array.isArray(e) && e.length && e.every((x) => typeof x === 'string') ? e : LEVELS.map((l) => l.id);
}

/** @param {GameInfo} info */
export function defaults(info) { return { level: levelIds(info)[0] }; }

/** @param {GameInfo} info @param {any} settings */
export function describe(info, settings) {
  const lid = typeof settings?.level === 'string' ? settings.level : levelIds(info)[0];
  const n = levelIds(info).indexOf(lid);
  return t('spellgrid.describe', { n: n >= 0 ? n + 1 : '?', title: levelInfo(lid).title });
}

/**
 * The level picker.
 * @param {GameInfo} info
 * @param {any} init
 * @param {string} prefix
 * @returns {import('../registry.js').SettingsForm}
 */
export function settingsForm(info, init, prefix) {
  const ids = levelIds(info);
  const current = ids.includes(init?.level) ? init.level : ids[0];
  const select = /** @type {HTMLSelectElement} */ (h('select', { id: `${prefix}-level`, name: 'level' },
    ...ids.map((lid, i) => h('option', { value: lid, selected: lid === current, text: `${i + 1}. ${levelInfo(lid).title}` }))));
  const note = h('p', { class: 'hint sg-level-note' });
  const showNote = () => { note.textContent = levelInfo(select.value).note || ''; };
  select.addEventListener('change', showNote);
  showNote();
  return {
    el: h('div', { class: 'settings-fields' },
      h('div', { class: 'field' }, h('label', { for: select.id, text: t('spellgrid.field.level') }), select),
      note,
      h('p', { class: 'hint', text: t('spellgrid.settings.hint') })),
    read() {
      if (!ids.includes(select.value)) throw new Error(t('spellgrid.error.level'));
      return { level: select.value };
    },
  };
}

/**
 * @param {import('../registry.js').GameContext} ctx
 * @returns {import('../registry.js').GameView}
 */
export function create(ctx) {
  const heading = h('h2', { class: 'sg-title' });
  const note = h('p', { class: 'sg-note muted' });
  const status = h('p', { class: 'sg-status', id: 'sg-status', 'aria-live': 'polite' });
  const grid = h('div', { class: 'sg-grid', id: 'sg-grid', role: 'grid', tabindex: '0', 'aria-label': t('spellgrid.grid') });
  const rulesList = h('ul', { class: 'sg-rules', id: 'sg-rules', 'aria-label': t('spellgrid.rules') });
  const pad = h('div', { class: 'sg-pad', id: 'sg-pad', role: 'group', 'aria-label': t('spellgrid.pad') },
    // i18n: spellgrid.step.*
    ...(/** @type {const} */ (['up', 'left', 'down', 'right'])).map((d) =>
      h('button', { class: 'sg-pad-btn', type: 'button', 'aria-label': t(`spellgrid.step.${d}`), title: t(`spellgrid.step.${d}`), text: PAD_GLYPH[d], dataset: { dir: d },
        on: { click: () => step(d) } })));
  const undoBtn = /** @type {HTMLButtonElement} */ (h('button', { class: 'btn', id: 'sg-undo', type: 'button', 'aria-keyshortcuts': 'Z',
    on: { click: () => send({ type: 'undo' }) } }, `${t('spellgrid.undo')} `, h('kbd', { text: 'Z' })));
  const restartBtn = /** @type {HTMLButtonElement} */ (h('button', { class: 'btn', id: 'sg-restart', type: 'button', 'aria-keyshortcuts': 'R',
    on: { click: () => send({ type: 'restart' }) } }, `${t('spellgrid.restart')} `, h('kbd', { text: 'R' })));
  const controls = h('div', { class: 'sg-controls' }, pad, h('div', { class: 'sg-buttons' }, undoBtn, restartBtn));
  const msg = h('p', { class: 'sg-msg', id: 'sg-msg', role: 'status' });
  const hand = h('ol', { class: 'sg-hand', id: 'sg-hand', 'aria-label': t('spellgrid.hand') });
  const castBtn = /** @type {HTMLButtonElement} */ (h('button', { class: 'btn btn-primary sg-cast', id: 'sg-cast', type: 'button', hidden: true,
    on: { click: () => act(null) } }));
  const hint = h('p', { class: 'sg-hint muted', id: 'sg-hint' });
  const minionList = h('ul', { class: 'sg-minions', id: 'sg-minions', 'aria-label': t('spellgrid.minions.label') });
  const result = h('div', { class: 'panel sg-result', id: 'sg-result', hidden: true, role: 'status' });
  const keysHelp = h('p', { class: 'sg-keys muted small', text: t('spellgrid.keys') });
  const el = h('div', { class: 'sg', id: 'sg' },
    h('div', { class: 'panel sg-main' }, heading, note, status, grid, rulesList,
      h('div', { class: 'sg-hand-area' }, hand, hint, castBtn), controls, msg),
    h('div', { class: 'panel sg-side' },
      h('h3', { text: t('spellgrid.minions') }), minionList,
      keysHelp),
    result);

  /** @type {View|null} */
  let view = null;
  /** @type {import('../client.js').RoomInfo|null} */
  let room = null;
  /** @type {number|null} */
  let seat = null;
  /** @type {import('../client.js').Result|null} */
  let ended = null;
  /** the room's connection (setConnection): a spectator's line is live only online */
  let conn = 'online';
  /** The chosen card's place in the hand, or -1. */
  let chosen = -1;
  /** The grid cursor, a tile. */
  let cursor = { x: 0, y: 0 };
  /** @type {HTMLElement[]} tiles in row-major order */
  let tiles = [];
  let gridSize = '';

  /** Whether the viewer may act now. */
  function mine() {
    return !!view && seat === 0 && room?.phase === 'running' && !ended;
  }

  /** What the chosen card is: spell with or without a target, or minion. */
  function chosenKind() {
    const name = view?.hand[chosen];
    if (name == null) return '';
    const f = cardFace(name);
    if (!f) return 'unknown';
    if (f.type === 'minion') return 'minion';
    return f.target ? 'target' : 'spell';
  }

  /** The lowest-id minion on a tile (the engine's minionAt). */
  function minionAt(/** @type {number} */ x, /** @type {number} */ y) {
    return view?.minions.find((m) => m.x === x && m.y === y) || null;
  }

  /** Whether the chosen card may go to the tile, as far as the view says. */
  function targetable(/** @type {number} */ x, /** @type {number} */ y) {
    if (!view) return false;
    switch (chosenKind()) {
      case 'target': return !!minionAt(x, y);
      case 'minion': return !view.objects.some((o) => o.x === x && o.y === y);
      case 'unknown': return true;
    }
    return false;
  }

  /**
   * Sends a command; a refusal's reason goes to #sg-msg (the room page
   * shows it as a notice too).
   * @param {any} cmd
   */
  async function send(cmd) {
    if (!mine()) return;
    msg.textContent = '';
    delete msg.dataset.code;
    try {
      const rc = await ctx.command(cmd);
      if (!rc.ok && rc.notice) {
        const key = REFUSALS[rc.notice.code];
        msg.textContent = key ? t(key) : noticeText(rc.notice);
        msg.dataset.code = rc.notice.code;
      }
    } catch (err) {
      msg.textContent = String(/** @type {Error} */ (err)?.message || err);
    }
  }

  /** @param {'up'|'down'|'left'|'right'} dir */
  function step(dir) {
    if (!mine() || view?.won) return;
    send({ type: 'step', dir });
  }

  /** Chooses the card at i (again: un-chooses it). */
  function choose(/** @type {number} */ i) {
    if (!mine() || !view || view.won || i < 0 || i >= view.hand.length) return;
    chosen = chosen === i ? -1 : i;
    if (chosen >= 0 && !targetable(cursor.x, cursor.y)) {
      // Put the cursor on the first tile the card may go to.
      for (let y = 0; y < view.height; y++) {
        const x = [...Array(view.width).keys()].find((x) => targetable(x, y));
        if (x != null) { cursor = { x, y }; break; }
      }
    }
    msg.textContent = '';
    render();
  }

  /**
   * Uses the chosen card on a tile (null: no tile, a spell without a
   * target).
   * @param {{x: number, y: number}|null} at
   */
  function act(at) {
    if (!mine() || !view || chosen < 0) return;
    const name = view.hand[chosen];
    const kind = chosenKind();
    /** @type {any} */
    let cmd;
    if (kind === 'spell' || (kind === 'unknown' && !at)) {
      cmd = { type: 'cast', card: name };
    } else if (!at) {
      return;
    } else if (kind === 'target' || (kind === 'unknown' && minionAt(at.x, at.y))) {
      const m = minionAt(at.x, at.y);
      if (!m) { msg.textContent = t('spellgrid.msg.needsMinion', { card: cardName(name) }); return; }
      cmd = { type: 'cast', card: name, target: m.id };
    } else {
      cmd = { type: 'play', card: name, x: at.x, y: at.y };
    }
    chosen = -1;
    render();
    send(cmd);
  }

  /** A click or tap on a tile. */
  function onTile(/** @type {number} */ x, /** @type {number} */ y) {
    if (!mine() || chosen < 0) return;
    cursor = { x, y };
    if (chosenKind() === 'spell') { render(); return; }
    act({ x, y });
  }

  /** The page's keys; see the top of the file. */
  function onKey(/** @type {KeyboardEvent} */ ev) {
    if (!view || !el.isConnected || ev.ctrlKey || ev.metaKey || ev.altKey || ev.defaultPrevented) return;
    const target = /** @type {HTMLElement|null} */ (ev.target);
    if (target && (target.closest('input, textarea, select, [contenteditable="true"]') || (target.closest('.app') && !el.contains(target) && target !== document.body))) return;
    if (!mine()) return;
    const key = ev.key;
    const dir = ARROWS[key];
    if (dir) {
      ev.preventDefault();
      if (chosen >= 0 && chosenKind() !== 'spell') {
        const [dx, dy] = DELTA[dir];
        cursor = { x: Math.min(view.width - 1, Math.max(0, cursor.x + dx)), y: Math.min(view.height - 1, Math.max(0, cursor.y + dy)) };
        render();
      } else if (chosen < 0) {
        step(dir);
      }
      return;
    }
    if (/^[1-9]$/.test(key)) {
      ev.preventDefault();
      choose(Number(key) - 1);
    } else if (key === 'Enter' && chosen >= 0) {
      ev.preventDefault();
      act(chosenKind() === 'spell' ? null : cursor);
    } else if (key === 'Escape' && chosen >= 0) {
      ev.preventDefault();
      chosen = -1;
      render();
    } else if ((key === 'z' || key === 'Z') && view.moves > 0) {
      ev.preventDefault();
      send({ type: 'undo' });
    } else if ((key === 'r' || key === 'R') && view.moves > 0) {
      ev.preventDefault();
      chosen = -1;
      send({ type: 'restart' });
    }
  }
  document.addEventListener('keydown', onKey);

  /** Builds the tiles when the grid's size changes. */
  function buildGrid() {
    if (!view) return;
    const size = `${view.width}x${view.height}`;
    if (size === gridSize) return;
    gridSize = size;
    clear(grid);
    tiles = [];
    grid.style.setProperty('--sg-cols', String(view.width));
    grid.style.setProperty('--sg-rows', String(view.height));
    grid.setAttribute('aria-rowcount', String(view.height));
    grid.setAttribute('aria-colcount', String(view.width));
    for (let y = 0; y < view.height; y++) {
      const row = h('div', { class: 'sg-row', role: 'row' });
      for (let x = 0; x < view.width; x++) {
        const t = h('div', { class: 'sg-tile', role: 'gridcell', id: `sg-t-${x}-${y}`, dataset: { x: String(x), y: String(y) } });
        t.addEventListener('click', () => onTile(x, y));
        tiles.push(t);
        row.append(t);
      }
      grid.append(row);
    }
    cursor = { x: Math.min(cursor.x, view.width - 1), y: Math.min(cursor.y, view.height - 1) };
  }

  /**
   * One grid object's picture: a word tile, or a thing.
   * @param {GridObject} o
   * @param {Map<string, Set<string>>} props
   */
  function objectEl(o, props) {
    const attrs = { class: 'sg-obj', dataset: /** @type {Record<string, string>} */ ({ id: String(o.id), kind: o.kind }) };
    if (o.kind.startsWith('text:')) {
      const word = o.kind.slice(5);
      attrs.class += ' sg-word';
      attrs.dataset.word = word;
      // A long word (DEATHRATTLE) takes two lines, to stay readable.
      const cut = word.length > 6 ? Math.ceil(word.length / 2) : word.length;
      const e = h('span', attrs, h('span', { class: 'sg-word-text' }, word.slice(0, cut),
        cut < word.length ? h('br') : null, word.slice(cut)));
      e.style.setProperty('--len', String(Math.max(3, cut)));
      return e;
    }
    const p = props.get(o.kind);
    if (p?.has('YOU')) attrs.dataset.you = 'true';
    if (p?.has('WIN')) attrs.dataset.win = 'true';
    const m = view?.minions.find((n) => n.id === o.id);
    if (m) {
      attrs.class += ' sg-minion';
      const label = o.kind.slice(0, 6).toUpperCase();
      const e = h('span', attrs,
        h('span', { class: 'sg-minion-name', text: label }),
        h('span', { class: 'sg-stat sg-atk', text: String(m.attack) }),
        h('span', { class: 'sg-stat sg-hp', text: String(m.health) }));
      e.style.setProperty('--len', String(Math.max(4, label.length)));
      return e;
    }
    attrs.class += ' sg-thing';
    return h('span', attrs, o.kind === 'baba' || o.kind === 'flag' || o.kind === 'wall' ? '' : h('span', { class: 'sg-thing-text', text: o.kind.slice(0, 2) }));
  }

  /** A tile's contents in words, for its aria-label. */
  function describeTile(/** @type {GridObject[]} */ objs) {
    if (!objs.length) return t('spellgrid.tile.empty');
    return objs.map((o) => {
      if (o.kind.startsWith('text:')) return t('spellgrid.tile.word', { word: o.kind.slice(5) });
      const m = view?.minions.find((n) => n.id === o.id);
      if (m) return t('spellgrid.tile.minion', { name: cardName(m.name), attack: m.attack, health: m.health });
      const key = `spellgrid.thing.${o.kind}`; // i18n: spellgrid.thing.*
      const s = t(key);
      return s === key ? o.kind : s;
    }).join(t('spellgrid.tile.sep'));
  }

  function render() {
    if (!view) return;
    buildGrid();
    const can = mine() && !view.won;
    if (!can) chosen = -1;
    if (chosen >= view.hand.length) chosen = -1;
    const kind = chosenKind();
    const info = levelInfo(view.level);
    const n = levelIds(ctx.game).indexOf(view.level);
    heading.textContent = n >= 0 ? t('spellgrid.title.level', { n: n + 1, title: info.title }) : t('spellgrid.title', { title: info.title });
    note.textContent = info.note;
    const phase = view.won ? 'won' : ended ? 'ended' : view.lost ? 'lost' : 'playing';
    el.dataset.phase = phase;
    el.dataset.mine = String(can);
    status.dataset.phase = phase;
    status.dataset.moves = String(view.moves);
    const moves = movesText(view.moves);
    const card = chosen >= 0 ? cardName(view.hand[chosen]) : '';
    if (view.won) status.textContent = t('spellgrid.status.won', { moves });
    else if (ended) status.textContent = t('spellgrid.status.ended', { moves });
    else if (view.lost) status.textContent = t('spellgrid.status.lost', { moves });
    else if (seat == null && conn !== 'online') status.textContent = t('spellgrid.status.reconnecting', { moves });
    else if (seat == null) status.textContent = t('spellgrid.status.watching', { name: ctx.seatName(0), moves });
    else if (room?.phase !== 'running') status.textContent = t('spellgrid.status.moves', { moves });
    else if (kind === 'target') status.textContent = t('spellgrid.status.target', { card });
    else if (kind === 'minion') status.textContent = t('spellgrid.status.minion', { card });
    else if (kind === 'spell' || kind === 'unknown') status.textContent = t('spellgrid.status.spell', { card });
    else status.textContent = t('spellgrid.status.playing', { moves });

    // The grid.
    const props = properties(view.activeRules);
    /** @type {GridObject[][]} */
    const at = tiles.map(() => []);
    for (const o of view.objects) {
      if (o.x >= 0 && o.x < view.width && o.y >= 0 && o.y < view.height) at[o.y * view.width + o.x].push(o);
    }
    const w = view.width;
    tiles.forEach((tile, i) => {
      const x = i % w, y = Math.floor(i / w);
      // Words under things, YOU on top.
      const objs = at[i].sort((a, b) => layer(a, props) - layer(b, props) || a.id - b.id);
      clear(tile).append(...objs.map((o) => objectEl(o, props)));
      const isCursor = chosen >= 0 && kind !== 'spell' && cursor.x === x && cursor.y === y;
      const isTarget = chosen >= 0 && kind !== 'spell' && targetable(x, y);
      if (isCursor) tile.dataset.cursor = 'true'; else delete tile.dataset.cursor;
      if (isTarget) tile.dataset.target = 'true'; else delete tile.dataset.target;
      tile.setAttribute('aria-label', t(isTarget ? 'spellgrid.tile.label.target' : 'spellgrid.tile.label', { x: x + 1, y: y + 1, what: describeTile(objs) })); // i18n: spellgrid.tile.label*
      tile.setAttribute('aria-selected', String(isCursor));
    });
    grid.dataset.aiming = String(chosen >= 0 && kind !== 'spell');
    if (chosen >= 0 && kind !== 'spell') grid.setAttribute('aria-activedescendant', `sg-t-${cursor.x}-${cursor.y}`);
    else grid.removeAttribute('aria-activedescendant');

    clear(rulesList).append(...view.activeRules.map((r) => h('li', { class: 'sg-rule', text: r })));
    if (!view.activeRules.length) rulesList.append(h('li', { class: 'sg-rule sg-rule-none', text: t('spellgrid.rules.none') }));

    // The hand. Its buttons are built again: the focus stays on the card
    // at the same place, for keyboard users.
    const active = document.activeElement;
    const focused = active instanceof HTMLElement && hand.contains(active) ? Number(active.dataset.i) : -1;
    clear(hand).append(...view.hand.map((name, i) => {
      const f = cardFace(name);
      const typeText = t(f ? (f.type === 'spell' ? (f.target ? 'spellgrid.type.target' : 'spellgrid.type.spell') : 'spellgrid.type.minion') : 'spellgrid.type.card'); // i18n: spellgrid.type.*
      const b = h('button', { class: 'sg-card', type: 'button', 'aria-pressed': String(i === chosen),
        'aria-disabled': String(!can), 'aria-keyshortcuts': i < 9 ? String(i + 1) : null,
        dataset: { i: String(i), card: name, kind: f?.type || 'unknown' },
        on: { click: () => choose(i) } },
      h('span', { class: 'sg-card-key', 'aria-hidden': 'true', text: i < 9 ? String(i + 1) : '' }),
      h('span', { class: 'sg-cost', title: t('spellgrid.cost'), text: f ? String(f.cost) : '?' }),
      h('span', { class: 'sg-card-name', text: cardName(name) }),
      h('span', { class: 'sg-card-type', text: typeText }),
      h('span', { class: 'sg-card-text', text: cardText(name) }),
      f?.type === 'minion' ? h('span', { class: 'sg-card-stats' },
        h('span', { class: 'sg-stat sg-atk', title: t('spellgrid.attack'), text: String(f.attack) }),
        h('span', { class: 'sg-stat sg-hp', title: t('spellgrid.health'), text: String(f.health) })) : null);
      b.setAttribute('aria-label', f
        ? t('spellgrid.card.label', { i: i + 1, name: cardName(name), type: typeText, cost: f.cost, text: cardText(name) }).trim()
        : `${i + 1}: ${name}`);
      return h('li', {}, b);
    }));
    if (!view.hand.length) hand.append(h('li', { class: 'sg-empty muted', text: t('spellgrid.hand.empty') }));
    if (focused >= 0) /** @type {HTMLElement|null} */ (hand.querySelector(`.sg-card[data-i="${Math.min(focused, view.hand.length - 1)}"]`))?.focus();
    castBtn.hidden = !(can && (kind === 'spell' || kind === 'unknown'));
    castBtn.textContent = chosen >= 0 ? t('spellgrid.cast.card', { card }) : t('spellgrid.cast');
    hint.textContent = !can ? '' : chosen < 0
      ? (view.hand.length ? t('spellgrid.hint.choose') : '')
      : kind === 'target' ? t('spellgrid.hint.target')
        : kind === 'minion' ? t('spellgrid.hint.minion')
          : t('spellgrid.hint.spell');

    clear(minionList).append(...view.minions.map((m) => h('li', { dataset: { id: String(m.id) } },
      h('span', { class: 'sg-minion-row-name', text: cardName(m.name) }),
      h('span', { class: 'sg-minion-row-at' },
        h('span', { class: 'muted', text: t('spellgrid.minion.at', { x: m.x + 1, y: m.y + 1 }) }),
        h('span', { class: 'sg-stat sg-atk', title: t('spellgrid.attack'), 'aria-label': t('spellgrid.minion.attack', { n: m.attack }), text: String(m.attack) }),
        h('span', { class: 'sg-stat sg-hp', title: t('spellgrid.health'), 'aria-label': t('spellgrid.minion.health', { n: m.health }), text: String(m.health) })))));
    if (!view.minions.length) minionList.append(h('li', { class: 'muted', text: t('spellgrid.minions.none') }));

    controls.hidden = seat == null || view.won || !!ended;
    keysHelp.hidden = controls.hidden;
    for (const b of [...pad.querySelectorAll('button'), undoBtn, restartBtn]) /** @type {HTMLButtonElement} */ (b).disabled = !mine();
    for (const b of pad.querySelectorAll('button')) /** @type {HTMLButtonElement} */ (b).disabled = !can;
    undoBtn.disabled = !mine() || view.moves === 0;
    restartBtn.disabled = !mine() || view.moves === 0;
    document.title = t(view.won ? 'spellgrid.doc.solved' : 'spellgrid.doc', { code: room?.code || '' }); // i18n: spellgrid.doc*
    renderResult();
  }

  /** The drawing order on a tile: words, things, minions, then YOU. */
  function layer(/** @type {GridObject} */ o, /** @type {Map<string, Set<string>>} */ props) {
    if (o.kind.startsWith('text:')) return 0;
    if (props.get(o.kind)?.has('YOU')) return 3;
    return view?.minions.some((m) => m.id === o.id) ? 2 : 1;
  }

  /** The result panel: the level solved, or the room's verdict. */
  function renderResult() {
    if (!view || (!view.won && !ended)) {
      result.hidden = true;
      return;
    }
    const st = ended?.status || (view.won ? 'won' : '');
    result.hidden = false;
    result.dataset.status = st;
    result.dataset.moves = String(view.moves);
    const title = view.won ? (seat === 0 ? t('spellgrid.result.won') : t('spellgrid.result.solvedBy', { name: ctx.seatName(0) })) : t('spellgrid.result.ended');
    const line = view.won
      ? t('spellgrid.result.solved', { title: levelInfo(view.level).title, moves: movesText(view.moves) })
      : t('spellgrid.result.why', { status: st });
    clear(result).append(
      h('h2', { text: title }),
      h('p', { class: 'muted', text: line }),
      ctx.isHost()
        ? h('button', { class: 'btn btn-primary', id: 'new-game', type: 'button', on: { click: () => ctx.newGame() } }, t('spellgrid.again'))
        : h('p', { class: 'muted', text: t('spellgrid.again.host') }));
  }

  return {
    el,
    setView(v) {
      view = copyView(v);
      chosen = -1;
      render();
    },
    applyBeats(beats) {
      if (!view) return;
      applyBeats(view, beats);
      // A new hand (a card used, an undo, a restart) ends the choice: the
      // place chosen may hold another card now.
      if ((beats || []).some((e) => Array.isArray(e?.hand))) chosen = -1;
      render();
    },
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
    setConnection(state) {
      if (state === conn) return;
      conn = state;
      render();
    },
    destroy() {
      document.removeEventListener('keydown', onKey);
      el.remove();
    },
  };
}
