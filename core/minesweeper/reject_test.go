package minesweeper

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/session"
)

// The b01/g01 board: seed 42, beginner, first reveal (0, 0).
//
//	0002*2000
//	0002*3211
//	00012*2*1
//	000011211
//	000111000
//	0112*2100
//	12*33*210
//	*212*3*10
//	110112110
const g01Config = `{"rows":9,"cols":9,"mines":10}`

// snapshot is everything a rejected move must leave alone.
type snapshot struct {
	state   string
	views   [][]byte
	log     int
	elapsed float64
	status  string
}

func snap(t tb, s *clocked) snapshot {
	t.Helper()
	sn := snapshot{state: fingerprint(s.state(t)), log: len(s.Log()), elapsed: s.Elapsed(), status: string(mustJSON(t, s.Status()))}
	for v := session.Spectator; v < s.Seats(); v++ {
		sn.views = append(sn.views, mustJSON(t, s.Match().View(v)))
	}
	return sn
}

func (a snapshot) equal(b snapshot) bool {
	if a.state != b.state || a.log != b.log || a.elapsed != b.elapsed || a.status != b.status || len(a.views) != len(b.views) {
		return false
	}
	for i := range a.views {
		if !bytes.Equal(a.views[i], b.views[i]) {
			return false
		}
	}
	return true
}

type play struct {
	seat session.Seat
	move string
}

func mv(seat session.Seat, typ MoveType, r, c int) play {
	return play{seat, string(moveJSON(typ, r, c))}
}

// applyAll plays moves that must all be accepted.
func applyAll(t tb, s *clocked, plays ...play) {
	t.Helper()
	for _, p := range plays {
		s.now++
		if _, err := s.Apply(p.seat, json.RawMessage(p.move)); err != nil {
			t.Fatalf("seat %d %s: %v", p.seat, p.move, err)
		}
	}
}

