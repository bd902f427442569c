package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp/kb"

	"github.com/roomd/roomd/core/snake"
	"github.com/roomd/roomd/core/tictactoe"
)

// Issue 19 on the small games' pages: Hidden Nim's history and result,
// keyboard use and names for screen readers on Nim, tic-tac-toe and the
// snake arena, and their words in Japanese.

// historyProblems lists what is wrong with the Nim history on p: every
// move must show its whole number (the newest first, counting down to 1)
// inside the list's visible box, at the page's width.
const historyProblems = `(() => {
  const ol = document.getElementById('history');
  const box = ol.getBoundingClientRect();
  const left = box.left + ol.clientLeft, right = left + ol.clientWidth;
  const rows = [...ol.querySelectorAll('li[data-seat]')];
  const out = [];
  rows.forEach((li, i) => {
    const want = String(rows.length - i);
    const num = li.querySelector('.nim-move');
    if (!num) { out.push('move ' + want + ' shows no number'); return; }
    const r = num.getBoundingClientRect();
    if (num.textContent !== want) out.push('move ' + want + ' numbered ' + JSON.stringify(num.textContent));
    if (r.width < 1 || r.left < left - 0.5 || r.right > right + 0.5) out.push('move ' + want + "'s number is cut off: " + r.left + '–' + r.right + ' in ' + left + '–' + right);
    if (num.scrollWidth > num.clientWidth + 1) out.push('move ' + want + "'s number overflows its box");
  });
  return out;
})()`

// tabTo presses Tab until the focused element matches sel (at most 60
// times) and fails when it never does.
func (p *page) tabTo(sel string) {
	p.t.Helper()
	for range 60 {
		if eval[bool](p, fmt.Sprintf(`!!document.activeElement?.matches(%q)`, sel)) {
			return
		}
		p.key(kb.Tab)
	}
	p.t.Fatalf("%s: Tab never reaches %s (focus on %s)", p.name, sel, eval[string](p, `document.activeElement?.outerHTML.slice(0, 120) || ''`))
}

// focusShows is true when the focused element draws a focus ring.
const focusShows = `(() => { const s = getComputedStyle(document.activeElement); return s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2; })()`

