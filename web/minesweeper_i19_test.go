package web_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// Issue 19's Minesweeper points: each test fails on the page as it was.

// checkA11yBoth runs the accessibility check in light and dark mode.
func checkA11yBoth(p *page, what string) {
	p.t.Helper()
	for _, dark := range []bool{false, true} {
		p.darkMode(dark)
		p.checkA11y(fmt.Sprintf("%s (dark %v)", what, dark))
	}
	p.darkMode(false)
}

// bg is the computed background-image of a cell of board sel.
func bg(p *page, board string, r, c int) string {
	p.t.Helper()
	return eval[string](p, fmt.Sprintf(`getComputedStyle(document.querySelector('%s td[data-r="%d"][data-c="%d"]')).backgroundImage`, board, r, c))
}

// TestMinesweeperRaceBeaten: Ann clears her board first while Bob, who
// never hit a mine nor flagged, is still playing. Bob reads as beaten — to
// the spectator, to Ann and on his own page —, not as "hit a mine"; his
// board's mines show as mines (a won board's as flags) and his face is not
// dead.
func TestMinesweeperRaceBeaten(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	ann := newUser(t, srv, "ann", desktop)
	code := ann.createMinesweeper(msSettings{mode: "race", level: "custom", rows: 3, cols: 4, mines: 2}, "Ann")
	bob := newUser(t, srv, "bob", phone)
	bob.joinAsPlayer(code, "Bob")
	bob.wait("Bob's seat", `document.querySelector('#seats .seat-you[data-seat="1"]') && document.getElementById('ready')`)
	eve := newUser(t, srv, "eve", desktop)
	eve.watchRoom(code, 2)
	bob.click("#ready")
	ann.wait("Bob ready", `document.querySelector('#seats .seat[data-seat="1"][data-ready="true"]')`)
	ann.click("#start")
	for _, p := range []*page{ann, bob} {
		p.wait("the board", `document.body.dataset.phase === 'running' && document.querySelectorAll('#board td').length === 12`)
	}
	bob.clickCell(1, 1, input.MouseButtonLeft)
	bob.waitCell("#board", 1, 1, "revealed", "0")
	ann.clickCell(1, 1, input.MouseButtonLeft)
	mines, safe := mineRowsOf3x4(t, ann)
	ann.clickCell(safe, 3, input.MouseButtonLeft)
	ann.wait("Ann's win", `document.getElementById('result')?.dataset.status === 'won' && document.getElementById('face').dataset.face === 'win'`)

	// The spectator: Bob's card.
	card := `document.querySelector('.race-board[data-seat="1"]')`
	eve.wait("Bob's board after the race", card+`?.dataset.board === 'shown' && `+card+`.querySelectorAll('td[data-value="mine"]').length === 2`)
	eve.wait("Bob beaten", card+`.dataset.phase === 'beaten'`)
	if got := eval[string](eve, card+`.querySelector('.race-phase').textContent`); got == "hit a mine" || got != "beaten to it" {
		t.Errorf("the spectator reads Bob as %q, want %q", got, "beaten to it")
	}
	for _, r := range mines {
		if b := bg(eve, `.race-board[data-seat="1"]`, r, 3); !strings.Contains(b, "mine.svg") || strings.Contains(b, "flag.svg") {
			t.Errorf("the spectator sees Bob's mine at (%d, 3) drawn as %s, want a mine", r, b)
		}
		if b := bg(eve, `.race-board[data-seat="0"]`, r, 3); !strings.Contains(b, "flag.svg") {
			t.Errorf("the spectator sees Ann's (won) mine at (%d, 3) drawn as %s, want a flag", r, b)
		}
	}
	if n := eval[int](eve, card+`.querySelectorAll('td[data-status="flagged"]').length`); n != 0 {
		t.Errorf("Bob's board shows %d flags; he placed none", n)
	}

	// Ann's rival card.
	ann.wait("Bob beaten on Ann's rival card", `document.querySelector('.rival[data-seat="1"]')?.dataset.phase === 'beaten' &&
		document.querySelector('.rival[data-seat="1"] .race-phase').textContent === 'beaten to it'`)

	// Bob's own page.
	bob.wait("Bob's result", `document.getElementById('result')?.dataset.status === 'lost' && document.querySelectorAll('#board td[data-value="mine"]').length === 2`)
	bob.wait("Bob's board beaten", `document.getElementById('board').dataset.phase === 'beaten'`)
	if f := eval[string](bob, `document.getElementById('face').dataset.face`); f == "dead" {
		t.Errorf("Bob, beaten without hitting a mine, has face %q", f)
	}
	if n := eval[int](bob, `document.querySelectorAll('#board td[data-exploded]').length`); n != 0 {
		t.Errorf("Bob's board shows %d exploded mines", n)
	}
	for _, r := range mines {
		if b := bg(bob, "#board", r, 3); !strings.Contains(b, "mine.svg") || strings.Contains(b, "flag.svg") {
			t.Errorf("Bob sees his mine at (%d, 3) drawn as %s, want a mine", r, b)
		}
	}
	heading := eval[string](bob, `document.querySelector('#result .result-heading').textContent`)
	if !strings.Contains(heading, "Ann") || strings.Contains(strings.ToLower(heading), "mine") {
		t.Errorf("Bob's result reads %q", heading)
	}
	// A reload: the view alone (no end beat) still says beaten.
	eve.open("/r/" + code + "?watch")
	eve.wait("the finished race after a reload", card+`?.dataset.phase === 'beaten' && `+`document.querySelector('.race-board[data-seat="0"]').dataset.phase === 'won'`)
	eve.screenshot("i19-race-beaten-spectator-desktop")
	bob.screenshot("i19-race-beaten-bob-phone")
	ann.screenshot("i19-race-beaten-ann-desktop")
	checkA11yBoth(eve, "a finished race, watched")
	checkA11yBoth(bob, "a race Bob was beaten in, on a phone")
}

