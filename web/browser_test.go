package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/web"
)

// mineRowsOf3x4 reads the numbers of column 2 of a 3×4 board whose first
// reveal was (1, 1): the 3×3 around it is safe, so the two mines are in
// column 3 and the numbers say which rows. It returns the mines' rows and
// the safe row.
func mineRowsOf3x4(t *testing.T, p *page) (mines [2]int, safe int) {
	t.Helper()
	for r := range 3 {
		for c := range 3 {
			p.waitCell("#board", r, c, "revealed", "*")
		}
	}
	_, top := p.cell("#board", 0, 2)
	_, bottom := p.cell("#board", 2, 2)
	switch {
	case top == "2":
		return [2]int{0, 1}, 2
	case bottom == "2":
		return [2]int{1, 2}, 0
	case top == "1" && bottom == "1":
		return [2]int{0, 2}, 1
	}
	t.Fatalf("column 2 shows %s … %s: not a 3×4 board with 2 mines in column 3", top, bottom)
	return
}

// TestSoloMouseAndKeyboard creates a solo room from the lobby and plays
// with real mouse events (left reveals, right flags and unflags, both
// together chord, middle click chords) and with the keyboard (arrows,
// Space, F, C), then loses a game by revealing a cell the numbers show is a
// mine.
func TestSoloMouseAndKeyboard(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	p := newUser(t, srv, "ann", desktop)
	// 3×4 with 2 mines: the 3×3 around the first reveal is safe, so the
	// mines are two of column 3's cells; the numbers of column 2 say which.
	p.createMinesweeper(msSettings{mode: "solo", level: "custom", rows: 3, cols: 4, mines: 2}, "Ann")
	p.wait("the board", `document.body.dataset.phase === 'running' && document.querySelector('#board td')`)
	if got := p.counter(); got != "002" {
		t.Errorf("mine counter %q before any move, want 002", got)
	}

	// Game 1: the mouse.
	p.clickCell(0, 3, input.MouseButtonRight)
	p.waitCell("#board", 0, 3, "flagged", "")
	if got := p.counter(); got != "001" {
		t.Errorf("mine counter %q with a flag, want 001", got)
	}
	p.clickCell(0, 3, input.MouseButtonRight)
	p.waitCell("#board", 0, 3, "hidden", "")
	if got := p.counter(); got != "002" {
		t.Errorf("mine counter %q after unflagging, want 002", got)
	}
	p.clickCell(1, 1, input.MouseButtonLeft)
	mines, safe := mineRowsOf3x4(t, p)
	if _, v := p.cell("#board", 1, 1); v != "0" {
		t.Errorf("(1, 1) shows %q, want 0", v)
	}
	// A reveal of a revealed cell is refused with a readable notice.
	p.clickCell(0, 0, input.MouseButtonLeft)
	p.wait("the already-revealed notice", `document.getElementById('notices').innerText.includes('That cell is already revealed')`)
	for _, r := range mines {
		p.clickCell(r, 3, input.MouseButtonRight)
		p.waitCell("#board", r, 3, "flagged", "")
	}
	if got := p.counter(); got != "000" {
		t.Errorf("mine counter %q with both mines flagged, want 000", got)
	}
	p.chordCell(1, 2) // (1, 2) shows 2 and has its 2 flags: the chord opens the safe cell
	p.waitCell("#board", safe, 3, "revealed", "*")
	p.wait("the win", `document.getElementById('result')?.dataset.status === 'won'`)
	p.wait("the winning face", `document.getElementById('face').dataset.face === 'win'`)
	if got := eval[string](p, `document.getElementById('result-time').textContent`); !strings.HasSuffix(got, " s") {
		t.Errorf("result time %q", got)
	}
	// A custom board keeps no leaderboard, and the page says so.
	p.wait("no leaderboard for a custom board", `document.getElementById('leaderboard').dataset.state === 'none'`)
	if got := eval[string](p, `document.getElementById('leaderboard').innerText`); !strings.Contains(got, "Custom boards have no leaderboard") {
		t.Errorf("leaderboard panel %q", got)
	}

	// Game 2: the keyboard. The face starts a new game (a rematch).
	p.click("#face")
	p.wait("a new match", `document.getElementById('result').hidden && document.querySelectorAll('#board td[data-status="hidden"]').length === 12`)
	p.do(chromedp.Focus(chromedp.CSS("#board")))
	p.moveCursor(1, 1)
	p.key(" ")
	mines, safe = mineRowsOf3x4(t, p)
	p.moveCursor(mines[0], 3)
	p.key("f")
	p.waitCell("#board", mines[0], 3, "flagged", "")
	p.key("f")
	p.waitCell("#board", mines[0], 3, "hidden", "")
	p.key("F")
	p.waitCell("#board", mines[0], 3, "flagged", "")
	p.moveCursor(mines[1], 3)
	p.key("f")
	p.waitCell("#board", mines[1], 3, "flagged", "")
	if got := p.counter(); got != "000" {
		t.Errorf("mine counter %q, want 000", got)
	}
	p.moveCursor(1, 2)
	p.key("c")
	p.waitCell("#board", safe, 3, "revealed", "*")
	p.wait("the second win", `document.getElementById('result')?.dataset.status === 'won'`)

	// Game 3: a chord with the middle button.
	p.click("#new-game")
	p.wait("a third match", `document.getElementById('result').hidden && document.querySelectorAll('#board td[data-status="hidden"]').length === 12`)
	p.clickCell(1, 1, input.MouseButtonLeft)
	mines, safe = mineRowsOf3x4(t, p)
	for _, r := range mines {
		p.clickCell(r, 3, input.MouseButtonRight)
		p.waitCell("#board", r, 3, "flagged", "")
	}
	p.clickCell(1, 2, input.MouseButtonMiddle)
	p.waitCell("#board", safe, 3, "revealed", "*")
	p.wait("the third win", `document.getElementById('result')?.dataset.status === 'won'`)

	// Game 4, a loss: a reveal of a cell the numbers show is a mine.
	p.click("#new-game")
	p.wait("a fourth match", `document.getElementById('result').hidden && document.querySelectorAll('#board td[data-status="hidden"]').length === 12`)
	p.clickCell(1, 1, input.MouseButtonLeft)
	mines, safe = mineRowsOf3x4(t, p)
	p.clickCell(mines[0], 3, input.MouseButtonRight) // a flag stays a flag at the end
	p.waitCell("#board", mines[0], 3, "flagged", "")
	p.clickCell(mines[1], 3, input.MouseButtonLeft)
	p.waitCell("#board", mines[1], 3, "revealed", "mine")
	p.wait("the loss", `document.getElementById('result')?.dataset.status === 'lost'`)
	if !eval[bool](p, fmt.Sprintf(`document.querySelector('#board td[data-r="%d"][data-c="3"]').dataset.exploded === 'true'`, mines[1])) {
		t.Error("the mine that went off is not marked exploded")
	}
	p.waitCell("#board", mines[0], 3, "flagged", "")
	p.waitCell("#board", safe, 3, "hidden", "")
	p.wait("the dead face", `document.getElementById('face').dataset.face === 'dead'`)
	if got := p.counter(); got != "001" {
		t.Errorf("mine counter %q, want 001", got)
	}
	if ms := eval[string](p, `document.getElementById('result-time').dataset.ms`); ms == "" || strings.HasPrefix(ms, "-") {
		t.Errorf("result time %q", ms)
	}
}