func TestRejections(t *testing.T) {
	solo := func(t *testing.T) *clocked {
		s := newClocked(t, 42, g01Config, 1)
		applyAll(t, s, mv(0, Reveal, 0, 0), mv(0, Flag, 0, 4))
		return s
	}
	lost := func(t *testing.T) *clocked {
		s := solo(t)
		applyAll(t, s, mv(0, Reveal, 1, 4))
		return s
	}
	race := func(t *testing.T) *clocked {
		// Seat 0 explodes on its second move; seats 1 and 2 play on.
		s := newClocked(t, 42, `{"rows":9,"cols":9,"mines":10,"mode":"race"}`, 3)
		applyAll(t, s, mv(0, Reveal, 0, 0), mv(1, Reveal, 0, 0), mv(0, Reveal, 0, 4))
		return s
	}
	tests := []struct {
		name      string
		setup     func(*testing.T) *clocked
		seat      session.Seat
		move      string
		code      string
		malformed bool
	}{
		{"row off the board", solo, 0, `{"type":"reveal","r":9,"c":0}`, session.CodeOutOfBounds, true},
		{"column that the reference aliases", solo, 0, `{"type":"reveal","r":6,"c":9}`, session.CodeOutOfBounds, true},
		{"negative column", solo, 0, `{"type":"flag","r":1,"c":-1}`, session.CodeOutOfBounds, true},
		{"unknown type", solo, 0, `{"type":"dig","r":0,"c":0}`, session.CodeUnknownMove, true},
		{"fractional coordinate", solo, 0, `{"type":"reveal","r":0.5,"c":0}`, session.CodeInvalidMove, true},
		{"null move", solo, 0, `null`, session.CodeMalformedInput, true},
		{"seat not in a solo match", solo, 1, `{"type":"reveal","r":8,"c":8}`, session.CodeNoSuchSeat, true},
		{"spectator", solo, session.Spectator, `{"type":"reveal","r":8,"c":8}`, session.CodeNoSuchSeat, true},
		{"reveal a revealed cell", solo, 0, `{"type":"reveal","r":0,"c":0}`, CodeNotHidden, false},
		{"reveal a flagged cell", solo, 0, `{"type":"reveal","r":0,"c":4}`, CodeNotHidden, false},
		{"flag a revealed cell", solo, 0, `{"type":"flag","r":0,"c":3}`, CodeAlreadyRevealed, false},
		{"chord a hidden cell", solo, 0, `{"type":"chord","r":8,"c":8}`, CodeNotRevealed, false},
		{"chord a zero", solo, 0, `{"type":"chord","r":0,"c":0}`, CodeChordUnsatisfied, false},
		{"chord with too few flags", solo, 0, `{"type":"chord","r":1,"c":3}`, CodeChordUnsatisfied, false},
		{"chord with nothing hidden", func(t *testing.T) *clocked {
			s := solo(t)
			applyAll(t, s, mv(0, Flag, 1, 4)) // (0,3) shows 2: flags (0,4) and (1,4); its other neighbours are open
			return s
		}, 0, `{"type":"chord","r":0,"c":3}`, CodeNothingToChord, false},
		{"move after a loss", lost, 0, `{"type":"reveal","r":8,"c":8}`, session.CodeGameOver, false},
		{"flag after a loss", lost, 0, `{"type":"flag","r":8,"c":8}`, session.CodeGameOver, false},
		{"off the board after a loss is still malformed", lost, 0, `{"type":"flag","r":8,"c":9}`, session.CodeOutOfBounds, true},
		{"race seat whose run is over", race, 0, `{"type":"reveal","r":8,"c":8}`, CodeRunOver, false},
		{"race seat beyond the seats", race, 3, `{"type":"reveal","r":8,"c":8}`, session.CodeNoSuchSeat, true},
		{"race seat on a revealed cell of its own board", race, 1, `{"type":"reveal","r":0,"c":1}`, CodeNotHidden, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.setup(t)
			before := snap(t, s)
			s.now += 1000
			_, err := s.Apply(tc.seat, json.RawMessage(tc.move))
			s.now -= 1000
			rej := rejection(t, err)
			if rej.Code != tc.code || rej.Malformed != tc.malformed || rej.Reason == "" {
				t.Errorf("rejection %q %q malformed=%v, want %s malformed=%v", rej.Code, rej.Reason, rej.Malformed, tc.code, tc.malformed)
			}
			if after := snap(t, s); !after.equal(before) {
				t.Errorf("a rejected move changed the match:\nbefore %+v\nafter  %+v", before, after)
			}
		})
	}
}

// TestTypedApplyRejectsWithoutChange checks the typed rules directly: a
// rejected Apply returns the same state pointer, untouched.
func TestTypedApplyRejectsWithoutChange(t *testing.T) {
	cfg, _ := DecodeConfig([]byte(g01Config))
	tests := []struct {
		name string
		seat session.Seat
		m    Move
		code string
	}{
		{"zero move", 0, Move{}, session.CodeUnknownMove},
		{"type out of range", 0, Move{Type: 9}, session.CodeUnknownMove},
		{"off the board", 0, Move{Reveal, 0, 81}, session.CodeOutOfBounds},
		{"no seat", 2, Move{Reveal, 0, 0}, session.CodeNoSuchSeat},
		{"chord before any reveal", 0, Move{Chord, 4, 4}, CodeNotRevealed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Rules{}.Init(session.IntSeed(42), cfg, 1)
			if err != nil {
				t.Fatal(err)
			}
			before := fingerprint(s)
			got, events, err := Rules{}.Apply(s, session.Input[Move]{Seat: tc.seat, Move: tc.m})
			if rej := rejection(t, err); rej.Code != tc.code {
				t.Errorf("code %s, want %s", rej.Code, tc.code)
			}
			if got != s || events != nil || fingerprint(s) != before {
				t.Error("rejected move changed the state or returned events")
			}
		})
	}
}

