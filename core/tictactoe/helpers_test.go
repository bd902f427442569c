package tictactoe

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

// newSession starts a two-seat session of Game whose clock advances
// 1000 ms at every read, so that every accepted move has its own time.
func newSession(t tb) *session.GameSession {
	t.Helper()
	now := 0.0
	clock := func() float64 { now += 1000; return now }
	s, err := session.NewSession(Game, session.IntSeed(1), json.RawMessage(`{}`), Seats, clock)
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}
	return s
}

// stateOf returns the typed state of a match of Game.
func stateOf(t tb, m session.Match) *State {
	t.Helper()
	s, ok := session.State[*State](m)
	if !ok {
		t.Fatalf("match %T holds no *tictactoe.State", m)
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

// mark is the JSON command marking (r, c).
func mark(r, c int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"type":"mark","r":%d,"c":%d}`, r, c))
}

// viewers are both seats, then the spectator.
var viewers = []Seat{0, 1, session.Spectator}

// everything is the observable state of a match: status, pending seats,
// and every viewer's audience and view, as JSON.
func everything(t tb, m session.Match) string {
	t.Helper()
	out := encode(t, m.Status()) + encode(t, m.Pending())
	for _, v := range viewers {
		out += fmt.Sprintf("|%d:%d:%s", v, m.Audience(v), encode(t, m.View(v)))
	}
	return out
}

// asRejection returns err as a *session.Rejection, failing the test if it
// is not one.
func asRejection(t tb, err error) *session.Rejection {
	t.Helper()
	var rej *session.Rejection
	if !errors.As(err, &rej) {
		t.Fatalf("error %v (%T) is not a *session.Rejection", err, err)
	}
	return rej
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
