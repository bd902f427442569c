package cards

import (
	"errors"
	"slices"
	"testing"
)

// §8: Assemble and the chooser.

func TestS8_Assemble(t *testing.T) {
	g := newGame(t, Options{Decks: [2][]string{{"Wisp"}, nil}})
	name, err := g.Assemble("Leper Gnome", "Loot Hoarder", HalfBottom)
	ok(t, err)
	if name != "Leper Gnome (Assembled)" {
		t.Fatalf("name %q", name)
	}
	d, _ := g.Card(name)
	if d.Text != "Deathrattle: Draw a card." || d.Attack != 2 || d.Health != 1 || d.Cost != 1 || d.Noun != "GNOME" {
		t.Fatalf("assembled %+v", d)
	}
	// It plays as its parts say.
	a := summon(t, g, name, 0)
	g.ClearLog()
	ok(t, g.Destroy(a))
	wantLog(t, g, Destroyed(a), DeathPhase(1), Triggered(a, "deathrattle"), Drew(0, 3))

	// The top half brings the trigger; keywords stay in front.
	name, err = g.Assemble("Abomination", "Knife Juggler", HalfTop)
	ok(t, err)
	d, _ = g.Card(name)
	if d.Text != "Taunt. After you summon a minion, Deal 2 damage to ALL characters." || d.Ability.When != AfterFriendlySummon || !d.Taunt() {
		t.Fatalf("assembled %+v", d)
	}
	// Assembling again replaces the earlier card of that name.
	name, err = g.Assemble("Abomination", "Acolyte of Pain", HalfTop)
	ok(t, err)
	if d, _ := g.Card(name); d.Ability.When != SelfDamaged {
		t.Fatal("not replaced")
	}
	// An assembled card can be assembled again.
	name, err = g.Assemble("Leper Gnome (Assembled)", "Novice Engineer", HalfTop)
	ok(t, err)
	if name != "Leper Gnome (Assembled) (Assembled)" {
		t.Fatal(name)
	}
}

func TestS8_AssembleErrors(t *testing.T) {
	g := newGame(t, Options{})
	for _, c := range []struct {
		base, donor string
		half        Half
	}{
		{"Loot Hoarder", "Leper Gnome", HalfTop}, // both tops are "Deathrattle:": the text is unchanged
		{"Loot Hoarder", "Loot Hoarder", HalfBottom},
		{"Nobody", "Leper Gnome", HalfTop},
		{"Leper Gnome", "Nobody", HalfTop},
		{"Wisp", "Leper Gnome", HalfTop},
		{"Leper Gnome", "Raid Leader", HalfBottom},
		{"Leper Gnome", "Fireball", HalfBottom},
		{"Leper Gnome", "Loot Hoarder", "middle"},
	} {
		refused(t, g, ErrAssemble, func() error { _, err := g.Assemble(c.base, c.donor, c.half); return err })
		_, err := g.Assemble(c.base, c.donor, c.half)
		var ae *AssembleError
		if !errors.As(err, &ae) {
			t.Errorf("%v is not an *AssembleError", err)
		}
	}
}

