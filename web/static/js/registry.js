// @ts-check
// The games this page can offer: the server's registry (GET /api/games:
// each game's id, name, rules version, modes, config and command schemas)
// joined with the game's page module, static/js/games/{id}.js, loaded on
// demand with a dynamic import. Nothing here or in the lobby, room or
// settings code names a game: adding one takes its page module only.
//
// A page module exports (see GamePage below):
//
//   id, rulesVersion            the game it shows and the rules it understands
//   create(ctx) → GameView      the game's view of a running or ended match
//                               (a real-time game's view also takes its
//                               ticks: applyTick)
//   icon?, tagline?             for the lobby's game picker and the room title
//   defaults?(info)             the settings a new room starts from
//   settingsForm?(info, initial, prefix) → {el, read}
//                               the game's own settings fields (the mode is
//                               chosen by the shared form when there are several)
//   describe?(info, settings)   the settings in one line
//
// A game the server lists but this build has no page for (or whose module
// fails to load) gets a null page: the pages say so instead of breaking.

import * as api from './api.js';
import { t } from './i18n.js';

/** @typedef {import('./api.js').GameInfo} GameInfo */
/** @typedef {import('./client.js').RoomInfo} RoomInfo */
/** @typedef {import('./client.js').Result} Result */
/** @typedef {import('./client.js').Clocks} Clocks */
/** @typedef {import('./client.js').Receipt} Receipt */

/**
 * What a game's page may ask of the room page.
 * @typedef {object} GameContext
 * @property {(cmd: any) => Promise<Receipt>} command  sends a game command
 * @property {(settings?: Record<string, any>) => Promise<void>} newGame   host: a rematch (resigning a
 *     running match first), under new settings when given (a puzzle's next level)
 * @property {() => boolean} isHost
 * @property {() => number|null} seat          the viewer's seat; null for a spectator
 * @property {() => RoomInfo|null} room
 * @property {(seat: number) => string} seatName
 * @property {() => number} serverNow          the host's clock, ms
 * @property {() => void} resync               asks the server for a fresh snapshot
 * @property {() => number} rtt                the socket's round trip, ms (0 when unknown)
 * @property {GameInfo|undefined} game         the server's registry entry
 * @property {boolean} [local]                 a game played on this device (local play): no server,
 *     so no best times and no host's clock to speak of
 * @property {boolean} [shared]                every seat is played at this one device (pass and play): the
 *     viewer's seat changes with the turn, so a page names the seats rather than saying "you"
 * @property {(view: any, beats: any[]) => Promise<any>} follow   plays an update's beats on a view
 *     with the game's own Go reducer (its View.Apply), through the game's WebAssembly core
 *     (loaded the first time): a page need not write the game's reducer again in JavaScript.
 *     Calls resolve in order; a game without a core or a reducer rejects.
 */

/**
 * What create returns: the room page calls these as messages come.
 *
 * A real-time game (GET /api/games lists its tick rate; its room info has
 * `hz`) gets one applyTick per tick of its running match, numbered without
 * gaps from the tick its last view is at (the client resyncs on a gap, and
 * the snapshot's setView carries the tick to go on from); the room info it
 * gets in setRoom says `paused` while the match waits for a player, and is
 * passed again when a presence changes that.
 * @typedef {object} GameView
 * @property {HTMLElement} el
 * @property {(view: any, tick?: number) => void} setView   a snapshot's or a new match's view: replace;
 *     tick is the tick the view is at (a real-time match; 0 at its start and for other games)
 * @property {(beats: any[], by: number|null) => void} applyBeats   an update's beats: apply each once
 * @property {(tick: number, beats: any[]) => void} [applyTick]   a real-time match's tick: apply its
 *     beats once, in order; the view is then at that tick (a page without it ignores ticks)
 * @property {(room: RoomInfo, seat: number|null) => void} setRoom   room.hz, room.paused for real-time games
 * @property {(result: Result|null, live?: boolean) => void} setResult   live: it just ended
 * @property {(clocks: Clocks) => void} setClocks
 * @property {(state: 'connecting'|'online'|'reconnecting'|'closed') => void} [setConnection]   the room's
 *     connection (the client's state): while it is not online the room dims the game and takes no
 *     pointer; a page shows what it says live as not live (a spectator's line, a running clock)
 * @property {() => void} destroy
 */

