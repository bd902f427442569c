// @ts-check
// The room's chat panel (PROTOCOL.md §2.10): the messages, newest last,
// each as text (never markup) with a report button; the box to write one;
// for the host, whether spectators may chat. The room page feeds it the
// client's 'chat' events and the room info; it sends through the client.
//
// DOM hooks: #chat, #chat-log li.chat-msg[data-id][data-seat] (no
// data-seat: a spectator's) with .chat-name, .chat-text and a
// .chat-report button; #chat-form, #chat-text, #chat-send; #chat-status
// (why this connection cannot chat, or a refusal); #chat-spectators (host).

import { h, clear } from './ui.js';
import { t } from './i18n.js';

/** @typedef {import('./client.js').ChatMessage} ChatMessage */
/** @typedef {import('./client.js').RoomInfo} RoomInfo */

const MAX = 200; // protocol.MaxChatRunes
const KEPT = 100; // messages shown

export class ChatPanel {
  /**
   * @param {{send: (text: string) => Promise<any>, report: (id: string) => Promise<any>,
   *   control: (ctl: any) => Promise<any>}} io
   */
  constructor(io) {
    this.io = io;
    /** @type {Set<string>} */
    this.seen = new Set();
    this.log = h('ol', { class: 'chat-log', id: 'chat-log', 'aria-live': 'polite', 'aria-label': t('app.chat.messages') });
    this.text = /** @type {HTMLInputElement} */ (h('input', { id: 'chat-text', type: 'text', maxlength: String(MAX),
      autocomplete: 'off', placeholder: t('app.chat.placeholder'), 'aria-label': t('app.chat.message') }));
    this.sendBtn = /** @type {HTMLButtonElement} */ (h('button', { class: 'btn btn-small', id: 'chat-send', type: 'submit' }, t('app.chat.send')));
    this.status = h('p', { class: 'muted small', id: 'chat-status', role: 'status', hidden: true });
    this.form = h('form', { class: 'chat-form inline-field', id: 'chat-form' }, this.text, this.sendBtn);
    this.hostBox = h('label', { class: 'chat-host small', hidden: true });
    this.empty = h('p', { class: 'muted small chat-empty', text: t('app.chat.empty') });
    this.el = h('div', { class: 'panel chat', id: 'chat' }, h('h3', { text: t('app.chat.title') }), this.empty, this.log, this.status, this.form, this.hostBox);
    this.form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      this.send();
    });
  }

  async send() {
    const text = this.text.value.trim();
    if (!text) return;
    this.sendBtn.disabled = true;
    try {
      const rc = await this.io.send(text);
      if (rc?.ok) {
        this.text.value = '';
        this.say('');
      } else {
        this.say(rc?.notice?.message || t('app.chat.notSent'));
      }
    } finally {
      this.sendBtn.disabled = false;
      this.text.focus();
    }
  }

  /** @param {string} why */
  say(why) {
    this.status.textContent = why;
    this.status.hidden = !why;
  }

  /**
   * Messages from a 'chat' event (a history repeats what was seen).
   * @param {ChatMessage[]} messages
   */
  add(messages) {
    for (const m of messages || []) {
      if (!m || typeof m.id !== 'string' || this.seen.has(m.id)) continue;
      this.seen.add(m.id);
      const report = h('button', { class: 'chat-report btn-quiet', type: 'button', title: t('app.chat.report'),
        'aria-label': t('app.chat.reportOf', { name: m.name }) }, '⚑'); // i18n-ok
      report.addEventListener('click', async () => {
        report.setAttribute('disabled', '');
        const rc = await this.io.report(m.id);
        report.textContent = rc?.ok ? t('app.chat.reported') : '⚑'; // i18n-ok
        if (!rc?.ok) { report.removeAttribute('disabled'); this.say(rc?.notice?.message || t('app.chat.notReported')); }
      });
      const dataset = /** @type {Record<string, string>} */ ({ id: m.id });
      if (m.seat != null) dataset.seat = String(m.seat);
      this.log.append(h('li', { class: 'chat-msg' + (m.seat == null ? ' chat-spectator' : ''), dataset },
        h('span', { class: 'chat-name', text: m.name }), ' ',
        h('span', { class: 'chat-text', text: m.text }), ' ', report));
    }
    while (this.log.children.length > KEPT) this.log.firstElementChild?.remove();
    this.empty.hidden = this.log.children.length > 0;
    this.log.scrollTop = this.log.scrollHeight;
  }

  /**
   * Who may write, from the room info and this connection's seat.
   * @param {RoomInfo} info
   * @param {number|null} seat
   * @param {boolean} online
   */
  setRoom(info, seat, online) {
    const mine = seat != null ? info.seats.find((s) => s.seat === seat) : undefined;
    let why = '';
    if (!online) why = t('app.chat.offline');
    else if (seat == null && !info.spectatorChat) why = t('app.chat.noSpectators');
    else if (mine?.muted) why = t('app.chat.muted');
    this.text.disabled = !!why;
    // The field says why it cannot be used, and points at the line that says it.
    this.text.placeholder = why || t('app.chat.placeholder');
    if (why) this.text.setAttribute('aria-describedby', 'chat-status');
    else this.text.removeAttribute('aria-describedby');
    this.sendBtn.disabled = !!why;
    this.form.dataset.disabled = String(!!why);
    if (why || this.status.dataset.why) {
      this.status.dataset.why = why;
      this.say(why);
    }
    const host = seat != null && info.host === seat;
    this.hostBox.hidden = !host;
    if (host) {
      const box = /** @type {HTMLInputElement} */ (h('input', { type: 'checkbox', id: 'chat-spectators', checked: !!info.spectatorChat }));
      box.addEventListener('change', async () => {
        const rc = await this.io.control({ op: 'chat', spectatorChat: box.checked });
        if (!rc?.ok) { box.checked = !box.checked; this.say(rc?.notice?.message || t('app.chat.notChanged')); }
      });
      clear(this.hostBox).append(box, ' ', t('app.chat.spectatorsMay'));
    }
  }
}
