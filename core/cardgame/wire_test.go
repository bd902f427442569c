package cardgame

import (
	"encoding/json"
	"testing"

	"github.com/roomd/roomd/core/session"
)

// wireConfig gives seed 43150 a short match whose JSON is pinned below (the
// deal seed 1 gave under cards/1).
const wireConfig = `{"decks":[["Wisp","Bloodfen Raptor","Fireball","Leper Gnome","Wisp"],` +
	`["Fireball","Leper Gnome","Arcane Intellect","Chillwind Yeti","Shield Block"]]}`

// The JSON of the first views and of each update's events, per viewer
// (seat 0, seat 1, spectator), pinned by hand.
func TestWire(t *testing.T) {
	s := newSession(t, 43150, wireConfig)
	m := s.Match()
	views := []string{
		`{"phase":"active","turn":1,"active":0,"first":0,"seat":0,"players":[` +
			`{"hero":{"id":1,"health":30,"armor":0},"mana":1,"maxMana":1,"deck":1,"hand":[{"id":3,"name":"Fireball","cost":4},{"id":4,"name":"Wisp","cost":0},{"id":5,"name":"Wisp","cost":0},{"id":6,"name":"Bloodfen Raptor","cost":2}],"board":[],"graveyard":[]},` +
			`{"hero":{"id":2,"health":30,"armor":0},"mana":0,"maxMana":0,"deck":1,"hand":[{"id":8},{"id":9},{"id":10},{"id":11}],"board":[],"graveyard":[]}]}`,
		`{"phase":"active","turn":1,"active":0,"first":0,"seat":1,"players":[` +
			`{"hero":{"id":1,"health":30,"armor":0},"mana":1,"maxMana":1,"deck":1,"hand":[{"id":3},{"id":4},{"id":5},{"id":6}],"board":[],"graveyard":[]},` +
			`{"hero":{"id":2,"health":30,"armor":0},"mana":0,"maxMana":0,"deck":1,"hand":[{"id":8,"name":"Shield Block","cost":3},{"id":9,"name":"Arcane Intellect","cost":3},{"id":10,"name":"Leper Gnome","cost":1},{"id":11,"name":"Chillwind Yeti","cost":4}],"board":[],"graveyard":[]}]}`,
		`{"phase":"active","turn":1,"active":0,"first":0,"seat":-1,"players":[` +
			`{"hero":{"id":1,"health":30,"armor":0},"mana":1,"maxMana":1,"deck":1,"hand":[{"id":3},{"id":4},{"id":5},{"id":6}],"board":[],"graveyard":[]},` +
			`{"hero":{"id":2,"health":30,"armor":0},"mana":0,"maxMana":0,"deck":1,"hand":[{"id":8},{"id":9},{"id":10},{"id":11}],"board":[],"graveyard":[]}]}`,
	}
	for i, v := range viewers(Seats) {
		if got := encode(t, m.View(v)); got != views[i] {
			t.Errorf("viewer %d's first view\n%s\nwant\n%s", v, got, views[i])
		}
	}
	same := func(s string) [3]string { return [3]string{s, s, s} }
	steps := []struct {
		seat    Seat
		command string
		events  [3]string
	}{
		{0, `{"type":"play","card":4}`, same(`[{"type":"play","seat":0,"id":4,"card":"Wisp","cost":0},{"type":"Summoned","id":4,"seat":0,"card":"Wisp","attack":1,"health":1,"order":3}]`)},
		{0, `{"type":"end"}`, [3]string{
			`[{"type":"turn","seat":1,"turn":2,"mana":1,"maxMana":1},{"type":"Drew","player":1,"id":12}]`,
			`[{"type":"turn","seat":1,"turn":2,"mana":1,"maxMana":1},{"type":"Drew","player":1,"id":12,"card":"Fireball","cost":4}]`,
			`[{"type":"turn","seat":1,"turn":2,"mana":1,"maxMana":1},{"type":"Drew","player":1,"id":12}]`,
		}},
		{1, `{"type":"play","card":10}`, same(`[{"type":"play","seat":1,"id":10,"card":"Leper Gnome","cost":1},{"type":"Summoned","id":10,"seat":1,"card":"Leper Gnome","attack":2,"health":1,"order":4}]`)},
		{1, `{"type":"end"}`, [3]string{
			`[{"type":"turn","seat":0,"turn":3,"mana":2,"maxMana":2},{"type":"Drew","player":0,"id":7,"card":"Leper Gnome","cost":1}]`,
			`[{"type":"turn","seat":0,"turn":3,"mana":2,"maxMana":2},{"type":"Drew","player":0,"id":7}]`,
			`[{"type":"turn","seat":0,"turn":3,"mana":2,"maxMana":2},{"type":"Drew","player":0,"id":7}]`,
		}},
		{0, `{"type":"attack","attacker":4,"defender":10}`, same(`[{"type":"attack","seat":0,"attacker":4,"defender":10},` +
			`{"type":"Damaged","target":4,"amount":2},{"type":"Damaged","target":10,"amount":1},` +
			`{"type":"Destroyed","id":4},{"type":"Destroyed","id":10},{"type":"DeathPhase","round":1},` +
			`{"type":"Triggered","source":10,"trigger":"deathrattle"},{"type":"Damaged","target":1,"amount":2}]`)},
		{0, `{"type":"concede"}`, same(`[{"type":"end","phase":"conceded","winner":1,"conceded":true}]`)},
	}
	for _, st := range steps {
		step, err := s.Apply(st.seat, json.RawMessage(st.command))
		if err != nil {
			t.Fatalf("%s: %v", st.command, err)
		}
		for i, v := range viewers(Seats) {
			evs := step.Beats(v).([]Event)
			got := encode(t, evs)
			if got != st.events[i] {
				t.Errorf("%s, viewer %d:\n%s\nwant\n%s", st.command, v, got, st.events[i])
			}
			// Go clients decode the events back to the same bytes.
			var back []Event
			if err := json.Unmarshal([]byte(got), &back); err != nil || encode(t, back) != got {
				t.Errorf("%s decodes to %s, %v", got, encode(t, back), err)
			}
		}
	}
	want := `{"phase":"conceded","turn":3,"active":0,"first":0,"seat":-1,"winner":1,"conceded":true,"players":[` +
		`{"hero":{"id":1,"health":28,"armor":0},"mana":2,"maxMana":2,"deck":0,"hand":[{"id":3},{"id":5},{"id":6},{"id":7}],"board":[],"graveyard":[{"id":4,"name":"Wisp"}]},` +
		`{"hero":{"id":2,"health":30,"armor":0},"mana":0,"maxMana":1,"deck":0,"hand":[{"id":8},{"id":9},{"id":11},{"id":12}],"board":[],"graveyard":[{"id":10,"name":"Leper Gnome"}]}]}`
	if got := encode(t, m.View(session.Spectator)); got != want {
		t.Errorf("last view\n%s\nwant\n%s", got, want)
	}
	// A view decodes back to the same bytes.
	var back View
	if err := json.Unmarshal([]byte(want), &back); err != nil || encode(t, back) != want {
		t.Errorf("the view decodes to %s, %v", encode(t, back), err)
	}
}