// TestCoopPlayersAndSpectator has a second browser join a co-op room as a
// player and a third (a phone) watch it: every move shows in the other
// two. Then it checks that nothing any of them received before the end
// of the match showed an unrevealed mine or a seed.
func TestCoopPlayersAndSpectator(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	ann := newUser(t, srv, "ann", desktop)
	code := ann.createMinesweeper(msSettings{mode: "coop", level: "custom", rows: 3, cols: 4, mines: 2}, "Ann")

	bob := newUser(t, srv, "bob", desktop)
	bob.joinAsPlayer(code, "Bob")
	bob.wait("Bob's seat", `document.querySelector('#seats .seat-you[data-seat="1"]') && document.getElementById('ready')`)

	eve := newUser(t, srv, "eve", phone)
	eve.watchRoom(code, 2)
	ann.wait("Bob and Eve in the room", `document.querySelectorAll('#seats .seat[data-seat]').length === 2 && document.getElementById('spectators').dataset.count === '1'`)

	bob.click("#ready")
	ann.wait("Bob ready", `document.querySelector('#seats .seat[data-seat="1"][data-ready="true"]')`)
	ann.click("#start")
	for _, p := range []*page{ann, bob, eve} {
		p.wait("the board", `document.body.dataset.phase === 'running' && document.querySelectorAll('#board td').length === 12`)
	}

	ann.clickCell(1, 1, input.MouseButtonLeft)
	for _, p := range []*page{bob, eve} {
		p.waitCell("#board", 1, 1, "revealed", "0")
	}
	mines, safe := mineRowsOf3x4(t, bob)
	bob.clickCell(mines[0], 3, input.MouseButtonRight)
	ann.clickCell(mines[1], 3, input.MouseButtonRight)
	for _, p := range []*page{ann, bob, eve} {
		p.waitCell("#board", mines[0], 3, "flagged", "")
		p.waitCell("#board", mines[1], 3, "flagged", "")
	}
	if got := bob.counter(); got != "000" {
		t.Errorf("Bob's mine counter %q, want 000", got)
	}
	// A spectator's tap plays nothing.
	x, y := eve.cellXY("#board", safe, 3)
	eve.do(chromedp.TapXY(x, y))
	eve.wait("the spectator notice", `document.getElementById('notices').innerText.includes('Spectators cannot play')`)
	if st, _ := ann.cell("#board", safe, 3); st != "hidden" {
		t.Errorf("the spectator's tap changed the board: %s", st)
	}

	bob.chordCell(1, 2)
	for _, p := range []*page{ann, bob, eve} {
		p.waitCell("#board", safe, 3, "revealed", "*")
		p.wait("the shared win", `document.getElementById('result')?.dataset.status === 'won'`)
	}
	if ann.wait("Ann's new-game button", `document.getElementById('new-game')`); eval[bool](bob, `!!document.getElementById('new-game')`) {
		t.Error("Bob, not the host, has a new-game button")
	}

	// A second match, lost this time.
	ann.click("#new-game")
	for _, p := range []*page{ann, bob, eve} {
		p.wait("the second match", `document.getElementById('result').hidden && document.querySelectorAll('#board td[data-status="hidden"]').length === 12`)
	}
	bob.clickCell(1, 1, input.MouseButtonLeft)
	mines, _ = mineRowsOf3x4(t, ann)
	ann.clickCell(mines[0], 3, input.MouseButtonLeft)
	for _, p := range []*page{ann, bob, eve} {
		p.waitCell("#board", mines[0], 3, "revealed", "mine")
		p.waitCell("#board", mines[1], 3, "hidden", "mine")
		p.wait("the shared loss", `document.getElementById('result')?.dataset.status === 'lost'`)
	}

	for _, p := range []*page{ann, bob, eve} {
		if n := checkNoSecrets(t, p); n != 2 {
			t.Errorf("%s: checked %d matches, want 2", p.name, n)
		}
	}
}