// TestNimHistoryAndSecretWording plays Hidden Nim between Ann (desktop)
// and Bob (a phone) from a pile of 30, steered so that Ann takes the last
// one with exactly her own secret: Bob wins. Ann's result must say it
// was her secret ("your secret"), Bob's that it was Ann's; the history of
// more than ten moves shows every move's whole number on both widths (it
// showed "1." and "0." for 11 and 10). Ann plays her first take from the
// keyboard (Tab to the button, Enter), with the focus ring showing.
func TestNimHistoryAndSecretWording(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	ann := newUser(t, srv, "ann", desktop)
	ann.open("/")
	ann.wait("the lobby", `document.querySelector('#create-form')`)
	ann.click(`label[data-game="nim"]`)
	ann.setField("#new-pile", "30")
	ann.setField("#new-name", "Ann")
	ann.click("#create")
	ann.wait("the Nim room", `location.pathname.startsWith('/r/') && document.getElementById('start')`)
	code := ann.roomCode()
	bob := joinReadyStart(t, srv, ann, code)
	for _, p := range []*page{ann, bob} {
		p.wait("the pile", `document.getElementById('pile')?.dataset.pile === '30' && document.getElementById('secret')?.dataset.secret`)
	}
	secretA := eval[int](ann, `Number(document.getElementById('secret').dataset.secret)`)

	// The take buttons are named for what they do.
	for n := 1; n <= 3; n++ {
		if got := eval[string](ann, fmt.Sprintf(`document.getElementById('take-%d').getAttribute('aria-label') || ''`, n)); got != fmt.Sprintf("Take %d", n) {
			t.Errorf("#take-%d is named %q", n, got)
		}
	}

	keyboard := true
	for moves := 0; ; moves++ {
		if moves > 30 {
			t.Fatal("the game does not end")
		}
		turn := eval[int](ann, `Number(document.getElementById('turn').dataset.turn)`)
		pile := eval[int](ann, `Number(document.getElementById('pile').dataset.pile)`)
		n := 1
		p := ann
		if turn == 0 && pile == secretA {
			n = secretA // the last ones, exactly Ann's secret
		} else if turn == 1 {
			p = bob
			if d := pile - secretA; d >= 1 && d <= 3 {
				n = d // leaves Ann exactly her secret
			}
		}
		p.wait("my turn", `document.getElementById('turn').dataset.mine === 'true'`)
		if p == ann && keyboard {
			keyboard = false
			ann.tabTo("#take-1")
			if !eval[bool](ann, focusShows) {
				t.Error("the focused take button shows no focus ring")
			}
			ann.screenshot("nim-i19-focus-desktop")
			ann.key(kb.Enter)
		} else {
			p.click(fmt.Sprintf("#take-%d", n))
		}
		for _, q := range []*page{ann, bob} {
			q.wait("the take", fmt.Sprintf(`Number(document.getElementById('pile').dataset.pile) === %d`, pile-n))
		}
		if pile == n {
			break
		}
	}

	for _, p := range []*page{ann, bob} {
		p.wait("the result", `!document.getElementById('nim-result').hidden && document.querySelectorAll('#secrets li').length === 2`)
	}
	if got := eval[string](ann, `document.getElementById('nim-result').dataset.winner`); got != "1" {
		t.Fatalf("winner %s, want Bob (1): Ann took the last with her secret", got)
	}
	wantAnn := fmt.Sprintf("You took the last one with exactly %d — your secret — so Bob wins.", secretA)
	if got := eval[string](ann, `document.querySelector('#nim-result .nim-explain')?.textContent || ''`); got != wantAnn {
		t.Errorf("Ann's result says %q, want %q", got, wantAnn)
	}
	wantBob := fmt.Sprintf("Ann took the last one with exactly %d — Ann's secret — so you win.", secretA)
	if got := eval[string](bob, `document.querySelector('#nim-result .nim-explain')?.textContent || ''`); got != wantBob {
		t.Errorf("Bob's result says %q, want %q", got, wantBob)
	}

	moves := eval[int](ann, `document.querySelectorAll('#history li[data-seat]').length`)
	if moves < 11 {
		t.Fatalf("only %d moves: the history has no two-digit numbers to check", moves)
	}
	for _, p := range []*page{ann, bob} {
		for _, problem := range eval[[]string](p, historyProblems) {
			t.Errorf("%s: %s", p.name, problem)
		}
	}
	ann.screenshot("nim-i19-end-desktop")
	bob.screenshot("nim-i19-end-phone")
	ann.darkMode(true)
	ann.screenshot("nim-i19-end-dark-desktop")
	ann.darkMode(false)
	// And the other way round: the phone's layout on the desktop's page.
	ann.resize(phone)
	for _, problem := range eval[[]string](ann, historyProblems) {
		t.Errorf("ann at phone width: %s", problem)
	}
	ann.resize(desktop)
	ann.checkA11y("the end of a Hidden Nim game (desktop)")
	bob.checkA11y("the end of a Hidden Nim game (phone)")
}

