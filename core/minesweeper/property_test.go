package minesweeper

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/roomd/roomd/core/session"
	"pgregory.net/rapid"
)

// TestPropertyRules checks, after every move of random games in every mode:
// no board shows a mine revealed other than one that exploded; a board is
// won exactly when every safe cell is revealed (see the quirk below); the
// first reveal of a board never loses; and no viewer's projection or
// events give away an unrevealed mine while the match runs.
func TestPropertyRules(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := drawGame(t)
		g.play(t, 60, func(p played) {
			s := g.sess.state(t)
			before := p.before.boardOf(p.seat)
			if p.move.Type == Reveal && !before.placed {
				if p.events[0].Type == EventExplode {
					t.Fatalf("the first reveal lost: %+v", p.events)
				}
			}
			for i := range s.boards {
				checkBoard(t, s, i)
			}
			for v := session.Spectator; v < g.seats; v++ {
				typed := g.sess.Match().View(v).(View)
				raw := mustJSON(t, typed)
				checkNoLeak(t, s, v, raw, mustJSON(t, p.step.Beats(v)))
				// The typed view (what AIMove's solver gets) holds no more
				// than its JSON.
				var back View
				if err := json.Unmarshal(raw, &back); err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(back, typed) {
					t.Fatalf("viewer %d: the typed view differs from its JSON:\n%+v\n%+v", v, typed, back)
				}
			}
		})
	})
}

func checkBoard(t *rapid.T, s *State, i int) {
	b := &s.boards[i]
	revealedMines, hiddenSafe := 0, 0
	for _, cl := range b.g.Cells() {
		switch {
		case cl.mine && cl.st == Revealed:
			revealedMines++
		case !cl.mine && cl.st != Revealed:
			hiddenSafe++
		}
	}
	if want := b2i(b.phase == PhaseLost && b.placed && exploded(b)); revealedMines != want {
		t.Fatalf("board %d (%v) shows %d revealed mines", i, b.phase, revealedMines)
	}
	// Won ⇒ every safe cell open; every safe cell open ⇒ won, unless lost:
	// a chord's earlier floods can open the last safe cells before it hits
	// a mine (the partial-chord quirk).
	if b.phase == PhaseWon && hiddenSafe != 0 {
		t.Fatalf("board %d won with %d safe cells closed", i, hiddenSafe)
	}
	if b.placed && hiddenSafe == 0 && b.phase != PhaseWon && b.phase != PhaseLost {
		t.Fatalf("board %d has every safe cell open but is %v", i, b.phase)
	}
}

// exploded reports whether a lost board lost by a mine (in a race it may
// have lost because another seat won).
func exploded(b *board) bool {
	for _, cl := range b.g.Cells() {
		if cl.mine && cl.st == Revealed {
			return true
		}
	}
	return false
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// checkNoLeak reads a view and events as a client would (plain JSON) and
// checks each cell they name against the state: revealed cells are safe
// unless it is the mine that exploded, hidden cells (mines) appear only
// once the match is over, flagged cells say nothing more, and race seats
// hear of other boards only through progress.
func checkNoLeak(t *rapid.T, s *State, viewer session.Seat, viewJSON, eventsJSON []byte) {
	var view struct {
		Cells  []map[string]any `json:"cells"`
		Boards []struct {
			Seat  int              `json:"seat"`
			Cells []map[string]any `json:"cells"`
		} `json:"boards"`
	}
	if err := json.Unmarshal(viewJSON, &view); err != nil {
		t.Fatal(err)
	}
	seatOnly := s.race && viewer >= 0 && viewer < s.seats
	checkCell := func(board int, c map[string]any, where string) {
		r, cc := int(c["r"].(float64)), int(c["c"].(float64))
		b := &s.boards[board]
		cl := b.g.Cells()[r*s.cfg.Cols+cc]
		switch c["status"] {
		case "revealed":
			mine := c["mine"].(bool)
			if cl.st != Revealed || mine != cl.mine || (mine && b.phase != PhaseLost) {
				t.Fatalf("%s: viewer %d sees revealed %v on board %d: state %+v", where, viewer, c, board, cl)
			}
		case "flagged":
			if len(c) != 3 || cl.st != Flagged {
				t.Fatalf("%s: viewer %d sees flagged %v: state %+v", where, viewer, c, cl)
			}
		case "hidden":
			if !s.over || !cl.mine || cl.st != Hidden {
				t.Fatalf("%s: viewer %d sees hidden %v while over=%v: state %+v", where, viewer, c, s.over, cl)
			}
		default:
			t.Fatalf("%s: bad cell %v", where, c)
		}
	}
	for _, c := range view.Cells {
		checkCell(0, c, "view")
	}
	for _, bv := range view.Boards {
		if seatOnly && bv.Seat != viewer && bv.Cells != nil {
			t.Fatalf("seat %d sees the cells of seat %d's board", viewer, bv.Seat)
		}
		for _, c := range bv.Cells {
			checkCell(bv.Seat, c, "view")
		}
	}
	var events []map[string]any
	if err := json.Unmarshal(eventsJSON, &events); err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		board := 0
		if seat, ok := e["seat"]; ok {
			board = int(seat.(float64))
		}
		if seatOnly && board != viewer && e["type"] != "progress" {
			t.Fatalf("seat %d hears %v of seat %d's board", viewer, e, board)
		}
		switch e["type"] {
		case "reveal":
			for _, c := range e["cells"].([]any) {
				c := c.(map[string]any)
				c["status"], c["mine"] = "revealed", false
				checkCell(board, c, "reveal event")
			}
		case "explode":
			if _, ok := e["mines"]; ok != s.over {
				t.Fatalf("explode event lists mines=%v while over=%v", ok, s.over)
			}
		case "end":
			if !s.over {
				t.Fatalf("end event while the match runs")
			}
		case "progress":
			if len(e) != 5 || board == viewer {
				t.Fatalf("progress event %v to viewer %d", e, viewer)
			}
		}
	}
}

