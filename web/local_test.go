package web_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp/kb"

	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/tictactoe"
)

// TestLocalPlay plays on this device, from the lobby, with the game's rules
// in the page (the WebAssembly core) and no room:
//
//   - against the AI: tic-tac-toe to its end, with roomd stopped once the
//     page has loaded — every move and the AI's answers are the page's;
//   - solo Minesweeper: a reveal and two flags, an undo (counted), then a
//     reload brings the same board back from the save;
//   - pass-and-play Nim: after a take, a hand-off screen shows no secret
//     until the next player says it is them, then shows theirs;
//   - solo Baba to a win from the keyboard;
//   - a snake arena against the AI, ticked in the page, to its end;
//   - Nim against the AI: three undos, each taking back a take and the
//     AI's answer, then the fourth refused, and on to the end;
//   - the daily board: two browser profiles revealing the same cell see
//     the same board.
func TestLocalPlay(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t, withGames(minesweeper.Game, nim.Game, tictactoe.Game))

	// Against the AI, the server gone after the page loaded.
	p := newUser(t, srv, "ava", desktop)
	p.open("/")
	p.wait("the lobby", `document.querySelector('label[data-game="tictactoe"]')`)
	p.click(`label[data-game="tictactoe"]`)
	p.wait("the local modes", `document.getElementById('local-ai') && !document.getElementById('local-play').hidden`)
	if eval[bool](p, `!!document.getElementById('local-solo')`) {
		t.Error("tic-tac-toe offers solo play")
	}
	p.setField("#new-name", "Ava")
	p.click("#local-ai")
	p.wait("an empty grid on this device", `location.pathname === '/play/tictactoe' && document.querySelectorAll('#ttt-board .ttt-cell[data-mark=""]').length === 9 && document.getElementById('ttt-status').dataset.mine === 'true'`)
	if err := srv.down(); err != nil {
		t.Fatal(err)
	}
	for turn := 0; ; turn++ {
		if turn > 5 {
			t.Fatal("five marks and the game goes on")
		}
		p.wait("my turn or the end", `document.getElementById('ttt-status').dataset.mine === 'true' || !document.getElementById('ttt-result').hidden`)
		if eval[bool](p, `!document.getElementById('ttt-result').hidden`) {
			break
		}
		p.click(`#ttt-board .ttt-cell[data-mark=""]`)
		p.wait("my mark", fmt.Sprintf(`document.querySelectorAll('#ttt-board .ttt-cell[data-mark="X"]').length === %d`, turn+1))
	}
	if marks := eval[int](p, `document.querySelectorAll('#ttt-board .ttt-cell[data-mark="O"]').length`); marks < 2 {
		t.Errorf("the AI marked %d squares", marks)
	}
	if phase := eval[string](p, `document.getElementById('ttt-result').dataset.phase`); phase != "won" && phase != "draw" {
		t.Errorf("the result says %q", phase)
	}
	if !eval[bool](p, `document.getElementById('local-undo').disabled`) {
		t.Error("undo is offered after the end")
	}
	p.screenshot("local-ai-end-desktop")
	if err := srv.up(nil); err != nil {
		t.Fatal(err)
	}

	// Solo Minesweeper: undo, then a reload restores the save.
	p.open("/")
	p.wait("the lobby", `document.querySelector('label[data-game="minesweeper"]')`)
	p.click(`label[data-game="minesweeper"]`)
	p.wait("the local modes", `document.getElementById('local-solo')`)
	p.click("#local-solo")
	p.wait("the board", `location.pathname === '/play/minesweeper' && document.querySelectorAll('#board td').length > 0`)
	p.clickCell(4, 4, input.MouseButtonLeft)
	p.wait("the first reveal", `document.querySelectorAll('#board td[data-status="revealed"]').length > 0`)
	hidden := eval[[]int](p, `[...document.querySelectorAll('#board td[data-status="hidden"]')].slice(0, 2).map((td) => [Number(td.dataset.r), Number(td.dataset.c)]).flat()`)
	if len(hidden) != 4 {
		t.Fatalf("hidden cells %v", hidden)
	}
	for i := 0; i < 4; i += 2 {
		p.clickCell(hidden[i], hidden[i+1], input.MouseButtonRight)
		p.waitCell("#board", hidden[i], hidden[i+1], "flagged", "*")
	}
	p.click("#local-undo")
	p.waitCell("#board", hidden[2], hidden[3], "hidden", "*")
	if got := eval[string](p, `document.getElementById('local-undos').dataset.undos`); got != "1" {
		t.Errorf("undos shown: %q", got)
	}
	board := `[...document.querySelectorAll('#board td')].map((td) => td.dataset.status + (td.dataset.value || '')).join()`
	before := eval[string](p, board)
	p.open("/play/minesweeper?mode=solo")
	p.wait("the board again", `document.querySelectorAll('#board td[data-status="revealed"]').length > 0`)
	if after := eval[string](p, board); after != before {
		t.Errorf("the reloaded board differs:\n%s\n%s", after, before)
	}
	if got := eval[string](p, `document.getElementById('local-undos').dataset.undos`); got != "1" {
		t.Errorf("undos after the reload: %q", got)
	}
	p.screenshot("local-solo-desktop")

	// Pass-and-play Nim: the hand-off screen hides every secret.
	p.open("/")
	p.wait("the lobby", `document.querySelector('label[data-game="nim"]')`)
	p.click(`label[data-game="nim"]`)
	p.wait("the local modes", `document.getElementById('local-pass')`)
	p.setField("#new-name", "Ava")
	p.click("#local-pass")
	p.wait("the first player's secret", `location.pathname === '/play/nim' && document.getElementById('secret')?.dataset.secret && document.getElementById('local-handoff').hidden`)
	first := eval[string](p, `document.getElementById('secret').dataset.secret`)
	p.click("#take-1")
	p.wait("the hand-off screen", `!document.getElementById('local-handoff').hidden`)
	if got := eval[string](p, `document.querySelector('#local-handoff h2').textContent`); got != "Pass the device to Player 2" {
		t.Errorf("hand-off: %q", got)
	}
	if eval[bool](p, `!!document.getElementById('secret').dataset.secret || /Your secret/.test(document.body.innerText)`) {
		t.Errorf("a secret shows behind the hand-off screen: %q", eval[string](p, `document.getElementById('secret').textContent`))
	}
	p.screenshot("local-handoff-desktop")
	p.click("#local-reveal")
	p.wait("the second player's secret", `document.getElementById('local-handoff').hidden && document.getElementById('secret').dataset.secret && document.getElementById('turn').dataset.mine === 'true'`)
	t.Logf("pass-and-play: seat 0's secret %s, seat 1's %s", first, eval[string](p, `document.getElementById('secret').dataset.secret`))

	// Solo to a win: Baba's first level, from the keyboard.
	p.open("/play/baba?mode=solo")
	p.wait("the level", `document.getElementById('baba')?.dataset.moves === '0' && document.getElementById('baba').dataset.mine === 'true'`)
	for i := 1; i <= 6; i++ {
		p.key(kb.ArrowRight)
		p.wait(fmt.Sprintf("step %d", i), fmt.Sprintf(`document.getElementById('baba').dataset.moves === '%d'`, i))
	}
	p.wait("the win", `!document.getElementById('baba-result').hidden && document.getElementById('baba').dataset.won === 'true'`)
	if !eval[bool](p, `document.getElementById('local-undo').disabled`) {
		t.Error("undo is offered after the win")
	}

	// Against the AI at Nim: three undos, then the fourth is refused.
	p.open("/play/nim?mode=ai")
	p.wait("my turn", `document.getElementById('turn')?.dataset.mine === 'true' && document.getElementById('local-undo').disabled`)
	for i := 1; i <= 3; i++ {
		pile := eval[string](p, `document.getElementById('pile').dataset.pile`)
		p.click("#take-1")
		p.wait("the AI's answer", `document.getElementById('turn').dataset.mine === 'true' && !document.getElementById('local-undo').disabled`)
		p.click("#local-undo")
		p.wait(fmt.Sprintf("undo %d", i), fmt.Sprintf(`document.getElementById('pile').dataset.pile === '%s' && document.getElementById('local-undos').dataset.undos === '%d'`, pile, i))
	}
	p.click("#take-1")
	p.wait("the AI's answer", `document.getElementById('turn').dataset.mine === 'true' || !document.getElementById('nim-result').hidden`)
	if why := eval[string](p, `document.getElementById('local-undo').disabled ? document.getElementById('local-undo').title : ''`); why != "No undo left (3 a game)." {
		t.Errorf("the fourth undo: %q", why)
	}
	for i := 0; eval[bool](p, `document.getElementById('nim-result').hidden`); i++ {
		if i > 30 {
			t.Fatal("thirty takes and the game goes on")
		}
		p.wait("my turn or the end", `document.getElementById('turn').dataset.mine === 'true' || !document.getElementById('nim-result').hidden`)
		if eval[bool](p, `document.getElementById('nim-result').hidden`) {
			p.click("#take-1")
			p.wait("the take", `document.getElementById('turn').dataset.mine !== 'true' || !document.getElementById('nim-result').hidden`)
		}
	}

	// A real-time game against the AI: the page's ticks run on the local
	// runner's timer; the arena ends on its own.
	p.open("/play/snake?mode=ai")
	p.wait("the arena ticking", `Number(document.getElementById('snake-status')?.dataset.tick) > 5`)
	if hz := eval[string](p, `document.getElementById('snake-status').dataset.hz`); hz != "20" {
		t.Errorf("the arena runs at %s Hz", hz)
	}
	p.waitFor("the end of the arena", `document.getElementById('snake-result') && !document.getElementById('snake-result').hidden`, 60*time.Second)
	p.screenshot("local-snake-end-desktop")

	// The daily board: the same for two profiles on one day.
	var boards []string
	for _, name := range []string{"day1", "day2"} {
		d := newUser(t, srv, name, desktop)
		d.open("/play/minesweeper?mode=daily")
		d.wait("the daily board", `document.querySelectorAll('#board td').length > 0 && document.getElementById('local-panel').dataset.mode === 'daily'`)
		d.clickCell(0, 0, input.MouseButtonLeft)
		d.wait("the reveal", `document.querySelectorAll('#board td[data-status="revealed"], #board td[data-value="mine"]').length > 0`)
		boards = append(boards, eval[string](d, board))
		if !eval[bool](d, `document.getElementById('local-undo').hidden`) {
			t.Error("the daily board offers undo")
		}
	}
	if boards[0] != boards[1] {
		t.Errorf("two profiles see different daily boards:\n%s\n%s", boards[0], boards[1])
	}
}

