package cardgame

import (
	"testing"

	"github.com/roomd/roomd/core/session"
)

// AI against AI ends, by a hero's death or the turn limit, and the AI never
// sends a command the rules refuse.
func TestSelfPlay(t *testing.T) {
	phases := map[string]int{}
	for seed := range int64(30) {
		s := newSession(t, seed, `{}`)
		selfPlay(t, s, 5000, nil)
		st := s.Status()
		phases[st.Phase]++
		if !st.Outcome.Ranked || (st.Phase == PhaseWon) != (len(st.Outcome.Winners) == 1) {
			t.Errorf("seed %d: status %+v", seed, st)
		}
	}
	if phases[PhaseWon] == 0 {
		t.Errorf("no self-played match was won: %v", phases)
	}
	t.Logf("phases: %v", phases)
}

// The AI has nothing to do out of turn, after the end, or for a seat that
// is not in the match.
func TestAINoMove(t *testing.T) {
	s := newSession(t, 1, `{}`)
	m := s.Match()
	active := m.Pending()[0]
	for _, seat := range []Seat{1 - active, session.Spectator, 2} {
		if mv, ok := (Rules{}).Choose(viewOf(m, seat), seat, session.IntSeed(7).Source()); ok {
			t.Errorf("seat %d: %+v, want none", seat, mv)
		}
	}
	if _, err := s.Apply(active, command(t, Concede())); err != nil {
		t.Fatal(err)
	}
	if mv, ok := (Rules{}).Choose(viewOf(m, 1-active), 1-active, session.IntSeed(7).Source()); ok {
		t.Errorf("after the end: %+v, want none", mv)
	}
}
