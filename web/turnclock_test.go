package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/tictactoe"
)

// TestTurnClockRoom: a tic-tac-toe room with a 3 s clock per move (made
// through the API: the form's choices start at 10 s), its host on a
// desktop in English, the guest on a phone in Japanese. The host's form
// shows the room's clock, the guest's lobby says it; once the match runs
// both count X's time down by its seat (the seats' list on the desktop, the
// strip above the board on the phone) while O's stands still; nobody moves,
// so the low-time warning is read out and the match ends on time: both
// pages say who ran out, the board's result says so too, and the server's
// result is "timeout" naming seat 0.
func TestTurnClockRoom(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t, withGames(tictactoe.Game))
	var created struct{ Room, Token string }
	created.Room, created.Token = postRoomToken(t, srv, "/api/rooms", `{"game":"tictactoe","name":"Ann","settings":{"clock":{"moveMs":3000}}}`, http.StatusCreated)

	host := newUser(t, srv, "ann", desktop)
	host.open("/")
	eval[bool](host, fmt.Sprintf(`(localStorage.setItem('roomd.token.%s', %q), localStorage.setItem('roomd.lang', 'en'), true)`, created.Room, created.Token))
	host.open("/r/" + created.Room)
	host.wait("the host's lobby", `document.getElementById('room-clock') && document.getElementById('start')`)
	if got := eval[[]string](host, `(() => { const s = document.getElementById('room-clock'); return [s.value, s.selectedOptions[0].textContent]; })()`); !slices.Equal(got, []string{"custom", "3 s per move"}) {
		t.Errorf("the host's clock choice: %q", got)
	}

	guest := newUser(t, srv, "bob", phone)
	guest.open("/")
	eval[bool](guest, `(localStorage.setItem('roomd.lang', 'ja'), true)`)
	guest.joinAsPlayer(created.Room, "Bob")
	guest.wait("the guest's lobby", `document.getElementById('ready') && document.getElementById('settings-text')`)
	if got := eval[string](guest, `document.getElementById('settings-text').textContent`); !strings.Contains(got, "1手3秒") {
		t.Errorf("the guest's lobby says %q, not the clock", got)
	}
	guest.click("#ready")
	host.wait("the guest ready", `document.querySelector('#seats .seat[data-seat="1"][data-ready="true"]')`)
	host.click("#start")

	// X (seat 0) runs, O waits with its whole time.
	host.wait("X's clock running by its seat", `(() => { const c = document.querySelector('#seats .seat-clock[data-seat="0"]');
		return c && c.dataset.running === 'true' && Number(c.dataset.ms) < 3000 && c.textContent !== ''; })()`)
	if got := eval[[]string](host, `(() => { const c = document.querySelector('#seats .seat-clock[data-seat="1"]'); return [c.dataset.running, c.dataset.ms, c.textContent]; })()`); !slices.Equal(got, []string{"false", "3000", "3.0"}) {
		t.Errorf("O's clock on the desktop: %q", got)
	}
	if eval[bool](host, `document.querySelector('#turn-clocks .turn-clock').getBoundingClientRect().height > 0`) {
		t.Error("the desktop shows the strip of clocks as well as the seats' list")
	}
	guest.wait("X's clock counting down above the board", `(() => { const c = document.querySelector('#turn-clocks .turn-clock[data-seat="0"]');
		return c && c.dataset.running === 'true' && Number(c.dataset.ms) < 2800 && c.getBoundingClientRect().height > 0
			&& c.getBoundingClientRect().bottom <= document.getElementById('ttt-board').getBoundingClientRect().top; })()`)
	guest.screenshot("turnclock-running-phone-ja")
	host.screenshot("turnclock-running-desktop")

	// Nobody moves: the match ends on X's clock.
	host.waitFor("the timeout", `!document.getElementById('turn-clock-result').hidden && !document.getElementById('ttt-result').hidden`, 15e9)
	guest.waitFor("the timeout", `!document.getElementById('turn-clock-result').hidden && !document.getElementById('ttt-result').hidden`, 15e9)
	for _, c := range []struct {
		p              *page
		out, line, low string
	}{
		{host, "You ran out of time.", "You ran out of time.", "Your clock is running out: 1 s left."},
		{guest, "Annさんの時間切れです。", "Ann（X）の時間切れです。", "Annさんの残りは1秒です。"},
	} {
		got := eval[[]string](c.p, `[document.getElementById('turn-clock-result').textContent, document.getElementById('ttt-result').dataset.phase,
			document.querySelector('#ttt-result p').textContent, document.getElementById('turn-clock-live').textContent,
			document.getElementById('turn-clocks').dataset.state, document.querySelector('#turn-clocks .turn-clock[data-seat="0"]').dataset.out]`)
		if want := []string{c.out, "timeout", c.line, c.low, "ended", "true"}; !slices.Equal(got, want) {
			t.Errorf("%s after the timeout: %q, want %q", c.p.name, got, want)
		}
	}
	host.screenshot("turnclock-timeout-desktop")
	guest.screenshot("turnclock-timeout-phone-ja")

	status, winners := lastResult(t, host)
	var timedOut []int
	for _, f := range slices.Backward(host.wsFrames()) {
		var m struct{ Result *struct{ TimedOut []int } }
		if json.Unmarshal([]byte(f), &m) == nil && m.Result != nil {
			timedOut = m.Result.TimedOut
			break
		}
	}
	if status != "timeout" || !slices.Equal(winners, []int{1}) || !slices.Equal(timedOut, []int{0}) {
		t.Errorf("the server's result: %s, winners %v, timed out %v", status, winners, timedOut)
	}
}