// TestPropertyReplay: every game played through a session replays to the
// same verdict (valid exactly when over, with the session's time and
// outcome) and restores to the same state.
func TestPropertyReplay(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := drawGame(t)
		g.play(t, 60, func(played) {})
		rec := g.record()
		v := session.Replay(Game, rec)
		st := g.sess.Status()
		want := session.Verdict{Status: st.Phase, Valid: st.Over}
		if st.Over {
			want.Time = g.sess.Elapsed()
		} else {
			r := session.ReasonNotTerminal
			want.Reason = &r
		}
		if got, w := mustJSON(t, v), mustJSON(t, want); !bytes.Equal(got, w) {
			t.Fatalf("replay %s, want %s", got, w)
		}
		back, err := session.Restore(Game, session.Header{Seed: rec.Seed, Config: rec.Config, Seats: rec.Seats}, nil, rec.Log, 0, nil)
		if err != nil {
			t.Fatalf("restore: %v", err)
		}
		if fingerprint(typedState(t, back.Match())) != fingerprint(g.sess.state(t)) {
			t.Fatal("restored state differs")
		}
	})
}

// TestPropertyReducer: a client that starts from any snapshot view and
// applies the events of every later update holds the server's projection,
// for every viewer in every mode. The one exception is the partial-chord
// quirk (spec §6.4): the reference's events do not report the cells a
// losing chord's earlier floods opened, so the client lacks exactly those
// cells; the test checks that the difference is exactly them, then
// resyncs, as a client would after a loss.
func TestPropertyReducer(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := drawGame(t)
		views := map[session.Seat]*View{}
		syncAt := rapid.IntRange(0, 20).Draw(t, "syncAt")
		resync := func(v session.Seat) {
			var view View
			if err := json.Unmarshal(mustJSON(t, g.sess.Match().View(v)), &view); err != nil {
				t.Fatal(err)
			}
			views[v] = &view
		}
		if syncAt == 0 {
			for v := session.Spectator; v < g.seats; v++ {
				resync(v)
			}
		}
		n := 0
		g.play(t, 60, func(p played) {
			n++
			s := g.sess.state(t)
			for v := session.Spectator; v < g.seats; v++ {
				view := views[v]
				if view == nil {
					if n >= syncAt {
						resync(v)
					}
					continue
				}
				var events []Event
				if err := json.Unmarshal(mustJSON(t, p.step.Beats(v)), &events); err != nil {
					t.Fatal(err)
				}
				if err := view.Apply(events); err != nil {
					t.Fatalf("viewer %d apply %v: %v", v, events, err)
				}
				got, want := mustJSON(t, view), mustJSON(t, g.sess.Match().View(v))
				if bytes.Equal(got, want) {
					continue
				}
				partial := partialChordCells(p, s)
				if len(partial) == 0 {
					t.Fatalf("viewer %d after %+v by %d:\nreduced %s\nproject %s", v, p.move, p.seat, got, want)
				}
				patched := patch(view, p.seat, partial)
				if got := mustJSON(t, patched); !bytes.Equal(got, want) {
					t.Fatalf("viewer %d misses more than the partial chord's cells %v:\nreduced %s\nproject %s", v, partial, got, want)
				}
				resync(v)
			}
		})
	})
}

