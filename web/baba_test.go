package web_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp/kb"

	"github.com/roomd/roomd/core/baba"
	"github.com/roomd/roomd/core/babagame"
	"github.com/roomd/roomd/core/session/sessiontest"
)

// TestBaba creates a Baba room from the lobby (level Baba Is You, shared
// control), starts it and plays the level's known solution ("rrrrrr") to
// the win: most steps from the keyboard (arrows and WASD, three presses at
// once among them), some with the on-screen arrows. On the way: a step and
// its undo (Z) put the moves and Baba back, a step and the Undo button
// do too, and a restart (R twice) mid-way starts the level over. The page's
// result must be the server's, its board the view the server's beats
// make (View.Apply in Go), and "Next level" must start the next level in
// the same room.
func TestBaba(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t, withGames(babagame.Game))
	p := newUser(t, srv, "bea", desktop)
	createBaba(p, "Bea", babagame.ControlShared)
	p.click("#start")
	p.wait("the level", `document.querySelectorAll('#baba-board .baba-obj').length === 12 && document.getElementById('baba').dataset.mine === 'true'`)
	if got := eval[string](p, `document.activeElement?.id || ''`); got != "baba-board" {
		t.Errorf("the focus is on %q, not the board: the keys would not reach it at once", got)
	}
	if got := eval[string](p, `document.getElementById('baba-status').textContent`); !strings.Contains(got, "arrow keys") {
		t.Errorf("status %q", got)
	}
	rules := eval[[]string](p, `[...document.querySelectorAll('#baba-rules li[data-active="true"]')].map((li) => li.dataset.rule)`)
	if want := []string{"BABA IS YOU", "FLAG IS WIN", "ROCK IS PUSH", "TEXT IS PUSH"}; !slices.Equal(rules, want) {
		t.Errorf("rules %q, want %q", rules, want)
	}
	if n := eval[int](p, `document.querySelectorAll('#baba-board .baba-word').length`); n != 9 {
		t.Errorf("%d word blocks, want 9", n)
	}

	// A step and its undo, from the keyboard.
	babaAt(p, 1, 0)
	p.key(kb.ArrowRight)
	babaAt(p, 2, 1)
	p.key("z")
	babaAt(p, 1, 0)
	if v := eval[bool](p, `document.getElementById('baba-undo').disabled && document.getElementById('baba-restart').disabled`); !v {
		t.Error("undo and restart are enabled with no step to revert")
	}

	// Three steps (WASD, an on-screen arrow, an arrow key), then a restart.
	p.key("d")
	babaAt(p, 2, 1)
	p.click(`#baba-pad button[data-dir="right"]`)
	babaAt(p, 3, 2)
	p.key(kb.ArrowRight)
	babaAt(p, 4, 3)
	p.wait("the rock pushed", `document.querySelector('#baba-board .baba-obj[data-kind="rock"]').dataset.x === '5'`)
	p.screenshot("baba-game-desktop")
	p.key("r")
	p.wait("restart armed", `document.getElementById('baba-restart').dataset.armed === 'true'`)
	if got := eval[string](p, `document.getElementById('baba-moves').dataset.moves`); got != "3" {
		t.Fatalf("one press of R restarted: moves %s", got)
	}
	p.key("R")
	babaAt(p, 1, 0)
	p.wait("the rock back", `document.querySelector('#baba-board .baba-obj[data-kind="rock"]').dataset.x === '4'`)

	// A step and the Undo button, then the solution: three arrow keys at
	// once (sent one after another), two on-screen arrows and a D.
	p.key(kb.ArrowRight)
	babaAt(p, 2, 1)
	p.click("#baba-undo")
	babaAt(p, 1, 0)
	p.key(kb.ArrowRight + kb.ArrowRight + kb.ArrowRight)
	babaAt(p, 4, 3)
	p.click(`#baba-pad button[data-dir="right"]`)
	babaAt(p, 5, 4)
	p.click(`#baba-pad button[data-dir="right"]`)
	babaAt(p, 6, 5)
	p.key("d")
	p.wait("the win", `document.getElementById('baba').dataset.won === 'true' && !document.getElementById('baba-result').hidden`)
	babaAt(p, 7, 6)

	// The page shows what the server decided.
	status, winners := lastResult(t, p)
	if shown := eval[string](p, `document.getElementById('baba-result').dataset.status`); status != babagame.PhaseWon || shown != status || !slices.Equal(winners, []int{0}) {
		t.Errorf("the server's result is %q (winners %v), the page shows %q", status, winners, shown)
	}
	if got := eval[string](p, `document.querySelector('#baba-result h2').textContent`); got != "Level complete!" {
		t.Errorf("result title %q", got)
	}
	if got := eval[string](p, `document.getElementById('baba-status').textContent`); got != "Level complete in 6 moves!" {
		t.Errorf("status %q", got)
	}
	if n := eval[int](p, `document.querySelectorAll('#baba-controls button:not(:disabled)').length`); n != 0 {
		t.Errorf("%d controls enabled after the win", n)
	}
	checkBabaBoard(t, p)
	sent := babaSent(p)
	if want := "rzrrrxrzrrrrrr"; strings.Join(sent, "") != want {
		t.Errorf("commands sent %q, want %q (r: a step right, z: undo, x: restart)", strings.Join(sent, ""), want)
	}

	p.screenshot("baba-end-desktop")
	p.darkMode(true)
	p.screenshot("baba-end-dark-desktop")
	p.darkMode(false)
	p.resize(phone)
	p.screenshot("baba-end-phone")
	p.resize(desktop)

	// The next level: a rematch under the next level's settings, the seats
	// kept ("Play again" is the same rematch without settings).
	if got := eval[string](p, `document.getElementById('baba-next').textContent`); got != "Next level: Rock Is You" {
		t.Errorf("the next-level button says %q", got)
	}
	if !eval[bool](p, `!!document.getElementById('new-game')`) {
		t.Error("no Play again button")
	}
	p.click("#baba-next")
	p.wait("the next level", `document.getElementById('baba').dataset.level === 'rock-is-you' && document.getElementById('baba').dataset.moves === '0' && document.getElementById('baba-result').hidden && document.getElementById('baba').dataset.mine === 'true'`)
	if got := srv.roomInfo(p.roomCode())["settings"]; !strings.Contains(fmt.Sprint(got), "rock-is-you") {
		t.Errorf("the room's settings after the next level: %v", got)
	}
}

