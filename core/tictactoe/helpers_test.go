package tictactoe

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
	asRejection = sessiontest.AsRejection
	// viewers are both seats, then the spectator.
	viewers = sessiontest.Viewers(Seats)
)

// newSession starts a two-seat session of Game on a test clock (1000 ms a
// read).
func newSession(t tb) *session.GameSession {
	t.Helper()
	return sessiontest.NewSession(t, Game, 1, `{}`, Seats)
}

// stateOf returns the typed state of a match of Game.
func stateOf(t tb, m session.Match) *State {
	t.Helper()
	return sessiontest.State[*State](t, m)
}

// everything is the observable state of a match: status, pending seats,
// and every viewer's audience and view, as JSON.
func everything(t tb, m session.Match) string {
	t.Helper()
	return sessiontest.Everything(t, m, Seats)
}

// mark is the JSON command marking (r, c).
func mark(r, c int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"type":"mark","r":%d,"c":%d}`, r, c))
}

// play marks squares in turn from the seat to move, failing on any
// rejection. Squares are numbered 0 to 8 in reading order.
func play(t tb, s *session.GameSession, squares ...int) {
	t.Helper()
	for i, sq := range squares {
		p := s.Match().Pending()
		if len(p) != 1 {
			t.Fatalf("mark %d: pending %v, want one seat", i, p)
		}
		if _, err := s.Apply(p[0], mark(sq/Size, sq%Size)); err != nil {
			t.Fatalf("mark %d (seat %d on square %d): %v", i, p[0], sq, err)
		}
	}
}