// TestTicTacToeKeyboardA11y: Tab reaches the grid (one stop) with a
// visible focus ring, every square is named by its row, column and mark,
// the arrow keys move and Space marks; Tab leaves the grid in one step.
// Then the page in Japanese.
func TestTicTacToeKeyboardA11y(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t, withGames(tictactoe.Game))
	for _, vp := range []viewport{desktop, phone} {
		t.Run(vp.name, func(t *testing.T) {
			p := newUser(t, srv, "tia", vp)
			p.open("/")
			p.wait("the lobby", `document.querySelector('label[data-game="tictactoe"][data-page="true"]')`)
			p.click(`label[data-game="tictactoe"]`)
			p.setField("#new-name", "Tia")
			p.click("#create")
			p.wait("the room's lobby", `location.pathname.startsWith('/r/') && document.getElementById('fill-ai')`)
			p.click("#fill-ai")
			p.wait("the AI seat", `document.querySelectorAll('#seats .seat[data-ai="true"]').length === 1`)
			p.click("#start")
			p.wait("my turn", `document.querySelectorAll('#ttt-board .ttt-cell[data-mark=""]').length === 9 && document.getElementById('ttt-status').dataset.mine === 'true'`)

			if got := eval[string](p, `document.getElementById('ttt-board').getAttribute('aria-label') || ''`); got != "Board" {
				t.Errorf("the grid is named %q", got)
			}
			if got := eval[string](p, `document.querySelector('.ttt-cell[data-r="0"][data-c="2"]').getAttribute('aria-label')`); got != "Row 1, column 3: empty" {
				t.Errorf("square (0, 2) is named %q", got)
			}
			p.tabTo(".ttt-cell")
			if n := eval[int](p, `document.querySelectorAll('#ttt-board .ttt-cell[tabindex="0"]').length`); n != 1 {
				t.Errorf("%d squares are tab stops, want 1", n)
			}
			if !eval[bool](p, focusShows) {
				t.Error("the focused square shows no focus ring")
			}
			// From the middle square (the grid's stop): up and left to (0, 0).
			p.key(kb.ArrowUp + kb.ArrowLeft)
			p.wait("the focus on (0, 0)", `document.activeElement?.matches('.ttt-cell[data-r="0"][data-c="0"]')`)
			if !eval[bool](p, focusShows) {
				t.Error("the square focused by an arrow key shows no focus ring")
			}
			p.screenshot("tictactoe-i19-focus-" + vp.name)
			p.key(" ")
			p.wait("X on (0, 0)", `document.querySelector('.ttt-cell[data-r="0"][data-c="0"]').dataset.mark === 'X'`)
			p.wait("the name says X", `document.querySelector('.ttt-cell[data-r="0"][data-c="0"]').getAttribute('aria-label') === 'Row 1, column 1: X'`)
			p.key(kb.Tab)
			if eval[bool](p, `!!document.activeElement?.closest('#ttt-board')`) {
				t.Error("Tab stays in the grid: it should be one tab stop")
			}
			p.checkA11y("a tic-tac-toe game (" + vp.name + ")")

			// In Japanese, after a reload (the seat is kept).
			p.wait("my turn again", `document.getElementById('ttt-status').dataset.mine === 'true' || !document.getElementById('ttt-result').hidden`)
			eval[bool](p, `(localStorage.setItem('roomd.lang', 'ja'), true)`)
			p.open(eval[string](p, `location.pathname`))
			p.wait("the Japanese page", `document.documentElement.lang === 'ja' && document.querySelector('.ttt-cell[data-r="0"][data-c="0"]')?.dataset.mark === 'X'`)
			if got := eval[string](p, `document.querySelector('.ttt-cell[data-r="0"][data-c="0"]').getAttribute('aria-label')`); got != "1 行 1 列：X" {
				t.Errorf("square (0, 0) in Japanese is named %q", got)
			}
			if got := eval[string](p, `document.querySelector('.ttt-title').textContent`); !strings.HasPrefix(got, "三目並べ") {
				t.Errorf("the title in Japanese is %q", got)
			}
			p.screenshot("tictactoe-i19-ja-" + vp.name)
		})
	}
}

