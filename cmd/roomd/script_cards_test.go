package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// cardsStep is one line of a card script and its expected reply: the exact
// value (JSON), or a failure whose error contains errPart. same names an
// earlier step whose reply this one must repeat (a failed call changed
// nothing).
type cardsStep struct {
	line    string
	value   string
	errPart string
	same    int
}

func cardsLine(call string, args ...string) string {
	if len(args) == 0 {
		return `{"call":"` + call + `"}`
	}
	return `{"call":"` + call + `","args":[` + strings.Join(args, ",") + `]}`
}

const cardsGnoll = `[{"name":"Gnoll","type":"minion","cost":2,"attack":2,"health":2,"text":"","noun":"GNOLL"}]`
const cardsPhoenix = `[{"name":"Phoenix","type":"minion","cost":0,"attack":0,"health":1,"noun":"PHOENIX","text":"Deathrattle: Rise and burn.",` +
	`"ability":{"when":"deathrattle","top":"Deathrattle:","bottom":"Rise and burn.","effects":[{"do":"summon","card":"Phoenix","count":1},{"do":"damage","amount":1,"to":"all_minions"}]}}]`

// TestScriptCards drives the card engine through the real binary with a
// script that makes every call of the harness, and checks every reply.
func TestScriptCards(t *testing.T) {
	t.Parallel()
	steps := []cardsStep{
		/* 0 */ {line: cardsLine("newGame", `{"decks":[["Wisp","Loot Hoarder"],["Chillwind Yeti"]],"seed":12345}`), value: `null`},
		{line: cardsLine("hero", `0`), value: `1`},
		{line: cardsLine("hero", `1`), value: `2`},
		{line: cardsLine("zoneOf", `3`), value: `"deck"`},
		{line: cardsLine("nameOf", `3`), value: `"Wisp"`},
		/* 5 */ {line: cardsLine("cost", `4`), value: `2`},
		{line: cardsLine("orderOfPlay", `2`), value: `2`},
		{line: cardsLine("summon", `"Knife Juggler"`), value: `6`},
		{line: cardsLine("summon", `"Chillwind Yeti"`, `1`), value: `7`},
		{line: cardsLine("addToHand", `"Novice Engineer"`), value: `8`},
		/* 10 */ {line: cardsLine("addToDeck", `"Leper Gnome"`, `1`), value: `9`},
		{line: cardsLine("hand", `0`), value: `[8]`},
		{line: cardsLine("board", `0`), value: `[6]`},
		{line: cardsLine("board", `1`), value: `[7]`},
		{line: cardsLine("clearLog"), value: `null`},
		/* 15 */ {line: cardsLine("play", `8`), value: `null`},
		// Seed 12345's first number picks the Yeti among the enemy hero and it.
		{line: cardsLine("log"), value: `[{"type":"Summoned","id":8},{"type":"Triggered","source":8,"trigger":"battlecry"},` +
			`{"type":"Drew","player":0,"id":3},{"type":"Triggered","source":6,"trigger":"after_summon"},{"type":"Damaged","target":7,"amount":1}]`},
		{line: cardsLine("health", `7`), value: `4`},
		{line: cardsLine("attack", `6`), value: `3`},
		{line: cardsLine("cast", `"Shield Block"`), value: `null`},
		/* 20 */ {line: cardsLine("armor", `0`), value: `5`},
		{line: cardsLine("cast", `"Fireball"`, `null`, `7`), value: `null`},
		{line: cardsLine("zoneOf", `7`), value: `"graveyard"`},
		{line: cardsLine("dealDamage", `2`, `3`), value: `null`},
		{line: cardsLine("health", `2`), value: `27`},
		/* 25 */ {line: cardsLine("destroy", `6`), value: `null`},
		{line: cardsLine("registerCards", cardsGnoll), value: `null`},
		{line: cardsLine("summon", `"Gnoll"`, `1`), value: `10`},
		{line: cardsLine("assemble", `"Leper Gnome"`, `"Loot Hoarder"`, `"bottom"`), value: `"Leper Gnome (Assembled)"`},
		{line: cardsLine("setChooser", `["Loot Hoarder","Leper Gnome","bottom"]`), value: `null`},
		/* 30 */ {line: cardsLine("cast", `"Workshop"`, `0`), value: `null`},
		{line: cardsLine("nameOf", `4`), value: `"Loot Hoarder (Assembled)"`},
		{line: cardsLine("withNaiveAuraTiming"), value: `null`},
		{line: cardsLine("outcome"), value: `{"over":false,"draw":false,"winner":0}`},
		{line: cardsLine("clearLog"), value: `null`},
		/* 35 */ {line: cardsLine("log"), value: `[]`},
		{line: cardsLine("cast", `"Arcane Intellect"`, `1`), value: `null`},
		{line: cardsLine("log"), value: `[{"type":"SpellCast","card":"Arcane Intellect"},{"type":"Drew","player":1,"id":5},{"type":"Drew","player":1,"id":9}]`},
		{line: cardsLine("registerCards", cardsPhoenix), value: `null`},
		{line: cardsLine("summon", `"Phoenix"`), value: `11`},
		// Everything observable now, then calls that fail, then the same.
		/* 40 */ {line: cardsLine("snapshot")},
		{line: cardsLine("log")},
		{line: cardsLine("summon", `"Nobody"`), errPart: "no card of that name"},
		{line: cardsLine("summon", `"Wisp"`, `2`), errPart: "no such player"},
		{line: cardsLine("summon", `3`), errPart: "argument 1"},
		{line: cardsLine("summon"), errPart: "argument 1 is missing"},
		{line: cardsLine("summon", `"Wisp"`, `0`, `1`), errPart: "at most 2"},
		{line: cardsLine("addToHand", `"Nobody"`), errPart: "no card of that name"},
		{line: cardsLine("addToDeck", `"Spectral Spider"`), errPart: "token"},
		{line: cardsLine("play", `1`), errPart: "not in a hand"},
		{line: cardsLine("play", `99`), errPart: "no entity has that id"},
		{line: cardsLine("cast", `"Fireball"`), errPart: "needs a target"},
		{line: cardsLine("cast", `"Flamestrike"`, `0`, `1`), errPart: "takes no target"},
		{line: cardsLine("cast", `"Wisp"`), errPart: "not a spell"},
		{line: cardsLine("dealDamage", `99`, `1`), errPart: "no entity has that id"},
		{line: cardsLine("dealDamage", `1`), errPart: "argument 2 is missing"},
		{line: cardsLine("destroy", `1`), errPart: "not a minion"},
		{line: cardsLine("destroy", `11`), errPart: "does not end"},
		{line: cardsLine("registerCards", `[{"name":"Bad","type":"minion","cost":1,"text":""}]`), errPart: `card "Bad": attack`},
		{line: cardsLine("registerCards", `{"name":"Bad"}`), errPart: "array"},
		{line: cardsLine("assemble", `"Loot Hoarder"`, `"Leper Gnome"`, `"top"`), errPart: "AssembleError"},
		{line: cardsLine("assemble", `"Leper Gnome"`, `"Loot Hoarder"`, `"middle"`), errPart: "AssembleError"},
		{line: cardsLine("zoneOf", `99`), errPart: "no entity"},
		{line: cardsLine("orderOfPlay", `99`), errPart: "no entity"},
		{line: cardsLine("nameOf", `0`), errPart: "no entity"},
		{line: cardsLine("health", `-1`), errPart: "argument 1"},
		{line: cardsLine("attack", `99`), errPart: "no entity"},
		{line: cardsLine("cost", `1`), errPart: "hero"},
		{line: cardsLine("board", `2`), errPart: "no such player"},
		{line: cardsLine("hand", `2`), errPart: "no such player"},
		{line: cardsLine("hero", `2`), errPart: "no such player"},
		{line: cardsLine("armor", `2`), errPart: "no such player"},
		{line: cardsLine("setChooser", `"Wisp"`), errPart: "argument 1"},
		{line: cardsLine("newGame", `{"decks":[["Spectral Spider"],[]]}`), errPart: "token"},
		{line: cardsLine("newGame", `{"seed":-1}`), errPart: "seed"},
		{line: cardsLine("newGame", `{"colour":1}`), errPart: "unknown option"},
		{line: cardsLine("fly"), errPart: "no call"},
		{line: `{"call":"log","args":5}`, errPart: "not a call"},
		{line: cardsLine("snapshot"), same: 40},
		{line: cardsLine("log"), same: 41},
		// A new game forgets everything.
		{line: cardsLine("newGame"), value: `null`},
		{line: cardsLine("board", `0`), value: `[]`},
		{line: cardsLine("summon", `"Wisp"`), value: `3`},
		{line: cardsLine("newGame", `null`), value: `null`},
		{line: cardsLine("summon", `"Gnoll"`), errPart: "no card of that name"},
	}
	lines := make([]string, len(steps))
	for i, s := range steps {
		lines[i] = s.line
	}
	replies := runScript(t, "cards", lines)
	calls := map[string]bool{}
	for i, s := range steps {
		r := replies[i]
		calls[r.Call] = true
		switch {
		case s.errPart != "":
			if *r.OK || r.Error == nil || !strings.Contains(*r.Error, s.errPart) || string(r.Value) != "null" {
				t.Errorf("step %d %s: reply %s, want an error with %q", i, s.line, r.Raw, s.errPart)
			}
		case s.same != 0:
			if r.Raw != replies[s.same].Raw {
				t.Errorf("step %d %s: the failed calls changed the game:\n%s\n%s", i, s.line, replies[s.same].Raw, r.Raw)
			}
		case s.value != "":
			if !*r.OK || r.Error != nil || !jsonEqual(r.Value, json.RawMessage(s.value)) {
				t.Errorf("step %d %s: reply %s, want value %s", i, s.line, r.Raw, s.value)
			}
		default:
			if !*r.OK {
				t.Errorf("step %d %s: reply %s", i, s.line, r.Raw)
			}
		}
	}
	for name := range cardsArity {
		if !calls[name] {
			t.Errorf("the script never calls %s", name)
		}
	}
}