// TestOfflinePlay: a visit leaves the app and the local core in the
// service worker's cache; with roomd stopped, the site still opens, the
// lobby says the server is away and offers the games of this device, and
// one plays against the AI.
func TestOfflinePlay(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t, withGames(minesweeper.Game, nim.Game, tictactoe.Game))
	p := newUser(t, srv, "olly", desktop)
	p.open("/")
	p.wait("the lobby under its service worker", `document.querySelector('#create-form') && navigator.serviceWorker?.controller != null`)
	if got := evalAsync[string](p, `fetch('/sw.js').then((r) => r.text()).then((t) => t.includes('{{ASSETS}}') ? 'unreplaced' : t.includes("const ASSETS = '/assets/") ? 'ok' : t.slice(0, 200))`); got != "ok" {
		t.Errorf("/sw.js: %s", got)
	}
	p.open("/play/nim?mode=ai")
	p.wait("a game on this device", `document.getElementById('turn')?.dataset.mine === 'true'`)
	if err := srv.down(); err != nil {
		t.Fatal(err)
	}
	p.open("/")
	p.wait("the offline lobby", `document.getElementById('offline-nim-ai') && !document.getElementById('create-form')`)
	if eval[bool](p, `!!document.getElementById('offline-nim-solo')`) {
		t.Error("Nim is offered solo")
	}
	if eval[bool](p, `!!document.querySelector('.offline-game[data-game="baba"]')`) {
		t.Error("Baba, whose page this browser never loaded, is offered offline")
	}
	p.screenshot("offline-lobby-desktop")
	p.click("#offline-nim-ai")
	p.wait("Nim on this device, offline", `location.pathname === '/play/nim' && document.getElementById('turn')?.dataset.mine === 'true'`)
	pile := eval[string](p, `document.getElementById('pile').dataset.pile`)
	p.click("#take-1")
	p.wait("the AI's answer", fmt.Sprintf(`document.getElementById('turn').dataset.mine === 'true' && Number(document.getElementById('pile').dataset.pile) < %s - 1`, pile))
}
