// @ts-check
// The HTTP API (PROTOCOL.md §1).

import { t, localizeGame } from './i18n.js';

/**
 * @typedef {object} Mode
 * @property {string} id
 * @property {string} name
 * @property {number} minSeats
 * @property {number} maxSeats
 * @property {boolean} ai
 */

/**
 * @typedef {object} GameInfo
 * @property {string} id
 * @property {string} name
 * @property {string} rulesVersion
 * @property {Mode[]} modes
 * @property {{by: string, higher: boolean}} [ranking]   games that keep leaderboards
 * @property {{hz: number, maxCatchUp?: number}} [tick]  real-time games: the tick rate
 * @property {boolean} [turnClock]   matches may be played on a turn clock (settings.clock)
 * @property {string} [onTimeout]    what a seat out of time does: "resign" (the default) or "ai"
 * @property {any} configSchema
 * @property {any} commandSchema
 */

export class APIError extends Error {
  /** @param {number} status @param {string} message */
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

const AUTH_KEY = 'roomd.auth';

/**
 * The sign-in token the embedding site gave this tab, or '' (PROTOCOL.md
 * §2.9): sent as Authorization on the API and as auth in hellos.
 */
export function authToken() {
  try { return sessionStorage.getItem(AUTH_KEY) || ''; } catch { return ''; }
}

/**
 * Moves a token given in the address's fragment (#auth=<jwt>) into this
 * tab's storage and out of the address, so that it is neither bookmarked
 * nor shared with a room link.
 */
export function takeAuthFromFragment() {
  const m = /(?:^#|&)auth=([A-Za-z0-9._~-]{1,8192})(?:&|$)/.exec(location.hash);
  if (!m) return;
  try { sessionStorage.setItem(AUTH_KEY, m[1]); } catch { /* no storage: anonymous */ }
  history.replaceState(null, '', location.pathname + location.search);
}

/**
 * @param {string} path
 * @param {RequestInit} [init]
 */
async function call(path, init) {
  let res;
  const auth = authToken();
  try {
    res = await fetch(path, { ...init, headers: { Accept: 'application/json', ...(init?.body ? { 'Content-Type': 'application/json' } : {}),
      ...(auth ? { Authorization: 'Bearer ' + auth } : {}) } });
  } catch (e) {
    if (init?.signal?.aborted) throw e;
    throw new APIError(0, t('app.api.unreachable'));
  }
  let body = null;
  try { body = await res.json(); } catch { /* not JSON */ }
  if (!res.ok) throw new APIError(res.status, (body && body.error) || `${res.status} ${res.statusText}`);
  return body;
}

/**
 * The server's games, their names and modes' names in the language shown.
 * @returns {Promise<{protocol: number, games: GameInfo[]}>}
 */
export async function games() {
  const body = await call('/api/games');
  return { ...body, games: (body?.games || []).map(localizeGame) };
}

/**
 * @param {string} game
 * @param {any} settings
 * @param {string} name
 * @param {{daily?: boolean, public?: boolean}} [opts]   daily: today's ranked daily of the settings' board
 *   (PROTOCOL.md §2.8); public: listed in GET /api/rooms
 * @returns {Promise<{room: string, token: string, seat: number, invite?: string}>}
 */
export function createRoom(game, settings, name, opts) {
  return call('/api/rooms', { method: 'POST', body: JSON.stringify({ game, settings, name, ...opts }) });
}

/**
 * @typedef {object} DailyInfo
 * @property {string} game
 * @property {string} mode
 * @property {string} board
 * @property {string} day          YYYY-MM-DD, UTC
 * @property {string} commitment   SHA-256 of the day's secret, hex
 * @property {number} endsAt       Unix ms: the secret is disclosed then
 * @property {string} [seed]       the secret, once the day is over
 * @property {string} by
 * @property {boolean} higher
 * @property {Score[]} scores      the day's list, best first
 */

/**
 * A ranked daily (GET /api/daily/{game}/{board}): null when the server
 * has none for that board.
 * @param {string} game
 * @param {string} board
 * @param {{mode?: string, day?: string}} [opts]
 * @returns {Promise<DailyInfo|null>}
 */
export async function daily(game, board, opts = {}) {
  const q = new URLSearchParams({ limit: '10' });
  if (opts.mode) q.set('mode', opts.mode);
  if (opts.day) q.set('day', opts.day);
  try {
    const body = await call(`/api/daily/${encodeURIComponent(game)}/${encodeURIComponent(board)}?${q}`);
    body.scores = (body.scores || []).map(score).filter(Boolean);
    return body;
  } catch (e) {
    if (e instanceof APIError && e.status === 404) return null;
    throw e;
  }
}

/** @param {string} code @returns {Promise<import('./client.js').RoomInfo>} */
export function roomInfo(code) { return call('/api/rooms/' + encodeURIComponent(code)); }

/**
 * A public room as GET /api/rooms lists it.
 * @typedef {object} OpenRoom
 * @property {string} code
 * @property {string} game
 * @property {string} mode
 * @property {any} settings
 * @property {'lobby'|'running'|'ended'} phase
 * @property {number} seats        seats taken
 * @property {number} minSeats
 * @property {number} maxSeats
 * @property {number} free
 * @property {number} spectators
 * @property {string[]} players
 * @property {string} [host]
 * @property {number} [created]
 */

/**
 * The public rooms (GET /api/rooms), one page: null when the server lists
 * none at all (a server without public rooms answers 404).
 * @param {{game?: string, mode?: string, phase?: 'lobby'|'running', limit?: number, cursor?: string}} [opts]
 * @returns {Promise<{rooms: OpenRoom[], next: string}|null>}
 */
export async function listRooms(opts = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(opts)) if (v != null && v !== '') q.set(k, String(v));
  try {
    const body = await call('/api/rooms?' + q);
    return { rooms: Array.isArray(body?.rooms) ? body.rooms : [], next: String(body?.next || '') };
  } catch (e) {
    if (e instanceof APIError && (e.status === 404 || e.status === 405)) return null;
    throw e;
  }
}

/**
 * Quick play (POST /api/quickplay): a seat in an open public room of the
 * game and mode, or a new one (created: true, 201).
 * @param {string} game
 * @param {any} settings
 * @param {string} name
 * @returns {Promise<{room: string, token: string, seat: number, created: boolean}>}
 */
export function quickPlay(game, settings, name) {
  return call('/api/quickplay', { method: 'POST', body: JSON.stringify({ game, settings, name }) });
}

/**
 * @typedef {object} RatedTicket   a ticket of rated quick play (PROTOCOL.md §2.13)
 * @property {string} ticket
 * @property {string} pool
 * @property {string} state       waiting, paired or settled
 * @property {number} rating
 * @property {number} waitedMs
 * @property {number} window      the rating window now; -1 unbounded
 * @property {string} poll        where to long-poll it
 * @property {{room?: string, token?: string, seat?: number, url?: string, opponent?: string,
 *   opponentRating?: number, error?: string}} [outcome]   once settled
 */

/**
 * Rated quick play (POST /api/quickplay with rated): a ticket in the pool
 * of the game, mode and clock, for a signed-in player.
 * @param {string} game
 * @param {any} settings
 * @param {string} name
 * @returns {Promise<RatedTicket>}
 */
export function ratedPlay(game, settings, name) {
  return call('/api/quickplay', { method: 'POST', body: JSON.stringify({ game, settings, name, rated: true }) });
}

/**
 * One long poll of a rated ticket: it answers once the ticket is settled,
 * or after waitMs.
 * @param {RatedTicket} ticket
 * @param {number} waitMs
 * @param {AbortSignal} signal
 * @returns {Promise<RatedTicket>}
 */
export function pollRated(ticket, waitMs, signal) {
  return call(`${ticket.poll}?waitMs=${waitMs}`, { signal });
}

/**
 * Cancels a rated ticket (DELETE); a ticket gone already is fine.
 * @param {RatedTicket} ticket
 */
export async function cancelRated(ticket) {
  try {
    await call(ticket.poll, { method: 'DELETE' });
  } catch (e) {
    if (!(e instanceof APIError && e.status === 404)) throw e;
  }
}

/**
 * @typedef {object} Score
 * @property {string} name
 * @property {number} value    the ranked quantity (Minesweeper: ms, host time)
 * @property {string} [room]
 * @property {number} [match]
 * @property {number} [at]
 */

/**
 * One leaderboard entry as the server sends it: {name, value, ...}, or from
 * servers before the value field, {name, time, ...}. Entries without a
 * number are dropped.
 * @param {any} s
 * @returns {Score|null}
 */
export function score(s) {
  if (!s || typeof s !== 'object') return null;
  const value = s.value ?? s.time;
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  return { ...s, name: String(s.name ?? ''), value };
}

/**
 * The best results of a board in one mode (all time), best first: [] when
 * the list is empty, null when the server keeps no such list (a custom
 * board). GET /api/leaderboards/{game}/{board}?mode= answers
 * {game, board, mode, period, by, higher, scores: [...]}; a bare list is
 * taken too.
 * @param {string} game
 * @param {string} board
 * @param {string} [mode]
 * @param {'day'|'week'|'all'} [period]   default all time
 * @returns {Promise<Score[]|null>}
 */
export async function leaderboard(game, board, mode, period) {
  try {
    const q = (mode ? `&mode=${encodeURIComponent(mode)}` : '') + (period && period !== 'all' ? `&period=${period}` : '');
    const body = await call(`/api/leaderboards/${encodeURIComponent(game)}/${encodeURIComponent(board)}?limit=10${q}`);
    const list = Array.isArray(body) ? body : (body?.scores || []);
    /** @type {Score[]} */
    const out = [];
    for (const s of list) {
      const sc = score(s);
      if (sc) out.push(sc);
    }
    return out.slice(0, 10);
  } catch (e) {
    return e instanceof APIError && e.status === 404 ? null : [];
  }
}

/**
 * The rated modes of the server's games, as "game/mode" (PROTOCOL.md §1,
 * "Ratings"): [] when it keeps no ratings.
 * @returns {Promise<string[]>}
 */
export async function ratedModes() {
  const body = await call('/api/games');
  return Array.isArray(body?.rated) ? body.rated.filter((/** @type {any} */ s) => typeof s === 'string') : [];
}

/**
 * @typedef {object} Rating
 * @property {number} rating
 * @property {number} rd
 * @property {number} volatility
 * @property {number} matches
 * @property {string} [name]
 * @property {number} [at]
 */

/**
 * The rating leaderboard of a rated mode: GET /api/ratings/{game}/{mode}
 * answers {game, mode, provisionalRd, players: [{player, rating, rd, ...}]}.
 * @param {string} game
 * @param {string} mode
 * @returns {Promise<{provisionalRd: number, players: (Rating & {player: string})[]}>}
 */
export function ratingBoard(game, mode) {
  return call(`/api/ratings/${encodeURIComponent(game)}/${encodeURIComponent(mode)}?limit=10`);
}

/**
 * A player's rating in a rated mode and his latest changes:
 * GET /api/players/{player}/ratings/{game}/{mode}.
 * @param {string} player
 * @param {string} game
 * @param {string} mode
 * @returns {Promise<Rating & {rated: boolean, provisional: boolean, history: {match: string, at: number, opponent: string, opponentName?: string, score: number, before: Rating, after: Rating}[]}>}
 */
export function playerRating(player, game, mode) {
  return call(`/api/players/${encodeURIComponent(player)}/ratings/${encodeURIComponent(game)}/${encodeURIComponent(mode)}?limit=10`);
}

/**
 * The player id (the token's sub) of the site's sign-in in this tab, or ''.
 * Read for display only: the server verifies the token, not this.
 */
export function signedInPlayer() {
  const tok = authToken();
  const part = tok.split('.')[1];
  if (!part) return '';
  try {
    const bin = atob(part.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(part.length / 4) * 4, '='));
    const sub = JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0))))?.sub;
    return typeof sub === 'string' ? sub : '';
  } catch {
    return '';
  }
}
