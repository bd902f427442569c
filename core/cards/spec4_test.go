package cards

import (
	"errors"
	"slices"
	"testing"

	"github.com/roomd/roomd/core/session"
)

// §4: the harness calls, their values and their errors. Every error leaves
// the game unchanged and logs nothing.

func TestS4_NewGame(t *testing.T) {
	g := newGame(t, Options{Decks: [2][]string{{"Wisp", "Chillwind Yeti"}, {"Fireball"}}, Seed: 7})
	// decks[p][0] is the top: it is drawn first. No shuffling.
	ok(t, g.Cast("Arcane Intellect", 0, NoID))
	wantLog(t, g, SpellCast("Arcane Intellect"), Drew(0, 3), Drew(0, 4))
	if n, _ := g.NameOf(3); n != "Wisp" {
		t.Fatalf("top card %q", n)
	}
	if g.Snapshot().RNG != (session.StreamState{Gen: session.Mulberry32, Mulberry: 7}) {
		t.Fatal("the generator is seeded with opts.seed")
	}
	for _, c := range []struct {
		decks  [2][]string
		target error
	}{
		{[2][]string{{"Nobody"}, nil}, ErrUnknownCard},
		{[2][]string{nil, {"Wisp", "Spectral Spider"}}, ErrToken},
	} {
		if _, err := NewGame(Options{Decks: c.decks}); !errors.Is(err, c.target) {
			t.Errorf("decks %v: error %v, want %v", c.decks, err, c.target)
		}
	}
	if _, err := NewGame(Options{Cards: []CardDef{{Name: "Bad", Type: Minion}}}); !errors.Is(err, ErrInvalidCard) {
		t.Errorf("invalid Options.Cards: %v", err)
	}
}

func TestS4_Summon(t *testing.T) {
	g := newGame(t, Options{})
	id := summon(t, g, "Wisp", 1)
	wantLog(t, g, Summoned(id))
	if b := board(t, g, 1); !slices.Equal(b, []ID{id}) {
		t.Fatalf("board %v", b)
	}
	refused(t, g, ErrUnknownCard, func() error { _, err := g.Summon("Nobody", 0); return err })
	refused(t, g, ErrNotAMinion, func() error { _, err := g.Summon("Fireball", 0); return err })
	refused(t, g, ErrNoSuchPlayer, func() error { _, err := g.Summon("Wisp", 2); return err })
}

func TestS4_AddToHandAndDeck(t *testing.T) {
	g := newGame(t, Options{Decks: [2][]string{{"Wisp"}, nil}})
	h := addToHand(t, g, "Fireball", 0)
	d := must[ID](t)(g.AddToDeck("Chillwind Yeti", 0))
	if len(g.Log()) != 0 {
		t.Fatal("addToHand and addToDeck log nothing")
	}
	if !slices.Equal(hand(t, g, 0), []ID{h}) {
		t.Fatal("hand")
	}
	// addToDeck puts the card at the bottom.
	if deck := must[[]ID](t)(g.Deck(0)); !slices.Equal(deck, []ID{3, d}) {
		t.Fatalf("deck %v", deck)
	}
	// A token may go to a hand, not to a deck.
	addToHand(t, g, "Damaged Golem", 1)
	refused(t, g, ErrToken, func() error { _, err := g.AddToDeck("Damaged Golem", 1); return err })
	refused(t, g, ErrUnknownCard, func() error { _, err := g.AddToHand("Nobody", 0); return err })
	refused(t, g, ErrUnknownCard, func() error { _, err := g.AddToDeck("Nobody", 0); return err })
	refused(t, g, ErrNoSuchPlayer, func() error { _, err := g.AddToHand("Wisp", 5); return err })
	refused(t, g, ErrNoSuchPlayer, func() error { _, err := g.AddToDeck("Wisp", 5); return err })
}

func TestS4_Play(t *testing.T) {
	g := newGame(t, Options{Decks: [2][]string{{"Wisp"}, nil}})
	h := addToHand(t, g, "Novice Engineer", 0)
	ok(t, g.Play(h))
	wantLog(t, g, Summoned(h), Triggered(h, "battlecry"), Drew(0, 3))
	spell := addToHand(t, g, "Fireball", 0)
	refused(t, g, ErrNotAMinion, func() error { return g.Play(spell) })
	refused(t, g, ErrNotInHand, func() error { return g.Play(h) })
	refused(t, g, ErrNotInHand, func() error { return g.Play(1) })
	refused(t, g, ErrUnknownID, func() error { return g.Play(99) })
	refused(t, g, ErrUnknownID, func() error { return g.Play(NoID) })
	// A card in player 1's hand goes to player 1's board.
	p1 := addToHand(t, g, "Wisp", 1)
	ok(t, g.Play(p1))
	if !slices.Equal(board(t, g, 1), []ID{p1}) {
		t.Fatal("played onto its owner's board")
	}
}

