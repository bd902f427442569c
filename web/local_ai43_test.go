package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
)

// TestLocalAIWaitsForFirstMove: Minesweeper against the AI on this device
// (issue 43). The AI opens no cell before the human's first move, as in a
// room (room.aiSeat, state.awaitsHuman); after it, the AI plays on. A
// game on this device shows no server best-times list and no "(host
// time)": there is no host.
func TestLocalAIWaitsForFirstMove(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	for _, vp := range []viewport{desktop, phone} {
		t.Run(vp.name, func(t *testing.T) {
			t.Parallel()
			p := newUser(t, srv, "ann", vp)
			p.open("/play/minesweeper?mode=ai")
			p.wait("the board", `location.pathname === '/play/minesweeper' && document.querySelectorAll('#board td').length > 0 && document.body.dataset.phase === 'running'`)
			const open = `document.querySelectorAll('#board td[data-status="revealed"]').length`
			// Nothing to wait for: the AI must not move at all. Two
			// seconds are five of its thinking delays.
			time.Sleep(2 * time.Second)
			if n := eval[int](p, open); n != 0 {
				t.Errorf("%d cells open before my first move", n)
			}
			p.screenshot("local-ai-idle-" + vp.name)
			rows := eval[int](p, `Math.max(...[...document.querySelectorAll('#board td')].map((td) => Number(td.dataset.r)))`)
			cols := eval[int](p, `Math.max(...[...document.querySelectorAll('#board td')].map((td) => Number(td.dataset.c)))`)
			p.clickCell(rows/2, cols/2, input.MouseButtonLeft)
			p.wait("my first reveal", open+` > 0`)
			// The AI plays on to the end of the board (a win or a mine).
			p.waitFor("the AI playing to the end", `!document.getElementById('result').hidden`, 60*time.Second)
			if eval[bool](p, `document.querySelectorAll('#board td[data-status="revealed"]').length < 2`) {
				t.Error("the AI did not play after my move")
			}
			if eval[bool](p, `!!document.getElementById('leaderboard') && !document.getElementById('leaderboard').hidden`) {
				t.Error("a game on this device shows the server's best times")
			}
			if txt := eval[string](p, `document.getElementById('result').textContent`); strings.Contains(txt, "host time") {
				t.Errorf("the local result says the host's time: %q", txt)
			}
			p.screenshot("local-ai-end-" + vp.name)
		})
	}
}