// TestMinesweeperWinCounterAndWrongFlags: a win with a mine left
// unflagged shows 000 mines left; a loss crosses out the flags that were
// on no mine, and keeps them crossed out after the view that follows.
func TestMinesweeperWinCounterAndWrongFlags(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	for _, vp := range []viewport{desktop, phone} {
		t.Run(vp.name, func(t *testing.T) {
			p := newUser(t, srv, "ann-"+vp.name, vp)
			p.createMinesweeper(msSettings{mode: "solo", level: "custom", rows: 3, cols: 4, mines: 2}, "Ann")
			p.wait("the board", `document.body.dataset.phase === 'running' && document.querySelectorAll('#board td').length === 12`)
			p.clickCell(1, 1, input.MouseButtonLeft)
			mines, safe := mineRowsOf3x4(t, p)
			p.clickCell(mines[0], 3, input.MouseButtonRight)
			p.waitCell("#board", mines[0], 3, "flagged", "")
			if got := p.counter(); got != "001" {
				t.Errorf("counter %s with one flag of two mines", got)
			}
			p.clickCell(safe, 3, input.MouseButtonLeft)
			p.wait("the win", `document.getElementById('result')?.dataset.status === 'won'`)
			if got := p.counter(); got != "000" {
				t.Errorf("counter %s after the win, want 000", got)
			}
			if b := bg(p, "#board", mines[1], 3); !strings.Contains(b, "flag.svg") {
				t.Errorf("the unflagged mine after the win shows %s, want a flag", b)
			}
			p.screenshot("i19-win-counter-" + vp.name)

			// A loss with a wrong flag.
			p.click("#new-game")
			p.wait("a new board", `document.body.dataset.phase === 'running' && document.querySelectorAll('#board td[data-status="hidden"]').length === 12`)
			p.clickCell(1, 1, input.MouseButtonLeft)
			mines, safe = mineRowsOf3x4(t, p)
			p.clickCell(safe, 3, input.MouseButtonRight)     // a flag on no mine
			p.clickCell(mines[0], 3, input.MouseButtonRight) // a right one
			p.waitCell("#board", mines[0], 3, "flagged", "")
			p.clickCell(mines[1], 3, input.MouseButtonLeft)
			p.wait("the loss", `document.getElementById('result')?.dataset.status === 'lost'`)
			wrong := fmt.Sprintf(`document.querySelector('#board td[data-r="%d"][data-c="3"]')`, safe)
			p.wait("the wrong flag crossed out", wrong+`.dataset.wrong === 'true' && `+wrong+`.dataset.status === 'flagged'`)
			if n := eval[int](p, `document.querySelectorAll('#board td[data-wrong]').length`); n != 1 {
				t.Errorf("%d flags crossed out, want 1 (the right flag stays)", n)
			}
			if l := eval[string](p, wrong+`.getAttribute('aria-label')`); !strings.Contains(l, "no mine") {
				t.Errorf("the wrong flag's label is %q", l)
			}
			// The page resyncs after a result: the view that replaces the
			// board still has the cross.
			time.Sleep(700 * time.Millisecond)
			if eval[string](p, wrong+`.dataset.wrong || ''`) != "true" {
				t.Error("the cross went with the view after the loss")
			}
			if b := bg(p, "#board", safe, 3); !strings.Contains(b, "gradient") {
				t.Errorf("the wrong flag is drawn as %s, not crossed out", b)
			}
			p.screenshot("i19-wrong-flag-" + vp.name)
			checkA11yBoth(p, "a lost board with a wrong flag")
			// A reload: the result's detail (wrongFlags) keeps the cross,
			// which the reference's view alone cannot.
			p.do(chromedp.Reload())
			p.wait("the lost board again", `document.getElementById('result')?.dataset.status === 'lost'`)
			p.wait("the cross after a reload", wrong+`?.dataset.wrong === 'true'`)
			if n := eval[int](p, `document.querySelectorAll('#board td[data-wrong]').length`); n != 1 {
				t.Errorf("after a reload %d flags crossed out, want 1", n)
			}
		})
	}
}