func TestCoop(t *testing.T) {
	tests := []struct {
		name    string
		plays   []play
		phase   string
		winners string
		pending string
	}{
		{"running", []play{mv(2, Reveal, 0, 0), mv(1, Flag, 0, 4)}, "active", "null", "[0,1,2]"},
		{"lost by any seat", []play{mv(2, Reveal, 0, 0), mv(1, Reveal, 0, 4)}, "lost", "null", "null"},
		{"won together", append([]play{mv(1, Reveal, 0, 0)}, revealAllSafe(t, 1, 0, 0)...), "won", "[0,1,2]", "null"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newClocked(t, 42, `{"rows":9,"cols":9,"mines":10,"mode":"coop"}`, 3)
			applyAll(t, s, tc.plays...)
			st := s.Status()
			if st.Phase != tc.phase || string(mustJSON(t, st.Outcome.Winners)) != tc.winners || string(mustJSON(t, s.Match().Pending())) != tc.pending {
				t.Errorf("status %+v pending %v", st, s.Match().Pending())
			}
			// One audience, one view: every viewer sees the solo form.
			want := mustJSON(t, s.Match().View(0))
			for v := session.Spectator; v < 3; v++ {
				if a := s.Match().Audience(v); a != 0 {
					t.Errorf("viewer %d audience %d", v, a)
				}
				if got := mustJSON(t, s.Match().View(v)); !bytes.Equal(got, want) {
					t.Errorf("viewer %d sees %s", v, got)
				}
			}
		})
	}
}

// revealAllSafe returns reveals, for seat, of every safe cell of the board
// seed 42 gives beginner for a first reveal at (r, c), that the first
// reveal's flood does not open.
func revealAllSafe(t tb, seat session.Seat, r, c int) []play {
	t.Helper()
	cfg, _ := DecodeConfig([]byte(g01Config))
	l, err := Generate(session.IntSeed(42), cfg, r, c)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := NewState(session.IntSeed(42), cfg, 1)
	if _, err := s.apply(0, Move{Reveal, r, c}); err != nil {
		t.Fatal(err)
	}
	var out []play
	for k, m := range l.Mine {
		if !m && s.boards[0].g.Cells()[k].st == Hidden {
			if _, err := s.apply(0, Move{Reveal, k / 9, k % 9}); err == nil {
				out = append(out, mv(seat, Reveal, k/9, k%9))
			}
		}
	}
	return out
}

