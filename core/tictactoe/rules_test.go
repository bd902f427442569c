package tictactoe

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/roomd/roomd/core/session"
)

func TestInfoAndSetup(t *testing.T) {
	info := Game.Info()
	if info.ID != "tictactoe" || info.Name != "Tic-tac-toe" || info.RulesVersion != "tictactoe/1" {
		t.Errorf("info %+v", info)
	}
	if info.Ranking != nil || info.Tick != nil {
		t.Errorf("ranking %+v, tick %+v: want neither", info.Ranking, info.Tick)
	}
	want := session.Mode{ID: "classic", Name: "Classic", MinSeats: 2, MaxSeats: 2, AI: true}
	if len(info.Modes) != 1 || info.Modes[0] != want {
		t.Errorf("modes %+v, want [%+v]", info.Modes, want)
	}
	for name, schema := range map[string]json.RawMessage{"config": info.ConfigSchema, "command": info.CommandSchema} {
		if !json.Valid(schema) {
			t.Errorf("%s schema is not JSON", name)
		}
	}
	for _, raw := range []string{``, `null`, `{}`, `{"mode":"classic"}`} {
		setup, err := Game.Configure(json.RawMessage(raw))
		if err != nil || setup.Mode != want || setup.Board != "" {
			t.Errorf("Configure(%s) = %+v, %v; want the classic mode and no board", raw, setup, err)
		}
	}
}

func TestConfigRefused(t *testing.T) {
	for _, raw := range []string{`{"mode":"blitz"}`, `{"mode":null}`, `{"size":4}`, `{"Mode":"classic"}`, `[]`, `3`, `"classic"`} {
		t.Run(raw, func(t *testing.T) {
			if _, err := Game.Configure(json.RawMessage(raw)); err == nil {
				t.Errorf("Configure accepted %s", raw)
			}
			if _, err := Game.New(session.IntSeed(1), json.RawMessage(raw), Seats); err == nil {
				t.Errorf("New accepted %s", raw)
			}
		})
	}
	if _, err := (Rules{}).Init(session.IntSeed(1), Config{Mode: "blitz"}, Seats); err == nil {
		t.Error("Init accepted mode blitz")
	}
	if got := encode(t, Config{}); got != `{"mode":"classic"}` {
		t.Errorf("Config{} encodes as %s", got)
	}
}

func TestSeatCounts(t *testing.T) {
	for seats := range 5 {
		_, err := Game.New(session.IntSeed(1), nil, seats)
		if (err == nil) != (seats == 2) {
			t.Errorf("New with %d seats: %v", seats, err)
		}
	}
}

// Every line wins, for X and for O, and the result names it.
func TestWins(t *testing.T) {
	tests := []struct {
		name    string
		squares []int // in turn from X; squares 0..8 in reading order
		winner  Seat
		line    []Cell
	}{
		{"X: top row", []int{0, 3, 1, 4, 2}, 0, []Cell{{0, 0}, {0, 1}, {0, 2}}},
		{"X: middle row", []int{3, 0, 4, 1, 5}, 0, []Cell{{1, 0}, {1, 1}, {1, 2}}},
		{"X: bottom row", []int{6, 0, 7, 1, 8}, 0, []Cell{{2, 0}, {2, 1}, {2, 2}}},
		{"X: left column", []int{0, 1, 3, 4, 6}, 0, []Cell{{0, 0}, {1, 0}, {2, 0}}},
		{"X: middle column", []int{1, 0, 4, 3, 7}, 0, []Cell{{0, 1}, {1, 1}, {2, 1}}},
		{"X: right column", []int{2, 0, 5, 3, 8}, 0, []Cell{{0, 2}, {1, 2}, {2, 2}}},
		{"X: diagonal", []int{0, 1, 4, 2, 8}, 0, []Cell{{0, 0}, {1, 1}, {2, 2}}},
		{"X: anti-diagonal", []int{2, 0, 4, 1, 6}, 0, []Cell{{0, 2}, {1, 1}, {2, 0}}},
		{"O: middle row", []int{0, 3, 1, 4, 8, 5}, 1, []Cell{{1, 0}, {1, 1}, {1, 2}}},
		{"O: anti-diagonal", []int{0, 2, 1, 4, 5, 6}, 1, []Cell{{0, 2}, {1, 1}, {2, 0}}},
		{"X on the last square", []int{0, 1, 2, 4, 3, 5, 7, 8, 6}, 0, []Cell{{0, 0}, {1, 0}, {2, 0}}},
		{"two lines at once: the first one counts", []int{1, 4, 2, 5, 3, 7, 6, 8, 0}, 0, []Cell{{0, 0}, {0, 1}, {0, 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t)
			play(t, s, tt.squares...)
			res, ok := s.Result()
			if !ok || res.Status != PhaseWon || !slices.Equal(res.Outcome.Winners, []Seat{tt.winner}) || res.Outcome.Ranked {
				t.Fatalf("result %+v (ok %v), want won by %d, unranked", res, ok, tt.winner)
			}
			v := s.Match().View(session.Spectator).(View)
			if v.Winner == nil || *v.Winner != tt.winner || !slices.Equal(v.Line, tt.line) {
				t.Errorf("view winner %v line %v, want %d and %v", v.Winner, v.Line, tt.winner, tt.line)
			}
			if p := s.Match().Pending(); len(p) != 0 || p == nil {
				t.Errorf("pending %#v after the end, want none", p)
			}
			if e := s.Elapsed(); e != float64(len(tt.squares)-1)*1000 {
				t.Errorf("elapsed %v, want from the first mark to the last", e)
			}
		})
	}
}

