package nim

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/session"
)

// TestWire pins the JSON of a whole game: seed 1 deals [2 1]; seat 0 takes
// 3 of 5, seat 1 takes the last 2 (not its secret) and wins.
func TestWire(t *testing.T) {
	s := newSession(t, 1, `{ "pile": 5 }`, 2)
	m := s.Match()
	views := func(when string, want map[Seat]string) {
		t.Helper()
		for viewer, w := range want {
			if got := encode(t, m.View(viewer)); got != w {
				t.Errorf("%s, view of %d:\n got %s\nwant %s", when, viewer, got, w)
			}
		}
	}
	events := func(when string, step session.Step, want string) {
		t.Helper()
		for _, viewer := range viewers(2) {
			if got := encode(t, step.Beats(viewer)); got != want {
				t.Errorf("%s, events of %d:\n got %s\nwant %s", when, viewer, got, want)
			}
		}
	}

	views("at the start", map[Seat]string{
		0:                 `{"config":{"pile":5},"pile":5,"turn":0,"seats":2,"you":0,"secret":2,"history":[],"over":false}`,
		1:                 `{"config":{"pile":5},"pile":5,"turn":0,"seats":2,"you":1,"secret":1,"history":[],"over":false}`,
		session.Spectator: `{"config":{"pile":5},"pile":5,"turn":0,"seats":2,"history":[],"over":false}`,
	})
	step, err := s.Apply(0, json.RawMessage(`{"type":"take","n":3}`))
	if err != nil {
		t.Fatal(err)
	}
	events("after the first take", step, `[{"type":"took","seat":0,"n":3,"pile":2}]`)
	views("after the first take", map[Seat]string{
		1:                 `{"config":{"pile":5},"pile":2,"turn":1,"seats":2,"you":1,"secret":1,"history":[{"seat":0,"n":3}],"over":false}`,
		session.Spectator: `{"config":{"pile":5},"pile":2,"turn":1,"seats":2,"history":[{"seat":0,"n":3}],"over":false}`,
	})
	step, err = s.Apply(1, json.RawMessage(`{"type":"take","n":2}`))
	if err != nil {
		t.Fatal(err)
	}
	events("at the end", step, `[{"type":"took","seat":1,"n":2,"pile":0},{"type":"end","winner":1,"lastTaker":1,"secrets":[2,1]}]`)
	end := `{"config":{"pile":5},"pile":0,"turn":1,"seats":2,"history":[{"seat":0,"n":3},{"seat":1,"n":2}],"over":true,"winner":1,"secrets":[2,1]}`
	views("at the end", map[Seat]string{0: end, 1: end, session.Spectator: end})
}

func TestEncodings(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"move", Move{N: 2}, `{"type":"take","n":2}`},
		{"default config", Config{}, `{"pile":21,"mode":"classic"}`},
		{"config", Config{Pile: 9}, `{"pile":9,"mode":"classic"}`},
		{"took", Event{Type: EventTook, Seat: 2, N: 1, Pile: 7}, `{"type":"took","seat":2,"n":1,"pile":7}`},
		{"end", Event{Type: EventEnd, Winner: 0, LastTaker: 2, Secrets: []int{1, 3, 3}}, `{"type":"end","winner":0,"lastTaker":2,"secrets":[1,3,3]}`},
		{"end without secrets", Event{Type: EventEnd, Winner: 1}, `{"type":"end","winner":1,"lastTaker":0,"secrets":[]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := encode(t, tt.v); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
	if _, err := json.Marshal(Event{Type: "boom"}); err == nil {
		t.Errorf("an event of unknown type marshalled")
	}
}

func TestDecodeEvent(t *testing.T) {
	tests := []struct {
		raw string
		err string // part of the error, or "" for a round trip
	}{
		{raw: `{"type":"took","seat":2,"n":1,"pile":7}`},
		{raw: `{"type":"end","winner":0,"lastTaker":2,"secrets":[1,3,3]}`},
		{raw: `{"type":"took","seat":2,"n":1}`, err: "took needs"},
		{raw: `{"type":"end","winner":0,"lastTaker":2}`, err: "end needs"},
		{raw: `{"type":"boom"}`, err: `unknown type "boom"`},
		{raw: `{"type":"took","seat":"2","n":1,"pile":7}`, err: "nim event"},
		{raw: `[]`, err: "nim event"},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			var e Event
			err := json.Unmarshal([]byte(tt.raw), &e)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error %v, want one naming %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := encode(t, e); got != tt.raw {
				t.Errorf("round trip gives %s", got)
			}
		})
	}
}
