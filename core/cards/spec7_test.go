package cards

import (
	"encoding/json"
	"testing"
)

// §7: events.

func TestS7_EventJSON(t *testing.T) {
	for _, c := range []struct {
		e    Event
		json string
	}{
		{Summoned(3), `{"type":"Summoned","id":3}`},
		{Damaged(7, 2), `{"type":"Damaged","target":7,"amount":2}`},
		{Damaged(7, 0), `{"type":"Damaged","target":7,"amount":0}`},
		{Triggered(4, "deathrattle"), `{"type":"Triggered","source":4,"trigger":"deathrattle"}`},
		{Destroyed(5), `{"type":"Destroyed","id":5}`},
		{DeathPhase(1), `{"type":"DeathPhase","round":1}`},
		{Drew(0, 9), `{"type":"Drew","player":0,"id":9}`},
		{Fatigue(0), `{"type":"Fatigue","player":0}`},
		{ArmorGained(1, 5), `{"type":"ArmorGained","player":1,"amount":5}`},
		{StatsChanged(6, 0, -2), `{"type":"StatsChanged","id":6,"attack":0,"health":-2}`},
		{SpellCast(`Say "hi"`), `{"type":"SpellCast","card":"Say \"hi\""}`},
	} {
		b, err := json.Marshal(c.e)
		if err != nil || string(b) != c.json {
			t.Errorf("%#v encodes as %s (%v), want %s", c.e, b, err, c.json)
		}
		var back Event
		if err := json.Unmarshal(b, &back); err != nil || back != c.e {
			t.Errorf("%s decodes as %#v (%v)", b, back, err)
		}
	}
	for _, bad := range []string{
		`{"type":"Summoned"}`,
		`{"type":"Summoned","id":3,"amount":1}`,
		`{"type":"Exploded","id":3}`,
		`{"id":3}`,
		`{"type":"Summoned","id":-1}`,
		`[]`,
	} {
		var e Event
		if err := json.Unmarshal([]byte(bad), &e); err == nil {
			t.Errorf("%s decoded as %v", bad, e)
		}
	}
	if _, err := json.Marshal(Event{Type: "Exploded"}); err == nil {
		t.Error("an unknown type encoded")
	}
}

func TestS7_WorkedOrder(t *testing.T) {
	// A Baron Rivendare, a Loot Hoarder and a Leper Gnome of player 0 under
	// player 1's Flamestrike.
	g := newGame(t, Options{Decks: [2][]string{{"Wisp", "Wisp"}, nil}})
	baron := summon(t, g, "Baron Rivendare", 0)
	hoarder := summon(t, g, "Loot Hoarder", 0)
	gnome := summon(t, g, "Leper Gnome", 0)
	g.ClearLog()
	ok(t, g.Cast("Flamestrike", 1, NoID))
	wantLog(t, g,
		SpellCast("Flamestrike"),
		Damaged(baron, 4), Damaged(hoarder, 4), Damaged(gnome, 4),
		Destroyed(hoarder), Destroyed(gnome),
		DeathPhase(1),
		Triggered(hoarder, "deathrattle"), Drew(0, 3), Triggered(hoarder, "deathrattle"), Drew(0, 4),
		Triggered(gnome, "deathrattle"), Damaged(2, 2), Triggered(gnome, "deathrattle"), Damaged(2, 2))
}