func TestDraw(t *testing.T) {
	s := newSession(t)
	// X O X / X O O / O X X
	play(t, s, 0, 1, 2, 4, 3, 5, 7, 6, 8)
	st := s.Status()
	if !st.Over || st.Phase != PhaseDraw || st.Outcome.Winners == nil || len(st.Outcome.Winners) != 0 {
		t.Fatalf("status %+v, want a draw with no winners", st)
	}
	v := s.Match().View(0).(View)
	if v.Winner != nil || v.Line != nil || v.Board != [Size]string{"XOX", "XOO", "OXX"} {
		t.Errorf("view %+v", v)
	}
}

func TestStatusAndTurns(t *testing.T) {
	s := newSession(t)
	check := func(when string, phase string, started bool, pending []Seat) {
		t.Helper()
		st := s.Status()
		if st.Phase != phase || st.Started != started || st.Over != (phase != PhaseActive) {
			t.Errorf("%s: status %+v", when, st)
		}
		if p := s.Match().Pending(); !slices.Equal(p, pending) || p == nil {
			t.Errorf("%s: pending %#v, want %v", when, p, pending)
		}
		for seat := range Seats {
			if _, ok := s.Match().AIMove(seat, session.IntSeed(7).Source()); ok != slices.Contains(pending, seat) {
				t.Errorf("%s: AIMove(%d) ok=%v with pending %v", when, seat, ok, pending)
			}
		}
	}
	check("fresh", PhaseActive, false, []Seat{0})
	play(t, s, 4)
	check("after X", PhaseActive, true, []Seat{1})
	if t0, ok := s.Started(); !ok || t0 != 1000 {
		t.Errorf("clock started at %v (%v), want 1000 from the first mark", t0, ok)
	}
	play(t, s, 0)
	check("after O", PhaseActive, true, []Seat{0})
	play(t, s, 1, 2, 7)
	check("X wins the middle column", PhaseWon, true, []Seat{})
}