func TestS4_Accessors(t *testing.T) {
	g := newGame(t, Options{})
	w := summon(t, g, "Wisp", 0)
	f := addToHand(t, g, "Fireball", 1)
	if n, _ := g.NameOf(w); n != "Wisp" {
		t.Error("nameOf")
	}
	if n, _ := g.NameOf(1); n != HeroName {
		t.Error("nameOf a hero")
	}
	if c, _ := g.Cost(f); c != 4 {
		t.Error("cost")
	}
	for _, c := range []struct {
		name   string
		target error
		call   func() error
	}{
		{"zoneOf 0", ErrUnknownID, func() error { _, err := g.ZoneOf(0); return err }},
		{"zoneOf 99", ErrUnknownID, func() error { _, err := g.ZoneOf(99); return err }},
		{"orderOfPlay", ErrUnknownID, func() error { _, err := g.OrderOfPlay(99); return err }},
		{"nameOf", ErrUnknownID, func() error { _, err := g.NameOf(99); return err }},
		{"health", ErrUnknownID, func() error { _, err := g.Health(99); return err }},
		{"health of a spell", ErrNoStats, func() error { _, err := g.Health(f); return err }},
		{"attack of a spell", ErrNoStats, func() error { _, err := g.Attack(f); return err }},
		{"attack", ErrUnknownID, func() error { _, err := g.Attack(99); return err }},
		{"cost", ErrUnknownID, func() error { _, err := g.Cost(99); return err }},
		{"cost of a hero", ErrHero, func() error { _, err := g.Cost(1); return err }},
		{"board", ErrNoSuchPlayer, func() error { _, err := g.Board(2); return err }},
		{"hand", ErrNoSuchPlayer, func() error { _, err := g.Hand(2); return err }},
		{"deck", ErrNoSuchPlayer, func() error { _, err := g.Deck(2); return err }},
		{"graveyard", ErrNoSuchPlayer, func() error { _, err := g.Graveyard(2); return err }},
		{"hero", ErrNoSuchPlayer, func() error { _, err := g.Hero(2); return err }},
		{"armor", ErrNoSuchPlayer, func() error { _, err := g.Armor(2); return err }},
		{"summonedBy", ErrUnknownID, func() error { _, err := g.SummonedBy(99); return err }},
	} {
		t.Run(c.name, func(t *testing.T) { refused(t, g, c.target, c.call) })
	}
	// The lists are copies.
	b := board(t, g, 0)
	b[0] = 42
	if board(t, g, 0)[0] != w {
		t.Fatal("board() shares the game's slice")
	}
}

func TestS4_DealDamage(t *testing.T) {
	g := newGame(t, Options{})
	y := summon(t, g, "Chillwind Yeti", 0)
	g.ClearLog()
	ok(t, g.DealDamage(y, 2))
	wantLog(t, g, Damaged(y, 2))
	// amount ≤ 0 does nothing.
	before := fingerprint(t, g)
	ok(t, g.DealDamage(y, 0))
	ok(t, g.DealDamage(y, -3))
	if fingerprint(t, g) != before {
		t.Fatal("dealDamage with amount ≤ 0 changed the game")
	}
	h := addToHand(t, g, "Wisp", 0)
	refused(t, g, ErrNotInPlay, func() error { return g.DealDamage(h, 1) })
	refused(t, g, ErrNotInPlay, func() error { return g.DealDamage(h, 0) })
	refused(t, g, ErrUnknownID, func() error { return g.DealDamage(99, 1) })
}