// TestMinesweeperTimerOutage: while roomd is down the timer stands still,
// and once the page is back it shows the host's elapsed time.
func TestMinesweeperTimerOutage(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	p := newUser(t, srv, "ann", desktop)
	code := p.createMinesweeper(msSettings{mode: "solo", level: "custom", rows: 3, cols: 4, mines: 2}, "Ann")
	p.wait("the board", `document.body.dataset.phase === 'running' && document.querySelectorAll('#board td').length === 12`)
	p.clickCell(1, 1, input.MouseButtonLeft)
	mineRowsOf3x4(t, p)
	p.wait("the clock", `document.getElementById('timer').dataset.running === 'true' && Number(document.getElementById('timer').dataset.ms) > 1000`)
	if err := srv.down(); err != nil {
		t.Fatal(err)
	}
	p.wait("reconnecting", `document.getElementById('conn').dataset.connState !== 'online'`)
	time.Sleep(400 * time.Millisecond)
	before := eval[float64](p, `Number(document.getElementById('timer').dataset.ms)`)
	time.Sleep(3 * time.Second)
	during := eval[float64](p, `Number(document.getElementById('timer').dataset.ms)`)
	if during-before > 300 {
		t.Errorf("the timer ran on while roomd was down: %v ms → %v ms", before, during)
	}
	if err := srv.up(nil); err != nil {
		t.Fatal(err)
	}
	p.waitFor("online again", `document.getElementById('conn').dataset.connState === 'online'`, 15*time.Second)
	p.wait("the clock running", `document.getElementById('timer').dataset.running === 'true'`)
	time.Sleep(600 * time.Millisecond)
	info := srv.roomInfo(code)
	clocks, _ := info["clocks"].(map[string]any)
	hostNow, _ := clocks["now"].(float64)
	hostElapsed, _ := clocks["elapsedMs"].(float64)
	if hostNow == 0 {
		t.Fatalf("no host clocks in %v", info)
	}
	got := eval[[]float64](p, `[Number(document.getElementById('timer').dataset.ms), Date.now()]`)
	want := hostElapsed + (got[1] - hostNow)
	if math.Abs(got[0]-want) > 1000 {
		t.Errorf("the timer shows %v ms after the reconnect, the host's clock %v ms", got[0], want)
	}
	t.Logf("host elapsed %v ms after a 3 s outage; shown %v ms", want, got[0])
}