// TestTurnClockLocal: pass-and-play tic-tac-toe on a clock, on a desktop
// in English and on a phone in Japanese. The lobby's form offers the
// clocks and hands the chosen one to the local game, which shows it and
// counts the first player's time down; on a 3 s clock (set as the lobby
// would, beyond its choices) nobody moves and the game ends on time.
func TestTurnClockLocal(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t, withGames(tictactoe.Game))
	for _, c := range []struct {
		name, lang        string
		vp                viewport
		clock, out, board string
	}{
		{"desktop-en", "en", desktop, "10 s per move", "Ava ran out of time.", "Ava (X) ran out of time."},
		{"phone-ja", "ja", phone, "1手10秒", "Avaさんの時間切れです。", "Ava（X）の時間切れです。"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := newUser(t, srv, "ava-"+c.name, c.vp)
			p.open("/")
			eval[bool](p, fmt.Sprintf(`(localStorage.setItem('roomd.lang', %q), true)`, c.lang))
			p.open("/")
			p.wait("the lobby", `document.querySelector('label[data-game="tictactoe"]')`)
			p.click(`label[data-game="tictactoe"]`)
			p.wait("the clock choice", `document.getElementById('new-clock') && document.getElementById('local-pass')`)
			if n := eval[int](p, `document.getElementById('new-clock').options.length`); n != 7 {
				t.Errorf("%d clock choices, want none and 6", n)
			}
			p.setField("#new-clock", "move-10")
			p.setField("#new-name", "Ava")
			p.click("#local-pass")
			p.wait("the first player's clock", `location.pathname === '/play/tictactoe' && (() => { const c = document.querySelector('#turn-clocks .turn-clock[data-seat="0"]');
				return c && c.dataset.running === 'true' && Number(c.dataset.ms) < 10000 && c.getBoundingClientRect().height > 0; })()`)
			if got := eval[string](p, `document.getElementById('local-clock').textContent`); got != c.clock {
				t.Errorf("the game's clock line: %q, want %q", got, c.clock)
			}
			if got := eval[[]string](p, `(() => { const c = document.querySelector('#turn-clocks .turn-clock[data-seat="1"]'); return [c.dataset.running, c.dataset.ms]; })()`); !slices.Equal(got, []string{"false", "10000"}) {
				t.Errorf("the second player's clock: %q", got)
			}

			// A 3 s clock, as the lobby leaves its settings; the 10 s game's save goes.
			eval[bool](p, `(localStorage.removeItem('roomd.local.tictactoe.pass'),
				sessionStorage.setItem('roomd.local.setup', JSON.stringify({game: 'tictactoe', settings: {clock: {moveMs: 3000}}, name: 'Ava'})), true)`)
			p.open("/play/tictactoe?mode=pass")
			p.wait("the 3 s clock", `document.querySelector('#turn-clocks .turn-clock[data-seat="0"][data-running="true"]') && Number(document.querySelector('#turn-clocks .turn-clock[data-seat="0"]').dataset.ms) <= 3000`)
			p.waitFor("the timeout", `!document.getElementById('turn-clock-result').hidden && document.body.dataset.phase === 'ended'`, 15e9)
			got := eval[[]string](p, `[document.getElementById('turn-clock-result').textContent, document.getElementById('ttt-result').dataset.phase,
				document.querySelector('#ttt-result p').textContent, document.querySelector('#turn-clocks .turn-clock[data-seat="0"]').dataset.out,
				document.getElementById('ttt-result').dataset.winner]`)
			if want := []string{c.out, "timeout", c.board, "true", "1"}; !slices.Equal(got, want) {
				t.Errorf("after the timeout: %q, want %q", got, want)
			}
			if n := eval[int](p, `document.querySelectorAll('#ttt-board .ttt-cell[aria-disabled="false"]').length`); n != 0 {
				t.Errorf("%d squares can be marked after the timeout", n)
			}
			p.screenshot("turnclock-local-" + c.name)
		})
	}
}
