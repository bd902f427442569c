package minesweeper

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/roomd/roomd/core/session"
)

// aiGame plays one match with the AI in every seat through the typed rules
// and checks each move: accepted, flags only on mines, unflags only on
// safe cells. It returns the final state and the number of moves.
func aiGame(t *testing.T, seed int64, cfg Config, seats int, meddle func(s *State, turn int)) (*State, int) {
	t.Helper()
	s, err := NewState(session.IntSeed(seed), cfg, seats)
	if err != nil {
		t.Fatal(err)
	}
	var sv Solver
	rules := Rules{}
	for turn := 0; ; turn++ {
		if turn > 4*cfg.Rows*cfg.Cols+10 {
			t.Fatalf("seed %d: no end after %d moves", seed, turn)
		}
		if meddle != nil {
			meddle(s, turn)
		}
		pending := rules.Pending(s)
		if len(pending) == 0 {
			return s, turn
		}
		seat := pending[turn%len(pending)]
		m, ok := sv.Choose(rules.Project(s, seat), seat)
		if !ok {
			t.Fatalf("seed %d turn %d: seat %d has no move", seed, turn, seat)
		}
		b := s.boardOf(seat)
		if m.Type == Flag && b.placed {
			cl := b.g.Cells()[m.R*cfg.Cols+m.C]
			if (cl.st == Hidden) != cl.mine {
				t.Fatalf("seed %d: the AI toggles the flag of (%d, %d), mine=%v status=%v", seed, m.R, m.C, cl.mine, cl.st)
			}
		}
		if _, _, err := rules.Apply(s, session.Input[Move]{Seat: seat, Move: m}); err != nil {
			t.Fatalf("seed %d turn %d: the AI's %+v refused: %v", seed, turn, m, err)
		}
	}
}

func TestAIWinRates(t *testing.T) {
	tests := []struct {
		level   string
		games   int
		minWins int // a floor well under the measured rate
	}{
		{"beginner", 200, 185},
		{"intermediate", 100, 72},
		{"expert", 60, 20},
	}
	for _, tc := range tests {
		t.Run(tc.level, func(t *testing.T) {
			cfg, err := DecodeConfig(fmt.Appendf(nil, `{"level":%q}`, tc.level))
			if err != nil {
				t.Fatal(err)
			}
			wins, moves := 0, 0
			for seed := range int64(tc.games) {
				s, n := aiGame(t, seed, cfg, 1, nil)
				moves += n
				if s.Phase() == PhaseWon {
					wins++
				}
			}
			t.Logf("%s: won %d of %d, %.1f moves a game", tc.level, wins, tc.games, float64(moves)/float64(tc.games))
			if wins < tc.minWins {
				t.Errorf("won %d of %d, want at least %d", wins, tc.games, tc.minWins)
			}
		})
	}
}

func TestAICoopWithAWrongTeammate(t *testing.T) {
	cfg, _ := DecodeConfig([]byte(`{"level":"beginner","mode":"coop"}`))
	for seed := range int64(30) {
		// A human teammate flags a safe cell on the second turn.
		s, _ := aiGame(t, seed, cfg, 3, func(s *State, turn int) {
			if turn != 1 || s.over {
				return
			}
			for k, cl := range s.boards[0].g.Cells() {
				if cl.st == Hidden && !cl.mine {
					if _, err := s.apply(2, Move{Flag, k / cfg.Cols, k % cfg.Cols}); err != nil {
						t.Fatal(err)
					}
					return
				}
			}
		})
		if !s.over {
			t.Fatalf("seed %d: not over", seed)
		}
	}
}

func TestAIRaceThroughMatch(t *testing.T) {
	for seed := range int64(20) {
		m, err := Game.New(session.IntSeed(seed), json.RawMessage(`{"level":"beginner","mode":"race"}`), 3)
		if err != nil {
			t.Fatal(err)
		}
		for turn := 0; !m.Status().Over; turn++ {
			if turn > 1000 {
				t.Fatal("race does not end")
			}
			pending := m.Pending()
			seat := pending[turn%len(pending)]
			cmd, ok := m.AIMove(seat, session.IntSeed(7).Source())
			if !ok {
				t.Fatalf("seat %d has no move", seat)
			}
			if _, err := m.Apply(session.Command{Seat: seat, Move: cmd}); err != nil {
				t.Fatalf("AI move %s refused: %v", cmd, err)
			}
		}
		st := m.Status()
		if (st.Phase == "won") != (len(st.Outcome.Winners) == 1) {
			t.Errorf("status %+v", st)
		}
		for seat := range 3 {
			if _, ok := m.AIMove(seat, session.IntSeed(7).Source()); ok {
				t.Errorf("AI moves after the race")
			}
		}
	}
}

