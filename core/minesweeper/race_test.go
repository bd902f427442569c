package minesweeper

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/roomd/roomd/core/session"
)

// TestRaceSecrecy plays whole races with the rules (the solver moves every
// seat; each seat opens somewhere else and toggles a flag now and then)
// and, after every move, reads what each viewer is sent as a client would:
// while the race runs a spectator gets no cell of any board, only each
// board's progress, and a seat the cells of its own board only; once it is
// over, every viewer gets the same view with every board's cells. Each
// viewer's view, reduced from its events, stays the projection.
func TestRaceSecrecy(t *testing.T) {
	tests := []struct {
		config  string
		seats   int
		seed    int64
		outcome string // how the race ends: the winner and the boards lost on the way, or "lost"
	}{
		{`{"level":"beginner","mode":"race"}`, 2, 7, "seat 1 won; lost before: [0]"},
		{`{"level":"beginner","mode":"race"}`, 3, 2, "seat 1 won; lost before: []"},
		{`{"level":"beginner","mode":"race"}`, 3, 23, "lost"},
		{`{"level":"intermediate","mode":"race"}`, 3, 10, "seat 1 won; lost before: [2]"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%d seats seed %d", tc.seats, tc.seed), func(t *testing.T) {
			cfg, err := DecodeConfig([]byte(tc.config))
			if err != nil {
				t.Fatal(err)
			}
			s, err := Rules{}.Init(session.IntSeed(tc.seed), cfg, tc.seats)
			if err != nil {
				t.Fatal(err)
			}
			r := newRaceWatch(t, s)
			var lostBefore []session.Seat
			flagged := make([]int, tc.seats) // the cell a seat's toggle flagged, or -1
			moves := make([]int, tc.seats)
			for i := range flagged {
				flagged[i] = -1
			}
			for step := 0; !s.over; step++ {
				if step > 5000 {
					t.Fatal("the race does not end")
				}
				seat := step % tc.seats
				if s.boards[seat].phase.Terminal() {
					continue
				}
				m := raceMove(t, s, seat, moves[seat], &flagged[seat])
				moves[seat]++
				_, events, err := Rules{}.Apply(s, session.Input[Move]{Seat: seat, Move: m})
				if err != nil {
					t.Fatalf("seat %d %+v: %v", seat, m, err)
				}
				if !s.over && s.boards[seat].phase == PhaseLost {
					lostBefore = append(lostBefore, seat)
				}
				r.check(seat, m, events)
			}
			outcome := "lost"
			if s.winner >= 0 {
				outcome = fmt.Sprintf("seat %d won; lost before: %v", s.winner, lostBefore)
			}
			if outcome != tc.outcome {
				t.Errorf("the race ended: %s; want %s", outcome, tc.outcome)
			}
			if r.flagProgress == 0 {
				t.Error("no flag reached another viewer as progress")
			}
		})
	}
}

// raceMove is seat's next move: its first opens a corner of its own (the
// solver opens the centre of seat 0's board), every fifth toggles a flag
// on the last hidden cell and the next one lifts it; otherwise the solver
// moves.
func raceMove(t *testing.T, s *State, seat session.Seat, n int, flagged *int) Move {
	t.Helper()
	rows, cols := s.cfg.Rows, s.cfg.Cols
	cells := s.boards[seat].g.Cells()
	switch {
	case n == 0 && seat > 0:
		corners := [][2]int{{0, 0}, {rows - 1, cols - 1}, {0, cols - 1}}
		c := corners[(seat-1)%len(corners)]
		return Move{Reveal, c[0], c[1]}
	case *flagged >= 0:
		k := *flagged
		*flagged = -1
		if cells[k].st == Flagged {
			return Move{Flag, k / cols, k % cols}
		}
	case n%5 == 4:
		for k := len(cells) - 1; k >= 0; k-- {
			if cells[k].st == Hidden {
				*flagged = k
				return Move{Flag, k / cols, k % cols}
			}
		}
	}
	m, ok := Rules{}.Choose(s.Project(seat), seat, session.IntSeed(7).Source())
	if !ok {
		t.Fatalf("the solver has no move for seat %d", seat)
	}
	return m
}

// raceWatch follows a race as each of its viewers: every seat, a
// spectator, and a viewer that is no seat.
type raceWatch struct {
	t       *testing.T
	s       *State
	viewers []session.Seat
	views   map[session.Seat]*View // reduced from each viewer's events
	// flagProgress counts progress events that told another viewer of a
	// flag count other than 0.
	flagProgress int
}

func newRaceWatch(t *testing.T, s *State) *raceWatch {
	r := &raceWatch{t: t, s: s, views: map[session.Seat]*View{}}
	for v := session.Spectator; v <= s.seats; v++ {
		r.viewers = append(r.viewers, v)
		var view View
		if err := json.Unmarshal(s.Project(v).AppendJSON(nil), &view); err != nil {
			t.Fatal(err)
		}
		r.views[v] = &view
	}
	return r
}

