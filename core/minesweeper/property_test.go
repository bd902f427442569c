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
// first reveal of a board never loses; no viewer's projection or events
// give away an unrevealed mine while the match runs, nor, in a race,
// another board's cells; and viewers of one audience get the same bytes.
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
			audiences := map[int]string{}
			for v := session.Spectator; v <= g.seats; v++ { // g.seats: a viewer that is no seat
				typed := g.sess.Match().View(v).(View)
				raw := mustJSON(t, typed)
				beats := mustJSON(t, p.step.Beats(v))
				checkNoLeak(t, s, v, raw, beats)
				checkAudience(t, s, v, g.sess.Match().Audience(v))
				seen := string(raw) + string(beats)
				if other, ok := audiences[g.sess.Match().Audience(v)]; ok && other != seen {
					t.Fatalf("viewer %d shares audience %d but sees\n%s\nnot\n%s", v, g.sess.Match().Audience(v), seen, other)
				}
				audiences[g.sess.Match().Audience(v)] = seen
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
	if n := flagsOn(b); b.flags != n {
		t.Fatalf("board %d counts %d flags but has %d", i, b.flags, n)
	}
}

// flagsOn counts b's flagged cells.
func flagsOn(b *board) int {
	n := 0
	for _, cl := range b.g.Cells() {
		if cl.st == Flagged {
			n++
		}
	}
	return n
}

// checkAudience checks the audience keys: 0 for everyone in solo and coop
// and in a race that is over; while a race runs, 0 for a viewer that is no
// seat and seat+1 for a seat.
func checkAudience(t *rapid.T, s *State, viewer session.Seat, got int) {
	want := 0
	if s.race && !s.over && viewer >= 0 && viewer < s.seats {
		want = viewer + 1
	}
	if got != want {
		t.Fatalf("viewer %d: audience %d, want %d (race=%v over=%v)", viewer, got, want, s.race, s.over)
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
// once the match is over, flagged cells say nothing more, and while a race
// runs a seat hears of other boards, and a spectator of every board, only
// through progress (which is the board's); once it is over, everyone sees
// every board.
func checkNoLeak(t *rapid.T, s *State, viewer session.Seat, viewJSON, eventsJSON []byte) {
	var view struct {
		Cells  []map[string]any `json:"cells"`
		Boards []struct {
			Seat     int              `json:"seat"`
			Phase    string           `json:"phase"`
			Revealed int              `json:"revealed"`
			Flags    *int             `json:"flags"`
			Cells    []map[string]any `json:"cells"`
		} `json:"boards"`
	}
	if err := json.Unmarshal(viewJSON, &view); err != nil {
		t.Fatal(err)
	}
	racing := s.race && !s.over
	if s.race && len(view.Boards) != s.seats {
		t.Fatalf("viewer %d sees %d boards of %d", viewer, len(view.Boards), s.seats)
	}
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
		b := &s.boards[bv.Seat]
		if bv.Phase != b.phase.String() || bv.Revealed != b.revealed || bv.Flags == nil || *bv.Flags != flagsOn(b) {
			t.Fatalf("viewer %d sees board %d as %+v: state %v, %d revealed, %d flags", viewer, bv.Seat, bv, b.phase, b.revealed, flagsOn(b))
		}
		switch {
		case racing && bv.Seat != viewer && bv.Cells != nil:
			t.Fatalf("viewer %d sees the cells of seat %d's board while the race runs", viewer, bv.Seat)
		case (!racing || bv.Seat == viewer) && bv.Cells == nil:
			t.Fatalf("viewer %d does not see the cells of seat %d's board (over=%v)", viewer, bv.Seat, s.over)
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
		if racing && board != viewer && e["type"] != "progress" {
			t.Fatalf("viewer %d hears %v of seat %d's board while the race runs", viewer, e, board)
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
			b := &s.boards[board]
			if len(e) != 6 || board == viewer || !racing || e["phase"] != b.phase.String() ||
				e["revealed"] != float64(b.revealed) || e["flags"] != float64(b.flags) || e["safe"] != float64(s.cfg.Safe()) {
				t.Fatalf("progress event %v to viewer %d (racing=%v): board %v, %d revealed, %d flags", e, viewer, racing, b.phase, b.revealed, b.flags)
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
// for every viewer in every mode. There are two exceptions. The
// partial-chord quirk (spec §6.4): the reference's events do not report the
// cells a losing chord's earlier floods opened, so the client lacks exactly
// those cells; the test checks that the difference is exactly them, then
// resyncs, as a client would after a loss. And the end of a race: every
// board becomes visible, and a board the viewer saw as progress has no
// cells to apply the last events to, so the client holds its progress
// only (the test checks it is the server's) and takes the view the ending
// update carries. And an update's events change nothing in the view after
// them, so a client that gets both in one update may apply the events.
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
				projected := g.sess.Match().View(v).(View)
				want := mustJSON(t, projected)
				// The events change nothing more in the view after them (a
				// client may get both in one update).
				var after View
				if err := json.Unmarshal(want, &after); err != nil {
					t.Fatal(err)
				}
				if err := after.Apply(events); err != nil {
					t.Fatalf("viewer %d apply %v to the view after them: %v", v, events, err)
				}
				if got := mustJSON(t, after); !bytes.Equal(got, want) {
					t.Fatalf("viewer %d: %v applied to the view after them:\n%s\nnot\n%s", v, events, got, want)
				}
				reduced := view
				if s.race && s.over && !p.before.over {
					reduced = endOfRace(t, v, view, projected)
				}
				got := mustJSON(t, reduced)
				if bytes.Equal(got, want) {
					if reduced != view {
						resync(v) // the view the ending update carries
					}
					continue
				}
				partial := partialChordCells(p, s)
				if len(partial) == 0 {
					t.Fatalf("viewer %d after %+v by %d:\nreduced %s\nproject %s", v, p.move, p.seat, got, want)
				}
				patched := patch(reduced, p.seat, partial)
				if got := mustJSON(t, patched); !bytes.Equal(got, want) {
					t.Fatalf("viewer %d misses more than the partial chord's cells %v:\nreduced %s\nproject %s", v, partial, got, want)
				}
				resync(v)
			}
		})
	})
}

