package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// babaLine is one line of a script and what its reply must be: the value
// (as JSON), or an error containing errPart. sameAs names an earlier line
// (by its label) whose value this one's must equal.
type babaLine struct {
	label   string
	line    string
	want    string
	errPart string
	sameAs  string
}

// babaLineOf is the script line of a call.
func babaLineOf(name string, args ...any) string {
	b, err := json.Marshal(map[string]any{"call": name, "args": args})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// babaRaw is a JSON argument written out as it is.
type babaRaw string

func (r babaRaw) MarshalJSON() ([]byte, error) { return []byte(r), nil }

// TestScriptBaba drives `roomd script baba` through the real binary with a
// script that makes every call of baba.md's harness, and checks every
// reply: values, errors, and that a failed call changed nothing.
func TestScriptBaba(t *testing.T) {
	t.Parallel()
	// A 5×4 level: BABA IS YOU, FLAG IS WIN, ROCK IS PUSH on the top rows;
	// below them a baba (id 10), a rock (11) and a flag (12).
	level := `{"width": 5, "height": 4, "title": "script", "objects": [
		{"kind": "text:BABA", "x": 0, "y": 0}, {"kind": "text:IS", "x": 1, "y": 0}, {"kind": "text:YOU", "x": 2, "y": 0},
		{"kind": "text:FLAG", "x": 0, "y": 1}, {"kind": "text:IS", "x": 1, "y": 1}, {"kind": "text:WIN", "x": 2, "y": 1},
		{"kind": "text:ROCK", "x": 0, "y": 2}, {"kind": "text:IS", "x": 1, "y": 2}, {"kind": "text:PUSH", "x": 2, "y": 2},
		{"kind": "baba", "x": 0, "y": 3}, {"kind": "rock", "x": 1, "y": 3}, {"kind": "flag", "x": 4, "y": 2}]}`
	level = strings.Join(strings.Fields(level), " ")
	sinkLevel := `{"width": 4, "height": 3, "objects": [
		{"kind": "text:BABA", "x": 0, "y": 0}, {"kind": "text:IS", "x": 1, "y": 0}, {"kind": "text:YOU", "x": 2, "y": 0},
		{"kind": "text:ROCK", "x": 0, "y": 1}, {"kind": "text:IS", "x": 1, "y": 1}, {"kind": "text:SINK", "x": 2, "y": 1},
		{"kind": "baba", "x": 0, "y": 2}, {"kind": "rock", "x": 1, "y": 2}]}`
	sinkLevel = strings.Join(strings.Fields(sinkLevel), " ")

	script := []babaLine{
		// Before a level, every call but newBaba fails.
		{line: babaLineOf("rules"), errPart: "call newBaba first"},
		{line: babaLineOf("won"), errPart: "call newBaba first"},
		{line: babaLineOf("newBaba"), errPart: "argument 1 is missing"},
		{line: babaLineOf("newBaba", nil), errPart: "argument 1 is null"},
		{line: babaLineOf("newBaba", babaRaw(`{"width": 5}`)), errPart: "height is missing"},
		{line: babaLineOf("newBaba", babaRaw(`{"width": 5, "height": 4, "colour": 1}`)), errPart: `unknown field "colour"`},
		{line: babaLineOf("newBaba", babaRaw(`{"width": 0, "height": 4}`)), errPart: "1..64"},
		{line: babaLineOf("newBaba", babaRaw(`{"width": 2, "height": 2, "objects": [{"kind": "baba", "x": 0, "y": 0}, {"kind": "stone", "x": 0, "y": 0}]}`)), errPart: "objects[1]"},
		{line: babaLineOf("newBaba", babaRaw(`{"width": 2, "height": 2, "hand": ["Fireball"]}`)), errPart: "SpellGrid"},
		{line: babaLineOf("lost"), errPart: "call newBaba first"},
		{line: babaLineOf("newBaba", babaRaw(level)), want: `null`},

		// M6–M7: rules, activeRules, hasProperty.
		{line: babaLineOf("rules"), want: `["BABA IS YOU","FLAG IS WIN","ROCK IS PUSH","TEXT IS PUSH"]`},
		{line: babaLineOf("activeRules"), want: `["BABA IS YOU","FLAG IS WIN","ROCK IS PUSH","TEXT IS PUSH"]`},
		{line: babaLineOf("hasProperty", 10, "YOU"), want: `true`},
		{line: babaLineOf("hasProperty", 12, "WIN"), want: `true`},
		{line: babaLineOf("hasProperty", 11, "YOU"), want: `false`},
		{line: babaLineOf("hasProperty", 1, "PUSH"), want: `true`},
		{line: babaLineOf("hasProperty", 10, "you"), want: `false`},
		{line: babaLineOf("hasProperty", 13, "YOU"), errPart: "unknown id 13"},
		{line: babaLineOf("hasProperty", 0, "YOU"), errPart: "unknown id 0"},
		{line: babaLineOf("hasProperty", -1, "YOU"), errPart: "not an id"},
		{line: babaLineOf("hasProperty", 1.5, "YOU"), errPart: "not an id"},
		{line: babaLineOf("hasProperty", "10", "YOU"), errPart: "argument 1"},
		{line: babaLineOf("hasProperty", 10), errPart: "argument 2 is missing"},
		{line: babaLineOf("won"), want: `false`},
		{line: babaLineOf("lost"), want: `false`},

		// M8 queries.
		{line: babaLineOf("posOf", 10), want: `[0,3]`},
		{line: babaLineOf("posOf", 99), errPart: "unknown id"},
		{line: babaLineOf("kindsAt", 1, 3), want: `["rock"]`},
		{line: babaLineOf("kindsAt", 3, 3), want: `[]`},
		{line: babaLineOf("kindsAt", 5, 0), errPart: "outside the level"},
		{line: babaLineOf("kindsAt", 0, -1), errPart: "outside the level"},

		// Failed calls change nothing: a snapshot before and after.
		{label: "s0", line: babaLineOf("snapshot"), want: "*"},
		{line: babaLineOf("place", "stone", 3, 3), errPart: "not a kind"},
		{line: babaLineOf("place", "rock", 5, 3), errPart: "outside the level"},
		{line: babaLineOf("place", "rock", 3), errPart: "argument 3 is missing"},
		{line: babaLineOf("place", "rock", 3, 3, 1), errPart: "4 arguments; the call takes at most 3"},
		{line: babaLineOf("place", "rock", 3, 3.5), errPart: "not a coordinate"},
		{line: babaLineOf("move", "north"), errPart: "not a direction"},
		{line: babaLineOf("step", "UP"), errPart: "not a direction"},
		{line: babaLineOf("step"), errPart: "argument 1 is missing"},
		{line: babaLineOf("rules", 1), errPart: "1 arguments; the call takes at most 0"},
		{line: babaLineOf("newBaba", babaRaw(`{"width": 99, "height": 4}`)), errPart: "1..64"},
		{line: babaLineOf("fly"), errPart: "no such call"},
		{line: `this is not json`, errPart: "not a call"},
		{line: `{"args": []}`, errPart: `a call needs "call"`},
		{line: babaLineOf("snapshot"), sameAs: "s0"},

		// M8: move is movement only: the baba pushes the rock right, then
		// is blocked by the edge going down; it never wins.
		{line: babaLineOf("move", "right"), want: `null`},
		{line: babaLineOf("posOf", 10), want: `[1,3]`},
		{line: babaLineOf("posOf", 11), want: `[2,3]`},
		{line: babaLineOf("move", "down"), want: `null`},
		{line: babaLineOf("posOf", 10), want: `[1,3]`},

		// M9: the rock is pushed to the edge, where it blocks; the baba
		// goes round it onto the flag by a move (no win), and wins by a
		// blocked step.
		{line: babaLineOf("step", "right"), want: `null`},
		{line: babaLineOf("step", "right"), want: `null`},
		{line: babaLineOf("posOf", 11), want: `[4,3]`},
		{line: babaLineOf("step", "right"), want: `null`},
		{line: babaLineOf("posOf", 10), want: `[3,3]`},
		{line: babaLineOf("step", "up"), want: `null`},
		{line: babaLineOf("move", "right"), want: `null`},
		{line: babaLineOf("posOf", 10), want: `[4,2]`},
		{line: babaLineOf("kindsAt", 4, 2), want: `["baba","flag"]`},
		{line: babaLineOf("won"), want: `false`},
		{line: babaLineOf("step", "down"), want: `null`},
		{line: babaLineOf("posOf", 10), want: `[4,2]`},
		{line: babaLineOf("won"), want: `true`},

		// place: a NOT makes BABA IS NOT YOU; the level is lost.
		{line: babaLineOf("place", "text:NOT", 2, 0), want: `13`},
		{line: babaLineOf("place", "text:YOU", 3, 0), want: `14`},
		{line: babaLineOf("rules"), want: `["BABA IS NOT YOU","BABA IS YOU","FLAG IS WIN","ROCK IS PUSH","TEXT IS PUSH"]`},
		{line: babaLineOf("activeRules"), want: `["BABA IS NOT YOU","FLAG IS WIN","ROCK IS PUSH","TEXT IS PUSH"]`},
		{line: babaLineOf("hasProperty", 10, "YOU"), want: `false`},
		{line: babaLineOf("lost"), want: `true`},
		{line: babaLineOf("won"), want: `true`},
		{line: babaLineOf("kindsAt", 2, 0), want: `["text:NOT","text:YOU"]`},

		// A new level replaces the old; a baba walks into a SINK rock.
		{line: babaLineOf("newBaba", babaRaw(sinkLevel)), want: `null`},
		{line: babaLineOf("posOf", 12), errPart: "unknown id 12"},
		{line: babaLineOf("step", "right"), want: `null`},
		{line: babaLineOf("posOf", 7), want: `null`},
		{line: babaLineOf("posOf", 8), want: `null`},
		{line: babaLineOf("hasProperty", 7, "YOU"), want: `false`},
		{line: babaLineOf("kindsAt", 1, 2), want: `[]`},
		{line: babaLineOf("lost"), want: `true`},
		{line: babaLineOf("won"), want: `false`},
		{line: babaLineOf("snapshot"), want: `{"width":4,"height":3,"objects":[` +
			`{"id":1,"kind":"text:BABA","x":0,"y":0},{"id":2,"kind":"text:IS","x":1,"y":0},{"id":3,"kind":"text:YOU","x":2,"y":0},` +
			`{"id":4,"kind":"text:ROCK","x":0,"y":1},{"id":5,"kind":"text:IS","x":1,"y":1},{"id":6,"kind":"text:SINK","x":2,"y":1}],` +
			`"nextId":9,"rules":["BABA IS YOU","ROCK IS SINK","TEXT IS PUSH"],"activeRules":["BABA IS YOU","ROCK IS SINK","TEXT IS PUSH"],"won":false,"lost":true}`},
	}

	lines := make([]string, len(script))
	for i, l := range script {
		lines[i] = l.line
	}
	called := map[string]bool{}
	labelled := map[string]json.RawMessage{}
	for i, reply := range runScript(t, "baba", lines) {
		l, n := script[i], i+1
		switch {
		case l.errPart != "":
			if *reply.OK || reply.Error == nil || !strings.Contains(*reply.Error, l.errPart) {
				t.Errorf("line %d %s: reply %s; want an error containing %q", n, l.line, reply.Raw, l.errPart)
			}
		case !*reply.OK:
			t.Errorf("line %d %s: reply %s", n, l.line, reply.Raw)
		case l.sameAs != "":
			if !jsonEqual(reply.Value, labelled[l.sameAs]) {
				t.Errorf("line %d %s: %s; want as at %s: %s", n, l.line, reply.Value, l.sameAs, labelled[l.sameAs])
			}
		case l.want != "*" && !jsonEqual(reply.Value, json.RawMessage(l.want)):
			t.Errorf("line %d %s: value %s; want %s", n, l.line, reply.Value, l.want)
		}
		if *reply.OK {
			called[reply.Call] = true
		}
		if l.label != "" {
			labelled[l.label] = reply.Value
		}
	}
	for _, name := range []string{"newBaba", "place", "rules", "activeRules", "hasProperty", "move", "step", "posOf", "kindsAt", "won", "lost", "snapshot"} {
		if !called[name] {
			t.Errorf("the script never made a successful %s call", name)
		}
	}
}