// check reads what every viewer gets after seat played m.
func (r *raceWatch) check(seat session.Seat, m Move, events []Event) {
	t, s := r.t, r.s
	t.Helper()
	var final, finalEvents []byte
	for _, v := range r.viewers {
		own := v >= 0 && v < s.seats
		viewJSON := s.Project(v).AppendJSON(nil)
		projected := Rules{}.ProjectEvents(s, events, v)
		eventsJSON := mustJSON(t, projected)
		where := fmt.Sprintf("seat %d %+v, viewer %d", seat, m, v)
		audience := Rules{}.Audience(s, v)

		var view struct {
			Boards []map[string]json.RawMessage `json:"boards"`
		}
		if err := json.Unmarshal(viewJSON, &view); err != nil {
			t.Fatal(err)
		}
		var evs []map[string]json.RawMessage
		if err := json.Unmarshal(eventsJSON, &evs); err != nil {
			t.Fatal(err)
		}
		if len(view.Boards) != s.seats {
			t.Fatalf("%s: %d boards in %s", where, len(view.Boards), viewJSON)
		}

		if s.over {
			// Everyone sees every board, and the same bytes.
			for _, b := range view.Boards {
				if _, ok := b["cells"]; !ok {
					t.Fatalf("%s: a board without cells after the race: %s", where, viewJSON)
				}
			}
			if final == nil {
				final, finalEvents = viewJSON, eventsJSON
			}
			if !bytes.Equal(viewJSON, final) || !bytes.Equal(eventsJSON, finalEvents) {
				t.Fatalf("%s: after the race sees\n%s\n%s\nanother viewer\n%s\n%s", where, viewJSON, eventsJSON, final, finalEvents)
			}
			if audience != 0 {
				t.Fatalf("%s: audience %d after the race", where, audience)
			}
		} else {
			wantAudience := 0
			if own {
				wantAudience = v + 1
			}
			if audience != wantAudience {
				t.Fatalf("%s: audience %d, want %d", where, audience, wantAudience)
			}
			if !own {
				// Nothing of any board's cells, by the bytes.
				for _, leak := range []string{`"cells"`, `"r":`, `"c":`, `"status"`, `"adjacent"`, `"mine`, `"flagged"`} {
					if bytes.Contains(viewJSON, []byte(leak)) || bytes.Contains(eventsJSON, []byte(leak)) {
						t.Fatalf("%s: %s while the race runs:\n%s\n%s", where, leak, viewJSON, eventsJSON)
					}
				}
			}
			for _, b := range view.Boards {
				var bs int
				_ = json.Unmarshal(b["seat"], &bs)
				if _, ok := b["cells"]; ok != (bs == v) {
					t.Fatalf("%s: board %d with cells=%v while the race runs: %s", where, bs, ok, viewJSON)
				}
				var flags int
				if err := json.Unmarshal(b["flags"], &flags); err != nil || flags != flagsOn(&s.boards[bs]) {
					t.Fatalf("%s: board %d shows %s flags, has %d", where, bs, b["flags"], flagsOn(&s.boards[bs]))
				}
			}
			r.checkEvents(where, v, seat, projected, evs)
		}

		// The reduced view follows: exactly while the race runs; at its
		// end, the boards seen as progress only keep their progress, and
		// the client takes the view the ending update carries.
		reduced := r.views[v]
		if err := reduced.Apply(projected); err != nil {
			t.Fatalf("%s: apply %s: %v", where, eventsJSON, err)
		}
		got := reduced.AppendJSON(nil)
		if s.over {
			for i, b := range reduced.Boards {
				if b.Visible {
					continue
				}
				pb := s.Project(v).Boards[i]
				if b.Phase != pb.Phase || b.Revealed != pb.Revealed || b.Flags != pb.Flags {
					t.Fatalf("%s: board %d reduced to %+v at the end, projected %+v", where, i, b, pb)
				}
				if own && b.Seat == v {
					t.Fatalf("%s: its own board has no cells at the end", where)
				}
			}
			if !own {
				continue
			}
			// The seat's own board is followed exactly.
			var want View
			_ = json.Unmarshal(viewJSON, &want)
			if g, w := mustJSON(t, reduced.Boards[v]), mustJSON(t, want.Boards[v]); !bytes.Equal(g, w) {
				t.Fatalf("%s: own board reduced to\n%s\nprojected\n%s", where, g, w)
			}
			continue
		}
		if !bytes.Equal(got, viewJSON) {
			t.Fatalf("%s: reduced\n%s\nprojected\n%s", where, got, viewJSON)
		}
	}
}

// checkEvents checks viewer v's events of a move by seat while the race
// runs: its own board's events when v is seat, else one progress event with
// the board's numbers.
func (r *raceWatch) checkEvents(where string, v, seat session.Seat, projected []Event, evs []map[string]json.RawMessage) {
	t, s := r.t, r.s
	t.Helper()
	if v == seat {
		for _, e := range projected {
			if e.Type == EventProgress || e.Seat != seat {
				t.Fatalf("%s: the mover hears %+v", where, e)
			}
		}
		return
	}
	if len(projected) != 1 {
		t.Fatalf("%s: %d events, want one progress event: %+v", where, len(projected), projected)
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range evs[0] {
			if !yield(k) {
				return
			}
		}
	})
	b := &s.boards[seat]
	want := Event{Type: EventProgress, Seat: seat, Tagged: true, Phase: b.phase, Revealed: b.revealed, Safe: s.cfg.Safe(), Flags: flagsOn(b)}
	if fmt.Sprint(keys) != "[flags phase revealed safe seat type]" || !bytes.Equal(mustJSON(t, projected[0]), mustJSON(t, want)) {
		t.Fatalf("%s: %v (keys %v), want %+v", where, projected[0], keys, want)
	}
	if want.Flags > 0 {
		r.flagProgress++
	}
}
