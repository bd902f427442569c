package web_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// TestScreenshots saves pictures of the main screens at desktop and phone
// sizes (under $ROOMD_ARTIFACTS, or testdata/screenshots): the lobby, a
// room's lobby, a game in progress, a lost game, a race as a spectator
// sees it, and Hidden Nim.
func TestScreenshots(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t, withAIDelay(250*time.Millisecond))
	p := newUser(t, srv, "ann", desktop)

	p.open("/")
	p.wait("the lobby", `document.querySelector('#create-form #new-mode')`)
	p.screenshot("lobby-desktop")
	p.resize(phone)
	p.screenshot("lobby-phone")
	p.resize(desktop)

	// A game in progress, then lost.
	p.createMinesweeper(msSettings{mode: "solo", level: "beginner"}, "Ann")
	p.wait("the board", `document.body.dataset.phase === 'running' && document.querySelectorAll('#board td').length === 81`)
	p.clickCell(4, 4, input.MouseButtonLeft)
	p.wait("the first reveal", `document.querySelectorAll('#board td[data-status="revealed"]').length > 0`)
	flagSomething(p)
	p.screenshot("game-desktop")
	p.resize(phone)
	p.screenshot("game-phone")
	p.resize(desktop)
	for i := 0; ; i++ {
		if i > 200 {
			t.Fatal("no loss after 200 reveals")
		}
		status := eval[string](p, `document.getElementById('result').dataset.status || ''`)
		if status == "lost" {
			break
		}
		if status == "won" {
			p.click("#new-game")
			p.wait("a new match", `document.getElementById('result').hidden`)
			continue
		}
		rc := eval[[]int](p, `(() => { const td = [...document.querySelectorAll('#board td[data-status="hidden"]')].pop(); return td ? [Number(td.dataset.r), Number(td.dataset.c)] : []; })()`)
		if len(rc) != 2 {
			continue
		}
		p.clickCell(rc[0], rc[1], input.MouseButtonLeft)
		p.waitCell("#board", rc[0], rc[1], "revealed", "*")
	}
	p.wait("the terminal view", `document.querySelectorAll('#board td[data-value="mine"], #board td[data-status="flagged"]').length >= 10`)
	p.screenshot("lost-desktop")
	p.darkMode(true)
	p.screenshot("lost-dark-desktop")
	p.darkMode(false)
	p.resize(phone)
	p.screenshot("lost-phone")
	p.resize(desktop)

	// A race against an AI, watched by a spectator.
	host := newUser(t, srv, "host", desktop)
	code := host.createMinesweeper(msSettings{mode: "race", level: "beginner"}, "Bea")
	host.click("#fill-ai")
	host.wait("the AI seat", `document.querySelectorAll('#seats .seat[data-ai="true"]').length === 1`)
	host.screenshot("room-lobby-desktop")
	spec := newUser(t, srv, "spectator", desktop)
	spec.open("/r/" + code)
	spec.wait("the join form", `document.getElementById('join-watch')`)
	spec.resize(phone)
	spec.screenshot("join-phone")
	spec.resize(desktop)
	spec.click("#join-watch")
	spec.wait("the spectator's lobby", `document.getElementById('conn').dataset.connState === 'online' && document.getElementById('spectators').dataset.count === '1'`)
	host.click("#start")
	host.wait("the race board", `document.body.dataset.phase === 'running' && document.querySelectorAll('#board td').length === 81`)
	host.clickCell(4, 4, input.MouseButtonLeft)
	spec.wait("both racers moving", `document.querySelectorAll('.race-board').length === 2 && [...document.querySelectorAll('.race-board')].every(b => Number(b.dataset.revealed) > 0)`)
	host.wait("the rival's progress", `Number(document.querySelector('.rival[data-seat="1"]')?.dataset.revealed) > 0`)
	host.screenshot("race-player-desktop")
	spec.screenshot("spectator-desktop")
	spec.resize(phone)
	spec.screenshot("spectator-phone")

	// An expert board on a phone scrolls.
	x := newUser(t, srv, "expert", phone)
	x.createMinesweeper(msSettings{mode: "solo", level: "expert"}, "Dee")
	x.wait("the expert board", `document.body.dataset.phase === 'running' && document.querySelectorAll('#board td').length === 480`)
	if !eval[bool](x, `(() => { const s = document.querySelector('.ms-scroll'); return s.scrollWidth > s.clientWidth && document.documentElement.scrollWidth <= innerWidth; })()`) {
		t.Error("the expert board does not scroll inside its frame on a phone (or the page scrolls sideways)")
	}
	x.do(chromedp.TapXY(eval[float64](x, `(() => { const b = document.querySelector('#board td[data-r="8"][data-c="3"]').getBoundingClientRect(); return b.left + b.width / 2; })()`),
		eval[float64](x, `(() => { const b = document.querySelector('#board td[data-r="8"][data-c="3"]').getBoundingClientRect(); return b.top + b.height / 2; })()`)))
	x.waitCell("#board", 8, 3, "revealed", "*")
	x.screenshot("expert-phone")

	// Hidden Nim against an AI.
	n := newUser(t, srv, "nim", desktop)
	n.open("/")
	n.wait("the lobby", `document.querySelector('#create-form')`)
	n.click(`label[data-game="nim"]`)
	n.setField("#new-pile", "15")
	n.setField("#new-name", "Cy")
	n.click("#create")
	n.wait("the Nim room", `location.pathname.startsWith('/r/') && document.querySelector('#start')`)
	n.click("#fill-ai")
	n.wait("the AI seat", `document.querySelectorAll('#seats .seat[data-ai="true"]').length === 1`)
	n.click("#start")
	n.wait("my turn", `document.getElementById('turn')?.dataset.mine === 'true'`)
	n.click("#take-2")
	n.wait("the AI's answer", `document.querySelectorAll('#history li[data-seat]').length >= 2 && document.getElementById('turn').dataset.mine === 'true'`)
	n.screenshot("nim-desktop")
	n.resize(phone)
	n.screenshot("nim-phone")
	n.resize(desktop)

	// To the end, taking one at a time: the history shows each take of the
	// match's log once (the update that ends a match carries its beats and
	// the view after them; the page must not apply the beats twice).
	for i := 0; ; i++ {
		if i > 20 {
			t.Fatal("twenty takes and the match goes on")
		}
		n.wait("my turn or the end", `document.getElementById('turn')?.dataset.mine === 'true' || !document.getElementById('nim-result').hidden`)
		if eval[bool](n, `!document.getElementById('nim-result').hidden`) {
			break
		}
		before := eval[int](n, `document.querySelectorAll('#history li[data-seat]').length`)
		n.click("#take-1")
		n.wait("the take", fmt.Sprintf(`document.querySelectorAll('#history li[data-seat]').length > %d`, before))
	}
	var log []json.RawMessage
	frames := n.wsFrames()
	for i := len(frames) - 1; i >= 0 && log == nil; i-- {
		var m struct {
			Result *struct{ Log []json.RawMessage }
		}
		if json.Unmarshal([]byte(frames[i]), &m) == nil && m.Result != nil {
			log = m.Result.Log
		}
	}
	if shown := eval[int](n, `document.querySelectorAll('#history li[data-seat]').length`); len(log) == 0 || shown != len(log) {
		t.Errorf("the history shows %d takes, the match's log holds %d", shown, len(log))
	}
}

// flagSomething flags one hidden cell next to a revealed number, for a
// picture with a flag in it.
func flagSomething(p *page) {
	rc := eval[[]int](p, `(() => { for (const td of document.querySelectorAll('#board td[data-status="hidden"]')) {
		const r = Number(td.dataset.r), c = Number(td.dataset.c);
		for (let dr = -1; dr <= 1; dr++) for (let dc = -1; dc <= 1; dc++) {
			const n = document.querySelector('#board td[data-r="' + (r + dr) + '"][data-c="' + (c + dc) + '"]');
			if (n && n.dataset.status === 'revealed') return [r, c];
		} } return []; })()`)
	if len(rc) == 2 {
		p.clickCell(rc[0], rc[1], input.MouseButtonRight)
		p.wait("the flag", `document.querySelector('#board td[data-status="flagged"]')`)
	}
}