// TestScriptCardsChooserRollback: a call that fails gives back the
// chooser's answers it used.
func TestScriptCardsChooserRollback(t *testing.T) {
	t.Parallel()
	s := &cardsScript{}
	call := func(name string, args ...string) (any, error) {
		raw := make([]json.RawMessage, len(args))
		for i, a := range args {
			raw[i] = json.RawMessage(a)
		}
		return s.Call(name, raw)
	}
	// A Deathrattle that assembles, then rises and burns for ever.
	loop := `[{"name":"Tinker","type":"minion","cost":0,"attack":0,"health":1,"noun":"TINKER","text":"Deathrattle: Tinker for ever.",
	 "ability":{"when":"deathrattle","top":"Deathrattle:","bottom":"Tinker for ever.","effects":[
	  {"do":"assemble"},{"do":"summon","card":"Tinker","count":1},{"do":"damage","amount":1,"to":"all_minions"}]}}]`
	if _, err := call("registerCards", loop); err != nil {
		t.Fatal(err)
	}
	id, err := call("summon", `"Tinker"`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := call("addToHand", `"Leper Gnome"`); err != nil {
		t.Fatal(err)
	}
	if _, err := call("setChooser", `["Leper Gnome","Loot Hoarder","bottom"]`); err != nil {
		t.Fatal(err)
	}
	if _, err := call("destroy", mustJSON(t, id)); err == nil || !strings.Contains(err.Error(), "does not end") {
		t.Fatalf("destroy: %v", err)
	}
	if s.next != 0 {
		t.Fatalf("the failed call kept %d answers used", s.next)
	}
	if _, err := call("cast", `"Workshop"`); err != nil {
		t.Fatal(err)
	}
	if name, _ := call("nameOf", `4`); name != "Leper Gnome (Assembled)" {
		t.Fatalf("the answers were not given again: %v", name)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
