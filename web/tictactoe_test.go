package web_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp/kb"

	"github.com/roomd/roomd/core/tictactoe"
)

// TestTicTacToe creates a tic-tac-toe room from the lobby, fills the other
// seat with the AI, and plays X to the end: the first free square each
// turn, by mouse click, except two marks made from the keyboard (arrows
// to the square, then Enter, then Space). The result must show what the
// server decided, and "Play again" must start a fresh grid.
func TestTicTacToe(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t, withGames(tictactoe.Game))
	p := newUser(t, srv, "tia", desktop)
	p.gameForm("tictactoe")
	if eval[bool](p, `!!document.getElementById('new-mode')`) {
		t.Error("tic-tac-toe has one mode, yet the form offers a choice")
	}
	p.screenshot("tictactoe-lobby-desktop")
	p.setField("#new-name", "Tia")
	p.click("#create")
	p.wait("the room's lobby with an AI to add", `location.pathname.startsWith('/r/') && document.getElementById('fill-ai')`)
	p.click("#fill-ai")
	p.wait("the AI seat", `document.querySelectorAll('#seats .seat[data-ai="true"]').length === 1`)
	p.click("#start")
	p.wait("an empty grid", `document.querySelectorAll('#ttt-board .ttt-cell[data-mark=""]').length === 9`)

	for turn := 0; ; turn++ {
		if turn > 5 {
			t.Fatal("X has marked five times and the game goes on")
		}
		p.wait("my turn or the end", `document.getElementById('ttt-status').dataset.mine === 'true' || !document.getElementById('ttt-result').hidden`)
		if eval[bool](p, `!document.getElementById('ttt-result').hidden`) {
			break
		}
		if got := eval[string](p, `document.getElementById('ttt-status').textContent`); got != "Your turn — you are X." {
			t.Errorf("turn %d: status %q", turn, got)
		}
		free := eval[[]int](p, `(() => { const b = document.querySelector('#ttt-board .ttt-cell[data-mark=""]'); return [Number(b.dataset.r), Number(b.dataset.c)]; })()`)
		r, c := free[0], free[1]
		sel := fmt.Sprintf(`#ttt-board .ttt-cell[data-r="%d"][data-c="%d"]`, r, c)
		switch turn {
		case 1:
			p.keyTo(r, c)
			p.key(kb.Enter)
		case 2:
			p.keyTo(r, c)
			p.key(" ")
		default:
			p.click(sel)
		}
		p.wait(fmt.Sprintf("X on (%d, %d)", r, c), fmt.Sprintf(`document.querySelector('%s').dataset.mark === 'X'`, sel))
		if turn == 1 {
			p.wait("the AI's answer", `document.getElementById('ttt-status').dataset.mine === 'true' || !document.getElementById('ttt-result').hidden`)
			p.screenshot("tictactoe-game-desktop")
		}
	}

	// The page shows what the server decided.
	status, winners := lastResult(t, p)
	phase := eval[string](p, `document.getElementById('ttt-result').dataset.phase`)
	title := eval[string](p, `document.querySelector('#ttt-result h2').textContent`)
	switch {
	case phase != status:
		t.Errorf("the page shows %q, the server's result is %q", phase, status)
	case status == tictactoe.PhaseDraw && (title != "Draw" || len(winners) != 0):
		t.Errorf("a draw shows %q, winners %v", title, winners)
	case status == tictactoe.PhaseWon && slices.Equal(winners, []int{0}) && title != "You win!":
		t.Errorf("X won, the page says %q", title)
	case status == tictactoe.PhaseWon && slices.Equal(winners, []int{1}) && !strings.Contains(title, "(O) wins"):
		t.Errorf("O won, the page says %q", title)
	case status != tictactoe.PhaseWon && status != tictactoe.PhaseDraw:
		t.Errorf("result status %q", status)
	}
	if status == tictactoe.PhaseWon {
		if n := eval[int](p, `document.querySelectorAll('#ttt-board .ttt-cell[data-win="true"]').length`); n != 3 {
			t.Errorf("%d squares of the winning line highlighted, want 3", n)
		}
	}
	if n := eval[int](p, `document.querySelectorAll('#ttt-board .ttt-cell[aria-disabled="false"]').length`); n != 0 {
		t.Errorf("%d squares can still be marked after the end", n)
	}
	p.screenshot("tictactoe-end-desktop")
	p.darkMode(true)
	p.screenshot("tictactoe-end-dark-desktop")
	p.darkMode(false)
	p.resize(phone)
	p.screenshot("tictactoe-end-phone")
	p.resize(desktop)

	// A rematch: a fresh grid, X to play again.
	p.click("#new-game")
	p.wait("a fresh grid", `document.querySelectorAll('#ttt-board .ttt-cell[data-mark=""]').length === 9 && document.getElementById('ttt-result').hidden && document.getElementById('ttt-status').dataset.mine === 'true'`)
}

// keyTo moves the keyboard focus to square (r, c) of the grid with the
// arrow keys, from the grid's one tab stop.
func (p *page) keyTo(r, c int) {
	p.t.Helper()
	at := eval[[]int](p, `(() => { const b = document.querySelector('#ttt-board .ttt-cell[tabindex="0"]'); b.focus(); return [Number(b.dataset.r), Number(b.dataset.c)]; })()`)
	keys := ""
	for ; at[0] < r; at[0]++ {
		keys += kb.ArrowDown
	}
	for ; at[0] > r; at[0]-- {
		keys += kb.ArrowUp
	}
	for ; at[1] < c; at[1]++ {
		keys += kb.ArrowRight
	}
	for ; at[1] > c; at[1]-- {
		keys += kb.ArrowLeft
	}
	if keys != "" {
		p.key(keys)
	}
	p.wait(fmt.Sprintf("the focus on (%d, %d)", r, c), fmt.Sprintf(`document.activeElement?.dataset.r === '%d' && document.activeElement?.dataset.c === '%d'`, r, c))
}

// lastResult returns the status and winners of the last match result the
// page received.
func lastResult(t *testing.T, p *page) (string, []int) {
	t.Helper()
	frames := p.wsFrames()
	for i := len(frames) - 1; i >= 0; i-- {
		var m struct {
			Result *struct {
				Status  string
				Winners []int
			}
		}
		if json.Unmarshal([]byte(frames[i]), &m) == nil && m.Result != nil {
			return m.Result.Status, m.Result.Winners
		}
	}
	t.Fatal("no frame carried a result")
	return "", nil
}