// partialChordCells returns the cells a losing chord opened but reported in
// no event: safe cells hidden before the move and revealed after it.
func partialChordCells(p played, s *State) []ViewCell {
	if p.move.Type != Chord || len(p.events) == 0 || p.events[0].Type != EventExplode {
		return nil
	}
	before, after := p.before.boardOf(p.seat).g.Cells(), s.boardOf(p.seat).g.Cells()
	var out []ViewCell
	for k := range after {
		if before[k].st != Revealed && after[k].st == Revealed && !after[k].mine {
			out = append(out, ViewCell{R: k / s.cfg.Cols, C: k % s.cfg.Cols, Status: Revealed, Adjacent: int(after[k].adj)})
		}
	}
	return out
}

// patch returns a copy of v with cells set on seat's board.
func patch(v *View, seat session.Seat, cells []ViewCell) *View {
	out := *v
	set := func(list []ViewCell) []ViewCell {
		d := out.dense(list)
		for _, c := range cells {
			d[c.R*out.Cols+c.C] = c
		}
		return out.sparse(d, nil)
	}
	if !out.Race {
		out.Cells = set(out.Cells)
		return &out
	}
	out.Boards = append([]BoardView(nil), out.Boards...)
	for i := range out.Boards {
		if out.Boards[i].Seat == seat && out.Boards[i].Visible {
			out.Boards[i].Cells = set(out.Boards[i].Cells)
		}
	}
	return &out
}

func TestReducerExample(t *testing.T) {
	// g01's first moves through a session, reduced from the fresh view.
	s := newClocked(t, 42, g01Config, 1)
	var view View
	if err := json.Unmarshal(mustJSON(t, s.Match().View(0)), &view); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		move Move
	}{
		{"opening flood", Move{Reveal, 0, 0}},
		{"number", Move{Reveal, 7, 2}},
		{"flag", Move{Flag, 5, 4}},
		{"unflag", Move{Flag, 5, 4}},
		{"explode", Move{Reveal, 0, 4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s.now++
			st, err := s.Apply(0, tc.move.AppendJSON(nil))
			if err != nil {
				t.Fatal(err)
			}
			if err := view.Apply(stepEvents(t, st, 0)); err != nil {
				t.Fatal(err)
			}
			if got, want := mustJSON(t, view), mustJSON(t, s.Match().View(0)); !bytes.Equal(got, want) {
				t.Errorf("reduced %s\nproject %s", got, want)
			}
		})
	}
	bad := []struct {
		name   string
		events []Event
	}{
		{"off the board", []Event{{Type: EventFlag, R: 9, C: 0}}},
		{"progress on a single board", []Event{{Type: EventProgress, Seat: 1, Tagged: true}}},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			if err := view.Apply(tc.events); err == nil {
				t.Error("applied")
			}
		})
	}
}

// TestPropertyCheckpoint: a match saved at any point of its log and resumed
// from that checkpoint, with the rest of the log replayed, is the match
// played through; a checkpoint decodes to a state that encodes to the same
// bytes.
func TestPropertyCheckpoint(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := drawGame(t)
		g.play(t, 60, func(played) {})
		rec := g.record()
		h := session.Header{Seed: rec.Seed, Config: rec.Config, Seats: rec.Seats}
		k := rapid.IntRange(0, len(rec.Log)).Draw(t, "checkpoint at")
		prefix, err := session.Restore(Game, h, nil, rec.Log[:k], 0, nil)
		if err != nil {
			t.Fatalf("restore the first %d entries: %v", k, err)
		}
		cp, err := prefix.Save()
		if err != nil || cp == nil || cp.At != k {
			t.Fatalf("save after %d entries: %+v %v", k, cp, err)
		}
		back, err := session.Restore(Game, h, cp, rec.Log, 0, nil)
		if err != nil {
			t.Fatalf("restore from the checkpoint: %v", err)
		}
		if fingerprint(typedState(t, back.Match())) != fingerprint(g.sess.state(t)) {
			t.Fatal("the state resumed from a checkpoint differs")
		}
		resumed, err := Rules{}.Resume(rec.Seed, g.cfg, rec.Seats, cp.State)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := Rules{}.Checkpoint(resumed)
		if !bytes.Equal(again, cp.State) {
			t.Fatalf("checkpoint %s re-encodes as %s", cp.State, again)
		}
	})
}
