package cardgame

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/roomd/roomd/core/session"
)

// recorded self-plays a match of seed and returns its record and session.
func recorded(t *testing.T, seed int64) (session.Record, *session.GameSession) {
	t.Helper()
	s := newSession(t, seed, `{}`)
	selfPlay(t, s, 5000, nil)
	res, ok := s.Result()
	if !ok {
		t.Fatalf("the match is not over")
	}
	data := encode(t, session.Record{Seed: res.Seed, Config: res.Config, Seats: Seats, Log: res.Log})
	rec, err := session.DecodeRecord([]byte(data))
	if err != nil {
		t.Fatalf("DecodeRecord: %v", err)
	}
	return rec, s
}

// session.Replay of a recorded match reaches the same end: verdict, time,
// winners and every viewer's final view.
func TestReplay(t *testing.T) {
	for seed := range int64(10) {
		rec, s := recorded(t, seed)
		verdict, m := session.ReplayMatch(Game, rec)
		if !verdict.Valid || verdict.Status != s.Status().Phase || verdict.Time != s.Elapsed() {
			t.Errorf("seed %d: verdict %+v, session %s in %v ms", seed, verdict, s.Status().Phase, s.Elapsed())
		}
		if got, want := everything(t, m, Seats), everything(t, s.Match(), Seats); got != want {
			t.Errorf("seed %d: replayed match\n%s\nwant\n%s", seed, got, want)
		}
		if verdict2 := session.Replay(Game, rec); verdict2 != verdict {
			t.Errorf("seed %d: replay twice: %+v, %+v", seed, verdict, verdict2)
		}
	}
}

func TestReplayMutated(t *testing.T) {
	orig, _ := recorded(t, 4)
	want := session.Replay(Game, orig)
	for _, tt := range []struct {
		name   string
		mutate func(*session.Record)
	}{
		{"the last command dropped", func(r *session.Record) { r.Log = r.Log[:len(r.Log)-1] }},
		{"another seed", func(r *session.Record) { r.Seed = session.IntSeed(99) }},
		{"a malformed command", func(r *session.Record) { r.Log[0].Move = json.RawMessage(`{"type":"play"}`) }},
		{"a seat not in the match", func(r *session.Record) { r.Log[0].Seat = 2 }},
		{"three seats", func(r *session.Record) { r.Seats = 3 }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := orig
			rec.Log = slices.Clone(orig.Log)
			tt.mutate(&rec)
			if got := session.Replay(Game, rec); got == want {
				t.Errorf("the mutated record replays the same: %+v", got)
			}
		})
	}
}

// A restart rebuilds the match by replaying its log (the game keeps no
// checkpoint): at every point of a match, session.Restore of the log so
// far, plus the rest of the log, gives the same match.
func TestRestore(t *testing.T) {
	_, s := recorded(t, 2)
	if cp, err := s.Save(); err != nil || cp != nil {
		t.Fatalf("Save() = %v, %v, want no checkpoint", cp, err)
	}
	log := s.Log()
	h := s.Header()
	for _, at := range []int{0, 1, len(log) / 3, len(log) / 2, len(log) - 1, len(log)} {
		now := 0.0
		r, err := session.Restore(Game, h, nil, log[:at], 0, func() float64 { now += 1000; return now })
		if err != nil {
			t.Fatalf("restore after %d: %v", at, err)
		}
		for _, e := range log[at:] {
			if _, err := r.ApplyAt(e.Seat, e.Move, e.T); err != nil {
				t.Fatalf("restored after %d: %v", at, err)
			}
		}
		if got, want := everything(t, r.Match(), Seats), everything(t, s.Match(), Seats); got != want {
			t.Errorf("restored after %d:\n%s\nwant\n%s", at, got, want)
		}
	}
}
