package cards

import (
	"slices"
	"testing"
)

// Every card of the starter set (§3.7) and the invented cards, each in a
// scenario of its own.

var cardScenarios = map[string]func(t *testing.T){
	"Wisp":            vanilla("Wisp", 0, 1, 1),
	"Bloodfen Raptor": vanilla("Bloodfen Raptor", 2, 3, 2),
	"Chillwind Yeti":  vanilla("Chillwind Yeti", 4, 4, 5),
	"Leper Gnome": func(t *testing.T) {
		g := newGame(t, Options{})
		gn := summon(t, g, "Leper Gnome", 1)
		g.ClearLog()
		ok(t, g.Destroy(gn))
		wantLog(t, g, Destroyed(gn), DeathPhase(1), Triggered(gn, "deathrattle"), Damaged(1, 2))
	},
	"Loot Hoarder": func(t *testing.T) {
		g := newGame(t, Options{Decks: [2][]string{nil, {"Wisp"}}})
		h := summon(t, g, "Loot Hoarder", 1)
		g.ClearLog()
		ok(t, g.DealDamage(h, 1))
		wantLog(t, g, Damaged(h, 1), Destroyed(h), DeathPhase(1), Triggered(h, "deathrattle"), Drew(1, 3))
	},
	"Harvest Golem": func(t *testing.T) {
		g := newGame(t, Options{})
		hg := summon(t, g, "Harvest Golem", 0)
		g.ClearLog()
		ok(t, g.Destroy(hg))
		wantLog(t, g, Destroyed(hg), DeathPhase(1), Triggered(hg, "deathrattle"), Summoned(4))
		if n, _ := g.NameOf(4); n != "Damaged Golem" || attack(t, g, 4) != 2 || health(t, g, 4) != 1 {
			t.Fatal("the token is a 2/1 Damaged Golem")
		}
	},
	"Damaged Golem": func(t *testing.T) {
		vanilla("Damaged Golem", 1, 2, 1)(t)
		g := newGame(t, Options{})
		if _, err := g.AddToDeck("Damaged Golem", 0); err == nil {
			t.Fatal("a token went in a deck")
		}
	},
	"Haunted Creeper": func(t *testing.T) {
		g := newGame(t, Options{})
		c := summon(t, g, "Haunted Creeper", 0)
		g.ClearLog()
		ok(t, g.Destroy(c))
		wantLog(t, g, Destroyed(c), DeathPhase(1), Triggered(c, "deathrattle"), Summoned(4), Summoned(5))
		if b := board(t, g, 0); !slices.Equal(b, []ID{4, 5}) {
			t.Fatalf("board %v", b)
		}
	},
	"Spectral Spider": func(t *testing.T) {
		vanilla("Spectral Spider", 1, 1, 1)(t)
		if _, err := NewGame(Options{Decks: [2][]string{{"Spectral Spider"}, nil}}); err == nil {
			t.Fatal("a token went in a deck")
		}
	},
	"Abomination": func(t *testing.T) {
		g := newGame(t, Options{})
		ab := summon(t, g, "Abomination", 0)
		w := summon(t, g, "Wisp", 1)
		g.ClearLog()
		ok(t, g.Destroy(ab))
		wantLog(t, g, Destroyed(ab), DeathPhase(1), Triggered(ab, "deathrattle"),
			Damaged(1, 2), Damaged(2, 2), Damaged(w, 2), Destroyed(w), DeathPhase(2))
		if d, _ := g.Card("Abomination"); !d.Taunt() {
			t.Fatal("Taunt")
		}
	},
	"Unstable Ghoul": func(t *testing.T) {
		g := newGame(t, Options{})
		gh := summon(t, g, "Unstable Ghoul", 0)
		y := summon(t, g, "Chillwind Yeti", 1)
		g.ClearLog()
		ok(t, g.Destroy(gh))
		wantLog(t, g, Destroyed(gh), DeathPhase(1), Triggered(gh, "deathrattle"), Damaged(y, 1))
		if d, _ := g.Card("Unstable Ghoul"); !d.Taunt() {
			t.Fatal("Taunt")
		}
	},
	"Baron Rivendare": func(t *testing.T) {
		g := newGame(t, Options{})
		summon(t, g, "Baron Rivendare", 0)
		mine := summon(t, g, "Leper Gnome", 0)
		theirs := summon(t, g, "Leper Gnome", 1)
		g.ClearLog()
		ok(t, g.DestroyAll([]ID{mine, theirs}))
		// His minions trigger twice; the enemy's once.
		wantLog(t, g, Destroyed(mine), Destroyed(theirs), DeathPhase(1),
			Triggered(mine, "deathrattle"), Damaged(2, 2), Triggered(mine, "deathrattle"), Damaged(2, 2),
			Triggered(theirs, "deathrattle"), Damaged(1, 2))
	},
	"Novice Engineer": func(t *testing.T) {
		g := newGame(t, Options{Decks: [2][]string{{"Wisp"}, nil}})
		e := addToHand(t, g, "Novice Engineer", 0)
		ok(t, g.Play(e))
		wantLog(t, g, Summoned(e), Triggered(e, "battlecry"), Drew(0, 3))
	},
	"Acolyte of Pain": func(t *testing.T) {
		g := newGame(t, Options{Decks: [2][]string{{"Wisp", "Wisp"}, nil}})
		ac := summon(t, g, "Acolyte of Pain", 0)
		g.ClearLog()
		ok(t, g.DealDamage(ac, 1))
		ok(t, g.DealDamage(ac, 5))
		wantLog(t, g, Damaged(ac, 1), Triggered(ac, "damaged"), Drew(0, 3),
			Damaged(ac, 5), Triggered(ac, "damaged"), Drew(0, 4), Destroyed(ac), DeathPhase(1))
	},
	"Knife Juggler": func(t *testing.T) {
		g := newGame(t, Options{Seed: 12345})
		j := summon(t, g, "Knife Juggler", 0)
		summon(t, g, "Chillwind Yeti", 1)
		b := summon(t, g, "Chillwind Yeti", 1)
		g.ClearLog()
		w := summon(t, g, "Wisp", 0)
		// Candidates: hero 2, a, b; the first number of seed 12345 picks b.
		wantLog(t, g, Summoned(w), Triggered(j, "after_summon"), Damaged(b, 1))
	},
	"Wild Pyromancer": func(t *testing.T) {
		g := newGame(t, Options{})
		py := summon(t, g, "Wild Pyromancer", 0)
		y := summon(t, g, "Chillwind Yeti", 1)
		g.ClearLog()
		ok(t, g.Cast("Shield Block", 0, NoID))
		wantLog(t, g, SpellCast("Shield Block"), ArmorGained(0, 5), Fatigue(0),
			Triggered(py, "after_spell"), Damaged(py, 1), Damaged(y, 1))
	},
	"Armorsmith": func(t *testing.T) {
		g := newGame(t, Options{})
		sm := summon(t, g, "Armorsmith", 1)
		w := summon(t, g, "Chillwind Yeti", 1)
		g.ClearLog()
		ok(t, g.DealDamage(w, 1))
		wantLog(t, g, Damaged(w, 1), Triggered(sm, "damaged"), ArmorGained(1, 1))
		if a, _ := g.Armor(1); a != 1 {
			t.Fatal("armor")
		}
	},
	"Cult Master": func(t *testing.T) {
		g := newGame(t, Options{Decks: [2][]string{{"Wisp"}, nil}})
		w := summon(t, g, "Wisp", 0)
		cm := summon(t, g, "Cult Master", 0)
		g.ClearLog()
		ok(t, g.Destroy(w))
		wantLog(t, g, Destroyed(w), DeathPhase(1), Triggered(cm, "after_death"), Drew(0, 3))
		// Its own death draws nothing.
		ok(t, g.Destroy(cm))
		wantLog(t, g, Destroyed(cm), DeathPhase(1))
	},
	"Raid Leader": func(t *testing.T) {
		g := newGame(t, Options{})
		w := summon(t, g, "Wisp", 0)
		rl := summon(t, g, "Raid Leader", 0)
		wantLog(t, g, Summoned(w), Summoned(rl), StatsChanged(w, 2, 1))
		ok(t, g.Destroy(rl))
		wantLog(t, g, Destroyed(rl), DeathPhase(1), StatsChanged(w, 1, 1))
	},
	"Stormwind Champion": func(t *testing.T) {
		g := newGame(t, Options{})
		ch := summon(t, g, "Stormwind Champion", 0)
		w := summon(t, g, "Wisp", 0)
		wantLog(t, g, Summoned(ch), Summoned(w), StatsChanged(w, 2, 2))
		if attack(t, g, ch) != 6 || health(t, g, ch) != 6 {
			t.Fatal("the Champion buffs others only")
		}
	},
	"Fireball": func(t *testing.T) {
		g := newGame(t, Options{})
		ok(t, g.Cast("Fireball", 0, 2))
		wantLog(t, g, SpellCast("Fireball"), Damaged(2, 6))
		if health(t, g, 2) != 24 {
			t.Fatal("6 damage")
		}
	},
	"Flamestrike": func(t *testing.T) {
		g := newGame(t, Options{})
		mine := summon(t, g, "Chillwind Yeti", 0)
		a := summon(t, g, "Chillwind Yeti", 1)
		b := summon(t, g, "Wisp", 1)
		g.ClearLog()
		ok(t, g.Cast("Flamestrike", 0, NoID))
		wantLog(t, g, SpellCast("Flamestrike"), Damaged(a, 4), Damaged(b, 4), Destroyed(b), DeathPhase(1))
		if health(t, g, mine) != 5 {
			t.Fatal("Flamestrike hit a friendly minion")
		}
	},
	"Arcane Missiles": func(t *testing.T) {
		g := newGame(t, Options{})
		summon(t, g, "Chillwind Yeti", 0)
		g.ClearLog()
		ok(t, g.Cast("Arcane Missiles", 0, NoID))
		// Only the enemy hero: three hits on it.
		wantLog(t, g, SpellCast("Arcane Missiles"), Damaged(2, 1), Damaged(2, 1), Damaged(2, 1))
	},
	"Twisting Nether": func(t *testing.T) {
		g := newGame(t, Options{})
		a := summon(t, g, "Baron Rivendare", 0)
		b := summon(t, g, "Chillwind Yeti", 1)
		g.ClearLog()
		ok(t, g.Cast("Twisting Nether", 0, NoID))
		wantLog(t, g, SpellCast("Twisting Nether"), Destroyed(a), Destroyed(b), DeathPhase(1))
	},
	"Hellfire": func(t *testing.T) {
		g := newGame(t, Options{})
		y := summon(t, g, "Chillwind Yeti", 0)
		g.ClearLog()
		ok(t, g.Cast("Hellfire", 0, NoID))
		wantLog(t, g, SpellCast("Hellfire"), Damaged(1, 3), Damaged(2, 3), Damaged(y, 3))
	},
	"Whirlwind": func(t *testing.T) {
		g := newGame(t, Options{})
		a := summon(t, g, "Chillwind Yeti", 0)
		b := summon(t, g, "Chillwind Yeti", 1)
		g.ClearLog()
		ok(t, g.Cast("Whirlwind", 1, NoID))
		wantLog(t, g, SpellCast("Whirlwind"), Damaged(a, 1), Damaged(b, 1))
	},
	"Shield Block": func(t *testing.T) {
		g := newGame(t, Options{Decks: [2][]string{nil, {"Wisp"}}})
		ok(t, g.Cast("Shield Block", 1, NoID))
		wantLog(t, g, SpellCast("Shield Block"), ArmorGained(1, 5), Drew(1, 3))
		if a, _ := g.Armor(1); a != 5 {
			t.Fatal("armor")
		}
	},
	"Arcane Intellect": func(t *testing.T) {
		g := newGame(t, Options{Decks: [2][]string{{"Wisp"}, nil}})
		ok(t, g.Cast("Arcane Intellect", 0, NoID))
		wantLog(t, g, SpellCast("Arcane Intellect"), Drew(0, 3), Fatigue(0))
	},
	"Rune Scribe": func(t *testing.T) {
		g := newGame(t, Options{})
		s := summon(t, g, "Rune Scribe", 0)
		summon(t, g, "Baron Rivendare", 0)
		g.ClearLog()
		ok(t, g.Destroy(s))
		wantLog(t, g, Destroyed(s), DeathPhase(1), Triggered(s, "deathrattle"), Triggered(s, "deathrattle"))
		if r := g.TakeTextRequests(); !slices.Equal(r, []TextRequest{{s, "WIN"}, {s, "WIN"}}) {
			t.Fatalf("requests %v", r)
		}
	},
	"Workshop": func(t *testing.T) {
		g := newGame(t, Options{})
		h := addToHand(t, g, "Leper Gnome", 0)
		answers := []string{"Leper Gnome", "Loot Hoarder", "bottom"}
		g.SetChooser(func(kind string, options []string) string {
			a := answers[0]
			answers = answers[1:]
			return a
		})
		ok(t, g.Cast("Workshop", 0, NoID))
		if n, _ := g.NameOf(h); n != "Leper Gnome (Assembled)" {
			t.Fatal(n)
		}
		if c, _ := g.Cost(h); c != 1 {
			t.Fatal("cost")
		}
	},
}

// vanilla checks a card without text: its stats, and that it does nothing
// when it dies.
func vanilla(name string, cost, atk, hp int32) func(t *testing.T) {
	return func(t *testing.T) {
		g := newGame(t, Options{})
		id := summon(t, g, name, 0)
		if c, _ := g.Cost(id); c != cost || attack(t, g, id) != atk || health(t, g, id) != hp {
			t.Fatalf("%s is %d-mana %d/%d", name, c, attack(t, g, id), health(t, g, id))
		}
		g.ClearLog()
		ok(t, g.DealDamage(id, hp))
		wantLog(t, g, Damaged(id, hp), Destroyed(id), DeathPhase(1))
	}
}

func TestCards(t *testing.T) {
	for _, d := range Library() {
		scenario, ok := cardScenarios[d.Name]
		if !ok {
			t.Errorf("no scenario for %q", d.Name)
			continue
		}
		t.Run(d.Name, scenario)
	}
	if len(cardScenarios) != len(Library()) {
		t.Errorf("%d scenarios for %d cards", len(cardScenarios), len(Library()))
	}
}
