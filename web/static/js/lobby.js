// @ts-check
// The front page: pick a game and its settings, give a name, create a room;
// or open a room by its code.

import * as api from './api.js';
import { TokenStore } from './client.js';
import { settingsForm } from './settings.js';
import { h, clear, icon, savedName, saveName } from './ui.js';

/** @param {HTMLElement} app */
export async function showLobby(app) {
  document.title = 'roomd — play together';
  clear(app);
  app.className = 'app app-lobby';
  const status = h('p', { class: 'muted', text: 'Loading games…' });
  app.append(status);
  let games;
  try {
    games = (await api.games()).games;
  } catch (err) {
    status.textContent = 'The server did not answer: ' + /** @type {Error} */ (err).message;
    status.append(' ', h('button', { class: 'btn', type: 'button', on: { click: () => showLobby(app) } }, 'Try again'));
    return;
  }
  clear(app);
  app.append(
    h('section', { class: 'hero' },
      h('h1', { text: 'Play together, live.' }),
      h('p', { text: 'Start a room, share its link, and play Minesweeper or Hidden Nim with friends — or just watch.' })),
    h('div', { class: 'lobby-grid' }, createCard(games), h('div', { class: 'lobby-side' }, joinCard(), howCard())));
}

/** @param {import('./api.js').GameInfo[]} games */
function createCard(games) {
  const known = games.filter((g) => g.id === 'minesweeper' || g.id === 'nim');
  const list = known.length ? known : games;
  let current = list[0];
  let form = settingsForm(current, {}, 'new');
  const formSlot = h('div', { class: 'form-slot' }, form.el);
  const picker = h('div', { class: 'game-picker', role: 'radiogroup', 'aria-label': 'Game' },
    ...list.map((g, i) => {
      const input = h('input', { type: 'radio', name: 'game', value: g.id, id: `game-${g.id}`, checked: i === 0 });
      input.addEventListener('change', () => {
        current = g;
        form = settingsForm(g, {}, 'new');
        clear(formSlot).append(form.el);
      });
      return h('label', { class: 'game-choice', for: `game-${g.id}`, dataset: { game: g.id } },
        input, icon(g.id === 'nim' ? 'nim' : 'mine'),
        h('span', { class: 'game-choice-name', text: g.name }),
        h('span', { class: 'game-choice-sub', text: g.id === 'nim' ? '2–4 players, secret numbers' : 'Solo, co-op or race' }));
    }));
  const name = /** @type {HTMLInputElement} */ (h('input', { id: 'new-name', name: 'name', type: 'text', autocomplete: 'nickname',
    maxlength: '32', placeholder: 'Your name', value: savedName() }));
  const error = h('p', { class: 'form-error', id: 'create-error', role: 'alert', hidden: true });
  const button = /** @type {HTMLButtonElement} */ (h('button', { class: 'btn btn-primary btn-big', id: 'create', type: 'submit' }, 'Create room'));
  const el = h('form', { class: 'panel create-card', id: 'create-form', novalidate: true },
    h('h2', { text: 'New game' }),
    picker,
    formSlot,
    h('div', { class: 'field' }, h('label', { for: name.id, text: 'Your name' }), name),
    error,
    button);
  el.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    error.hidden = true;
    let settings;
    try {
      settings = form.read();
    } catch (err) {
      error.textContent = /** @type {Error} */ (err).message;
      error.hidden = false;
      return;
    }
    const who = name.value.trim();
    saveName(who);
    button.disabled = true;
    button.textContent = 'Creating…';
    try {
      const res = await api.createRoom(current.id, settings, who || 'Player');
      new TokenStore().set(res.room, res.token);
      if (current.id === 'minesweeper' && (settings.mode || 'solo') === 'solo') {
        try { sessionStorage.setItem('roomd.autostart.' + res.room, '1'); } catch { /* start by hand */ }
      }
      location.assign('/r/' + encodeURIComponent(res.room));
    } catch (err) {
      error.textContent = /** @type {Error} */ (err).message;
      error.hidden = false;
      button.disabled = false;
      button.textContent = 'Create room';
    }
  });
  return el;
}

function joinCard() {
  const code = /** @type {HTMLInputElement} */ (h('input', { id: 'join-code', name: 'code', type: 'text', autocomplete: 'off',
    autocapitalize: 'characters', spellcheck: 'false', maxlength: '32', placeholder: 'K7QXMP', pattern: '[A-Za-z0-9]+' }));
  const el = h('form', { class: 'panel join-card', id: 'join-form' },
    h('h2', { text: 'Join a room' }),
    h('p', { class: 'muted', text: 'Got a link? Just open it. Or type the room code:' }),
    h('div', { class: 'inline-field' }, code, h('button', { class: 'btn', type: 'submit' }, 'Open')));
  el.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const c = code.value.trim().toUpperCase();
    if (/^[A-Z0-9]{1,32}$/.test(c)) location.assign('/r/' + c);
  });
  const recent = recentRooms();
  if (recent.length) {
    el.append(h('h3', { text: 'Your rooms' }),
      h('ul', { class: 'recent' }, ...recent.map((c) => h('li', {}, h('a', { href: '/r/' + c, text: c })))));
  }
  return el;
}

function howCard() {
  return h('section', { class: 'panel how-card' },
    h('h2', { text: 'How it works' }),
    h('ol', { class: 'how' },
      h('li', {}, h('strong', { text: 'Create a room' }), ' — pick a game and how to play it.'),
      h('li', {}, h('strong', { text: 'Share the link' }), ' — friends join as players, anyone can watch live.'),
      h('li', {}, h('strong', { text: 'Play' }), ' — the server keeps the game fair: nobody sees a mine or a secret early, and the clock is the host\'s.')),
    h('p', { class: 'muted small', text: 'Lost your connection? The game waits for you and picks up where you left it.' }));
}

/** Rooms this browser holds a seat token for. */
function recentRooms() {
  const out = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const k = localStorage.key(i) || '';
      if (k.startsWith('roomd.token.')) out.push(k.slice('roomd.token.'.length));
    }
  } catch { /* none */ }
  return out.sort().slice(0, 6);
}