func TestRace(t *testing.T) {
	s := newClocked(t, 42, `{"rows":9,"cols":9,"mines":10,"mode":"race"}`, 2)
	// shadow[i] plays seat i's moves on a solo board: a race board's events
	// are the solo events, tagged with the seat.
	cfg, _ := DecodeConfig([]byte(g01Config))
	var shadow [2]*State
	for i := range shadow {
		shadow[i], _ = NewState(session.IntSeed(42), cfg, 1)
	}
	tagged := func(seat session.Seat, events []Event) string {
		parts := make([]string, len(events))
		for i, e := range events {
			e.Seat, e.Tagged = seat, true
			parts[i] = string(mustJSON(t, e))
		}
		return strings.Join(parts, ",")
	}
	progress := func(seat session.Seat) string {
		b := shadow[seat].boards[0]
		return fmt.Sprintf(`{"type":"progress","seat":%d,"phase":"%s","revealed":%d,"safe":71,"flags":%d}`, seat, b.phase, b.revealed, b.flags)
	}
	// step plays m for seat and checks what each viewer hears.
	step := func(seat session.Seat, m Move, want func(own string) map[session.Seat]string) {
		t.Helper()
		events, err := shadow[seat].apply(0, m)
		if err != nil {
			t.Fatalf("shadow %d %+v: %v", seat, m, err)
		}
		s.now++
		st, err := s.Apply(seat, m.AppendJSON(nil))
		if err != nil {
			t.Fatalf("%d %+v: %v", seat, m, err)
		}
		for v, w := range want(tagged(seat, events)) {
			if got := string(mustJSON(t, st.Beats(v))); got != w {
				t.Errorf("seat %d %+v: viewer %d got\n%s\nwant\n%s", seat, m, v, got, w)
			}
		}
	}

	// Seat 1 flags first: it hears its flag, the others its progress (one
	// flag); nothing starts.
	step(1, Move{Flag, 8, 8}, func(own string) map[session.Seat]string {
		return map[session.Seat]string{-1: "[" + progress(1) + "]", 0: "[" + progress(1) + "]", 1: "[" + own + "]", 2: "[" + progress(1) + "]"}
	})
	if st := s.Status(); st.Phase != "fresh" || st.Started {
		t.Errorf("status %+v after a flag", st)
	}
	// Seat 0 opens at (7, 2); seat 1 and spectators learn only its progress.
	step(0, Move{Reveal, 7, 2}, func(own string) map[session.Seat]string {
		return map[session.Seat]string{-1: "[" + progress(0) + "]", 0: "[" + own + "]", 1: "[" + progress(0) + "]"}
	})
	if st := s.Status(); st.Phase != "active" || !st.Started {
		t.Errorf("status %+v after a reveal", st)
	}
	wantView0 := `{"config":{"rows":9,"cols":9,"mines":10,"mode":"race"},"phase":"active","mode":"race","boards":[` +
		`{"seat":0,"phase":"active","revealed":35,"safe":71,"flags":0,"cells":` + string(mustJSON(t, shadow[0].Project(0).Cells)) + `},` +
		`{"seat":1,"phase":"fresh","revealed":0,"safe":71,"flags":1}]}`
	if got := string(mustJSON(t, s.Match().View(0))); got != wantView0 {
		t.Errorf("seat 0 view\n%s\nwant\n%s", got, wantView0)
	}
	// A spectator sees no board while the race runs: a racer watching could
	// copy a first click, or learn a mine from an explosion.
	wantSpec := `{"config":{"rows":9,"cols":9,"mines":10,"mode":"race"},"phase":"active","mode":"race","boards":[` +
		`{"seat":0,"phase":"active","revealed":35,"safe":71,"flags":0},{"seat":1,"phase":"fresh","revealed":0,"safe":71,"flags":1}]}`
	for _, v := range []session.Seat{-1, 2} {
		if got := string(mustJSON(t, s.Match().View(v))); got != wantSpec {
			t.Errorf("viewer %d's view\n%s\nwant\n%s", v, got, wantSpec)
		}
	}
	for v, want := range map[session.Seat]int{-1: 0, 0: 1, 1: 2, 7: 0} {
		if got := s.Match().Audience(v); got != want {
			t.Errorf("audience of %d is %d, want %d", v, got, want)
		}
	}

	// Seat 0 hits a mine: its explode event keeps the mines secret while
	// seat 1 plays on (the same first click would give the same board).
	l0, _ := Generate(session.IntSeed(42), cfg, 7, 2)
	mine := l0.MineCoords()[0]
	step(0, Move{Reveal, mine[0], mine[1]}, func(string) map[session.Seat]string {
		explode := fmt.Sprintf(`[{"type":"explode","seat":0,"r":%d,"c":%d}]`, mine[0], mine[1])
		return map[session.Seat]string{-1: "[" + progress(0) + "]", 0: explode, 1: "[" + progress(0) + "]"}
	})
	if st := s.Status(); st.Phase != "active" || st.Over || fmt.Sprint(s.Match().Pending()) != "[1]" {
		t.Errorf("after seat 0 lost: %+v pending %v", st, s.Match().Pending())
	}
	if got := string(mustJSON(t, s.Match().View(0))); strings.Contains(got, `"hidden"`) {
		t.Errorf("seat 0 sees hidden mines while the race runs: %s", got)
	}

	// Seat 1 unflags and clears the g01 board (first click (0, 0)).
	step(1, Move{Flag, 8, 8}, func(string) map[session.Seat]string { return nil })
	step(1, Move{Reveal, 0, 0}, func(string) map[session.Seat]string { return nil })
	plays := revealAllSafe(t, 1, 0, 0)
	for _, p := range plays[:len(plays)-1] {
		var m Move
		_ = json.Unmarshal([]byte(p.move), &m)
		step(1, m, func(string) map[session.Seat]string { return nil })
	}
	var last Move
	_ = json.Unmarshal([]byte(plays[len(plays)-1].move), &last)
	// The winning move ends the race: everyone hears all of it, one audience.
	end0 := `{"type":"end","seat":0,"mines":` + string(mustJSON(t, toPos(l0.MineCoords()))) + `}`
	step(1, last, func(own string) map[session.Seat]string {
		all := "[" + own + "," + end0 + "]"
		return map[session.Seat]string{-1: all, 0: all, 1: all, 2: all}
	})
	st := s.Status()
	if st.Phase != "won" || !st.Over || fmt.Sprint(st.Outcome.Winners) != "[1]" || s.Match().Pending() != nil {
		t.Errorf("after the win: %+v pending %v", st, s.Match().Pending())
	}
	// The match is over: everyone sees both boards, seat 0's with its
	// unflagged mines.
	final := mustJSON(t, s.Match().View(0))
	for _, v := range []session.Seat{-1, 1, 2} {
		if got := mustJSON(t, s.Match().View(v)); !bytes.Equal(got, final) {
			t.Errorf("viewer %d's final view\n%s\nseat 0's\n%s", v, got, final)
		}
		if a := s.Match().Audience(v); a != 0 {
			t.Errorf("viewer %d's audience after the race is %d", v, a)
		}
	}
	var v0 View
	if err := json.Unmarshal(final, &v0); err != nil {
		t.Fatal(err)
	}
	hiddenMines := 0
	for _, c := range v0.Boards[0].Cells {
		if c.Status == Hidden && c.Mine {
			hiddenMines++
		}
	}
	if hiddenMines != 9 || v0.Boards[0].Phase != PhaseLost || !v0.Boards[1].Visible || v0.Boards[1].Revealed != 71 || v0.Phase != PhaseWon {
		t.Errorf("the final view: %d hidden mines, %+v", hiddenMines, v0)
	}
	s.now++
	if _, err := s.Apply(0, moveJSON(Reveal, 8, 8)); rejection(t, err).Code != session.CodeGameOver {
		t.Errorf("move after the race: %v", err)
	}
}

