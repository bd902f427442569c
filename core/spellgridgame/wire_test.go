package spellgridgame

import (
	"encoding/json"
	"testing"
)

// The JSON of the scribe level's solution, views, commands and events,
// pinned by hand; events decode back to themselves.
func TestWire_ScribeSolution(t *testing.T) {
	s := newSession(t, "scribe")
	const start = `{"level":"scribe","width":7,"height":5,"objects":[` +
		`{"id":1,"kind":"text:BABA","x":0,"y":0},{"id":2,"kind":"text:IS","x":1,"y":0},{"id":3,"kind":"text:YOU","x":2,"y":0},` +
		`{"id":4,"kind":"text:FLAG","x":0,"y":2},{"id":5,"kind":"text:IS","x":1,"y":2},` +
		`{"id":6,"kind":"baba","x":3,"y":4},{"id":7,"kind":"flag","x":5,"y":4}],` +
		`"rules":["BABA IS YOU","TEXT IS PUSH"],"activeRules":["BABA IS YOU","TEXT IS PUSH"],` +
		`"won":false,"lost":false,"moves":0,"hand":["Rune Scribe","Fireball"],"minions":[]}`
	if got := encode(t, view(s)); got != start {
		t.Fatalf("start view\n%s\nwant\n%s", got, start)
	}
	for _, tt := range []struct {
		command, move, events string
	}{
		{`{"card":"Rune Scribe","type":"play","y":2,"x":2.0}`, `{"type":"play","card":"Rune Scribe","x":2,"y":2}`,
			`[{"type":"delta","created":[{"id":12,"kind":"scribe","x":2,"y":2}],"hand":["Fireball"],` +
				`"minions":[{"id":12,"name":"Rune Scribe","health":1,"attack":1,"x":2,"y":2}],"won":false,"lost":false,"moves":1}]`},
		{`{"type":"cast","card":"Fireball","target":12}`, `{"type":"cast","card":"Fireball","target":12}`,
			`[{"type":"delta","created":[{"id":13,"kind":"text:WIN","x":2,"y":2}],"destroyed":[12],` +
				`"rulesAdded":["FLAG IS WIN"],"activeAdded":["FLAG IS WIN"],"hand":[],"minionsGone":[12],"won":false,"lost":false,"moves":2}]`},
		{`{"type":"step","dir":"right"}`, `{"type":"step","dir":"right"}`,
			`[{"type":"delta","moved":[{"id":6,"x":4,"y":4}],"won":false,"lost":false,"moves":3}]`},
		{`{"type":"step","dir":"right"}`, `{"type":"step","dir":"right"}`,
			`[{"type":"delta","moved":[{"id":6,"x":5,"y":4}],"won":true,"lost":false,"moves":4}]`},
		{`{"type":"undo"}`, `{"type":"undo"}`,
			`[{"type":"delta","moved":[{"id":6,"x":4,"y":4}],"won":false,"lost":false,"moves":3}]`},
	} {
		st := apply(t, s, json.RawMessage(tt.command))
		if got := string(st.Move()); got != tt.move {
			t.Fatalf("%s logged as %s, want %s", tt.command, got, tt.move)
		}
		if got := encode(t, st.Beats(0)); got != tt.events {
			t.Fatalf("%s: events\n%s\nwant\n%s", tt.command, got, tt.events)
		}
		var back []Event
		if err := json.Unmarshal([]byte(tt.events), &back); err != nil || encode(t, back) != tt.events {
			t.Fatalf("events decode to %s, %v", encode(t, back), err)
		}
	}
	data, err := s.Match().Checkpoint()
	const cp = `{"version":1,"level":"scribe","commands":[{"type":"play","card":"Rune Scribe","x":2,"y":2},` +
		`{"type":"cast","card":"Fireball","target":12},{"type":"step","dir":"right"}]}`
	if err != nil || string(data) != cp {
		t.Fatalf("checkpoint %s, %v; want %s", data, err, cp)
	}
}