// TestBabaTurns: two players in turns control and a spectator. Only the
// seat whose turn it is may step: the other's arrows are disabled and its
// keys send nothing; each step passes the turn; an undo by either seat
// does not. The spectator sees the same board, without controls.
func TestBabaTurns(t *testing.T) {
	t.Parallel()
	srv := startRoomd(t, withGames(babagame.Game))
	ann := newUser(t, srv, "ann", desktop)
	code := createBaba(ann, "Ann", babagame.ControlTurns)
	bob := newUser(t, srv, "bob", phone)
	bob.joinAsPlayer(code, "Bob")
	bob.wait("Bob's seat", `document.querySelector('#seats .seat-you[data-seat="1"]') && document.getElementById('ready')`)
	bob.click("#ready")
	ann.wait("Bob ready", `document.querySelector('#seats .seat[data-seat="1"][data-ready="true"]')`)
	eve := newUser(t, srv, "eve", desktop)
	eve.watchRoom(code, 2)
	ann.click("#start")

	turn := func(seat int) {
		t.Helper()
		for i, p := range []*page{ann, bob} {
			p.wait(fmt.Sprintf("seat %d's turn", seat), fmt.Sprintf(`document.getElementById('baba-status')?.dataset.turn === '%d' && document.getElementById('baba').dataset.mine === '%v'`, seat, i == seat))
		}
		eve.wait(fmt.Sprintf("seat %d's turn (spectator)", seat), fmt.Sprintf(`document.getElementById('baba-status')?.dataset.turn === '%d'`, seat))
	}
	turn(0)
	if got := eval[string](bob, `document.getElementById('baba-status').textContent`); !strings.HasPrefix(got, "Ann's turn") {
		t.Errorf("Bob's status %q", got)
	}
	if got := eval[string](ann, `document.getElementById('baba-status').textContent`); !strings.HasPrefix(got, "Your turn") {
		t.Errorf("Ann's status %q", got)
	}
	if n := eval[int](bob, `document.querySelectorAll('#baba-pad button:disabled').length`); n != 4 {
		t.Errorf("%d of Bob's arrows disabled out of turn, want 4", n)
	}
	if !eval[bool](eve, `document.getElementById('baba-controls').hidden && document.getElementById('baba-status').textContent.includes('watching')`) {
		t.Error("the spectator has controls, or is not told it is watching")
	}

	// Bob's key out of turn sends nothing; Ann's step passes the turn.
	bob.key(kb.ArrowRight)
	ann.key(kb.ArrowRight)
	babaAt(ann, 2, 1)
	turn(1)
	if n := len(babaSent(bob)); n != 0 {
		t.Errorf("Bob sent %d commands out of turn", n)
	}
	ann.key(kb.ArrowDown) // not Ann's turn any more
	bob.click(`#baba-pad button[data-dir="right"]`)
	babaAt(ann, 3, 2)
	turn(0)
	if sent := strings.Join(babaSent(ann), ""); sent != "r" {
		t.Errorf("Ann sent %q, want one step", sent)
	}

	// Bob may undo out of turn; the turn stays with Ann.
	bob.click("#baba-undo")
	babaAt(ann, 2, 1)
	turn(0)
	for _, p := range []*page{bob, eve} {
		babaAt(p, 2, 1)
		checkBabaBoard(t, p)
		if a, b := babaObjects(t, ann), babaObjects(t, p); !slices.Equal(a, b) {
			t.Errorf("%s's board differs from Ann's:\n%v\n%v", p.name, b, a)
		}
	}
	bob.screenshot("baba-turns-phone")
}

