package nim

import (
	"encoding/json"
	"fmt"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/session/sessiontest"
)

// tb is what the helpers need of *testing.T and *rapid.T alike.
type tb = sessiontest.TB

var (
	encode      = sessiontest.Encode
	everything  = sessiontest.Everything
	viewers     = sessiontest.Viewers
	asRejection = sessiontest.AsRejection
)

// newSession starts a session of Game on a test clock (1000 ms a read).
func newSession(t tb, seed int64, config string, seats int) *session.GameSession {
	t.Helper()
	return sessiontest.NewSession(t, Game, seed, config, seats)
}

// stateOf returns the typed state of a match of Game.
func stateOf(t tb, m session.Match) *State {
	t.Helper()
	return sessiontest.State[*State](t, m)
}

// take is the JSON command taking n.
func take(n int) json.RawMessage { return json.RawMessage(fmt.Sprintf(`{"type":"take","n":%d}`, n)) }

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