/**
 * A game's settings form: read() returns the settings object, or throws an
 * Error whose message the page shows.
 * @typedef {{el: HTMLElement, read: () => Record<string, any>}} SettingsForm
 */

/**
 * A game's page module, static/js/games/{id}.js.
 * @typedef {object} GamePage
 * @property {string} id
 * @property {string} rulesVersion
 * @property {(ctx: GameContext) => GameView} create
 * @property {string} [icon]        an image of static/img, without .svg
 * @property {string} [tagline]     a line under the game's name in the lobby
 * @property {(info: GameInfo) => Record<string, any>} [defaults]
 * @property {(info: GameInfo, initial: Record<string, any>, prefix: string) => SettingsForm} [settingsForm]
 * @property {(info: GameInfo, settings: any) => string} [describe]
 * @property {(info: GameInfo, settings: any) => string} [board]   the leaderboard board a config
 *   plays (a Minesweeper level): the lobby's ranked daily needs it
 * @property {(board: string) => string} [boardTitle]   a leaderboard board's name in the
 *   language shown (the lobby's best times); default the id, capitalized
 */

/**
 * A game of the registry and its page (null without one).
 * @typedef {{info: GameInfo, page: GamePage|null}} GameEntry
 */

/** Game ids that can name a file of games/. */
const pageId = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** @type {Map<string, Promise<GamePage|null>>} */
const pages = new Map();

/**
 * The page module of a game, or null when this build has none.
 * @param {string} id
 * @returns {Promise<GamePage|null>}
 */
export function loadPage(id) {
  if (!pageId.test(id)) return Promise.resolve(null);
  let p = pages.get(id);
  if (!p) {
    p = import(`./games/${id}.js`).then(
      (m) => {
        if (typeof m.create !== 'function' || typeof m.rulesVersion !== 'string') {
          console.warn(`roomd: games/${id}.js is not a game page (no create or rulesVersion)`);
          return null;
        }
        return /** @type {GamePage} */ (m);
      },
      (err) => {
        console.warn(`roomd: no page for the game ${id}:`, err?.message || err);
        return null;
      });
    pages.set(id, p);
  }
  return p;
}

/** @type {Promise<{protocol: number, games: GameInfo[]}>|null} */
let registry = null;

/** The server's registry, asked once per page (again after a failure). */
export function games() {
  if (!registry) {
    registry = api.games();
    registry.catch(() => { registry = null; });
  }
  return registry;
}

/**
 * Every game of the registry with its page, in the server's order.
 * @returns {Promise<GameEntry[]>}
 */
export async function entries() {
  const list = (await games()).games || [];
  const found = await Promise.all(list.map((g) => loadPage(g.id)));
  return list.map((info, i) => ({ info, page: found[i] }));
}

/**
 * The message shown for a game without a page.
 * @param {{id: string, name?: string}} game
 */
export function noPageText(game) {
  const name = game.name || game.id;
  return t('app.nopage', { name, id: game.id });
}

/**
 * Plays beats on a view with game's Go reducer, through its WebAssembly core
 * (core/corecall's "follow"): what GameContext.follow does.
 * @param {string} game
 * @param {any} view
 * @param {any[]} beats
 * @returns {Promise<any>}
 */
export async function follow(game, view, beats) {
  const { loadCore } = await import('./local/core.js');
  const core = await loadCore(game);
  const ans = core.call({ op: 'follow', game, view, beats });
  if (ans.error) throw new Error(`${game}: ${ans.error.message}`);
  return ans.view;
}