func TestAIChoices(t *testing.T) {
	view := func(s string) View {
		var v View
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	cell := func(r, c, adj int) string {
		return fmt.Sprintf(`{"r":%d,"c":%d,"status":"revealed","adjacent":%d,"mine":false}`, r, c, adj)
	}
	flag := func(r, c int) string { return fmt.Sprintf(`{"r":%d,"c":%d,"status":"flagged"}`, r, c) }
	board := func(cfg string, cells ...string) string {
		out := `{"config":` + cfg + `,"phase":"active","cells":[`
		for i, c := range cells {
			if i > 0 {
				out += ","
			}
			out += c
		}
		return out + "]}"
	}
	const row5 = `{"rows":1,"cols":5,"mines":1}`
	tests := []struct {
		name string
		view string
		seat session.Seat
		want Move
		ok   bool
	}{
		{"fresh opens the centre", `{"config":{"level":"expert"},"phase":"fresh","cells":[]}`, 0, Move{Reveal, 8, 15}, true},
		{"fresh with the centre flagged", `{"config":{"rows":3,"cols":3,"mines":1},"phase":"fresh","cells":[` + flag(1, 1) + `]}`, 0, Move{Reveal, 0, 0}, true},
		{"a 1 with one unknown: flag it", board(row5, cell(0, 0, 0), cell(0, 1, 0), cell(0, 2, 1)), 0, Move{Flag, 0, 3}, true},
		{"a satisfied 1: reveal the rest", board(row5, cell(0, 0, 1), flag(0, 1), cell(0, 2, 1)), 0, Move{Reveal, 0, 3}, true},
		{"wrong teammate flag next to a 0 is lifted", board(row5, cell(0, 0, 0), flag(0, 1)), 0, Move{Flag, 0, 1}, true},
		{"chord when it opens two", board(`{"rows":2,"cols":3,"mines":1}`, cell(0, 0, 1), flag(0, 1), cell(1, 0, 1), cell(1, 1, 1)), 0, Move{Chord, 1, 1}, true},
		{"an unproven flag is not chorded on", board(`{"rows":3,"cols":3,"mines":1}`, cell(0, 0, 1), flag(0, 1), cell(0, 2, 1), cell(1, 0, 1), cell(1, 2, 1)), 0, Move{Reveal, 2, 0}, true},
		{"1-2 pair rule", board(`{"rows":2,"cols":3,"mines":2}`, cell(0, 0, 1), cell(0, 1, 2), cell(0, 2, 1)), 0, Move{Flag, 1, 0}, true},
		{"mine count closes the board", board(`{"rows":1,"cols":4,"mines":1}`, cell(0, 0, 1), flag(0, 1)), 0, Move{Reveal, 0, 2}, true},
		{"teammate flags are not trusted", board(`{"rows":2,"cols":2,"mines":1}`, cell(0, 0, 1), flag(1, 1)), 0, Move{Reveal, 0, 1}, true},
		{"guess the least likely", board(`{"rows":1,"cols":9,"mines":2}`, cell(0, 4, 1)), 0, Move{Reveal, 0, 0}, true},
		{"terminal", `{"config":{"level":"beginner"},"phase":"won","cells":[]}`, 0, Move{}, false},
		{"race: own board", `{"config":{"rows":1,"cols":5,"mines":1,"mode":"race"},"phase":"active","mode":"race","boards":[` +
			`{"seat":0,"phase":"fresh","revealed":0,"safe":4,"cells":[]},{"seat":1,"phase":"active","revealed":0,"safe":4}]}`, 0, Move{Reveal, 0, 2}, true},
		{"race: another's board is not visible", `{"config":{"rows":1,"cols":5,"mines":1,"mode":"race"},"phase":"active","mode":"race","boards":[` +
			`{"seat":0,"phase":"fresh","revealed":0,"safe":4,"cells":[]},{"seat":1,"phase":"active","revealed":0,"safe":4}]}`, 1, Move{}, false},
		{"race: own run over", `{"config":{"rows":1,"cols":5,"mines":1,"mode":"race"},"phase":"active","mode":"race","boards":[` +
			`{"seat":0,"phase":"lost","revealed":0,"safe":4,"cells":[]},{"seat":1,"phase":"active","revealed":0,"safe":4}]}`, 0, Move{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, ok := Rules{}.Choose(view(tc.view), tc.seat, session.IntSeed(7).Source())
			if ok != tc.ok || m != tc.want {
				t.Errorf("chose %+v %v, want %+v %v", m, ok, tc.want, tc.ok)
			}
		})
	}
}
