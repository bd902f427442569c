package nim

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/roomd/roomd/core/session"
)

// outcome is what replay makes of a record, plus the winners it reaches.
type outcome struct {
	Verdict session.Verdict
	Winners []Seat
}

// replay replays rec through session.Replay and again move by move, as
// Replay does, to learn the winners.
func replay(t *testing.T, rec session.Record) outcome {
	t.Helper()
	out := outcome{Verdict: session.Replay(Game, rec)}
	m, err := Game.New(rec.Seed, rec.Config, rec.Seats)
	if err != nil {
		return out
	}
	for _, e := range rec.Log {
		if _, err := m.Apply(session.Command{Seat: e.Seat, Move: e.Move}); err != nil {
			var rej *session.Rejection
			if errors.As(err, &rej) && !rej.Malformed {
				continue
			}
			return out
		}
	}
	out.Winners = m.Status().Outcome.Winners
	return out
}

// recorded plays takes with seed 1 (secrets [2 1]) on a pile of 10 between
// two seats and returns the session's record: 3, 3, 3, then seat 1 takes
// the last 1, its secret, and loses.
func recorded(t *testing.T) (session.Record, *session.GameSession) {
	t.Helper()
	s := newSession(t, 1, `{"pile":10}`, 2)
	playTo(t, s, 3, 3, 3, 1)
	res, ok := s.Result()
	if !ok {
		t.Fatalf("the game is not over")
	}
	data := encode(t, session.Record{Seed: res.Seed, Config: res.Config, Seats: s.Seats(), Log: res.Log})
	rec, err := session.DecodeRecord([]byte(data))
	if err != nil {
		t.Fatalf("DecodeRecord(%s): %v", data, err)
	}
	return rec, s
}

func TestReplay(t *testing.T) {
	rec, s := recorded(t)
	got := replay(t, rec)
	if !got.Verdict.Valid || got.Verdict.Status != PhaseOver || got.Verdict.Time != s.Elapsed() || got.Verdict.Time != 3000 {
		t.Errorf("verdict %+v, want valid, over, in %v ms", got.Verdict, s.Elapsed())
	}
	if !slices.Equal(got.Winners, []Seat{0}) || !slices.Equal(s.Status().Outcome.Winners, got.Winners) {
		t.Errorf("replay winners %v, session winners %v, want [0]", got.Winners, s.Status().Outcome.Winners)
	}
}

// Self-played games replay to the same verdict and winner.
func TestReplaySelfPlay(t *testing.T) {
	for seats := MinSeats; seats <= MaxSeats; seats++ {
		for seed := range int64(20) {
			s := newSession(t, seed, `{}`, seats)
			for !s.Status().Over {
				seat := s.Match().Pending()[0]
				command, _ := s.Match().AIMove(seat, session.IntSeed(7).Source())
				if _, err := s.Apply(seat, command); err != nil {
					t.Fatalf("%d seats, seed %d: %v", seats, seed, err)
				}
			}
			got := replay(t, session.Record{Seed: session.IntSeed(seed), Config: json.RawMessage(`{}`), Seats: seats, Log: s.Log()})
			if !got.Verdict.Valid || got.Verdict.Time != s.Elapsed() || !slices.Equal(got.Winners, s.Status().Outcome.Winners) {
				t.Errorf("%d seats, seed %d: replay %+v, session elapsed %v winners %v", seats, seed, got, s.Elapsed(), s.Status().Outcome.Winners)
			}
		}
	}
}

func TestReplayMutated(t *testing.T) {
	move := func(raw string) json.RawMessage { return json.RawMessage(raw) }
	tests := []struct {
		name   string
		mutate func(*session.Record)
		valid  bool // whether the mutated record is still a valid game
	}{
		{"last take dropped", func(r *session.Record) { r.Log = r.Log[:3] }, false},
		{"last take by the wrong seat", func(r *session.Record) { r.Log[3].Seat = 0 }, false},
		{"last take too big", func(r *session.Record) { r.Log[3].Move = take(2) }, false},
		{"first take smaller", func(r *session.Record) { r.Log[0].Move = take(2) }, false},
		{"a malformed take", func(r *session.Record) { r.Log[1].Move = move(`{"type":"take","n":7}`) }, false},
		{"an unknown move", func(r *session.Record) { r.Log[1].Move = move(`{"type":"flag","r":0,"c":0}`) }, false},
		{"a seat that is not in the match", func(r *session.Record) { r.Log[2].Seat = 5 }, false},
		{"time running backwards", func(r *session.Record) { r.Log[2].T = 0 }, false},
		{"a later end", func(r *session.Record) { r.Log[3].T += 500 }, true},
		{"another seed deals seat 1 another secret", func(r *session.Record) { r.Seed = session.IntSeed(42) }, true},
		{"a bigger pile", func(r *session.Record) { r.Config = move(`{"pile":11}`) }, false},
		{"a third seat", func(r *session.Record) { r.Seats = 3 }, false},
		{"an invalid config", func(r *session.Record) { r.Config = move(`{"pile":0}`) }, false},
	}
	orig, _ := recorded(t)
	want := replay(t, orig)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := orig
			rec.Log = slices.Clone(orig.Log)
			tt.mutate(&rec)
			got := replay(t, rec)
			if reflect.DeepEqual(got, want) {
				t.Fatalf("the mutated record replays the same: %+v", got)
			}
			if got.Verdict.Valid != tt.valid {
				t.Errorf("verdict %+v, want valid %v", got.Verdict, tt.valid)
			}
			if !got.Verdict.Valid && got.Verdict.Reason == nil {
				t.Errorf("an invalid verdict without a reason")
			}
		})
	}
}

// A record replays the same however often.
func TestReplayDeterministic(t *testing.T) {
	rec, _ := recorded(t)
	first := fmt.Sprintf("%+v", replay(t, rec))
	for range 5 {
		if again := fmt.Sprintf("%+v", replay(t, rec)); again != first {
			t.Fatalf("replay gave %s, then %s", first, again)
		}
	}
}
