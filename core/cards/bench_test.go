package cards

import "testing"

// turnStart is a game in the middle of a card game: both boards full of
// Deathrattles and triggers, cards in the decks and in hand.
func turnStart(b tb) *Game {
	deck := []string{"Wisp", "Chillwind Yeti", "Loot Hoarder", "Fireball", "Bloodfen Raptor",
		"Leper Gnome", "Arcane Intellect", "Harvest Golem", "Whirlwind", "Novice Engineer"}
	g := newGame(b, Options{Seed: 42, Decks: [2][]string{deck, deck}})
	for _, name := range []string{"Baron Rivendare", "Harvest Golem", "Haunted Creeper", "Loot Hoarder",
		"Knife Juggler", "Cult Master", "Unstable Ghoul"} {
		summon(b, g, name, 0)
	}
	for _, name := range []string{"Abomination", "Leper Gnome", "Haunted Creeper", "Acolyte of Pain",
		"Armorsmith", "Wild Pyromancer", "Stormwind Champion"} {
		summon(b, g, name, 1)
	}
	addToHand(b, g, "Novice Engineer", 0)
	addToHand(b, g, "Raid Leader", 0)
	g.SetChooser(middleChooser)
	g.ClearLog()
	return g
}

// turn plays one turn on g: player 1's Hellfire sets off the chain of
// Deathrattles (Baron doubles player 0's), then player 0 refills the
// board and strikes back.
func turn(b tb, g *Game) {
	ok(b, g.Cast("Hellfire", 1, NoID))
	for _, id := range g.s.sides[0].hand {
		if g.s.ents[id].def.Type == Minion && len(g.s.sides[0].board) < MaxBoard {
			ok(b, g.Play(id))
			break
		}
	}
	ok(b, g.Cast("Arcane Missiles", 0, NoID))
	ok(b, g.Cast("Whirlwind", 0, NoID))
	ok(b, g.DealDamage(g.s.sides[1].hero, 3))
}

func TestTurn(t *testing.T) {
	g := turnStart(t)
	turn(t, g)
	if n := len(ofType(g, EventDeathPhase)); n < 4 {
		t.Fatalf("the turn has %d Death Phases; the benchmark wants a chain", n)
	}
	t.Logf("%d events, %d Death Phases, %d activations", len(g.Log()), len(ofType(g, EventDeathPhase)), len(ofType(g, EventTriggered)))
}

// BenchmarkTurn plays turn from the same start each time; restoring the
// start reuses the game's buffers, as a room's game would keep them.
func BenchmarkTurn(b *testing.B) {
	start := turnStart(b)
	g := start.Clone()
	b.ReportAllocs()
	for b.Loop() {
		copyState(&g.s, &start.s)
		g.log = g.log[:0]
		turn(b, g)
	}
}

// BenchmarkTurnClone is BenchmarkTurn on a fresh Clone each time.
func BenchmarkTurnClone(b *testing.B) {
	start := turnStart(b)
	b.ReportAllocs()
	for b.Loop() {
		turn(b, start.Clone())
	}
}