// TestRaceSpectator: while a race runs, a spectator sees one card per racer
// with its progress (phase, revealed of safe, flags) and no board, even
// once a racer has exploded, and no frame it receives names a cell; a
// racer sees its rival's progress and flags, not its board. When the race
// ends, everyone sees every board with its mines.
func TestRaceSpectator(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	ann := newUser(t, srv, "ann", desktop)
	// 6×6 with 20 mines: past the first reveal's safe 3×3, most cells are
	// mines, so a racer who keeps revealing soon explodes.
	code := ann.createMinesweeper(msSettings{mode: "race", level: "custom", rows: 6, cols: 6, mines: 20}, "Ann")
	bob := newUser(t, srv, "bob", desktop)
	bob.joinAsPlayer(code, "Bob")
	bob.wait("Bob's seat", `document.querySelector('#seats .seat-you[data-seat="1"]') && document.getElementById('ready')`)
	eve := newUser(t, srv, "eve", desktop)
	eve.watchRoom(code, 2)
	bob.click("#ready")
	ann.wait("Bob ready", `document.querySelector('#seats .seat[data-seat="1"][data-ready="true"]')`)
	ann.click("#start")
	for _, p := range []*page{ann, bob} {
		p.wait("the board", `document.body.dataset.phase === 'running' && document.querySelectorAll('#board td').length === 36`)
	}
	const cards = `[...document.querySelectorAll('#others .race-board')]`
	eve.wait("a progress card per racer, no board", cards+`.length === 2 && `+cards+`.every(c => c.dataset.board === 'hidden' && c.querySelector('.race-veiled')) && !document.querySelector('td')`)

	ann.clickCell(2, 2, input.MouseButtonLeft)
	ann.waitCell("#board", 2, 2, "revealed", "0")
	eve.wait("Ann's progress", `(() => { const c = document.querySelector('.race-board[data-seat="0"]');
		return c.dataset.phase === 'active' && Number(c.dataset.revealed) >= 9 && c.dataset.safe === '16' &&
			c.querySelector('.race-count').textContent === c.dataset.revealed + '/16' && c.querySelector('.race-name').textContent.includes('Ann'); })()`)
	bob.clickCell(5, 5, input.MouseButtonRight)
	bob.waitCell("#board", 5, 5, "flagged", "")
	eve.wait("Bob's flag on his card", `document.querySelector('.race-board[data-seat="1"]')?.dataset.flags === '1' &&
		document.querySelector('.race-board[data-seat="1"] .race-flags').textContent === '1 flag'`)
	ann.wait("Bob's flag on his rival card", `document.querySelector('.rival[data-seat="1"]')?.dataset.flags === '1' &&
		document.querySelector('.rival[data-seat="1"] .race-flags').textContent === '1 flag'`)

	// Ann explodes; Bob races on. Nobody else sees her board yet.
	loseBoard(t, ann)
	eve.wait("Ann's loss on her card", `document.querySelector('.race-board[data-seat="0"]')?.dataset.phase === 'lost'`)
	bob.wait("Ann's loss on her rival card", `document.querySelector('.rival[data-seat="0"]')?.dataset.phase === 'lost'`)
	if n := eval[int](eve, `document.querySelectorAll('td').length`); n != 0 {
		t.Errorf("the spectator has %d cells while the race runs", n)
	}
	if n := eval[int](bob, `document.querySelectorAll('#others td').length`); n != 0 {
		t.Errorf("Bob sees %d cells of Ann's board while the race runs", n)
	}
	frames := eve.wsFrames()
	for _, f := range frames {
		for _, leak := range []string{`"cells"`, `"r":`, `"mines":[`, `"status"`, `"flagged"`, `"adjacent"`} {
			if strings.Contains(f, leak) {
				t.Errorf("the spectator got %s while the race runs: %s", leak, f)
			}
		}
	}

	// Bob explodes too: the race is over, and every board shows, with its
	// mines, to the spectator and to each racer.
	bob.clickCell(2, 2, input.MouseButtonLeft)
	bob.waitCell("#board", 2, 2, "revealed", "0")
	loseBoard(t, bob)
	eve.wait("every board, with its mines", `!document.getElementById('result').hidden && `+cards+`.length === 2 && `+cards+`.every(c =>
		c.dataset.board === 'shown' && c.dataset.phase === 'lost' && c.querySelectorAll('td').length === 36 &&
		c.querySelector('td[data-exploded]') && c.querySelectorAll('td[data-value="mine"]').length >= 19)`)
	if got := eval[string](eve, `document.querySelector('.race-board[data-seat="1"] td[data-r="5"][data-c="5"]').dataset.status`); got != "flagged" {
		t.Errorf("Bob's flag at (5, 5) shows %q to the spectator after the race", got)
	}
	ann.wait("Bob's board on his rival card", `document.querySelectorAll('.rival[data-seat="1"] table.board td').length === 36 && document.querySelector('.rival[data-seat="1"] td[data-exploded]')`)
	bob.wait("Ann's board on her rival card", `document.querySelectorAll('.rival[data-seat="0"] table.board td').length === 36 && document.querySelector('.rival[data-seat="0"] td[data-exploded]')`)

	// The update that ended the race carried the spectator's view of every
	// board (the client also resyncs after a result, which would show them
	// too: this checks the room sends them at once).
	ended := false
	for _, f := range eve.wsFrames()[len(frames):] {
		var u struct {
			Type   string          `json:"type"`
			Result json.RawMessage `json:"result"`
			View   *struct {
				Boards []struct {
					Cells *[]json.RawMessage `json:"cells"`
				} `json:"boards"`
			} `json:"view"`
		}
		if json.Unmarshal([]byte(f), &u) != nil || u.Type != "update" || u.Result == nil {
			continue
		}
		ended = true
		if u.View == nil || len(u.View.Boards) != 2 || u.View.Boards[0].Cells == nil || u.View.Boards[1].Cells == nil {
			t.Errorf("the update that ended the race carries no view of every board: %s", f)
		}
	}
	if !ended {
		t.Error("the spectator got no update with the result")
	}
}

