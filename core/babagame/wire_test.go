package babagame

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/session"
)

// TestWire pins, by hand, the JSON of a game as every viewer gets it: on
// Water Is Sink, two steps right (the second pushes the rock), a third
// that sinks the rock with the water it lands in, an undo that brings both
// back, and a restart.
func TestWire(t *testing.T) {
	s := newSession(t, `{"level":"water-is-sink"}`, 2)
	m := s.Match()
	apply := func(seat Seat, command, want string) {
		t.Helper()
		st, err := s.Apply(seat, json.RawMessage(command))
		if err != nil {
			t.Fatalf("%s: %v", command, err)
		}
		for _, v := range sessionViewers(2) {
			if got := encode(t, st.Beats(v)); got != want {
				t.Errorf("%s, events of %d:\n got %s\nwant %s", command, v, got, want)
			}
			b, err := st.AppendBeats(nil, v)
			if err != nil || string(b) != want {
				t.Errorf("%s, AppendBeats of %d: %s, %v", command, v, b, err)
			}
		}
	}
	const rules = `"rules":["BABA IS YOU","FLAG IS WIN","ROCK IS PUSH","TEXT IS PUSH","WATER IS SINK"],` +
		`"activeRules":["BABA IS YOU","FLAG IS WIN","ROCK IS PUSH","TEXT IS PUSH","WATER IS SINK"]`
	start := `{"level":"water-is-sink","width":9,"height":5,"objects":[` +
		`{"id":1,"kind":"text:BABA","x":0,"y":0},{"id":2,"kind":"text:IS","x":1,"y":0},{"id":3,"kind":"text:YOU","x":2,"y":0},` +
		`{"id":4,"kind":"text:FLAG","x":0,"y":4},{"id":5,"kind":"text:IS","x":1,"y":4},{"id":6,"kind":"text:WIN","x":2,"y":4},` +
		`{"id":7,"kind":"text:WATER","x":6,"y":0},{"id":8,"kind":"text:IS","x":7,"y":0},{"id":9,"kind":"text:SINK","x":8,"y":0},` +
		`{"id":10,"kind":"text:ROCK","x":6,"y":4},{"id":11,"kind":"text:IS","x":7,"y":4},{"id":12,"kind":"text:PUSH","x":8,"y":4},` +
		`{"id":13,"kind":"water","x":5,"y":0},{"id":14,"kind":"water","x":5,"y":1},{"id":15,"kind":"water","x":5,"y":2},` +
		`{"id":16,"kind":"water","x":5,"y":3},{"id":17,"kind":"water","x":5,"y":4},` +
		`{"id":18,"kind":"baba","x":1,"y":2},{"id":19,"kind":"rock","x":3,"y":2},{"id":20,"kind":"flag","x":7,"y":2}],` +
		rules + `,"won":false,"lost":false,"moves":0}`
	for _, v := range sessionViewers(2) {
		if got := encode(t, m.View(v)); got != start {
			t.Errorf("view of %d at the start:\n got %s\nwant %s", v, got, start)
		}
	}
	apply(0, `{"type":"step","dir":"right"}`, `[{"type":"delta","moved":[{"id":18,"kind":"baba","x":2,"y":2}],"won":false,"lost":false,"moves":1}]`)
	apply(1, `{ "dir": "right", "type": "step" }`, `[{"type":"delta","moved":[{"id":18,"kind":"baba","x":3,"y":2},{"id":19,"kind":"rock","x":4,"y":2}],"won":false,"lost":false,"moves":2}]`)
	apply(0, `{"type":"step","dir":"right"}`, `[{"type":"delta","moved":[{"id":18,"kind":"baba","x":4,"y":2}],"destroyed":[15,19],"won":false,"lost":false,"moves":3}]`)
	apply(1, `{"type":"undo"}`, `[{"type":"delta","moved":[{"id":18,"kind":"baba","x":3,"y":2}],"created":[{"id":15,"kind":"water","x":5,"y":2},{"id":19,"kind":"rock","x":4,"y":2}],"won":false,"lost":false,"moves":2}]`)
	apply(0, `{"type":"restart"}`, `[{"type":"delta","moved":[{"id":18,"kind":"baba","x":1,"y":2},{"id":19,"kind":"rock","x":3,"y":2}],"won":false,"lost":false,"moves":0}]`)
	if got := encode(t, m.View(0)); got != start {
		t.Errorf("view after the restart:\n got %s\nwant %s", got, start)
	}
	if got := encode(t, s.Status()); got != `{"phase":"playing","started":true,"over":false,"outcome":{"winners":null,"ranked":false}}` {
		t.Errorf("status %s", got)
	}
	play(t, s, 0, "rrrrr")
	apply(1, `{"type":"step","dir":"right"}`, `[{"type":"delta","moved":[{"id":18,"kind":"baba","x":7,"y":2}],"won":true,"lost":false,"moves":6}]`)
	if got := encode(t, s.Status()); got != `{"phase":"won","started":true,"over":true,"outcome":{"winners":[0,1],"ranked":false}}` {
		t.Errorf("status %s", got)
	}
	cp, err := Rules{}.Checkpoint(stateOf(t, m))
	if err != nil || string(cp) != `{"level":"water-is-sink","steps":"rrrrrr","played":9}` {
		t.Errorf("checkpoint %s, %v", cp, err)
	}
}

// Rules added and removed, and the turn, on Rock Is You in turns control.
func TestWireRules(t *testing.T) {
	s := newSession(t, `{"level":"rock-is-you","control":"turns"}`, 2)
	v := s.Match().View(1).(View)
	if got := encode(t, v); !strings.HasSuffix(got, `"won":false,"lost":false,"moves":0,"turn":0}`) {
		t.Errorf("view %s", got)
	}
	play(t, s, 0, "u")
	st, err := s.Apply(1, step('u'))
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"type":"delta","moved":[{"id":1,"kind":"text:BABA","x":1,"y":0},{"id":4,"kind":"text:ROCK","x":1,"y":1},{"id":18,"kind":"baba","x":1,"y":2}],` +
		`"rulesAdded":["ROCK IS YOU"],"rulesRemoved":["BABA IS YOU"],"activeAdded":["ROCK IS YOU"],"activeRemoved":["BABA IS YOU"],` +
		`"won":false,"lost":false,"moves":2,"turn":0}]`
	if got := encode(t, st.Beats(session.Spectator)); got != want {
		t.Errorf("events\n got %s\nwant %s", got, want)
	}
}

func TestDecodeEvent(t *testing.T) {
	tests := []struct {
		raw string
		err string // part of the error, or "" for a round trip
	}{
		{raw: `{"type":"delta","won":false,"lost":true,"moves":0}`},
		{raw: `{"type":"delta","moved":[{"id":18,"kind":"baba","x":3,"y":2}],"created":[{"id":15,"kind":"water","x":5,"y":2}],"destroyed":[4],"rulesAdded":["ROCK IS YOU"],"rulesRemoved":["BABA IS YOU"],"activeAdded":["ROCK IS YOU"],"activeRemoved":["BABA IS YOU"],"won":true,"lost":false,"moves":2,"turn":1}`},
		{raw: `{"type":"delta","won":false,"lost":false}`, err: `a delta needs`},
		{raw: `{"type":"mark","won":false,"lost":false,"moves":1}`, err: `unknown type "mark"`},
		{raw: `[]`, err: "baba event"},
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
