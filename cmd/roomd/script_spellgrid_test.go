package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestScriptSpellgrid drives `roomd script spellgrid` through the real
// binary with a script that makes every call of card-engine.md §9's
// harness, and checks every reply: values, errors (which change nothing),
// and reasons of checkCast and checkPlay.
func TestScriptSpellgrid(t *testing.T) {
	t.Parallel()
	// A 5×5 level: "BABA IS" on the top row with a Rune Scribe (7) after
	// it, BABA IS YOU below, a baba (6) at the bottom left and a Leper
	// Gnome (8); heroes 9 and 10; hand Fireball (11), Wisp (12), Fireball (13).
	level := `{"width": 5, "height": 5, "objects": [
		{"kind": "text:BABA", "x": 0, "y": 0}, {"kind": "text:IS", "x": 1, "y": 0},
		{"kind": "text:BABA", "x": 0, "y": 1}, {"kind": "text:IS", "x": 1, "y": 1}, {"kind": "text:YOU", "x": 2, "y": 1},
		{"kind": "baba", "x": 0, "y": 4}],
		"cards": [{"card": "Rune Scribe", "x": 2, "y": 0}, {"card": "Leper Gnome", "x": 3, "y": 3}],
		"hand": ["Fireball", "Wisp", "Fireball"]}`
	level = strings.Join(strings.Fields(level), " ")
	// A level with an extra card (an IMP) that X IS NOT X destroys.
	impLevel := `{"width": 5, "height": 3, "objects": [
		{"kind": "text:IMP", "x": 0, "y": 0}, {"kind": "text:IS", "x": 1, "y": 0}, {"kind": "text:NOT", "x": 2, "y": 0}, {"kind": "text:IMP", "x": 3, "y": 0}],
		"cards": [{"card": "Test Imp", "x": 2, "y": 2}]}`
	impLevel = strings.Join(strings.Fields(impLevel), " ")
	imp := `[{"name": "Test Imp", "type": "minion", "cost": 1, "attack": 1, "health": 1, "text": "", "set": "test", "noun": "IMP"}]`

	type line struct {
		line      string
		want      string // the value as JSON; "*" for any
		errPart   string
		valuePart string // a string value containing it
	}
	script := []line{
		{line: babaLineOf("rules"), errPart: "call newSpellGrid first"},
		{line: babaLineOf("newSpellGrid"), errPart: "argument 1 is missing"},
		{line: babaLineOf("newSpellGrid", babaRaw(`{"width": 3, "height": 3, "cards": [{"card": "Nobody", "x": 0, "y": 0}]}`)), errPart: "cards[0]"},
		{line: babaLineOf("newSpellGrid", babaRaw(`{"width": 3, "height": 3, "hand": ["Nobody"]}`)), errPart: "hand[0]"},
		{line: babaLineOf("hand"), errPart: "call newSpellGrid first"},
		{line: babaLineOf("newSpellGrid", babaRaw(level)), want: `null`},
		{line: babaLineOf("hand"), want: `["Fireball","Wisp","Fireball"]`},
		{line: babaLineOf("log"), want: `[]`},
		{line: babaLineOf("posOf", 7), want: `[2,0]`},
		{line: babaLineOf("posOf", 9), want: `null`},
		{line: babaLineOf("posOf", 99), errPart: "unknown id"},
		{line: babaLineOf("kindsAt", 2, 0), want: `["scribe"]`},
		{line: babaLineOf("hero", 1), want: `10`},
		{line: babaLineOf("hero", 2), errPart: "player"},
		{line: babaLineOf("health", 10), want: `30`},
		{line: babaLineOf("health", 8), want: `1`},
		{line: babaLineOf("attack", 8), want: `2`},
		{line: babaLineOf("health", 1), errPart: "not a minion or hero"},
		{line: babaLineOf("nameOf", 7), want: `"Rune Scribe"`},
		{line: babaLineOf("nameOf", 11), want: `"Fireball"`},
		{line: babaLineOf("board", 0), want: `[7,8]`},
		{line: babaLineOf("minionAt", 3, 3), want: `8`},
		{line: babaLineOf("minionAt", 0, 4), want: `null`},
		{line: babaLineOf("minionAt", 9, 9), errPart: "outside"},
		{line: babaLineOf("hasProperty", 6, "YOU"), want: `true`},
		{line: babaLineOf("rules"), want: `["BABA IS YOU","TEXT IS PUSH"]`},
		{line: babaLineOf("activeRules"), want: `["BABA IS YOU","TEXT IS PUSH"]`},

		// cast: from the hand, a live minion as the target.
		{line: babaLineOf("checkCast", "Fireball"), valuePart: "needs a target"},
		{line: babaLineOf("checkCast", "Fireball", 9), valuePart: "not a live minion"},
		{line: babaLineOf("checkCast", "Flamestrike", nil), valuePart: "no card of that name in hand"},
		{line: babaLineOf("cast", "Fireball", 9), errPart: "not a live minion"},
		{line: babaLineOf("cast", "Wisp", 7), errPart: "not a spell"},
		{line: babaLineOf("hand"), want: `["Fireball","Wisp","Fireball"]`},
		{line: babaLineOf("checkCast", "Fireball", 7), want: `null`},
		{line: babaLineOf("cast", "Fireball", 7), want: `null`},
		{line: babaLineOf("log"), want: `[{"type":"SpellCast","card":"Fireball"},{"type":"Damaged","target":7,"amount":6},
			{"type":"Destroyed","id":7},{"type":"DeathPhase","round":1},{"type":"Triggered","source":7,"trigger":"deathrattle"}]`},
		// The end of the Sequence: WIN written on the scribe's tile, its
		// object removed, the rules re-read; no win before a step.
		{line: babaLineOf("kindsAt", 2, 0), want: `["text:WIN"]`},
		{line: babaLineOf("posOf", 7), want: `null`},
		{line: babaLineOf("rules"), want: `["BABA IS WIN","BABA IS YOU","TEXT IS PUSH"]`},
		{line: babaLineOf("won"), want: `false`},
		{line: babaLineOf("hand"), want: `["Wisp","Fireball"]`},

		// play: a minion onto a tile inside the level holding nothing.
		{line: babaLineOf("checkPlay", "Wisp", 0, 0), valuePart: "holds text:BABA"},
		{line: babaLineOf("checkPlay", "Fireball", 4, 4), valuePart: "not a minion"},
		{line: babaLineOf("play", "Wisp", 5, 0), errPart: "outside"},
		{line: babaLineOf("checkPlay", "Wisp", 4, 4), want: `null`},
		{line: babaLineOf("play", "Wisp", 4, 4), want: `15`},
		{line: babaLineOf("posOf", 15), want: `[4,4]`},
		{line: babaLineOf("kindsAt", 4, 4), want: `["wisp"]`},
		{line: babaLineOf("health", 15), want: `1`},
		{line: babaLineOf("board", 0), want: `[8,15]`},

		// step is the turn: the baba is YOU and WIN.
		{line: babaLineOf("step", "sideways"), errPart: "direction"},
		{line: babaLineOf("step", "right"), want: `null`},
		{line: babaLineOf("won"), want: `true`},
		{line: babaLineOf("lost"), want: `false`},
		{line: babaLineOf("move", "up"), want: `null`},
		{line: babaLineOf("posOf", 6), want: `[1,3]`},
		{line: babaLineOf("place", "rock", 4, 0), want: `16`},
		{line: babaLineOf("place", "stone", 4, 0), errPart: "kind"},
		{line: babaLineOf("clearLog"), want: `null`},
		{line: babaLineOf("log"), want: `[]`},
		{line: babaLineOf("setChooser", []string{"Wisp"}), want: `null`},
		{line: babaLineOf("withNaiveAuraTiming"), want: `null`},
		{line: babaLineOf("snapshot"), want: `*`},
		{line: babaLineOf("nope"), errPart: "no such call"},

		// Extra card definitions; X IS NOT X destroys a minion through a
		// Sequence.
		{line: babaLineOf("newSpellGrid", babaRaw(impLevel), babaRaw(`[{"name": 1}]`)), errPart: "argument 2"},
		{line: babaLineOf("newSpellGrid", babaRaw(impLevel), babaRaw(imp)), want: `null`},
		{line: babaLineOf("kindsAt", 2, 2), want: `["imp"]`},
		{line: babaLineOf("step", "down"), want: `null`},
		{line: babaLineOf("log"), want: `[{"type":"Destroyed","id":5},{"type":"DeathPhase","round":1}]`},
		{line: babaLineOf("kindsAt", 2, 2), want: `[]`},
		{line: babaLineOf("minionAt", 2, 2), want: `null`},
	}

	lines := make([]string, len(script))
	for i, l := range script {
		lines[i] = l.line
	}
	called := map[string]bool{}
	for i, reply := range runScript(t, "spellgrid", lines) {
		l, n := script[i], i+1
		switch {
		case l.errPart != "":
			if *reply.OK || reply.Error == nil || !strings.Contains(*reply.Error, l.errPart) {
				t.Errorf("line %d %s: reply %s; want an error containing %q", n, l.line, reply.Raw, l.errPart)
			}
		case !*reply.OK:
			t.Errorf("line %d %s: reply %s", n, l.line, reply.Raw)
		case l.valuePart != "":
			var s string
			if json.Unmarshal(reply.Value, &s) != nil || !strings.Contains(s, l.valuePart) {
				t.Errorf("line %d %s: value %s; want a string containing %q", n, l.line, reply.Value, l.valuePart)
			}
		case l.want != "*" && !jsonEqual(reply.Value, json.RawMessage(l.want)):
			t.Errorf("line %d %s: value %s; want %s", n, l.line, reply.Value, l.want)
		}
		if *reply.OK {
			called[reply.Call] = true
		}
	}
	for _, name := range []string{"newSpellGrid", "step", "move", "cast", "play", "minionAt", "hand", "checkCast", "checkPlay",
		"place", "posOf", "kindsAt", "rules", "activeRules", "hasProperty", "won", "lost", "health", "attack", "hero",
		"nameOf", "board", "log", "clearLog", "setChooser", "withNaiveAuraTiming", "snapshot"} {
		if !called[name] {
			t.Errorf("the script never made a successful %s call", name)
		}
	}
}