func TestRaceAllLost(t *testing.T) {
	s := newClocked(t, 42, `{"rows":9,"cols":9,"mines":10,"mode":"race"}`, 2)
	applyAll(t, s, mv(0, Reveal, 0, 0), mv(1, Reveal, 0, 0), mv(0, Reveal, 0, 4))
	s.now++
	st, err := s.Apply(1, moveJSON(Reveal, 1, 4))
	if err != nil {
		t.Fatal(err)
	}
	// The last board standing is lost: the race is over, and everyone hears
	// every board's mines.
	mines := `[{"r":0,"c":4},{"r":1,"c":4},{"r":2,"c":5},{"r":2,"c":7},{"r":5,"c":4},{"r":6,"c":2},{"r":6,"c":5},{"r":7,"c":0},{"r":7,"c":4},{"r":7,"c":6}]`
	want := `[{"type":"explode","seat":1,"r":1,"c":4,"mines":` + mines + `},{"type":"end","seat":0,"mines":` + mines + `}]`
	for v := session.Spectator; v < 2; v++ {
		if got := string(mustJSON(t, st.Beats(v))); got != want {
			t.Errorf("viewer %d got\n%s\nwant\n%s", v, got, want)
		}
	}
	status := s.Status()
	if status.Phase != "lost" || !status.Over || len(status.Outcome.Winners) != 0 {
		t.Errorf("status %+v", status)
	}
	if res, ok := s.Result(); !ok || res.Status != "lost" || res.Time != 3 {
		t.Errorf("result %+v", res)
	}
}

func toPos(cs [][2]int) []Pos {
	out := make([]Pos, len(cs))
	for i, c := range cs {
		out[i] = Pos{R: c[0], C: c[1]}
	}
	return out
}
