package tictactoe

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/session"
)

// TestWire pins, by hand, the JSON of a whole game as every viewer gets
// it: X takes the centre, O a corner, X the top middle, O the far corner
// instead of blocking, and X wins down the middle column.
func TestWire(t *testing.T) {
	s := newSession(t)
	m := s.Match()
	views := func(when, want string) {
		t.Helper()
		for _, v := range viewers {
			if got := encode(t, m.View(v)); got != want {
				t.Errorf("%s, view of %d:\n got %s\nwant %s", when, v, got, want)
			}
		}
	}
	apply := func(seat Seat, command, want string) {
		t.Helper()
		step, err := s.Apply(seat, json.RawMessage(command))
		if err != nil {
			t.Fatalf("%s: %v", command, err)
		}
		for _, v := range viewers {
			if got := encode(t, step.Beats(v)); got != want {
				t.Errorf("%s, events of %d:\n got %s\nwant %s", command, v, got, want)
			}
			b, err := step.AppendBeats(nil, v)
			if err != nil || string(b) != want {
				t.Errorf("%s, AppendBeats of %d: %s, %v", command, v, b, err)
			}
		}
	}

	views("at the start", `{"board":["...","...","..."],"turn":0,"phase":"active"}`)
	apply(0, `{"type":"mark","r":1,"c":1}`, `[{"type":"mark","seat":0,"r":1,"c":1}]`)
	views("after X", `{"board":["...",".X.","..."],"turn":1,"phase":"active"}`)
	apply(1, `{"type":"mark","r":0,"c":0}`, `[{"type":"mark","seat":1,"r":0,"c":0}]`)
	apply(0, `{ "c": 1, "r": 0, "type": "mark" }`, `[{"type":"mark","seat":0,"r":0,"c":1}]`)
	apply(1, `{"type":"mark","r":2,"c":2}`, `[{"type":"mark","seat":1,"r":2,"c":2}]`)
	views("before the end", `{"board":["OX.",".X.","..O"],"turn":0,"phase":"active"}`)
	apply(0, `{"type":"mark","r":2,"c":1}`,
		`[{"type":"mark","seat":0,"r":2,"c":1},{"type":"end","phase":"won","winner":0,"line":[{"r":0,"c":1},{"r":1,"c":1},{"r":2,"c":1}]}]`)
	views("at the end", `{"board":["OX.",".X.",".XO"],"turn":1,"phase":"won","winner":0,"line":[{"r":0,"c":1},{"r":1,"c":1},{"r":2,"c":1}]}`)
	if got := encode(t, s.Status()); got != `{"phase":"won","started":true,"over":true,"outcome":{"winners":[0],"ranked":false}}` {
		t.Errorf("status %s", got)
	}
	cp, err := Rules{}.Checkpoint(stateOf(t, m))
	if err != nil || string(cp) != `{"board":["OX.",".X.",".XO"]}` {
		t.Errorf("checkpoint %s, %v", cp, err)
	}
}

func TestWireDraw(t *testing.T) {
	s := newSession(t)
	play(t, s, 0, 1, 2, 4, 3, 5, 7, 6)
	step, err := s.Apply(0, mark(2, 2))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := encode(t, step.Beats(session.Spectator)), `[{"type":"mark","seat":0,"r":2,"c":2},{"type":"end","phase":"draw"}]`; got != want {
		t.Errorf("events %s, want %s", got, want)
	}
	if got, want := encode(t, s.Match().View(1)), `{"board":["XOX","XOO","OXX"],"turn":1,"phase":"draw"}`; got != want {
		t.Errorf("view %s, want %s", got, want)
	}
	if got := encode(t, s.Status().Outcome); got != `{"winners":[],"ranked":false}` {
		t.Errorf("outcome %s", got)
	}
}

func TestDecodeEvent(t *testing.T) {
	tests := []struct {
		raw string
		err string // part of the error, or "" for a round trip
	}{
		{raw: `{"type":"mark","seat":1,"r":2,"c":0}`},
		{raw: `{"type":"end","phase":"draw"}`},
		{raw: `{"type":"end","phase":"won","winner":1,"line":[{"r":0,"c":2},{"r":1,"c":1},{"r":2,"c":0}]}`},
		{raw: `{"type":"mark","seat":1,"r":2}`, err: "mark needs"},
		{raw: `{"type":"mark","seat":2,"r":0,"c":0}`, err: "mark by seat 2"},
		{raw: `{"type":"mark","seat":0,"r":3,"c":0}`, err: "on (3, 0)"},
		{raw: `{"type":"end","phase":"won","winner":0}`, err: "a won end needs"},
		{raw: `{"type":"end","phase":"lost"}`, err: `end with phase "lost"`},
		{raw: `{"type":"boom"}`, err: `unknown type "boom"`},
		{raw: `[]`, err: "tictactoe event"},
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
	if _, err := json.Marshal(Event{Type: "boom"}); err == nil {
		t.Error("an event of unknown type marshalled")
	}
}
