package nim

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/roomd/roomd/core/session"
)

// tb is what the helpers need of *testing.T and *rapid.T alike.
type tb interface {
	Helper()
	Fatalf(format string, args ...any)
}

// newSession starts a session of Game whose clock advances 1000 ms at every
// read, so that every accepted move has its own time.
func newSession(t tb, seed int64, config string, seats int) *session.GameSession {
	t.Helper()
	now := 0.0
	clock := func() float64 { now += 1000; return now }
	s, err := session.NewSession(Game, session.IntSeed(seed), json.RawMessage(config), seats, clock)
	if err != nil {
		t.Fatalf("NewSession(seed %d, %s, %d seats): %v", seed, config, seats, err)
	}
	return s
}

// stateOf returns the typed state of a match of Game.
func stateOf(t tb, m session.Match) *State {
	t.Helper()
	s, ok := session.State[*State](m)
	if !ok {
		t.Fatalf("match %T holds no *nim.State", m)
	}
	return s
}

// encode marshals v, failing the test on error.
func encode(t tb, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %T: %v", v, err)
	}
	return string(b)
}

// take is the JSON command taking n.
func take(n int) json.RawMessage { return json.RawMessage(fmt.Sprintf(`{"type":"take","n":%d}`, n)) }

// viewers lists every seat of a match of seats, then the spectator.
func viewers(seats int) []Seat {
	out := make([]Seat, 0, seats+1)
	for s := range seats {
		out = append(out, s)
	}
	return append(out, session.Spectator)
}

// everything is the observable state of a match: status, pending seats,
// and every viewer's view and audience, as JSON.
func everything(t tb, m session.Match, seats int) string {
	t.Helper()
	out := encode(t, m.Status()) + encode(t, m.Pending())
	for _, v := range viewers(seats) {
		out += fmt.Sprintf("|%d:%d:%s", v, m.Audience(v), encode(t, m.View(v)))
	}
	return out
}

// asRejection returns err as a *session.Rejection, failing the test if it is not one.
func asRejection(t tb, err error) *session.Rejection {
	t.Helper()
	var rej *session.Rejection
	if !errors.As(err, &rej) {
		t.Fatalf("error %v (%T) is not a *session.Rejection", err, err)
	}
	return rej
}

// playTo applies takes in turn from seat 0, failing on any rejection.
func playTo(t tb, s *session.GameSession, takes ...int) {
	t.Helper()
	for i, n := range takes {
		seat := s.Match().Pending()
		if len(seat) != 1 {
			t.Fatalf("take %d: pending %v, want one seat", i, seat)
		}
		if _, err := s.Apply(seat[0], take(n)); err != nil {
			t.Fatalf("take %d (seat %d takes %d): %v", i, seat[0], n, err)
		}
	}
}
