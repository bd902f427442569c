package babagame

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/baba"
	"github.com/roomd/roomd/core/session"
)

func TestInfoAndSetup(t *testing.T) {
	info := Game.Info()
	if info.ID != "baba" || info.Name != "Baba" || info.RulesVersion != "baba/1" {
		t.Errorf("info %+v", info)
	}
	if info.Ranking != nil || info.Tick != nil {
		t.Errorf("ranking %+v, tick %+v: want neither", info.Ranking, info.Tick)
	}
	want := session.Mode{ID: "coop", Name: "Co-op", MinSeats: 1, MaxSeats: 4}
	if len(info.Modes) != 1 || info.Modes[0] != want {
		t.Errorf("modes %+v, want [%+v]", info.Modes, want)
	}
	for _, raw := range []string{``, `null`, `{}`, `{"level":"baba-is-you","control":"shared"}`} {
		setup, err := Game.Configure(json.RawMessage(raw))
		if err != nil || setup.Mode != want || setup.Board != "" || string(setup.Config) != `{"level":"baba-is-you","control":"shared"}` {
			t.Errorf("Configure(%s) = %+v, %v", raw, setup, err)
		}
	}
	setup, err := Game.Configure(json.RawMessage(` {"control":"turns", "level":"lava-is-hot"}`))
	if err != nil || string(setup.Config) != `{"level":"lava-is-hot","control":"turns"}` {
		t.Errorf("Configure turns: %s, %v", setup.Config, err)
	}
}

func TestConfigRefused(t *testing.T) {
	for _, tt := range configCases {
		if tt.ok {
			continue
		}
		t.Run(tt.raw, func(t *testing.T) {
			if _, err := Game.Configure(json.RawMessage(tt.raw)); err == nil {
				t.Errorf("Configure accepted %s", tt.raw)
			}
			if _, err := Game.New(session.IntSeed(1), json.RawMessage(tt.raw), 1); err == nil {
				t.Errorf("New accepted %s", tt.raw)
			}
		})
	}
	for _, c := range []Config{{Level: "nope"}, {Control: "solo"}} {
		if _, err := (Rules{}).Init(session.IntSeed(1), c, 1); err == nil {
			t.Errorf("Init accepted %+v", c)
		}
	}
	if _, err := Game.Configure(json.RawMessage(`{"level":"baba-is-you","level":"rock-is-you"}`)); err == nil {
		t.Error("Configure accepted a duplicate key")
	}
}

func TestSeatCounts(t *testing.T) {
	for seats := range 6 {
		_, err := Game.New(session.IntSeed(1), nil, seats)
		if (err == nil) != (seats >= 1 && seats <= 4) {
			t.Errorf("New with %d seats: %v", seats, err)
		}
	}
}

func TestStatusAndPending(t *testing.T) {
	s := newSession(t, `{}`, 3)
	check := func(when, phase string, started bool, pending []Seat) {
		t.Helper()
		st := s.Status()
		if st.Phase != phase || st.Started != started || st.Over != (phase == PhaseWon) {
			t.Errorf("%s: status %+v", when, st)
		}
		if p := s.Match().Pending(); !slices.Equal(p, pending) || p == nil {
			t.Errorf("%s: pending %#v, want %v", when, p, pending)
		}
		if _, ok := s.Match().AIMove(0, session.IntSeed(7).Source()); ok {
			t.Errorf("%s: an AI move", when)
		}
	}
	check("fresh", PhasePlaying, false, []Seat{0, 1, 2})
	play(t, s, 1, "r")
	check("after a step", PhasePlaying, true, []Seat{0, 1, 2})
	play(t, s, 2, "z")
	check("undone", PhasePlaying, true, []Seat{0, 1, 2})
	play(t, s, 0, "rrrrrr")
	check("won", PhaseWon, true, []Seat{})
	if w := s.Status().Outcome; !slices.Equal(w.Winners, []Seat{0, 1, 2}) || w.Ranked {
		t.Errorf("outcome %+v, want every seat, unranked", w)
	}
	play(t, s, 1, "z")
	check("undone after the win", PhasePlaying, true, []Seat{0, 1, 2})
	play(t, s, 0, "r")
	check("won again", PhaseWon, true, []Seat{})
	play(t, s, 2, "x")
	check("restarted", PhasePlaying, true, []Seat{0, 1, 2})
}

