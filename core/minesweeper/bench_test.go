package minesweeper

import (
	"encoding/json"
	"testing"

	"github.com/roomd/roomd/core/session"
)

// BenchmarkPlaceExpert: mine placement and adjacency for an expert board.
func BenchmarkPlaceExpert(b *testing.B) {
	b.ReportAllocs()
	cells := make([]cell, 16*30)
	seed := int64(0)
	for b.Loop() {
		clear(cells)
		place(cells, 16, 30, 99, session.NewRNG(seed), 7, 15, nil)
		seed++
	}
}

// reset returns a match to its fresh state without allocating.
func (s *State) reset() {
	for i := range s.boards {
		clear(s.boards[i].g.Cells())
		s.boards[i].phase, s.boards[i].placed, s.boards[i].revealed = PhaseFresh, false, 0
	}
	s.over, s.winner = false, -1
}

// BenchmarkFloodExpert: the first reveal on an empty 16×30 board, which
// floods all 480 cells and wins; the whole typed Apply is timed.
func BenchmarkFloodExpert(b *testing.B) {
	b.ReportAllocs()
	s, err := NewState(session.IntSeed(1), Config{Rows: 16, Cols: 30}, 1)
	if err != nil {
		b.Fatal(err)
	}
	move := Move{Reveal, 8, 15}
	for b.Loop() {
		b.StopTimer()
		s.reset()
		b.StartTimer()
		_, events, err := Rules{}.Apply(s, session.Input[Move]{Seat: 0, Move: move})
		if err != nil || len(events[0].Cells) != 480 {
			b.Fatalf("%v %d", err, len(events[0].Cells))
		}
	}
}

// midgame is g16 (expert, seed 2024) after its first 120 moves.
func midgame(b *testing.B) (*State, []session.Entry) {
	b.Helper()
	games := loadVectors[vectorGame](b, "games.json")
	for _, g := range games {
		if g.ID != "g16" {
			continue
		}
		cfg, err := DecodeConfig(g.Config)
		if err != nil {
			b.Fatal(err)
		}
		s, err := NewState(session.IntSeed(g.Seed), cfg, 1)
		if err != nil {
			b.Fatal(err)
		}
		var log []session.Entry
		for _, vm := range g.Moves[:120] {
			var m Move
			if err := json.Unmarshal(vm.Move, &m); err != nil {
				b.Fatal(err)
			}
			if _, err := s.apply(0, m); err == nil {
				log = append(log, session.Entry{Move: compact(b, vm.Move), T: vm.T})
			}
		}
		if s.Phase() != PhaseActive {
			b.Fatalf("g16 is %v after 120 moves", s.Phase())
		}
		return s, log
	}
	b.Fatal("no g16")
	return nil, nil
}

// hiddenCell returns a hidden cell of board 0.
func hiddenCell(b *testing.B, s *State) Move {
	b.Helper()
	for k, cl := range s.boards[0].g.Cells() {
		if cl.st == Hidden {
			return Move{Flag, k / s.cfg.Cols, k % s.cfg.Cols}
		}
	}
	b.Fatal("no hidden cell")
	return Move{}
}

// BenchmarkMove: one ordinary move in the steady state of an expert game
// (a flag toggle), through the typed Apply.
func BenchmarkMove(b *testing.B) {
	b.ReportAllocs()
	s, _ := midgame(b)
	m := hiddenCell(b, s)
	for b.Loop() {
		if _, _, err := (Rules{}).Apply(s, session.Input[Move]{Seat: 0, Move: m}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMoveRejected: an ineffective move (a reveal of a revealed
// cell), which builds a rejection.
func BenchmarkMoveRejected(b *testing.B) {
	b.ReportAllocs()
	s, _ := midgame(b)
	var m Move
	for k, cl := range s.boards[0].g.Cells() {
		if cl.st == Revealed {
			m = Move{Reveal, k / s.cfg.Cols, k % s.cfg.Cols}
			break
		}
	}
	for b.Loop() {
		if _, _, err := (Rules{}).Apply(s, session.Input[Move]{Seat: 0, Move: m}); err == nil {
			b.Fatal("accepted")
		}
	}
}

// BenchmarkMatchApply: the same steady-state move through the erased
// match: JSON decoding, the typed Apply, and the step.
func BenchmarkMatchApply(b *testing.B) {
	b.ReportAllocs()
	s, log := midgame(b)
	match, err := Game.New(session.IntSeed(2024), json.RawMessage(`{"rows":16,"cols":30,"mines":99,"id":"expert","name":"Torment"}`), 1)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range log {
		if _, err := match.Apply(session.Command{Seat: 0, Move: e.Move}); err != nil {
			b.Fatal(err)
		}
	}
	cmd := hiddenCell(b, s).AppendJSON(nil)
	for b.Loop() {
		if _, err := match.Apply(session.Command{Seat: 0, Move: cmd}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkProject: a mid-game expert view, encoded to JSON.
func BenchmarkProject(b *testing.B) {
	b.ReportAllocs()
	s, _ := midgame(b)
	var buf []byte
	for b.Loop() {
		buf = s.Project(0).AppendJSON(buf[:0])
	}
}

// BenchmarkChoose: the AI's choice on a mid-game expert view, with a
// reused Solver.
func BenchmarkChoose(b *testing.B) {
	b.ReportAllocs()
	s, _ := midgame(b)
	v := s.Project(0)
	var sv Solver
	for b.Loop() {
		if _, ok := sv.Choose(v, 0); !ok {
			b.Fatal("no move")
		}
	}
}

// BenchmarkReducer: applying one flag event to a mid-game expert view.
func BenchmarkReducer(b *testing.B) {
	b.ReportAllocs()
	s, _ := midgame(b)
	v := s.Project(0)
	ev := []Event{{Type: EventFlag, R: 0, C: 0, Flagged: true}}
	for b.Loop() {
		w := v
		if err := w.Apply(ev); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDense: a flag event applied and a move chosen on a mid-game
// expert view, as a follower does each move: the view's own (View.Apply,
// Rules.Choose) against a Dense's.
func BenchmarkDense(b *testing.B) {
	s, _ := midgame(b)
	v := s.Project(0)
	evs := [2][]Event{{{Type: EventFlag, R: 0, C: 0, Flagged: true}}, {{Type: EventFlag, R: 0, C: 0}}}
	follow := func(b *testing.B, apply func([]Event) error, choose func() (Move, bool)) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if err := apply(evs[i%2]); err != nil {
				b.Fatal(err)
			}
			if _, ok := choose(); !ok {
				b.Fatal("no move")
			}
		}
	}
	b.Run("view", func(b *testing.B) {
		w := v
		follow(b, w.Apply, func() (Move, bool) { return Rules{}.Choose(w, 0, session.IntSeed(7).Source()) })
	})
	b.Run("dense", func(b *testing.B) {
		d, err := NewDense(v)
		if err != nil {
			b.Fatal(err)
		}
		follow(b, d.Apply, d.Choose)
	})
}

// BenchmarkDecodeMove: a client's move through session.DecodeMove, in its
// canonical form (ParseCanonical) and in another spacing (the strict
// decoder through encoding/json).
func BenchmarkDecodeMove(b *testing.B) {
	for _, tc := range []struct{ name, raw string }{
		{"canonical", `{"type":"flag","r":12,"c":27}`},
		{"spaced", `{"type": "flag", "r": 12, "c": 27}`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			raw := json.RawMessage(tc.raw)
			for b.Loop() {
				if _, err := session.DecodeMove[Move](raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