func TestS8_WorkshopChooser(t *testing.T) {
	g := newGame(t, Options{})
	gnome := addToHand(t, g, "Leper Gnome", 0)
	addToHand(t, g, "Wisp", 0)          // no ability: not a base
	addToHand(t, g, "Fireball", 0)      // a spell: not a base
	addToHand(t, g, "Loot Hoarder", 0)  // a base
	addToHand(t, g, "Leper Gnome", 0)   // the same name once
	addToHand(t, g, "Harvest Golem", 1) // the other player's
	type ask struct {
		kind    string
		options []string
	}
	var asked []ask
	answers := []string{"Leper Gnome", "Loot Hoarder", "bottom"}
	g.SetChooser(func(kind string, options []string) string {
		asked = append(asked, ask{kind, options})
		a := answers[0]
		answers = answers[1:]
		return a
	})
	g.ClearLog()
	ok(t, g.Cast("Workshop", 0, NoID))
	wantLog(t, g, SpellCast("Workshop"))
	donors := []string{"Abomination", "Acolyte of Pain", "Armorsmith", "Cult Master", "Harvest Golem", "Haunted Creeper",
		"Knife Juggler", "Leper Gnome", "Loot Hoarder", "Novice Engineer", "Rune Scribe", "Unstable Ghoul", "Wild Pyromancer"}
	want := []ask{{"base", []string{"Leper Gnome", "Loot Hoarder"}}, {"donor", donors}, {"half", []string{"top", "bottom"}}}
	if len(asked) != 3 {
		t.Fatalf("asked %v", asked)
	}
	for i := range want {
		if asked[i].kind != want[i].kind || !slices.Equal(asked[i].options, want[i].options) {
			t.Fatalf("question %d: %v, want %v", i, asked[i], want[i])
		}
	}
	// The first Leper Gnome in hand became the assembled card, same id.
	if n, _ := g.NameOf(gnome); n != "Leper Gnome (Assembled)" {
		t.Fatalf("hand card %d is %q", gnome, n)
	}
	if h := hand(t, g, 0); h[0] != gnome || len(h) != 5 {
		t.Fatalf("hand %v", h)
	}
	// The assembled card (no token) is now a donor too.
	asked = nil
	answers = []string{"Leper Gnome", "Nobody", "top"}
	ok(t, g.Cast("Workshop", 0, NoID))
	if !slices.Contains(asked[1].options, "Leper Gnome (Assembled)") {
		t.Fatal("the assembled card is no donor")
	}
}

func TestS8_WorkshopDoesNothing(t *testing.T) {
	for _, c := range []struct {
		name    string
		answers []string
		asked   int
	}{
		{"a base not in the options", []string{"Wisp"}, 1},
		{"a donor not in the options", []string{"Leper Gnome", "Wisp"}, 2},
		{"a half not in the options", []string{"Leper Gnome", "Loot Hoarder", "middle"}, 3},
		{"an AssembleError", []string{"Leper Gnome", "Loot Hoarder", "top"}, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := newGame(t, Options{})
			gnome := addToHand(t, g, "Leper Gnome", 0)
			asked := 0
			g.SetChooser(func(kind string, options []string) string {
				asked++
				return c.answers[asked-1]
			})
			cards := g.Cards()
			ok(t, g.Cast("Workshop", 0, NoID))
			wantLog(t, g, SpellCast("Workshop"))
			if asked != c.asked {
				t.Fatalf("asked %d times, want %d", asked, c.asked)
			}
			if n, _ := g.NameOf(gnome); n != "Leper Gnome" || !slices.Equal(g.Cards(), cards) {
				t.Fatal("the effect did something")
			}
		})
	}
	// No base in hand: nothing is asked.
	g := newGame(t, Options{})
	addToHand(t, g, "Wisp", 0)
	addToHand(t, g, "Leper Gnome", 1)
	g.SetChooser(func(string, []string) string { t.Fatal("asked with an empty list"); return "" })
	ok(t, g.Cast("Workshop", 0, NoID))
	// The default chooser answers options[0]: the first base, Abomination
	// as the donor, the top half. Abomination's top is "Deathrattle:" like
	// Loot Hoarder's, so the text is unchanged and nothing happens...
	g = newGame(t, Options{})
	h := addToHand(t, g, "Loot Hoarder", 0)
	ok(t, g.Cast("Workshop", 0, NoID))
	if n, _ := g.NameOf(h); n != "Loot Hoarder" {
		t.Fatal(n)
	}
	// ...but an Acolyte of Pain takes the Deathrattle trigger.
	g = newGame(t, Options{})
	ac := addToHand(t, g, "Acolyte of Pain", 0)
	ok(t, g.Cast("Workshop", 0, NoID))
	if d, _ := g.Card("Acolyte of Pain (Assembled)"); d.Text != "Deathrattle: draw a card." {
		t.Fatalf("default choices gave %q", d.Text)
	}
	if n, _ := g.NameOf(ac); n != "Acolyte of Pain (Assembled)" {
		t.Fatal(n)
	}
}