// In turns control the seats step in seat order; any seat may undo or
// restart, which does not pass the turn.
func TestTurns(t *testing.T) {
	s := newSession(t, `{"control":"turns"}`, 3)
	turn := func(want Seat) {
		t.Helper()
		v := s.Match().View(session.Spectator).(View)
		if p := s.Match().Pending(); !slices.Equal(p, []Seat{want}) || v.Turn == nil || *v.Turn != want {
			t.Fatalf("pending %v, view turn %v; want %d", p, v.Turn, want)
		}
	}
	turn(0)
	play(t, s, 0, "r")
	turn(1)
	if _, err := s.Apply(0, step('r')); asRejection(t, err).Code != session.CodeNotYourTurn {
		t.Fatalf("seat 0 twice: %v", err)
	}
	play(t, s, 1, "r")
	play(t, s, 0, "z")
	turn(2)
	play(t, s, 2, "r")
	play(t, s, 0, "r")
	play(t, s, 2, "x")
	turn(1)
	if v := s.Match().View(0).(View); v.Moves != 0 {
		t.Errorf("moves %d after a restart", v.Moves)
	}
}

// Refused moves through the typed rules: the code, whether malformed, and
// an untouched state.
func TestRulesRefuse(t *testing.T) {
	tests := []struct {
		name      string
		config    string
		before    string
		seat      Seat
		move      Move
		code      string
		malformed bool
	}{
		{"seat -1", `{}`, "", -1, Move{MoveStep, baba.Up}, session.CodeNoSuchSeat, true},
		{"seat 2 of 2", `{}`, "", 2, Move{Type: MoveUndo}, session.CodeNoSuchSeat, true},
		{"no such type", `{}`, "", 0, Move{Type: "redo"}, session.CodeMalformedInput, true},
		{"no such direction", `{}`, "", 0, Move{MoveStep, 7}, session.CodeMalformedInput, true},
		{"undo at the start", `{}`, "", 1, Move{Type: MoveUndo}, CodeAtStart, false},
		{"restart at the start", `{}`, "", 0, Move{Type: MoveRestart}, CodeAtStart, false},
		{"undo back to the start", `{}`, "rz", 0, Move{Type: MoveUndo}, CodeAtStart, false},
		{"out of turn", `{"control":"turns"}`, "", 1, Move{MoveStep, baba.Up}, session.CodeNotYourTurn, false},
		{"a step after the win", `{}`, "rrrrrr", 1, Move{MoveStep, baba.Up}, CodeFinished, false},
		{"after the win, out of turn", `{"control":"turns"}`, "rrrrrr", 1, Move{MoveStep, baba.Up}, CodeFinished, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t, tt.config, 2)
			for i := range len(tt.before) { // in turns, each seat in its turn
				play(t, s, s.Match().Pending()[0], tt.before[i:i+1])
			}
			st := stateOf(t, s.Match())
			before, played, moves := everything(t, s.Match(), 2), st.played, len(st.h.dirs)
			_, events, err := Rules{}.Apply(st, session.Input[Move]{Seat: tt.seat, Move: tt.move})
			rej := asRejection(t, err)
			if rej.Code != tt.code || rej.Malformed != tt.malformed || events != nil {
				t.Errorf("rejection %+v, events %v; want code %s malformed %v", rej, events, tt.code, tt.malformed)
			}
			if after := everything(t, s.Match(), 2); after != before || st.played != played || len(st.h.dirs) != moves {
				t.Errorf("state changed:\n%s\nwas\n%s", after, before)
			}
		})
	}
}

