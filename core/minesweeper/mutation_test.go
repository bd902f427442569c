package minesweeper

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/session"
	"pgregory.net/rapid"
)

// strictReplay replays a record through the erased rules and returns the
// final state and how many entries were refused as ineffective (replay
// skips those, as the reference's no-ops; a genuine roomd log has none).
// It stops at a malformed entry.
func strictReplay(t tb, rec session.Record) (state string, ineffective int) {
	t.Helper()
	m, err := Game.New(rec.Seed, rec.Config, rec.Seats)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range rec.Log {
		if _, err := m.Apply(session.Command{Seat: e.Seat, Move: e.Move}); err != nil {
			var rej *session.Rejection
			if errors.As(err, &rej) && rej.Malformed {
				break
			}
			ineffective++
		}
	}
	return fingerprint(typedState(t, m)), ineffective
}

// phaseAfter is the match's phase after the first n entries.
func phaseAfter(t tb, rec session.Record, n int) string {
	t.Helper()
	prefix := rec
	prefix.Log = rec.Log[:n]
	return session.Replay(Game, prefix).Status
}

// predictVerdict computes the verdict of a log whose moves are the played
// ones but whose timestamps are ts, from the rule alone: valid iff the
// timestamps never decrease and the game ended; time from the starting
// entry to the ending one.
func predictVerdict(status string, over bool, start, end int, ts []float64) session.Verdict {
	v := session.Verdict{Status: status}
	monotonic := true
	for i := 1; i < len(ts); i++ {
		if ts[i] < ts[i-1] {
			monotonic = false
		}
	}
	if start >= 0 && end >= 0 {
		v.Time = ts[end] - ts[start]
	}
	switch {
	case !monotonic:
		r := session.ReasonNonMonotonic
		v.Reason = &r
	case !over:
		r := session.ReasonNotTerminal
		v.Reason = &r
	default:
		v.Valid = true
	}
	return v
}

// TestPropertyMutatedLog tampers with a genuine log in one way and checks
// replay notices whenever it can. Some tampering legitimately keeps the
// verdict and the state, and those cases are named and excluded rather
// than the check weakened:
//
//   - retime one entry: the verdict is predicted exactly. Moving a
//     timestamp that neither breaks the order nor belongs to the entry that
//     started or ended the game cannot change anything: time is measured
//     between those two entries only.
//   - swap two adjacent entries: with different timestamps the order
//     breaks, so the verdict must be non-monotonic. With equal timestamps,
//     moves that commute (checked directly on the state before them) must
//     give the same verdict and state; moves that do not commute are not
//     checked: later moves can legitimately reopen the same cells.
//   - drop the entry that ended the game: the verdict must be "does not
//     reach a terminal state" from the phase before it.
//   - drop a flag toggle: the verdict or the final state must differ, or a
//     later entry must have become ineffective (a proof: the toggled
//     cell's flag parity flips, and every later way to change it — a
//     toggle, a reveal, a chord counting its flag — either keeps the
//     difference or is refused). Dropping a reveal or chord elsewhere is
//     not checked: a later flood can open the same cells, so the tampered
//     log can be a genuine game with the same end.
//   - corrupt an entry (off-board cell, unknown type, a seat not in the
//     match): the verdict must be invalid, naming that entry.
func TestPropertyMutatedLog(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := drawGame(t)
		g.play(t, 40, func(played) {})
		rec := g.record()
		log := rec.Log
		if len(log) == 0 {
			return
		}
		orig := session.Replay(Game, rec)
		origState, _ := strictReplay(t, rec)
		st := g.sess.Status()
		ts := make([]float64, len(log))
		for i, e := range log {
			ts[i] = e.T
		}
		mut := rec
		mut.Log = append([]session.Entry(nil), log...)
		i := rapid.IntRange(0, len(log)-1).Draw(t, "entry")
		switch kind := rapid.SampledFrom([]string{"retime", "swap", "drop", "corrupt"}).Draw(t, "mutation"); kind {
		case "retime":
			dt := rapid.SampledFrom([]float64{-7, -1, -0.5, 0.5, 1, 7}).Draw(t, "dt")
			mut.Log[i].T += dt
			ts[i] += dt
			want := predictVerdict(st.Phase, st.Over, g.start, g.end, ts)
			if got := session.Replay(Game, mut); !sameVerdict(got, want) {
				t.Fatalf("retime entry %d by %v: %s, want %s", i, dt, mustJSON(t, got), mustJSON(t, want))
			}
		case "swap":
			if i == len(log)-1 {
				return
			}
			mut.Log[i], mut.Log[i+1] = mut.Log[i+1], mut.Log[i]
			got := session.Replay(Game, mut)
			if log[i].T != log[i+1].T {
				if got.Valid || got.Reason == nil || *got.Reason != session.ReasonNonMonotonic {
					t.Fatalf("swap %d with different timestamps: %s", i, mustJSON(t, got))
				}
				return
			}
			if !commute(t, rec, i) {
				return // excluded: see above
			}
			state, ineffective := strictReplay(t, mut)
			if !sameVerdict(got, orig) || state != origState || ineffective != 0 {
				t.Fatalf("swapping commuting entries %d and %d changed the game: %s vs %s", i, i+1, mustJSON(t, got), mustJSON(t, orig))
			}
		case "drop":
			mut.Log = append(mut.Log[:i:i], log[i+1:]...)
			got := session.Replay(Game, mut)
			var m Move
			_ = json.Unmarshal(log[i].Move, &m)
			switch {
			case i == g.end:
				r := session.ReasonNotTerminal
				want := session.Verdict{Status: phaseAfter(t, rec, i), Reason: &r}
				if !sameVerdict(got, want) {
					t.Fatalf("dropping the ending entry %d: %s, want %s", i, mustJSON(t, got), mustJSON(t, want))
				}
			case m.Type == Flag:
				state, ineffective := strictReplay(t, mut)
				if sameVerdict(got, orig) && state == origState && ineffective == 0 {
					t.Fatalf("dropping flag entry %d went unnoticed", i)
				}
			}
		case "corrupt":
			cfg := g.cfg
			bad := rapid.SampledFrom([]string{
				fmt.Sprintf(`{"type":"reveal","r":%d,"c":0}`, cfg.Rows),
				fmt.Sprintf(`{"type":"flag","r":0,"c":%d}`, cfg.Cols),
				`{"type":"sweep","r":0,"c":0}`,
				`{"type":"reveal","r":0}`,
				"seat",
			}).Draw(t, "corruption")
			if bad == "seat" {
				mut.Log[i].Seat = g.seats
			} else {
				mut.Log[i].Move = json.RawMessage(bad)
			}
			got := session.Replay(Game, mut)
			if got.Valid || got.Reason == nil || !strings.HasPrefix(*got.Reason, fmt.Sprintf("entry %d: malformed move", i)) ||
				got.Status != phaseAfter(t, rec, i) {
				t.Fatalf("corrupt entry %d (%s): %s", i, bad, mustJSON(t, got))
			}
		}
	})
}

