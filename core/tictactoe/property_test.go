package tictactoe

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/roomd/roomd/core/session"
	"pgregory.net/rapid"
)

// randomGame plays a random legal game (each mark the AI's or a random
// free square) and checks, after every mark, that the match is consistent
// with a judge written apart from the rules, and that a client following
// the events holds the server's view. It returns the session.
func randomGame(t *rapid.T) *session.GameSession {
	s := newSession(t)
	m := s.Match()
	followed := m.View(session.Spectator).(View)
	for i := 0; !s.Status().Over; i++ {
		if i >= Size*Size {
			t.Fatalf("no end after %d marks", i)
		}
		seat := m.Pending()[0]
		var command json.RawMessage
		if rapid.Bool().Draw(t, "ai") {
			var ok bool
			if command, ok = m.AIMove(seat, session.IntSeed(7).Source()); !ok {
				t.Fatalf("the AI has no move for seat %d, whose turn it is", seat)
			}
		} else {
			free := freeSquares(followed)
			sq := rapid.SampledFrom(free).Draw(t, "square")
			command = mark(sq.R, sq.C)
		}
		step, err := s.Apply(seat, command)
		if err != nil {
			t.Fatalf("mark %d: seat %d's %s refused: %v", i, seat, command, err)
		}
		followed.Apply(step.Beats(session.Spectator).([]Event))
		if got, want := encode(t, followed), encode(t, m.View(session.Spectator)); got != want {
			t.Fatalf("mark %d: followed view %s, server's %s", i, got, want)
		}
		checkJudge(t, stateOf(t, m), m.Status(), seat)
	}
	return s
}

// freeSquares lists a view's empty squares.
func freeSquares(v View) []Cell {
	var out []Cell
	for r, row := range v.Board {
		for c := range len(row) {
			if row[c] == Empty {
				out = append(out, Cell{r, c})
			}
		}
	}
	return out
}

// checkJudge checks a status against the board, judged from scratch: the
// seat that just marked wins when it has a line, nobody else has one, a
// full board without a line is a draw, and the game goes on otherwise.
func checkJudge(t *rapid.T, s *State, st session.Status, last Seat) {
	has := func(mark byte) bool {
		for _, l := range lines {
			n := 0
			for _, c := range l {
				if s.board[c.R][c.C] == mark {
					n++
				}
			}
			if n == Size {
				return true
			}
		}
		return false
	}
	full := s.board.count(Empty) == 0
	switch {
	case has(Mark(1 - last)):
		t.Fatalf("the seat that did not mark last has a line: %v", s.board.rows())
	case has(Mark(last)):
		if st.Phase != PhaseWon || !st.Over || !slices.Equal(st.Outcome.Winners, []Seat{last}) {
			t.Fatalf("seat %d has a line in %v, status %+v", last, s.board.rows(), st)
		}
	case full:
		if st.Phase != PhaseDraw || !st.Over || len(st.Outcome.Winners) != 0 {
			t.Fatalf("a full board without a line %v, status %+v", s.board.rows(), st)
		}
	default:
		if st.Phase != PhaseActive || st.Over {
			t.Fatalf("no line and free squares in %v, status %+v", s.board.rows(), st)
		}
	}
}

// Random legal games end within nine marks with a verdict that agrees with
// the board, and replay to the same verdict and winners.
func TestRandomGames(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := randomGame(t)
		res, ok := s.Result()
		if !ok || len(res.Log) > Size*Size {
			t.Fatalf("result %+v, %v", res, ok)
		}
		rec := session.Record{Seed: res.Seed, Config: res.Config, Seats: Seats, Log: res.Log}
		v, replayed := session.ReplayMatch(Game, rec)
		if !v.Valid || v.Status != res.Status || v.Time != res.Time {
			t.Fatalf("replay %+v, the session's result %+v", v, res)
		}
		if got := replayed.Status().Outcome.Winners; !slices.Equal(got, res.Outcome.Winners) {
			t.Fatalf("replay winners %v, the session's %v", got, res.Outcome.Winners)
		}
		if got, want := everything(t, replayed), everything(t, s.Match()); got != want {
			t.Fatalf("replayed match\n%s\nthe session's\n%s", got, want)
		}
	})
}

// A checkpoint taken after any mark, resumed, then the rest of the log,
// is the whole game: the same match, the same clock, the same result.
func TestCheckpointResume(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		whole := randomGame(t)
		log := whole.Log()
		at := rapid.IntRange(0, len(log)).Draw(t, "at")

		part, err := session.Restore(Game, whole.Header(), nil, log[:at], 0, nil)
		if err != nil {
			t.Fatalf("replaying the first %d marks: %v", at, err)
		}
		cp, err := part.Save()
		if err != nil || cp == nil || cp.At != at {
			t.Fatalf("Save after %d marks: %+v, %v", at, cp, err)
		}
		data, err := json.Marshal(cp) // as a room stores it
		if err != nil {
			t.Fatal(err)
		}
		var stored session.Checkpoint
		if err := json.Unmarshal(data, &stored); err != nil {
			t.Fatal(err)
		}
		resumed, err := session.Restore(Game, whole.Header(), &stored, log, 0, nil)
		if err != nil {
			t.Fatalf("restore from the checkpoint after %d marks: %v", at, err)
		}
		if got, want := everything(t, resumed.Match()), everything(t, whole.Match()); got != want {
			t.Fatalf("resumed after %d marks:\n%s\nwhole:\n%s", at, got, want)
		}
		got, _ := resumed.Result()
		want, _ := whole.Result()
		if encode(t, got) != encode(t, want) {
			t.Fatalf("resumed result %s, whole %s", encode(t, got), encode(t, want))
		}
	})
}
