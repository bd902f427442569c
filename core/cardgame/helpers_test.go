package cardgame

import (
	"encoding/json"

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
func newSession(t tb, seed int64, config string) *session.GameSession {
	t.Helper()
	return sessiontest.NewSession(t, Game, seed, config, Seats)
}

// stateOf returns the typed state of a match of Game.
func stateOf(t tb, m session.Match) *State {
	t.Helper()
	return sessiontest.State[*State](t, m)
}

// command is m's JSON.
func command(t tb, m Move) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatalf("marshal %+v: %v", m, err)
	}
	return b
}

// viewOf is viewer's typed view.
func viewOf(m session.Match, viewer Seat) View { return m.View(viewer).(View) }

// selfPlay plays the AI for both seats to the end, at most limit commands,
// calling each after every accepted command.
func selfPlay(t tb, s *session.GameSession, limit int, each func(step session.Step)) {
	t.Helper()
	m := s.Match()
	for i := 0; !s.Status().Over; i++ {
		if i >= limit {
			t.Fatalf("no end after %d commands", limit)
		}
		seat := m.Pending()[0]
		raw, ok := m.AIMove(seat, session.IntSeed(7).Source())
		if !ok {
			t.Fatalf("the AI has no move for seat %d, whose turn it is", seat)
		}
		step, err := s.Apply(seat, raw)
		if err != nil {
			t.Fatalf("command %d: seat %d's %s refused: %v", i, seat, raw, err)
		}
		if each != nil {
			each(step)
		}
	}
}