// commute reports whether entries i and i+1 give the same state in either
// order from the state before them, both accepted.
func commute(t tb, rec session.Record, i int) bool {
	t.Helper()
	run := func(order ...int) (string, bool) {
		m, err := Game.New(rec.Seed, rec.Config, rec.Seats)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range rec.Log[:i] {
			if _, err := m.Apply(session.Command{Seat: e.Seat, Move: e.Move}); err != nil {
				t.Fatalf("genuine log refused: %v", err)
			}
		}
		for _, j := range order {
			if _, err := m.Apply(session.Command{Seat: rec.Log[j].Seat, Move: rec.Log[j].Move}); err != nil {
				return "", false
			}
		}
		return fingerprint(typedState(t, m)), true
	}
	a, okA := run(i, i+1)
	b, okB := run(i+1, i)
	return okA && okB && a == b
}

func sameVerdict(a, b session.Verdict) bool {
	ra, rb := "", ""
	if a.Reason != nil {
		ra = *a.Reason
	}
	if b.Reason != nil {
		rb = *b.Reason
	}
	return a.Status == b.Status && a.Valid == b.Valid && ra == rb && (a.Time == b.Time || math.IsNaN(a.Time) && math.IsNaN(b.Time))
}

// TestMutatedLogExamples pins one tampering of each kind on g01's log.
func TestMutatedLogExamples(t *testing.T) {
	games := loadVectors[vectorGame](t, "games.json")
	g := games[0]
	var rec session.Record
	rec.Seed, rec.Config = session.IntSeed(g.Seed), compact(t, g.Config)
	for _, raw := range g.Log {
		var e session.Entry
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatal(err)
		}
		rec.Log = append(rec.Log, e)
	}
	tests := []struct {
		name   string
		mutate func(log []session.Entry) []session.Entry
		want   string
	}{
		{"genuine", func(l []session.Entry) []session.Entry { return l }, `{"status":"won","time":34991,"valid":true,"reason":null}`},
		{"drop the last", func(l []session.Entry) []session.Entry { return l[:len(l)-1] }, `{"status":"active","time":0,"valid":false,"reason":"log does not reach a terminal state"}`},
		{"faster start", func(l []session.Entry) []session.Entry { l[0].T += 50; return l }, `{"status":"won","time":34941,"valid":true,"reason":null}`},
		{"swap", func(l []session.Entry) []session.Entry { l[3], l[4] = l[4], l[3]; return l }, `"reason":"non-monotonic timestamps"`},
		{"aliased cell", func(l []session.Entry) []session.Entry {
			l[5].Move = json.RawMessage(`{"type":"reveal","r":6,"c":9}`)
			return l
		}, `"reason":"entry 5: malformed move: game:OutOfBounds`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := rec
			r.Log = tc.mutate(append([]session.Entry(nil), rec.Log...))
			if got := mustJSON(t, session.Replay(Game, r)); !bytes.Contains(got, []byte(tc.want)) {
				t.Errorf("verdict %s, want %s", got, tc.want)
			}
		})
	}
}