// TestSnakeTextAlternative: the arena's canvas is described by a text
// (#snake-summary, read out when it changes) naming every snake, its
// score and whether it is out; the settings' fields and the phone's
// arrows are named. Neither player steers, so the snakes run into a wall.
func TestSnakeTextAlternative(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t, withGames(snake.Game))
	ann := newUser(t, srv, "ann", desktop)
	ann.gameForm("snake")
	for _, f := range []struct{ sel, label string }{{"#new-board", "Board"}, {"#new-speed", "Speed"}, {"#new-time-limit", "Time limit"}, {"#new-food", "Food"}} {
		if got := eval[string](ann, fmt.Sprintf(`document.querySelector('label[for="%s"]')?.textContent || ''`, f.sel[1:])); got != f.label {
			t.Errorf("%s is labelled %q, want %q", f.sel, got, f.label)
		}
	}
	ann.setField("#new-board", "small")
	ann.setField("#new-speed", "fast")
	ann.setField("#new-name", "Ann")
	ann.click("#create")
	ann.wait("the room's lobby", `location.pathname.startsWith('/r/') && document.getElementById('start')`)
	code := ann.roomCode()
	bob := joinReadyStart(t, srv, ann, code)

	for _, p := range []*page{ann, bob} {
		p.wait("the countdown", `document.getElementById('snake')?.dataset.phase === 'countdown'`)
		if got := eval[string](p, `(() => { const c = document.getElementById('snake-canvas'); return c.getAttribute('aria-label') + ' | ' + document.getElementById(c.getAttribute('aria-describedby'))?.id; })()`); got != "The arena | snake-summary" {
			t.Errorf("%s: the canvas is %q, want named and described by #snake-summary", p.name, got)
		}
		if got := eval[string](p, `document.getElementById('snake-summary').getAttribute('aria-live')`); got != "polite" {
			t.Errorf("%s: #snake-summary aria-live %q", p.name, got)
		}
	}
	ann.wait("the summary", `document.getElementById('snake-summary').textContent === 'Ann (you): 0 points, in play; Bob: 0 points, in play'`)
	bob.wait("the summary", `document.getElementById('snake-summary').textContent === 'Ann: 0 points, in play; Bob (you): 0 points, in play'`)
	bob.wait("the arrows", `!document.getElementById('snake-pad').hidden`)
	if got := eval[string](bob, `[...document.querySelectorAll('#snake-pad button')].map((b) => b.getAttribute('aria-label')).join(', ')`); got != "Turn up, Turn left, Turn down, Turn right" {
		t.Errorf("the arrows are named %q", got)
	}
	bob.screenshot("snake-i19-pad-phone")

	// Nobody steers: both snakes hit a wall, and the summary says so.
	for _, p := range []*page{ann, bob} {
		p.wait("the end", `document.getElementById('snake').dataset.phase === 'over' && !document.getElementById('snake-result').hidden`)
		got := eval[string](p, `document.getElementById('snake-summary').textContent`)
		out := eval[int](p, `document.querySelectorAll('#snake-scores li[data-alive="false"]').length`)
		if out == 0 || strings.Count(got, ", out") != out || strings.Count(got, ", in play") != 2-out {
			t.Errorf("%s: with %d snakes out the summary says %q", p.name, out, got)
		}
	}
	ann.screenshot("snake-i19-end-desktop")
	bob.screenshot("snake-i19-end-phone")
	ann.checkA11y("the end of a snake match (desktop)")
	bob.checkA11y("the end of a snake match (phone)")
}

// joinReadyStart seats Bob, on a phone, in Ann's room code, has him say he
// is ready and Ann start the match.
func joinReadyStart(t *testing.T, srv *roomd, ann *page, code string) *page {
	t.Helper()
	bob := newUser(t, srv, "bob", phone)
	bob.joinAsPlayer(code, "Bob")
	bob.wait("Bob's seat", `document.querySelector('#seats .seat-you[data-seat="1"]') && document.getElementById('ready')`)
	bob.click("#ready")
	ann.wait("Bob ready", `document.querySelector('#seats .seat[data-seat="1"][data-ready="true"]')`)
	ann.click("#start")
	return bob
}