// endOfRace checks a view reduced through the update that ended a race
// against the projection after it: each board the reduced view shows
// without cells has the projection's progress. It returns a copy of
// reduced with those boards taken from the projection, as a client takes
// them from the view that update carries.
func endOfRace(t *rapid.T, viewer session.Seat, reduced *View, projected View) *View {
	out := *reduced
	out.Boards = append([]BoardView(nil), reduced.Boards...)
	for i, b := range out.Boards {
		if b.Visible {
			continue
		}
		pb := projected.Boards[i]
		if pb.Seat != b.Seat || pb.Phase != b.Phase || pb.Revealed != b.Revealed || pb.Safe != b.Safe || pb.Flags != b.Flags {
			t.Fatalf("viewer %d: board %d reduced to %+v at the end of the race, projected %+v", viewer, b.Seat, b, pb)
		}
		out.Boards[i] = pb
	}
	return &out
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
		d, err := out.dense(list)
		if err != nil {
			panic(err) // the test's own views
		}
		for _, c := range cells {
			d[c.R*out.Cols+c.C] = cell{st: c.Status, adj: uint8(c.Adjacent), mine: c.Mine}
		}
		return out.sparse(d)
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
		{"more adjacent mines than neighbours", []Event{{Type: EventReveal, Cells: []RevealedCell{{R: 0, C: 0, Adjacent: 9}}}}},
		{"fewer than none", []Event{{Type: EventReveal, Cells: []RevealedCell{{R: 0, C: 0, Adjacent: -1}}}}},
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