// TestMinesweeperLayout: at 1280×800 an intermediate board, the result and
// the best times show without scrolling; on a phone an expert board can
// be seen whole (the zoom's fit), and zoomed back to cells a finger hits.
func TestMinesweeperLayout(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	p := newUser(t, srv, "ann", desktop)
	p.createMinesweeper(msSettings{mode: "solo", level: "intermediate"}, "Ann")
	p.wait("the board", `document.body.dataset.phase === 'running' && document.querySelectorAll('#board td').length === 256`)
	if eval[bool](p, `!document.getElementById('ms-zoom-bar').hidden`) {
		t.Error("the zoom shows on a desktop where the board fits")
	}
	loseBoardAnywhere(t, p)
	p.wait("the result and the best times", `!document.getElementById('result').hidden && ['ready','empty'].includes(document.getElementById('leaderboard').dataset.state)`)
	p.do(chromedp.Evaluate[chromedp.Void](`scrollTo(0, 0)`))
	inView := func(sel string) bool {
		return eval[bool](p, fmt.Sprintf(`(() => { const b = document.querySelector(%q).getBoundingClientRect();
			return b.width > 0 && b.top >= 0 && b.bottom <= innerHeight && b.left >= 0 && b.right <= innerWidth; })()`, sel))
	}
	for _, sel := range []string{"#board", "#result .result-heading", "#result-time", "#leaderboard h3", "#new-game", "#face", "#timer"} {
		if !inView(sel) {
			t.Errorf("%s is not in view at 1280×800 without scrolling", sel)
		}
	}
	p.screenshot("i19-layout-intermediate-desktop")

	// Expert on a phone.
	q := newUser(t, srv, "bob", phone)
	q.createMinesweeper(msSettings{mode: "solo", level: "expert"}, "Bob")
	q.wait("the board", `document.body.dataset.phase === 'running' && document.querySelectorAll('#board td').length === 480`)
	q.wait("the zoom", `!document.getElementById('ms-zoom-bar').hidden`)
	whole := `(() => { const t = document.getElementById('board').getBoundingClientRect(); return t.left >= 0 && t.right <= innerWidth; })()`
	if eval[bool](q, whole) {
		t.Error("the expert board fits a phone at full size: the test shows nothing")
	}
	tapSize := eval[float64](q, `document.querySelector('#board td').getBoundingClientRect().width`)
	if tapSize < 26 {
		t.Errorf("cells are %v px on a phone before zooming", tapSize)
	}
	q.screenshot("i19-layout-expert-phone-full")
	q.click("#ms-zoom")
	q.wait("the whole board in the width", whole+` && document.getElementById('ms-zoom').getAttribute('aria-pressed') === 'true'`)
	q.screenshot("i19-layout-expert-phone-fit")
	checkA11yBoth(q, "an expert board fitted to a phone")
	// Zoomed out, a tap still reveals the cell under it.
	q.clickCell(8, 15, input.MouseButtonLeft)
	q.waitCell("#board", 8, 15, "revealed", "*")
	fit := eval[float64](q, `document.querySelector('#board td').getBoundingClientRect().width`)
	q.click("#ms-zoom-in")
	q.wait("bigger cells", fmt.Sprintf(`document.querySelector('#board td').getBoundingClientRect().width > %v`, fit+2))
	q.click("#ms-zoom")
	q.click("#ms-zoom")
	q.wait("full size again", fmt.Sprintf(`Math.abs(document.querySelector('#board td').getBoundingClientRect().width - %v) < 1`, tapSize))
}

// loseBoardAnywhere reveals hidden cells of #board from the last until a
// mine goes off (any board size).
func loseBoardAnywhere(t *testing.T, p *page) {
	t.Helper()
	p.clickCell(0, 0, input.MouseButtonLeft)
	p.waitCell("#board", 0, 0, "revealed", "*")
	for i := 0; !eval[bool](p, `!!document.querySelector('#board td[data-exploded]') || !document.getElementById('result').hidden`); i++ {
		rc := eval[[]int](p, `(() => { const td = [...document.querySelectorAll('#board td[data-status="hidden"]')].pop(); return td ? [Number(td.dataset.r), Number(td.dataset.c)] : []; })()`)
		if len(rc) != 2 || i > 300 {
			t.Fatalf("%s: no end after %d reveals%s", p.name, i, p.debug())
		}
		p.clickCell(rc[0], rc[1], input.MouseButtonLeft)
		p.waitCell("#board", rc[0], rc[1], "revealed", "*")
	}
}

