package nim

import (
	"encoding/json"
	"testing"

	"github.com/roomd/roomd/core/session"
)

// Bad commands through a GameSession are refused with a typed rejection,
// change nothing and are not logged.
func TestSessionRejects(t *testing.T) {
	tests := []struct {
		name      string
		config    string
		before    []int // takes played first, in turn from seat 0
		seat      Seat
		command   string
		code      string
		malformed bool
	}{
		{"out of turn at the start", `{}`, nil, 1, `{"type":"take","n":1}`, session.CodeNotYourTurn, false},
		{"out of turn later", `{}`, []int{1, 2}, 1, `{"type":"take","n":1}`, session.CodeNotYourTurn, false},
		{"unknown type", `{}`, nil, 0, `{"type":"flag","n":1}`, session.CodeUnknownMove, true},
		{"n 0", `{}`, nil, 0, `{"type":"take","n":0}`, session.CodeInvalidMove, true},
		{"n 4", `{}`, nil, 0, `{"type":"take","n":4}`, session.CodeInvalidMove, true},
		{"n 1.5", `{}`, nil, 0, `{"type":"take","n":1.5}`, session.CodeMalformedInput, true},
		{`n "2"`, `{}`, nil, 0, `{"type":"take","n":"2"}`, session.CodeMalformedInput, true},
		{"no n", `{}`, nil, 0, `{"type":"take"}`, session.CodeMalformedInput, true},
		{"not an object", `{}`, nil, 0, `[1]`, session.CodeMalformedInput, true},
		{"more than the pile", `{"pile":2}`, nil, 0, `{"type":"take","n":3}`, CodeTooMany, false},
		{"more than what is left", `{"pile":6}`, []int{3, 2}, 2, `{"type":"take","n":2}`, CodeTooMany, false},
		{"after the end, the winner", `{"pile":3}`, []int{3}, 0, `{"type":"take","n":1}`, session.CodeGameOver, false},
		{"after the end, the next seat", `{"pile":3}`, []int{3}, 1, `{"type":"take","n":1}`, session.CodeGameOver, false},
		{"malformed after the end", `{"pile":3}`, []int{3}, 1, `{"type":"take","n":9}`, session.CodeInvalidMove, true},
		{"spectator seat", `{}`, nil, session.Spectator, `{"type":"take","n":1}`, session.CodeNoSuchSeat, true},
		{"seat past the last", `{}`, nil, 3, `{"type":"take","n":1}`, session.CodeNoSuchSeat, true},
		{"seat 99", `{}`, nil, 99, `{"type":"take","n":1}`, session.CodeNoSuchSeat, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const seats = 3
			s := newSession(t, 1, tt.config, seats)
			playTo(t, s, tt.before...)
			before, logged := everything(t, s.Match(), seats), len(s.Log())
			t0, started := s.Started()
			step, err := s.Apply(tt.seat, json.RawMessage(tt.command))
			rej := asRejection(t, err)
			if rej.Code != tt.code || rej.Malformed != tt.malformed {
				t.Errorf("rejection %+v, want code %s malformed %v", rej, tt.code, tt.malformed)
			}
			if step != nil {
				t.Errorf("a rejected command returned a step")
			}
			if after := everything(t, s.Match(), seats); after != before {
				t.Errorf("state changed:\n%s\nwas\n%s", after, before)
			}
			if len(s.Log()) != logged {
				t.Errorf("log %d entries, was %d", len(s.Log()), logged)
			}
			if t1, ok := s.Started(); t1 != t0 || ok != started {
				t.Errorf("clock started %v at %v, was %v at %v", ok, t1, started, t0)
			}
		})
	}
}