// createBaba creates a room of Baba Is You from the lobby with a control
// and returns its code once the room's lobby shows.
func createBaba(p *page, name, control string) string {
	p.t.Helper()
	p.gameForm("baba")
	if eval[bool](p, `!!document.getElementById('new-mode')`) {
		p.t.Error("Baba has one mode, yet the form offers a choice")
	}
	p.setField("#new-level", "baba-is-you")
	p.setField("#new-control", control)
	p.setField("#new-name", name)
	p.click("#create")
	p.wait("the room's lobby", `location.pathname.startsWith('/r/') && document.getElementById('start')`)
	if got := eval[string](p, `document.getElementById('room-main').innerText`); !strings.Contains(got, "Baba Is You") {
		p.t.Errorf("the room's lobby does not name the level: %q", got)
	}
	return p.roomCode()
}

// babaAt waits until the baba is at column x (row 2) and the moves count
// is moves.
func babaAt(p *page, x, moves int) {
	p.t.Helper()
	p.wait(fmt.Sprintf("baba at x=%d after %d moves", x, moves), fmt.Sprintf(`(() => {
		const b = document.querySelector('#baba-board .baba-obj[data-kind="baba"]');
		return b && b.dataset.x === '%d' && b.dataset.y === '2' && document.getElementById('baba-moves').dataset.moves === '%d'; })()`, x, moves))
}

// babaObjects returns the objects the page's board shows, in id order.
func babaObjects(t *testing.T, p *page) []baba.Object {
	t.Helper()
	raw := eval[string](p, `JSON.stringify([...document.querySelectorAll('#baba-board .baba-obj')].map((o) => ({
		id: Number(o.dataset.id), kind: o.dataset.kind, x: Number(o.dataset.x), y: Number(o.dataset.y)})).sort((a, b) => a.id - b.id))`)
	var out []baba.Object
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatalf("%s: board %s: %v", p.name, raw, err)
	}
	return out
}

// checkBabaBoard checks the page's board and rules against the view the
// page's frames make with core/babagame: the last view sent, and the
// beats of every update after it applied by View.Apply.
func checkBabaBoard(t *testing.T, p *page) {
	t.Helper()
	var v *babagame.View
	for _, f := range p.wsFrames() {
		var m struct {
			Type  string
			View  *babagame.View
			Beats []babagame.Event
		}
		if json.Unmarshal([]byte(f), &m) != nil || (m.Type != "snapshot" && m.Type != "update") {
			continue
		}
		if m.View != nil {
			v = m.View
		}
		if v != nil && m.Type == "update" {
			v.Apply(m.Beats)
		}
	}
	if v == nil {
		t.Fatalf("%s: no view in the frames", p.name)
	}
	if got := babaObjects(t, p); !slices.Equal(got, v.Objects) {
		t.Errorf("%s: the board shows\n%v\nthe server's beats make\n%v", p.name, got, v.Objects)
	}
	rules := eval[[]string](p, `[...document.querySelectorAll('#baba-rules li[data-rule]')].map((li) => li.dataset.rule)`)
	if !slices.Equal(rules, v.Rules) {
		t.Errorf("%s: rules %q, the server's %q", p.name, rules, v.Rules)
	}
	if got := eval[string](p, `document.getElementById('baba-moves').dataset.moves`); got != fmt.Sprint(v.Moves) {
		t.Errorf("%s: %s moves shown, the server's view has %d", p.name, got, v.Moves)
	}
}

