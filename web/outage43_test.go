package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/roomd/roomd/core/spellgridgame"
	"github.com/roomd/roomd/core/tictactoe"
)

// TestOutageShown: while roomd is down (issue 43), the room says so where
// the player looks, for the player and for a spectator: no seat's dot is
// green (the seats' presence is unknown: data-connected "unknown"), the
// board is dimmed and takes no click, the spectator's line says it is
// reconnecting instead of "Watching live", and the match clock stands
// still. Once roomd is back all of it is as before. Desktop in English,
// phone in Japanese.
func TestOutageShown(t *testing.T) {
	t.Parallel()
	cases := []struct {
		vp                       viewport
		lang, live, reconnecting string
	}{
		{desktop, "en", "Watching live.", "Reconnecting…"},
		{phone, "ja", "ライブ観戦中。", "再接続中…"},
	}
	for _, tc := range cases {
		t.Run(tc.vp.name+"-"+tc.lang, func(t *testing.T) {
			t.Parallel()
			srv := startRoomd(t)
			ann := newUser(t, srv, "ann", tc.vp)
			ann.open("/")
			eval[bool](ann, fmt.Sprintf(`(localStorage.setItem('roomd.lang', %q), true)`, tc.lang))
			code := ann.createMinesweeper(msSettings{mode: "solo", level: "intermediate"}, "Ann")
			ann.wait("the board", `document.body.dataset.phase === 'running' && document.querySelectorAll('#board td').length === 256`)
			ann.clickCell(8, 8, input.MouseButtonLeft)
			ann.wait("the clock running", `document.getElementById('timer').dataset.running === 'true'`)
			bob := newUser(t, srv, "bob", tc.vp)
			bob.open("/")
			eval[bool](bob, fmt.Sprintf(`(localStorage.setItem('roomd.lang', %q), true)`, tc.lang))
			bob.watchRoom(code, 1)
			bob.wait("watching live", fmt.Sprintf(`document.getElementById('ms-status')?.textContent === %q`, tc.live))

			const seatsGreen = `[...document.querySelectorAll('#seats .seat[data-seat]')].map((s) => s.dataset.connected + ':' + getComputedStyle(s.querySelector('.seat-dot')).backgroundColor).join()`
			// Whether the board is dimmed and a click at its centre reaches it.
			const board = `(() => { const b = document.getElementById('board'); b.scrollIntoView({block: 'center'});
				const r = b.getBoundingClientRect(); const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
				let o = 1; for (let e = b; e; e = e.parentElement) o *= Number(getComputedStyle(e).opacity);
				return (o < 1 ? 'dimmed' : 'bright') + ',' + (b.contains(at) ? 'clickable' : 'not clickable'); })()`
			for _, p := range []*page{ann, bob} {
				if got := eval[string](p, board); got != "bright,clickable" {
					t.Errorf("%s online: the board is %s", p.name, got)
				}
				if got := eval[string](p, seatsGreen); got != "true:rgb(34, 164, 71)" {
					t.Errorf("%s online: the seats %s", p.name, got)
				}
			}

			if err := srv.down(); err != nil {
				t.Fatal(err)
			}
			for _, p := range []*page{ann, bob} {
				p.wait("reconnecting", `document.getElementById('conn').dataset.connState !== 'online'`)
			}
			// The state shows at once: nothing waits for a timer.
			for _, p := range []*page{ann, bob} {
				if got := eval[string](p, seatsGreen); got != "unknown:rgb(163, 173, 184)" {
					t.Errorf("%s offline: the seats %s", p.name, got)
				}
				if got := eval[string](p, board); got != "dimmed,not clickable" {
					t.Errorf("%s offline: the board is %s", p.name, got)
				}
			}
			if got := eval[string](bob, `document.getElementById('ms-status').textContent`); got != tc.reconnecting {
				t.Errorf("the spectator's line offline: %q, want %q", got, tc.reconnecting)
			}
			const ms = `[Number(document.getElementById('timer').dataset.ms), document.getElementById('timer').textContent]`
			before := [][]any{eval[[]any](ann, ms), eval[[]any](bob, ms)}
			time.Sleep(1500 * time.Millisecond)
			for i, p := range []*page{ann, bob} {
				if after := eval[[]any](p, ms); fmt.Sprint(after) != fmt.Sprint(before[i]) {
					t.Errorf("%s: the match clock ran on while roomd was down: %v → %v", p.name, before[i], after)
				}
			}
			for _, p := range []*page{ann, bob} {
				// The reconnecting dot pulses for ever, which p.screenshot's
				// finish() of every animation refuses: stop that one first.
				p.do(chromedp.Evaluate[chromedp.Void](`document.getAnimations().forEach((a) => { if (a.effect?.getComputedTiming().endTime === Infinity) a.cancel(); })`))
			}
			ann.screenshot("outage-player-" + tc.vp.name + "-" + tc.lang)
			bob.screenshot("outage-spectator-" + tc.vp.name + "-" + tc.lang)

			if err := srv.up(nil); err != nil {
				t.Fatal(err)
			}
			for _, p := range []*page{ann, bob} {
				p.waitFor("online again", `document.getElementById('conn').dataset.connState === 'online'`, 30*time.Second)
				p.wait("the seats green again", seatsGreen+` === 'true:rgb(34, 164, 71)'`)
				if got := eval[string](p, board); got != "bright,clickable" {
					t.Errorf("%s back online: the board is %s", p.name, got)
				}
			}
			bob.wait("watching live again", fmt.Sprintf(`document.getElementById('ms-status').textContent === %q`, tc.live))
			ann.wait("the clock running again", `document.getElementById('timer').dataset.running === 'true'`)
		})
	}
}