// The step limit: a match keeps MaxSteps steps, then only undo or restart.
func TestTooManySteps(t *testing.T) {
	m, err := Game.New(session.IntSeed(1), nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range MaxSteps {
		d := "ud"[i%2 : i%2+1]
		if _, err := m.Apply(session.Command{Move: step(d[0])}); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	if _, err := m.Apply(session.Command{Move: step('u')}); asRejection(t, err).Code != CodeTooManySteps {
		t.Fatalf("step %d: %v", MaxSteps+1, err)
	}
	for _, c := range []json.RawMessage{undo, step('d'), restart} {
		if _, err := m.Apply(session.Command{Move: c}); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
	}
}

// Refused commands through a GameSession: typed, logged nowhere, and the
// match and its clock untouched.
func TestSessionRejects(t *testing.T) {
	tests := []struct {
		name      string
		before    string
		seat      Seat
		command   string
		code      string
		malformed bool
	}{
		{"undo at the start", "", 0, `{"type":"undo"}`, CodeAtStart, false},
		{"after the win", "rrrrrr", 1, `{"type":"step","dir":"up"}`, CodeFinished, false},
		{"a bad direction", "", 0, `{"type":"step","dir":"north"}`, session.CodeMalformedInput, true},
		{"unknown type", "", 0, `{"type":"redo"}`, session.CodeUnknownMove, true},
		{"not an object", "", 0, `["undo"]`, session.CodeMalformedInput, true},
		{"spectator", "", session.Spectator, `{"type":"step","dir":"up"}`, session.CodeNoSuchSeat, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t, `{}`, 2)
			play(t, s, 0, tt.before)
			before, logged := everything(t, s.Match(), 2), len(s.Log())
			t0, started := s.Started()
			st, err := s.Apply(tt.seat, json.RawMessage(tt.command))
			rej := asRejection(t, err)
			if rej.Code != tt.code || rej.Malformed != tt.malformed || st != nil {
				t.Errorf("rejection %+v (step %v), want code %s malformed %v", rej, st, tt.code, tt.malformed)
			}
			if after := everything(t, s.Match(), 2); after != before || len(s.Log()) != logged {
				t.Errorf("state or log changed:\n%s\nwas\n%s", after, before)
			}
			if t1, ok := s.Started(); t1 != t0 || ok != started {
				t.Errorf("clock started %v at %v, was %v at %v", ok, t1, started, t0)
			}
		})
	}
}

// Nothing is hidden: every viewer gets the same view, events and audience.
func TestSameForEveryone(t *testing.T) {
	s := newSession(t, `{"level":"water-is-sink"}`, 4)
	for i, c := range []byte("rrzrrrxrrrrrr") {
		st, err := s.Apply(i%4, command(c))
		if err != nil {
			t.Fatalf("command %d: %v", i, err)
		}
		want := encode(t, s.Match().View(session.Spectator)) + encode(t, st.Beats(session.Spectator))
		for _, v := range sessionViewers(4) {
			if got := encode(t, s.Match().View(v)) + encode(t, st.Beats(v)); got != want || s.Match().Audience(v) != 0 {
				t.Errorf("command %d, viewer %d: %s, audience %d; want %s and 0", i, v, got, s.Match().Audience(v), want)
			}
		}
	}
	if !s.Status().Over {
		t.Fatal("the solution did not win")
	}
}

// sessionViewers lists every seat of a match of seats, then the spectator.
func sessionViewers(seats int) []Seat {
	out := make([]Seat, 0, seats+1)
	for i := range seats {
		out = append(out, i)
	}
	return append(out, session.Spectator)
}

// Undo across the cached clones: after each undo from 3·CacheEvery+5
// steps down to none, the engine is the level replayed from its start.
func TestUndoAcrossCache(t *testing.T) {
	s := newSession(t, `{"level":"wall-is-stop"}`, 1)
	walk := strings.Repeat("ulrd", (3*CacheEvery+5)/4) + "u"
	play(t, s, 0, walk)
	st := stateOf(t, s.Match())
	if len(st.h.cache) != len(walk)/CacheEvery+1 {
		t.Fatalf("%d clones after %d steps", len(st.h.cache), len(walk))
	}
	for range walk {
		play(t, s, 0, "z")
		checkReplayed(t, stateOf(t, s.Match()))
	}
	if v := s.Match().View(0).(View); v.Moves != 0 {
		t.Errorf("moves %d after undoing everything", v.Moves)
	}
	play(t, s, 0, "uurrrrr")
	if !s.Status().Over {
		t.Error("the solution after undoing everything does not win")
	}
}