// loseBoard reveals hidden cells of p's #board, the last first, until one
// explodes.
func loseBoard(t *testing.T, p *page) {
	t.Helper()
	for i := 0; !eval[bool](p, `!!document.querySelector('#board td[data-exploded]')`); i++ {
		rc := eval[[]int](p, `(() => { const td = [...document.querySelectorAll('#board td[data-status="hidden"]')].pop(); return td ? [Number(td.dataset.r), Number(td.dataset.c)] : []; })()`)
		if len(rc) != 2 || i > 40 {
			t.Fatalf("%s: no explosion after %d reveals%s", p.name, i, p.debug())
		}
		p.clickCell(rc[0], rc[1], input.MouseButtonLeft)
		p.waitCell("#board", rc[0], rc[1], "revealed", "*")
	}
}

// checkNoSecrets reads every WebSocket frame a page received and, for
// each finished match, rebuilds the board from the result's seed and first
// reveal; no frame of the match before the one that ended it may show a
// mine (a revealed or hidden cell with mine:true, a mines list, or a
// revealed cell where the board has a mine) or carry a seed. It returns
// how many matches it checked.
func checkNoSecrets(t *testing.T, p *page) int {
	t.Helper()
	frames := p.wsFrames()
	checked := 0
	start := -1
	for i, f := range frames {
		var msg struct {
			Type   string          `json:"type"`
			View   json.RawMessage `json:"view"`
			Result *struct {
				Seed   session.Seed    `json:"seed"`
				Config json.RawMessage `json:"config"`
				Log    []struct {
					Move struct {
						Type string `json:"type"`
						R, C int
					} `json:"move"`
				} `json:"log"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(f), &msg); err != nil {
			t.Errorf("%s: frame %d is not JSON: %v", p.name, i, err)
			continue
		}
		if msg.Type == "update" && len(msg.View) > 0 && string(msg.View) != "null" && msg.Result == nil {
			start = i // a match starts
			continue
		}
		if msg.Type != "update" || msg.Result == nil || start < 0 {
			continue
		}
		res := msg.Result
		cfg, err := minesweeper.DecodeConfig(res.Config)
		if err != nil || len(res.Log) == 0 {
			t.Fatalf("%s: result %s: %v", p.name, f, err)
		}
		first := res.Log[0].Move
		layout, err := minesweeper.Generate(res.Seed, cfg, first.R, first.C)
		if err != nil {
			t.Fatal(err)
		}
		cells := 0
		for j := start; j < i; j++ {
			if strings.Contains(frames[j], `"seed"`) {
				t.Errorf("%s: frame %d carries a seed: %s", p.name, j, frames[j])
			}
			var v any
			_ = json.Unmarshal([]byte(frames[j]), &v)
			walk(v, func(obj map[string]any) {
				r, rok := obj["r"].(float64)
				c, cok := obj["c"].(float64)
				if _, ok := obj["mines"].([]any); ok { // an explode or end beat's list (a config's "mines" is a number)
					t.Errorf("%s: frame %d lists mines before the end: %s", p.name, j, frames[j])
				}
				if !rok || !cok {
					return
				}
				if obj["mine"] == true {
					t.Errorf("%s: frame %d shows a mine at (%v, %v) before the end: %s", p.name, j, r, c, frames[j])
				}
				if _, ok := obj["adjacent"]; ok {
					cells++
					if layout.Mine[int(r)*cfg.Cols+int(c)] {
						t.Errorf("%s: frame %d reveals (%v, %v), a mine, as safe", p.name, j, r, c)
					}
				}
			})
		}
		if cells == 0 {
			t.Errorf("%s: no revealed cell in the frames of match %d: the check saw nothing", p.name, checked+1)
		}
		checked++
		start = -1
	}
	return checked
}

// resultTime is the time of the last result the page received.
func resultTime(t *testing.T, p *page) float64 {
	t.Helper()
	frames := p.wsFrames()
	for i := len(frames) - 1; i >= 0; i-- {
		var msg struct {
			Result *struct {
				Time float64 `json:"time"`
			} `json:"result"`
		}
		if json.Unmarshal([]byte(frames[i]), &msg) == nil && msg.Result != nil {
			return msg.Result.Time
		}
	}
	t.Fatalf("%s: no result received", p.name)
	return 0
}

// walk calls fn for every JSON object inside v.
func walk(v any, fn func(map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		fn(x)
		for _, e := range x {
			walk(e, fn)
		}
	case []any:
		for _, e := range x {
			walk(e, fn)
		}
	}
}

// TestReconnectAndRestart cuts the page's socket (every TCP connection,
// as a network failure would), then restarts roomd on the same port and
// the same bbolt store: each time the page shows "reconnecting", comes
// back online by itself, and the game goes on with nothing lost. While
// roomd is down the board is dimmed and takes no click: no move is sent.
func TestReconnectAndRestart(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	p := newUser(t, srv, "ann", desktop)
	p.createMinesweeper(msSettings{mode: "solo", level: "custom", rows: 3, cols: 4, mines: 2}, "Ann")
	p.wait("the board", `document.body.dataset.phase === 'running' && document.querySelectorAll('#board td').length === 12`)
	recordConn := `window.__conn = []; new MutationObserver(() => window.__conn.push(document.getElementById('conn').dataset.connState))
		.observe(document.getElementById('conn'), {attributes: true, attributeFilter: ['data-conn-state']}); true`
	eval[bool](p, recordConn)

	p.clickCell(1, 1, input.MouseButtonLeft)
	mines, safe := mineRowsOf3x4(t, p)
	p.wait("the clock", `document.getElementById('timer').dataset.running === 'true' && Number(document.getElementById('timer').dataset.ms) > 0`)
	revealed := eval[int](p, `document.querySelectorAll('#board td[data-status="revealed"]').length`)

	// The network fails.
	if n := srv.cut(); n == 0 {
		t.Fatal("no connection to cut")
	}
	p.wait("reconnecting after the cut", `window.__conn.includes('reconnecting')`)
	p.wait("online after the cut", `window.__conn.at(-1) === 'online' && document.getElementById('conn').dataset.connState === 'online'`)
	if got := eval[int](p, `document.querySelectorAll('#board td[data-status="revealed"]').length`); got != revealed {
		t.Errorf("%d cells revealed after the reconnect, want %d", got, revealed)
	}
	p.clickCell(mines[0], 3, input.MouseButtonRight)
	p.waitCell("#board", mines[0], 3, "flagged", "")

	// A move whose receipt is lost with the connection is sent again, with
	// the same id, after the reconnect; the server applies it once.
	entered, release := srv.hold()
	p.clickCell(safe, 3, input.MouseButtonRight)
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the flag never reached the store")
	}
	eval[bool](p, `window.__conn = []; true`)
	srv.cut()
	p.wait("reconnecting with a move pending", `window.__conn.includes('reconnecting')`)
	release()
	p.wait("online with the move", `document.getElementById('conn').dataset.connState === 'online'`)
	p.waitCell("#board", safe, 3, "flagged", "")
	var ids []string
	flag := `"command":{"type":"flag","r":` + fmt.Sprint(safe) + `,"c":3}`
	for deadline := time.Now().Add(5 * time.Second); len(ids) < 2 && time.Now().Before(deadline); time.Sleep(15 * time.Millisecond) {
		ids = ids[:0]
		for _, f := range p.wsSent() {
			if strings.Contains(f, flag) {
				var a struct{ ID string }
				_ = json.Unmarshal([]byte(f), &a)
				ids = append(ids, a.ID)
			}
		}
	}
	if len(ids) != 2 || ids[0] != ids[1] {
		t.Fatalf("the flag was sent with ids %q, want the same id twice (once, then again after the reconnect)", ids)
	}
	id := ids[0]
	receipt := `"type":"receipt","id":"` + id + `","ok":true`
	p.waitFrames("the receipt of the resent flag", func(frames []string) bool { return strings.Contains(strings.Join(frames, "\n"), receipt) })
	p.clickCell(safe, 3, input.MouseButtonRight) // unflag: the game goes on
	p.waitCell("#board", safe, 3, "hidden", "")

	// roomd restarts: clients are told to come back (4000, retryAfterMs).
	eval[bool](p, `window.__conn = []; true`)
	if err := srv.down(); err != nil {
		t.Fatal(err)
	}
	p.wait("reconnecting while roomd is down", `document.getElementById('conn').dataset.connState === 'reconnecting'`)
	// Offline, the board is dimmed and takes no click (issue 43): the
	// flag is neither drawn nor sent.
	p.clickCell(mines[1], 3, input.MouseButtonRight)
	if st, _ := p.cell("#board", mines[1], 3); st != "hidden" {
		t.Errorf("a right click while offline made the cell %q", st)
	}
	if err := srv.up(nil); err != nil {
		t.Fatal(err)
	}
	p.waitFor("online after the restart", `window.__conn.at(-1) === 'online' && document.getElementById('conn').dataset.connState === 'online'`, 15*time.Second)
	if got := eval[int](p, `document.querySelectorAll('#board td[data-status="revealed"]').length`); got != revealed {
		t.Errorf("%d cells revealed after the restart, want %d", got, revealed)
	}
	p.waitCell("#board", mines[0], 3, "flagged", "")
	p.waitCell("#board", mines[1], 3, "hidden", "") // the offline flag was not sent

	// The game goes on.
	p.clickCell(mines[1], 3, input.MouseButtonRight)
	p.waitCell("#board", mines[1], 3, "flagged", "")
	p.chordCell(1, 2)
	p.waitCell("#board", safe, 3, "revealed", "*")
	p.wait("the win after the restart", `document.getElementById('result')?.dataset.status === 'won'`)
	// The time shown is the host's, from the result.
	shown := eval[float64](p, `Number(document.getElementById('result-time').dataset.ms)`)
	if host := resultTime(t, p); math.Round(host) != shown {
		t.Errorf("the result time shown is %v ms, the host's is %v ms", shown, host)
	}
	if n := checkNoSecrets(t, p); n != 1 {
		t.Errorf("checked %d matches, want 1", n)
	}
}

// TestTakeBack opens the same room in a second tab of the same browser
// context (so the same seat token): the first tab shows the take-back
// button, and taking the seat back moves the button to the second tab.
func TestTakeBack(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	tab1 := newUser(t, srv, "tab1", desktop)
	code := tab1.createMinesweeper(msSettings{mode: "coop", level: "beginner"}, "Ann")
	tab1.wait("the host's lobby", `document.getElementById('start')`)

	tab2 := tab1.newTab("tab2")
	tab2.open("/r/" + code)
	tab2.wait("the second tab online with the seat", `document.getElementById('conn').dataset.connState === 'online' && document.querySelector('#seats .seat-you[data-seat="0"]')`)
	tab1.wait("the take-back button", `document.getElementById('conn').dataset.connState === 'closed' && document.getElementById('banner').dataset.kind === 'replaced' && document.getElementById('takeback')`)
	if !strings.Contains(eval[string](tab1, `document.getElementById('banner').innerText`), "open in another tab") {
		t.Errorf("banner: %q", eval[string](tab1, `document.getElementById('banner').innerText`))
	}

	tab1.screenshot("takeback-desktop")
	tab1.click("#takeback")
	tab1.wait("the first tab online again", `document.getElementById('conn').dataset.connState === 'online' && document.getElementById('banner').hidden`)
	tab2.wait("the take-back button in the second tab", `document.getElementById('conn').dataset.connState === 'closed' && document.getElementById('takeback')`)
	// The seat plays from tab 1.
	tab1.click("#start")
	tab1.wait("the match", `document.body.dataset.phase === 'running' && document.querySelectorAll('#board td').length === 81`)
	tab1.clickCell(4, 4, input.MouseButtonLeft)
	tab1.waitCell("#board", 4, 4, "revealed", "0")
	tab1.waitFrames("receipts of the reconnect, the start and the reveal", func(frames []string) bool {
		receipts := 0
		for _, f := range frames {
			if strings.Contains(f, `"type":"receipt"`) && strings.Contains(f, `"ok":true`) {
				receipts++
			}
		}
		return receipts >= 3
	})
}

// TestRoomLobby: the host changes the settings (the other player sees
// them and loses its readiness), then removes the other player's seat.
func TestRoomLobby(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	ann := newUser(t, srv, "ann", desktop)
	code := ann.createMinesweeper(msSettings{mode: "coop", level: "beginner"}, "Ann")
	bob := newUser(t, srv, "bob", phone)
	bob.joinAsPlayer(code, "Bob")
	bob.wait("Bob's lobby", `document.getElementById('settings-text')?.textContent.includes('Co-op · Beginner 9×9')`)
	bob.click("#ready")
	ann.wait("Bob ready", `document.querySelector('#seats .seat[data-seat="1"][data-ready="true"]')`)
	bob.wait("Bob's ready button", `document.getElementById('ready').dataset.ready === 'true'`)
	bob.screenshot("room-lobby-phone")

	ann.setField("#room-mode", "race")
	ann.setField("#room-level", "intermediate")
	ann.click("#save-settings")
	bob.wait("the new settings", `document.getElementById('settings-text').textContent.includes('Race · Intermediate 16×16, 40 mines')`)
	bob.wait("readiness cleared", `document.getElementById('ready').dataset.ready === 'false'`)
	ann.wait("Bob not ready", `document.querySelector('#seats .seat[data-seat="1"][data-ready="false"]')`)

	ann.click(`.remove-seat[data-seat="1"]`)
	bob.wait("the removal", `document.getElementById('banner').dataset.kind === 'left' && document.getElementById('banner').innerText.includes('removed')`)
	ann.wait("one seat left", `document.querySelectorAll('#seats .seat[data-seat]').length === 1`)
	if tok := eval[string](bob, `localStorage.getItem('roomd.token.`+code+`') || ''`); tok != "" {
		t.Errorf("Bob's token %q is still stored after the removal", tok)
	}
	bob.open("/r/" + code)
	bob.wait("the join form again", `document.getElementById('join-player')`)

	// The room closes (4004): the page says so and forgets the token.
	srv.closeRoom(code)
	ann.wait("the closed room", `document.getElementById('gone')?.dataset.why === 'closed' && document.getElementById('conn').dataset.connState === 'closed'`)
	if tok := eval[string](ann, `localStorage.getItem('roomd.token.`+code+`') || ''`); tok != "" {
		t.Errorf("Ann's token %q is still stored after the room closed", tok)
	}
}

// TestBadTokenForgotten: a page whose stored token is not one of the
// room's seats gets close 4006: it says the seat is no longer its own,
// forgets the token and stays closed (no reconnect).
func TestBadTokenForgotten(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	ann := newUser(t, srv, "ann", desktop)
	code := ann.createMinesweeper(msSettings{mode: "coop", level: "beginner"}, "Ann")
	eve := newUser(t, srv, "eve", desktop)
	eve.open("/")
	eve.wait("the page", `document.querySelector('#create-form')`)
	eval[bool](eve, `(localStorage.setItem('roomd.token.`+code+`', 'not-a-seat-token'), true)`)
	eve.open("/r/" + code)
	eve.wait("the closed banner", `document.getElementById('conn').dataset.connState === 'closed' && document.getElementById('banner').dataset.kind === 'left' && document.getElementById('banner').innerText.includes('no longer yours')`)
	if tok := eval[string](eve, `localStorage.getItem('roomd.token.`+code+`') || ''`); tok != "" {
		t.Errorf("the bad token %q is still stored", tok)
	}
	hellos := 0
	for _, f := range eve.wsSent() {
		if strings.Contains(f, `"type":"hello"`) {
			hellos++
		}
	}
	if hellos != 1 {
		t.Errorf("%d hellos sent; want 1 (no reconnect after 4006)", hellos)
	}
}

// TestNim plays Hidden Nim against an AI: the player sees its own secret
// and nobody else's until the end, when every secret shows.
func TestNim(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	p := newUser(t, srv, "cy", desktop)
	p.open("/")
	p.wait("the lobby", `document.querySelector('#create-form')`)
	p.click(`label[data-game="nim"]`)
	p.setField("#new-pile", "9")
	p.setField("#new-name", "Cy")
	p.click("#create")
	p.wait("the Nim room", `location.pathname.startsWith('/r/') && document.getElementById('fill-ai')`)
	p.click("#fill-ai")
	p.wait("the AI seat", `document.querySelectorAll('#seats .seat[data-ai="true"]').length === 1`)
	p.click("#start")
	p.wait("the pile", `document.getElementById('pile')?.dataset.pile === '9'`)
	secret := eval[string](p, `document.getElementById('secret').dataset.secret || ''`)
	if secret < "1" || secret > "3" || len(secret) != 1 {
		t.Fatalf("own secret %q", secret)
	}
	for i := 0; ; i++ {
		if i > 20 {
			t.Fatal("the game does not end")
		}
		p.wait("my turn or the end", `document.getElementById('turn').dataset.mine === 'true' || !document.getElementById('nim-result').hidden`)
		if eval[bool](p, `!document.getElementById('nim-result').hidden`) {
			break
		}
		if eval[bool](p, `!!document.getElementById('secrets')`) {
			t.Fatal("every secret shows before the end")
		}
		pile := eval[int](p, `Number(document.getElementById('pile').dataset.pile)`)
		p.click("#take-1")
		p.wait("the take", fmt.Sprintf(`Number(document.getElementById('pile').dataset.pile) < %d`, pile))
	}
	p.wait("every secret", `document.querySelectorAll('#secrets li').length === 2`)
	if got := eval[string](p, `document.querySelector('#secrets li[data-seat="0"]').dataset.secret`); got != secret {
		t.Errorf("the end shows my secret as %s, it was %s", got, secret)
	}
	// Leaving gives the seat up (close 4002): the page says so and the
	// token is forgotten.
	code := p.roomCode()
	p.click("#leave")
	p.wait("the left banner", `document.getElementById('banner').dataset.kind === 'left' && document.getElementById('conn').dataset.connState === 'closed'`)
	if tok := eval[string](p, `localStorage.getItem('roomd.token.`+code+`') || ''`); tok != "" {
		t.Errorf("token %q still stored after leaving", tok)
	}

	// Before the end, no frame carried another seat's secret.
	for i, f := range p.wsFrames() {
		if strings.Contains(f, `"secrets"`) {
			break
		}
		if strings.Contains(f, `"secret":`) && !strings.Contains(f, `"secret":`+secret) {
			t.Errorf("frame %d carries a secret that is not mine: %s", i, f)
		}
	}
}

// TestClientProtocol runs the client module against a fake WebSocket in
// the browser (testdata/client_test.js): backoff, revisions and gaps,
// snapshots of old and new epochs, action ids, receipts, the resend after
// a reconnect, offline refusals, retryAfterMs, and the close codes; and
// the ticks of a real-time match (testdata/client_tick_test.js).
func TestClientProtocol(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t)
	p := newUser(t, srv, "client", desktop)
	p.open("/")
	p.wait("the page", `document.querySelector('#create-form')`)
	for _, name := range []string{"client_test.js", "client_tick_test.js"} {
		script, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		js := strings.ReplaceAll(string(script), "ASSETS", web.AssetPrefix+web.Version())
		ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
		failures, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](js, chromedp.EvalAwaitPromise))
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, f := range failures {
			t.Errorf("%s: %s", name, f)
		}
	}
}