// TestOutageTurnClock: a turn clock (turnclock.js) stands still while
// roomd is down and counts on from the next snapshot; the board of any
// game (tic-tac-toe here) is dimmed and takes no click meanwhile. By the
// seat on a desktop, in the strip above the board on a phone.
func TestOutageTurnClock(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		vp    viewport
		clock string
	}{
		{desktop, `#seats .seat-clock[data-seat="0"]`},
		{phone, `#turn-clocks .turn-clock[data-seat="0"]`},
	} {
		t.Run(tc.vp.name, func(t *testing.T) {
			t.Parallel()
			srv := startRoomd(t, withGames(tictactoe.Game))
			var created struct{ Room, Token string }
			created.Room, created.Token = postRoomToken(t, srv, "/api/rooms", `{"game":"tictactoe","name":"Ann","settings":{"clock":{"moveMs":60000}}}`, http.StatusCreated)
			p := newUser(t, srv, "ann", tc.vp)
			p.open("/")
			eval[bool](p, fmt.Sprintf(`(localStorage.setItem('roomd.token.%s', %q), true)`, created.Room, created.Token))
			p.open("/r/" + created.Room)
			p.wait("the host's lobby", `document.getElementById('fill-ai')`)
			p.click("#fill-ai")
			p.wait("the AI seated", `document.querySelector('#seats .seat[data-ai="true"]')`)
			p.click("#start")
			ms := fmt.Sprintf(`Number(document.querySelector(%q)?.dataset.ms)`, tc.clock)
			p.wait("X's clock running", fmt.Sprintf(`document.querySelector(%q)?.dataset.running === 'true' && %s < 59500`, tc.clock, ms))

			if err := srv.down(); err != nil {
				t.Fatal(err)
			}
			p.wait("reconnecting", `document.getElementById('conn').dataset.connState !== 'online'`)
			if got := eval[string](p, `(() => { const b = document.getElementById('ttt-board'); const r = b.getBoundingClientRect();
				const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
				let o = 1; for (let e = b; e; e = e.parentElement) o *= Number(getComputedStyle(e).opacity);
				return (o < 1 ? 'dimmed' : 'bright') + ',' + (b.contains(at) ? 'clickable' : 'not clickable'); })()`); got != "dimmed,not clickable" {
				t.Errorf("offline, the board is %s", got)
			}
			before := eval[float64](p, ms)
			time.Sleep(1500 * time.Millisecond)
			if after := eval[float64](p, ms); after != before {
				t.Errorf("the turn clock ran on while roomd was down: %v → %v ms", before, after)
			}
			p.do(chromedp.Evaluate[chromedp.Void](`document.getAnimations().forEach((a) => { if (a.effect?.getComputedTiming().endTime === Infinity) a.cancel(); })`))
			p.screenshot("outage-turnclock-" + tc.vp.name)
			if err := srv.up(nil); err != nil {
				t.Fatal(err)
			}
			p.waitFor("online again", `document.getElementById('conn').dataset.connState === 'online'`, 30*time.Second)
			p.wait("the turn clock counting on", fmt.Sprintf(`document.querySelector(%q)?.dataset.running === 'true' && %s < %v`, tc.clock, ms, before))
		})
	}
}

// TestOutageSpellGridSpectator: a SpellGrid spectator's line says
// "Watching Sage" only while the connection is up; during an outage it
// says it is reconnecting, and once back it watches again. Desktop in
// English, phone in Japanese.
func TestOutageSpellGridSpectator(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		vp                       viewport
		lang, live, reconnecting string
	}{
		{desktop, "en", "Watching Sage · ", "Reconnecting… · "},
		{phone, "ja", "Sageさんを観戦中 · ", "再接続中… · "},
	} {
		t.Run(tc.vp.name+"-"+tc.lang, func(t *testing.T) {
			t.Parallel()
			srv := startRoomd(t, withGames(spellgridgame.Game))
			p := newUser(t, srv, "sage", desktop)
			p.gameForm("spellgrid")
			p.setField("#new-name", "Sage")
			p.click("#create")
			p.wait("the first level", `document.querySelectorAll('#sg-grid .sg-tile').length > 0 && document.getElementById('sg').dataset.mine === 'true'`)
			q := newUser(t, srv, "watcher", tc.vp)
			q.open("/")
			eval[bool](q, fmt.Sprintf(`(localStorage.setItem('roomd.lang', %q), true)`, tc.lang))
			q.open("/r/" + p.roomCode())
			q.click("#join-watch")
			status := `document.getElementById('sg-status')?.textContent`
			q.wait("watching", fmt.Sprintf(`%s?.startsWith(%q)`, status, tc.live))
			if err := srv.down(); err != nil {
				t.Fatal(err)
			}
			q.wait("reconnecting", `document.getElementById('conn').dataset.connState !== 'online'`)
			if got := eval[string](q, status); !strings.HasPrefix(got, tc.reconnecting) {
				t.Errorf("the spectator's line offline: %q, want %q…", got, tc.reconnecting)
			}
			q.do(chromedp.Evaluate[chromedp.Void](`document.getAnimations().forEach((a) => { if (a.effect?.getComputedTiming().endTime === Infinity) a.cancel(); })`))
			q.screenshot("outage-spellgrid-spectator-" + tc.vp.name + "-" + tc.lang)
			if err := srv.up(nil); err != nil {
				t.Fatal(err)
			}
			q.waitFor("online again", `document.getElementById('conn').dataset.connState === 'online'`, 30*time.Second)
			q.wait("watching again", fmt.Sprintf(`%s?.startsWith(%q)`, status, tc.live))
		})
	}
}
