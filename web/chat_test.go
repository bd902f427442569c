package web_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestChat: two players and a spectator in one room (PROTOCOL.md §2.10).
// Ann's message — markup in it — reaches Bob and Eve as text; Eve, a
// spectator, cannot write until Ann lets spectators chat, and then her
// message reaches both players marked as a spectator's; Ann mutes Bob,
// whose box then says so; Eve reports a message, which the server keeps
// for its operators; a spectator who comes later gets the recent
// messages. Desktop and phone.
func TestChat(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	ann := newUser(t, srv, "ann", desktop)
	code := ann.createMinesweeper(msSettings{mode: "coop", level: "beginner"}, "Ann")
	bob := newUser(t, srv, "bob", phone)
	bob.joinAsPlayer(code, "Bob")
	bob.wait("Bob's chat", `!!document.getElementById('chat-text') && !document.getElementById('chat-text').disabled`)
	eve := newUser(t, srv, "eve", desktop)
	eve.open("/r/" + code)
	eve.wait("the join form", `!!document.getElementById('join-name')`)
	eve.setField("#join-name", "Eve")
	eve.click("#join-watch")
	eve.wait("Eve's chat, closed to spectators", `(() => { const t = document.getElementById('chat-text'); const s = document.getElementById('chat-status');
		return !!t && t.disabled && !s.hidden && s.textContent.includes('Spectators cannot chat'); })()`)

	say := func(p *page, text string) {
		p.t.Helper()
		p.setField("#chat-text", text)
		p.click("#chat-send")
		p.wait("the message sent", `document.getElementById('chat-text').value === ''`)
	}
	const markup = `gl hf <b>bold</b> <img src=x onerror=alert(1)>`
	say(ann, markup)
	for _, p := range []*page{ann, bob, eve} {
		p.wait("Ann's message", `[...document.querySelectorAll('#chat-log .chat-msg[data-seat="0"] .chat-text')].some((e) => e.textContent === `+jsString(markup)+`)`)
		if n := eval[int](p, `document.querySelectorAll('#chat-log b, #chat-log img').length`); n != 0 {
			t.Fatalf("%s: the message became markup (%d elements)", p.name, n)
		}
	}

	// Ann lets spectators chat; Eve writes.
	ann.wait("the host's switch", `!!document.getElementById('chat-spectators')`)
	ann.click("#chat-spectators")
	eve.wait("Eve may chat", `!document.getElementById('chat-text').disabled`)
	say(eve, "nice start")
	for _, p := range []*page{ann, bob} {
		p.wait("Eve's message", `[...document.querySelectorAll('#chat-log .chat-spectator')].some((e) => e.querySelector('.chat-name').textContent === 'Eve (spectator)' && e.querySelector('.chat-text').textContent === 'nice start' && !e.dataset.seat)`)
	}

	// Ann mutes Bob.
	ann.wait("Bob's mute button", `!!document.querySelector('#seats .mute-seat[data-seat="1"]')`)
	ann.click(`#seats .mute-seat[data-seat="1"]`)
	bob.wait("Bob muted", `(() => { const t = document.getElementById('chat-text'); return t.disabled && document.getElementById('chat-status').textContent.includes('muted'); })()`)
	ann.wait("Bob shown muted", `document.querySelector('#seats .mute-seat[data-seat="1"]').getAttribute('aria-pressed') === 'true'`)
	ann.screenshot("chat-host-desktop")
	bob.screenshot("chat-muted-phone")

	// Eve reports Ann's message.
	eve.click(`#chat-log .chat-msg[data-seat="0"] .chat-report`)
	eve.wait("reported", `document.querySelector('#chat-log .chat-msg[data-seat="0"] .chat-report').textContent === 'reported'`)
	reports := srv.rooms.Reports()
	if len(reports) != 1 || reports[0].Message.Text != markup || reports[0].Reporter != "Eve (spectator)" || reports[0].Room != code {
		t.Fatalf("reports kept: %+v", reports)
	}
	eve.screenshot("chat-spectator-desktop")

	// A later spectator gets the recent messages.
	zed := newUser(t, srv, "zed", phone)
	zed.open("/r/" + code + "?watch")
	zed.wait("the history", `document.querySelectorAll('#chat-log .chat-msg').length === 2`)
	got := eval[string](zed, `[...document.querySelectorAll('#chat-log .chat-text')].map((e) => e.textContent).join('|')`)
	if got != markup+"|nice start" {
		t.Fatalf("the history shows %q", got)
	}
	if !strings.Contains(eval[string](zed, `document.getElementById('chat').innerText`), "Ann") {
		t.Error("the history names no author")
	}
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string { return fmt.Sprintf("%q", s) }