// babaSent returns the game commands the page sent, a letter each: the
// first letter of a step's direction, z for undo, x for restart.
func babaSent(p *page) []string {
	var out []string
	for _, f := range p.wsSent() {
		var m struct {
			Type    string
			Command *struct{ Type, Dir string }
		}
		if json.Unmarshal([]byte(f), &m) != nil || m.Type != "command" || m.Command == nil {
			continue
		}
		switch m.Command.Type {
		case babagame.MoveStep:
			out = append(out, m.Command.Dir[:min(1, len(m.Command.Dir))])
		case babagame.MoveUndo:
			out = append(out, "z")
		case babagame.MoveRestart:
			out = append(out, "x")
		}
	}
	return out
}

// TestBabaViewNode runs the page's view model (games/baba/view.js) under
// Node on matches played here with core/babagame: from each level's first
// view, the beats of every command applied must give the view the server
// projects, byte for byte — moves, destructions (sinking, melting), the
// objects an undo or a restart brings back, a conversion (a rock becoming
// a flag), rules made and broken, the turn.
func TestBabaViewNode(t *testing.T) {
	t.Parallel()
	node := findNode(t)
	type step struct {
		Beats json.RawMessage `json:"beats"`
		Want  string          `json:"want"`
	}
	type match struct {
		Name  string          `json:"name"`
		First json.RawMessage `json:"first"`
		Steps []step          `json:"steps"`
	}
	cases := []struct {
		level, control string
		seats          int
		commands       string // "udlr" steps, z undo, x restart; in turns control by the seat whose turn it is
	}{
		{"baba-is-you", babagame.ControlShared, 1, "rrzrrxrrrrrr"},
		{"rock-is-you", babagame.ControlShared, 2, "uurddd"},
		{"wall-is-stop", babagame.ControlTurns, 2, "uurzrrrrr"},
		{"rock-is-flag", babagame.ControlShared, 1, "ddzdlllu"},
		{"water-is-sink", babagame.ControlTurns, 3, "urrrrzzxrrrrrr"},
		{"lava-is-hot", babagame.ControlTurns, 2, "ddrrrrzzzzzzrrrrrr"},
	}
	var matches []match
	for _, tc := range cases {
		s := sessiontest.NewSession(t, babagame.Game, 1, fmt.Sprintf(`{"level":%q,"control":%q}`, tc.level, tc.control), tc.seats)
		m := match{Name: tc.level, First: mustJSON(t, s.Match().View(0))}
		for i := range len(tc.commands) {
			seat := 0
			if pending := s.Match().Pending(); len(pending) > 0 {
				seat = pending[0]
			}
			cmd := map[byte]string{'u': `{"type":"step","dir":"up"}`, 'd': `{"type":"step","dir":"down"}`, 'l': `{"type":"step","dir":"left"}`,
				'r': `{"type":"step","dir":"right"}`, 'z': `{"type":"undo"}`, 'x': `{"type":"restart"}`}[tc.commands[i]]
			st, err := s.Apply(seat, json.RawMessage(cmd))
			if err != nil {
				t.Fatalf("%s: command %d (%c): %v", tc.level, i, tc.commands[i], err)
			}
			m.Steps = append(m.Steps, step{Beats: mustJSON(t, st.Beats(0)), Want: string(mustJSON(t, s.Match().View(0)))})
		}
		if !s.Status().Over {
			t.Fatalf("%s: %q does not win", tc.level, tc.commands)
		}
		matches = append(matches, m)
	}
	base := staticURL(t)
	prog := `import { fromWire, applyBeats } from '` + base + `/js/games/baba/view.js';
const matches = ` + string(mustJSON(t, matches)) + `;
const failures = [];
for (const m of matches) {
  const v = fromWire(m.first);
  if (JSON.stringify(v) !== JSON.stringify(m.first)) failures.push(m.name + ': the first view reads as ' + JSON.stringify(v));
  m.steps.forEach((s, i) => {
    applyBeats(v, s.beats);
    const got = JSON.stringify(v);
    if (got !== s.want) failures.push(m.name + ' after command ' + i + ':\n got ' + got + '\nwant ' + s.want);
  });
}
process.stdout.write(JSON.stringify(failures));
`
	runNodeModule(t, "games/baba/view.js", node, prog)
}

// mustJSON encodes v, failing the test on error.
func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