// Refused moves through the typed rules: the code, whether malformed, and
// an untouched state.
func TestRulesRefuse(t *testing.T) {
	tests := []struct {
		name      string
		before    []int
		seat      Seat
		move      Move
		code      string
		malformed bool
	}{
		{"seat -1", nil, -1, Move{0, 0}, session.CodeNoSuchSeat, true},
		{"seat 2", nil, 2, Move{0, 0}, session.CodeNoSuchSeat, true},
		{"row 3", nil, 0, Move{3, 0}, session.CodeOutOfBounds, true},
		{"column -1", nil, 0, Move{0, -1}, session.CodeOutOfBounds, true},
		{"O first", nil, 1, Move{0, 0}, session.CodeNotYourTurn, false},
		{"X twice", []int{4}, 0, Move{0, 0}, session.CodeNotYourTurn, false},
		{"occupied by X", []int{4}, 1, Move{1, 1}, CodeOccupied, false},
		{"occupied by O", []int{4, 0}, 0, Move{0, 0}, CodeOccupied, false},
		{"after a win", []int{0, 3, 1, 4, 2}, 1, Move{2, 2}, session.CodeGameOver, false},
		{"after a win, the winner", []int{0, 3, 1, 4, 2}, 0, Move{2, 2}, session.CodeGameOver, false},
		{"off the grid after a win", []int{0, 3, 1, 4, 2}, 1, Move{9, 9}, session.CodeOutOfBounds, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t)
			play(t, s, tt.before...)
			st := stateOf(t, s.Match())
			before, cp := everything(t, s.Match()), *st
			_, events, err := Rules{}.Apply(st, session.Input[Move]{Seat: tt.seat, Move: tt.move})
			rej := asRejection(t, err)
			if rej.Code != tt.code || rej.Malformed != tt.malformed || events != nil {
				t.Errorf("rejection %+v, events %v; want code %s malformed %v", rej, events, tt.code, tt.malformed)
			}
			if after := everything(t, s.Match()); after != before || st.moves != cp.moves || st.board != cp.board {
				t.Errorf("state changed:\n%s\nwas\n%s", after, before)
			}
		})
	}
}

// Refused commands through a GameSession: typed, logged nowhere, and the
// match and its clock untouched.
func TestSessionRejects(t *testing.T) {
	tests := []struct {
		name      string
		before    []int
		seat      Seat
		command   string
		code      string
		malformed bool
	}{
		{"out of turn", nil, 1, `{"type":"mark","r":0,"c":0}`, session.CodeNotYourTurn, false},
		{"occupied", []int{4}, 1, `{"type":"mark","r":1,"c":1}`, CodeOccupied, false},
		{"after the end", []int{0, 3, 1, 4, 2}, 1, `{"type":"mark","r":2,"c":2}`, session.CodeGameOver, false},
		{"off the grid", nil, 0, `{"type":"mark","r":3,"c":0}`, session.CodeOutOfBounds, true},
		{"unknown type", nil, 0, `{"type":"take","n":1}`, session.CodeUnknownMove, true},
		{"no c", nil, 0, `{"type":"mark","r":1}`, session.CodeMalformedInput, true},
		{"not an object", nil, 0, `[1,1]`, session.CodeMalformedInput, true},
		{"spectator", nil, session.Spectator, `{"type":"mark","r":0,"c":0}`, session.CodeNoSuchSeat, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t)
			play(t, s, tt.before...)
			before, logged := everything(t, s.Match()), len(s.Log())
			t0, started := s.Started()
			step, err := s.Apply(tt.seat, json.RawMessage(tt.command))
			rej := asRejection(t, err)
			if rej.Code != tt.code || rej.Malformed != tt.malformed || step != nil {
				t.Errorf("rejection %+v (step %v), want code %s malformed %v", rej, step, tt.code, tt.malformed)
			}
			if after := everything(t, s.Match()); after != before || len(s.Log()) != logged {
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
	s := newSession(t)
	for i, sq := range []int{4, 0, 8, 2, 1, 7, 3, 5, 6} {
		seat := s.Match().Pending()[0]
		step, err := s.Apply(seat, mark(sq/Size, sq%Size))
		if err != nil {
			t.Fatalf("mark %d: %v", i, err)
		}
		want := encode(t, s.Match().View(session.Spectator)) + encode(t, step.Beats(session.Spectator))
		for _, v := range viewers {
			if got := encode(t, s.Match().View(v)) + encode(t, step.Beats(v)); got != want || s.Match().Audience(v) != 0 {
				t.Errorf("mark %d, viewer %d: %s, audience %d; want %s and 0", i, v, got, s.Match().Audience(v), want)
			}
		}
	}
	if !s.Status().Over {
		t.Fatal("nine marks and no end")
	}
}

func ExampleRules_Choose() {
	v := View{Board: [Size]string{"XX.", "OO.", "..."}, Turn: 1, Phase: PhaseActive}
	m, _ := Rules{}.Choose(v, 1, session.IntSeed(7).Source()) // O wins on the middle row rather than block X
	fmt.Println(m.R, m.C)
	// Output: 1 2
}