// TestMinesweeperCustomBoardTitle: the best times of a custom board are
// titled "Custom 12 × 24, 40 mines", not by its leaderboard id.
func TestMinesweeperCustomBoardTitle(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	p := newUser(t, srv, "ann", desktop)
	p.createMinesweeper(msSettings{mode: "solo", level: "custom", rows: 12, cols: 24, mines: 40}, "Ann")
	p.wait("the board", `document.body.dataset.phase === 'running' && document.querySelectorAll('#board td').length === 288`)
	loseBoardAnywhere(t, p)
	p.wait("the best times", `document.getElementById('leaderboard').dataset.state === 'none'`)
	if got := eval[string](p, `document.querySelector('#leaderboard h3').textContent`); got != "Best times · Custom 12 × 24, 40 mines" {
		t.Errorf("the custom board's best times are titled %q", got)
	}
}

// TestMinesweeperBoardKeyboard: the board is a grid a screen reader can
// walk: one tab stop (the cursor's cell), arrows move the focus, each
// cell says its row, column and state, Enter reveals and F flags.
func TestMinesweeperBoardKeyboard(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	p := newUser(t, srv, "ann", desktop)
	p.createMinesweeper(msSettings{mode: "solo", level: "beginner"}, "Ann")
	p.wait("the board", `document.body.dataset.phase === 'running' && document.querySelectorAll('#board td').length === 81`)
	roles := eval[[]any](p, `(() => { const t = document.getElementById('board'); return [t.getAttribute('role'), t.getAttribute('aria-label'),
		t.querySelectorAll('tr[role="row"]').length, t.querySelectorAll('td[role="gridcell"]').length,
		t.querySelectorAll('td[tabindex="0"]').length, t.querySelector('td[tabindex="0"]')?.dataset.cursor || ''] })()`)
	if fmt.Sprint(roles) != "[grid Minefield 9 81 1 true]" {
		t.Errorf("roles, names and tab stops: %v", roles)
	}
	// Tab from the face reaches the board's one cell, and the next Tab leaves it.
	p.do(chromedp.Focus(chromedp.CSS("#face")))
	p.key(kb.Tab)
	p.wait("focus on the cursor's cell", `document.activeElement?.matches('#board td[data-cursor]')`)
	p.key(kb.ArrowDown + kb.ArrowRight + kb.ArrowRight)
	p.wait("the focus moved with the arrows", `document.activeElement?.matches('#board td[data-r="5"][data-c="6"][data-cursor][tabindex="0"]')`)
	if l := eval[string](p, `document.activeElement.getAttribute('aria-label')`); l != "Row 6, column 7, hidden" {
		t.Errorf("the focused cell is labelled %q", l)
	}
	if o := eval[string](p, `getComputedStyle(document.activeElement).outlineStyle`); o == "none" {
		t.Error("the focused cell shows no outline")
	}
	p.key("f")
	p.waitCell("#board", 5, 6, "flagged", "")
	p.wait("the label says flagged", `document.activeElement.getAttribute('aria-label') === 'Row 6, column 7, flagged'`)
	p.key("f")
	p.waitCell("#board", 5, 6, "hidden", "")
	p.key(kb.Enter)
	p.waitCell("#board", 5, 6, "revealed", "*")
	p.wait("the label says revealed", `/^Row 6, column 7, revealed, (empty|\d)$/.test(document.activeElement.getAttribute('aria-label'))`)
	p.key(kb.Tab)
	if eval[bool](p, `!!document.activeElement?.closest('#board')`) {
		t.Error("Tab stays in the board: more than one tab stop")
	}
	p.do(chromedp.Focus(chromedp.CSS("#face")))
	p.key(kb.Tab)
	p.wait("the focus back on the board's cursor", `document.activeElement?.matches('#board td[data-r="5"][data-c="6"]')`)
	p.screenshot("i19-board-keyboard-desktop")
	checkA11yBoth(p, "the board with the keyboard's focus")

	// Japanese.
	p.do(chromedp.Evaluate[chromedp.Void](`localStorage.setItem('roomd.lang', 'ja')`))
	p.open("/r/" + p.roomCode())
	p.wait("the board in Japanese", `document.documentElement.lang === 'ja' && document.querySelector('#board td[data-r="0"][data-c="0"]')?.getAttribute('aria-label').startsWith('1 行 1 列、')`)
	if l := eval[string](p, `document.getElementById('board').getAttribute('aria-label')`); l != "地雷原" {
		t.Errorf("the board's name in Japanese: %q", l)
	}
	p.screenshot("i19-board-ja-desktop")
	p.do(chromedp.Evaluate[chromedp.Void](`localStorage.removeItem('roomd.lang')`))
}
