package session_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/session/sessiontest"
	"github.com/roomd/roomd/core/tictactoe"
)

// TestFollower: a client holding a viewer's view follows a tic-tac-toe
// match with the erased Follower alone — Apply of each step's events gives
// the server's next view, byte for byte — and plays it with Choose, whose
// commands the rules accept. A game without a reducer has no Follower.
func TestFollower(t *testing.T) {
	f, err := session.FollowerOf(tictactoe.Game)
	if err != nil {
		t.Fatal(err)
	}
	s, err := session.NewSession(tictactoe.Game, session.IntSeed(1), json.RawMessage(`{}`), 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	held := map[int]json.RawMessage{}
	for _, v := range sessiontest.Viewers(2) {
		held[v], _ = json.Marshal(s.Match().View(v))
	}
	src := session.IntSeed(3).Source()
	for n := 0; !s.Status().Over; n++ {
		seat := s.Match().Pending()[0]
		cmd, ok, err := f.Choose(held[seat], seat, src)
		if err != nil || !ok || n > 9 {
			t.Fatalf("move %d: the follower's AI chose %s, %v, %v", n, cmd, ok, err)
		}
		step, err := s.Apply(seat, cmd)
		if err != nil {
			t.Fatalf("the rules refused the follower's choice %s: %v", cmd, err)
		}
		for _, v := range sessiontest.Viewers(2) {
			beats, _ := step.AppendBeats(nil, v)
			got, err := f.Apply(held[v], beats)
			want, _ := json.Marshal(s.Match().View(v))
			if err != nil || string(got) != string(want) {
				t.Fatalf("viewer %d after %s: followed %s (%v), the server's %s", v, cmd, got, err, want)
			}
			held[v] = got
		}
	}
	if _, ok, _ := f.Choose(held[0], 0, src); ok {
		t.Fatal("the AI chose a move after the end")
	}
	if _, err := session.FollowerOf(sessiontest.Tap); !errors.Is(err, session.ErrNoReducer) {
		t.Fatalf("a game without a reducer: %v", err)
	}
	if _, err := f.Apply(json.RawMessage(`{`), json.RawMessage(`[]`)); err == nil {
		t.Fatal("Apply took a broken view")
	}
}
