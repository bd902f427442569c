// @ts-check
// The ratings (PROTOCOL.md §1, "Ratings"): per rated game and mode, the
// players with the highest Glicko-2 ratings (provisional players are not
// listed), and — for a player the embedding site signed in — his own
// rating there and his latest rated matches.

import * as api from './api.js';
import { h, clear } from './ui.js';
import { t, num } from './i18n.js';

/** @typedef {import('./registry.js').GameEntry} GameEntry */

/**
 * The lobby's ratings panel (#ratings): hidden on a server without ratings.
 * @param {GameEntry[]} games
 */
export function ratingsCard(games) {
  const el = h('section', { class: 'panel ratings-card', id: 'ratings', hidden: true, dataset: { state: 'loading' } });
  const pool = /** @type {HTMLSelectElement} */ (h('select', { id: 'ratings-pool' }));
  const list = h('ol', { class: 'scores ratings-list', id: 'ratings-list' });
  const empty = h('p', { class: 'muted small', id: 'ratings-empty', hidden: true, text: t('app.ratings.empty') });
  const mine = h('div', { class: 'ratings-mine', id: 'ratings-mine', hidden: true });
  el.append(h('h2', { text: t('app.ratings.title') }),
    h('label', { class: 'field' }, h('span', { text: t('app.ratings.mode') }), pool),
    list, empty, mine, h('p', { class: 'muted small', text: t('app.ratings.note') }));
  const player = api.signedInPlayer();
  let seq = 0;
  const show = async () => {
    const n = ++seq;
    const [game, mode] = pool.value.split('/');
    el.dataset.state = 'loading';
    const [board, own] = await Promise.all([
      api.ratingBoard(game, mode).catch(() => null),
      player ? api.playerRating(player, game, mode).catch(() => null) : Promise.resolve(null),
    ]);
    if (n !== seq) return;
    const players = board?.players || [];
    clear(list).append(...players.map((p, i) => h('li', {
      class: 'rating-entry' + (p.player === player ? ' best-mine' : ''), dataset: { player: p.player, rank: String(i + 1) },
    },
    h('span', { class: 'score-name', text: p.name || p.player }),
    p.player === player && h('span', { class: 'badge badge-you', text: t('app.best.you') }),
    h('span', { class: 'score-time rating-value', text: num(Math.round(p.rating)) }),
    h('span', { class: 'muted small rating-rd', text: t('app.ratings.rd', { rd: num(Math.round(p.rd)) }) }))));
    empty.hidden = players.length > 0;
    showMine(mine, own);
    el.dataset.state = 'ready';
  };
  pool.addEventListener('change', show);
  api.ratedModes().then((rated) => {
    const named = rated.flatMap((gm) => {
      const [game, mode] = gm.split('/');
      const g = games.find((e) => e.info.id === game);
      const m = g?.info.modes.find((x) => x.id === mode);
      return g && m ? [[gm, g.info.modes.length > 1 ? `${g.info.name} — ${m.name}` : g.info.name]] : [];
    });
    if (!named.length) return;
    pool.append(...named.map(([value, label]) => h('option', { value }, label)));
    el.hidden = false;
    show();
  }, () => { /* no answer: the panel stays hidden */ });
  return el;
}

/**
 * The signed-in player's rating and history in the mode shown.
 * @param {HTMLElement} el
 * @param {Awaited<ReturnType<typeof api.playerRating>>|null} own
 */
function showMine(el, own) {
  clear(el);
  el.hidden = !own;
  if (!own) return;
  const params = { rating: num(Math.round(own.rating)), rd: num(Math.round(own.rd)), matches: num(own.matches) };
  let value = t('app.ratings.mineNone', params);
  if (own.rated) value = own.provisional ? t('app.ratings.mineProvisional', params) : t('app.ratings.mine', params);
  el.append(h('h3', { text: t('app.ratings.mineTitle') }), h('p', { id: 'ratings-mine-value', text: value }));
  if (!own.history?.length) return;
  el.append(h('ol', { class: 'ratings-history', id: 'ratings-history' }, ...own.history.map((c) => {
    const delta = Math.round(c.after.rating - (c.before.matches ? c.before.rating : 1500));
    const opponent = { opponent: c.opponentName || c.opponent };
    let outcome = 'draw', words = t('app.ratings.draw', opponent);
    if (c.score === 1) [outcome, words] = ['win', t('app.ratings.win', opponent)];
    if (c.score === 0) [outcome, words] = ['loss', t('app.ratings.loss', opponent)];
    return h('li', { class: 'rating-change', dataset: { outcome } },
      h('span', { text: words }),
      h('span', { class: 'rating-delta', text: (delta >= 0 ? '+' : '') + num(delta) }),
      h('time', { class: 'muted small', datetime: new Date(c.at).toISOString(), text: new Date(c.at).toLocaleDateString() }));
  })));
}