func TestS4_Cast(t *testing.T) {
	g := newGame(t, Options{})
	y := summon(t, g, "Chillwind Yeti", 1)
	g.ClearLog()
	ok(t, g.Cast("Fireball", 0, y))
	wantLog(t, g, SpellCast("Fireball"), Damaged(y, 6), Destroyed(y), DeathPhase(1))
	ok(t, g.Cast("Fireball", 0, 2)) // a hero is a character
	if health(t, g, 2) != 24 {
		t.Fatal("Fireball to the face")
	}
	if len(hand(t, g, 0)) != 0 {
		t.Fatal("cast needs no card in hand and makes none")
	}
	ok(t, g.RegisterCards([]CardDef{{Name: "Snipe", Type: Spell, Target: TargetMinion, Effects: []Effect{{Do: DoDamage, Amount: 1, To: Chosen}}}}))
	w := summon(t, g, "Wisp", 0)
	inHand := addToHand(t, g, "Wisp", 1)
	for _, c := range []struct {
		name   string
		target error
		call   func() error
	}{
		{"unknown card", ErrUnknownCard, func() error { return g.Cast("Nobody", 0, NoID) }},
		{"a minion", ErrNotASpell, func() error { return g.Cast("Wisp", 0, NoID) }},
		{"no such player", ErrNoSuchPlayer, func() error { return g.Cast("Flamestrike", 2, NoID) }},
		{"missing target", ErrTarget, func() error { return g.Cast("Fireball", 0, NoID) }},
		{"target of an untargeted spell", ErrTarget, func() error { return g.Cast("Flamestrike", 0, w) }},
		{"target not in play", ErrNotInPlay, func() error { return g.Cast("Fireball", 0, inHand) }},
		{"dead target", ErrNotInPlay, func() error { return g.Cast("Fireball", 0, y) }},
		{"unknown target", ErrUnknownID, func() error { return g.Cast("Fireball", 0, 99) }},
		{"hero for a minion target", ErrTarget, func() error { return g.Cast("Snipe", 0, 1) }},
	} {
		t.Run(c.name, func(t *testing.T) { refused(t, g, c.target, c.call) })
	}
}

func TestS4_LogAndClearLog(t *testing.T) {
	g := newGame(t, Options{})
	summon(t, g, "Wisp", 0)
	l := g.Log()
	l[0] = Fatigue(1)
	if g.Log()[0] != Summoned(3) {
		t.Fatal("log() shares the game's slice")
	}
	g.ClearLog()
	if len(g.Log()) != 0 {
		t.Fatal("clearLog")
	}
	summon(t, g, "Wisp", 0)
	wantLog(t, g, Summoned(4))
}

func TestS4_Destroy(t *testing.T) {
	g := newGame(t, Options{})
	w := summon(t, g, "Wisp", 0)
	g.ClearLog()
	ok(t, g.Destroy(w))
	wantLog(t, g, Destroyed(w), DeathPhase(1))
	h := addToHand(t, g, "Wisp", 0)
	refused(t, g, ErrNotInPlay, func() error { return g.Destroy(w) })
	refused(t, g, ErrNotInPlay, func() error { return g.Destroy(h) })
	refused(t, g, ErrNotAMinion, func() error { return g.Destroy(1) })
	refused(t, g, ErrUnknownID, func() error { return g.Destroy(99) })
	// DestroyAll checks every target before it marks any.
	a := summon(t, g, "Wisp", 0)
	refused(t, g, ErrNotInPlay, func() error { return g.DestroyAll([]ID{a, h}) })
	ok(t, g.DestroyAll(nil))
}

func TestS4_RegisterCards(t *testing.T) {
	g := newGame(t, Options{})
	old := summon(t, g, "Wisp", 0)
	ok(t, g.RegisterCards([]CardDef{{Name: "Wisp", Type: Minion, Cost: 3, Attack: 3, Health: 3, Noun: "WISP"},
		{Name: "Gnoll", Type: Minion, Cost: 2, Attack: 2, Health: 2, Noun: "GNOLL"}}))
	if c, _ := g.Cost(summon(t, g, "Wisp", 0)); c != 3 {
		t.Fatal("registerCards replaces a definition of the same name")
	}
	if c, _ := g.Cost(old); c != 0 {
		t.Fatal("a card already made keeps its definition")
	}
	summon(t, g, "Gnoll", 1)
	// The caller's definitions are copied.
	defs := []CardDef{{Name: "Echo", Type: Spell, Effects: []Effect{{Do: DoDraw, Count: 1}}}}
	ok(t, g.RegisterCards(defs))
	defs[0].Effects[0].Count = 5
	if d, _ := g.Card("Echo"); d.Effects[0].Count != 1 {
		t.Fatal("registerCards keeps the caller's slice")
	}
}

func TestS4_SetChooser(t *testing.T) {
	g := newGame(t, Options{})
	addToHand(t, g, "Leper Gnome", 0)
	var asked []string
	g.SetChooser(func(kind string, options []string) string {
		asked = append(asked, kind)
		return options[len(options)-1]
	})
	ok(t, g.Cast("Workshop", 0, NoID))
	if !slices.Equal(asked, []string{"base", "donor", "half"}) {
		t.Fatalf("asked %v", asked)
	}
	g.SetChooser(nil)
	ok(t, g.Cast("Workshop", 0, NoID)) // the default answers options[0]
}
