package spellgrid

import (
	"errors"
	"slices"
	"testing"

	"github.com/roomd/roomd/core/baba"
	"github.com/roomd/roomd/core/cards"
)

// §9 Lexicon: a minion's noun is a thing noun whose kind is its lower case.
func TestLexicon_CardNounIsThingNoun(t *testing.T) {
	s := newGrid(t, `{"width":5,"height":3,"objects":[`+text(0, 0, "GNOME", "IS", "YOU")+`],
		"cards":[{"card":"Leper Gnome","x":1,"y":2}]}`)
	g := ID(4)
	if k := must(s.KindsAt(1, 2)); !slices.Equal(k, []string{"gnome"}) {
		t.Fatalf("kindsAt = %v", k)
	}
	if !must(s.HasProperty(g, "YOU")) {
		t.Fatal("the gnome is not YOU")
	}
	if err := s.Step(baba.Right); err != nil {
		t.Fatal(err)
	}
	if p := pos(t, s, g); !slices.Equal(p, []int{2, 2}) {
		t.Fatalf("posOf = %v, want [2 2]", p)
	}
}

// §9 Lexicon: card nouns are never conversion targets and minion objects
// are never converted by X IS Y.
func TestLexicon_MinionsNeverConverted(t *testing.T) {
	s := newGrid(t, `{"width":5,"height":4,"objects":[`+text(0, 0, "GNOME", "IS", "ROCK")+`,`+text(0, 1, "ROCK", "IS", "GNOME")+`,
		{"kind":"rock","x":4,"y":3}],"cards":[{"card":"Leper Gnome","x":1,"y":3}]}`)
	if err := s.Step(baba.Up); err != nil {
		t.Fatal(err)
	}
	if k := must(s.KindsAt(1, 3)); !slices.Equal(k, []string{"gnome"}) {
		t.Fatalf("the gnome's tile holds %v", k)
	}
	if k := must(s.KindsAt(4, 3)); !slices.Equal(k, []string{"rock"}) {
		t.Fatalf("the rock's tile holds %v", k)
	}
	if len(s.Log()) != 0 {
		t.Fatalf("log = %v", s.Log())
	}
}

// §9 Lexicon and seam 2: X IS NOT X destroys a minion through a Sequence,
// its Deathrattle following.
func TestLexicon_XIsNotXDestroysThroughSequence(t *testing.T) {
	s := newGrid(t, `{"width":5,"height":3,"objects":[`+text(0, 0, "GNOME", "IS", "NOT", "GNOME")+`],
		"cards":[{"card":"Leper Gnome","x":1,"y":2}]}`)
	g := ID(5)
	enemy := hero(t, s, 1)
	if err := s.Step(baba.Up); err != nil {
		t.Fatal(err)
	}
	want := []cards.Event{cards.Destroyed(cards.ID(g)), cards.DeathPhase(1), cards.Triggered(cards.ID(g), "deathrattle"), cards.Damaged(cards.ID(enemy), 2)}
	if got := s.Log(); !slices.Equal(got, want) {
		t.Fatalf("log = %v, want %v", got, want)
	}
	if p := pos(t, s, g); p != nil {
		t.Fatalf("posOf = %v, want null", p)
	}
	if h := health(t, s, enemy); h != 28 {
		t.Fatalf("enemy hero health = %d", h)
	}
}

// §9 Construction: level objects 1…n, then the cards' minions in listing
// order, then the heroes, then the hand; no Sequence, no event.
func TestConstruction_Order(t *testing.T) {
	s := newGrid(t, `{"width":5,"height":3,"objects":[`+text(0, 0, "BABA", "IS", "YOU")+`],
		"cards":[{"card":"Wisp","x":0,"y":2},{"card":"Knife Juggler","x":1,"y":2}],"hand":["Fireball","Wisp"]}`)
	if b := must(s.Board(0)); !slices.Equal(b, []ID{4, 5}) {
		t.Fatalf("board(0) = %v", b)
	}
	if h0, h1 := hero(t, s, 0), hero(t, s, 1); h0 != 6 || h1 != 7 {
		t.Fatalf("heroes %d %d, want 6 7", h0, h1)
	}
	for _, id := range []ID{6, 7, 8, 9} {
		if p := pos(t, s, id); p != nil {
			t.Fatalf("id %d has a grid object at %v", id, p)
		}
	}
	if n := must(s.NameOf(8)); n != "Fireball" {
		t.Fatalf("nameOf(8) = %q", n)
	}
	if h := s.Hand(); !slices.Equal(h, []string{"Fireball", "Wisp"}) {
		t.Fatalf("hand = %v", h)
	}
	if len(s.Log()) != 0 {
		t.Fatalf("construction logged %v", s.Log())
	}
	// Player 0 has no deck: a draw is Fatigue.
	s2 := newGrid(t, `{"width":3,"height":3,"hand":["Arcane Intellect"]}`)
	if err := s2.Cast("Arcane Intellect", 0); err != nil {
		t.Fatal(err)
	}
	if n := count(s2, cards.EventFatigue); n != 2 {
		t.Fatalf("%d Fatigue, want 2", n)
	}
}

// §9 Construction step 4: rule auras present from the start are in the
// snapshot.
func TestConstruction_RuleAurasFromStart(t *testing.T) {
	s := newGrid(t, `{"width":7,"height":3,"objects":[`+text(0, 0, "DEATHRATTLE", "IS", "DOUBLE")+`],
		"cards":[{"card":"Leper Gnome","x":1,"y":2}],"hand":["Fireball"]}`)
	if err := s.Cast("Fireball", 4); err != nil {
		t.Fatal(err)
	}
	if h := health(t, s, hero(t, s, 1)); h != 26 {
		t.Fatalf("enemy hero health = %d, want 26 (Deathrattle twice)", h)
	}
}

// §9 One id space: a played card gets the id of its new grid object.
func TestOneIDSpace_PlayReturnsGridObjectID(t *testing.T) {
	s := newGrid(t, `{"width":4,"height":4,"hand":["Chillwind Yeti"]}`)
	id := must(s.Play("Chillwind Yeti", 2, 3))
	if p := pos(t, s, id); !slices.Equal(p, []int{2, 3}) {
		t.Fatalf("posOf = %v", p)
	}
	if h := health(t, s, id); h != 5 {
		t.Fatalf("health = %d", h)
	}
	if got := s.Log(); !slices.Equal(got, []cards.Event{cards.Summoned(cards.ID(id))}) {
		t.Fatalf("log = %v", got)
	}
	if m, ok, _ := s.MinionAt(2, 3); !ok || m != id {
		t.Fatalf("minionAt = %d %v", m, ok)
	}
}

// §9 cast: from the hand (the first card of that name), a live minion's
// target, player 0 casting; a failing cast changes nothing.
func TestCast_FromHandWithLiveMinionTarget(t *testing.T) {
	s := newGrid(t, `{"width":4,"height":3,"objects":[{"kind":"rock","x":0,"y":0}],
		"cards":[{"card":"Chillwind Yeti","x":1,"y":1}],"hand":["Fireball","Fireball"]}`)
	yeti := ID(2)
	for _, c := range []struct {
		card   string
		target ID
		err    error
	}{
		{"Flamestrike", 0, ErrNotInHand},
		{"Fireball", 0, ErrTarget},
		{"Fireball", hero(t, s, 1), ErrTarget},
		{"Fireball", 1, ErrTarget}, // the rock
		{"Fireball", 99, ErrTarget},
	} {
		before := s.Clone()
		err := s.Cast(c.card, c.target)
		if !errors.Is(err, c.err) {
			t.Fatalf("cast(%q, %d) = %v, want %v", c.card, c.target, err, c.err)
		}
		if !errors.Is(s.CheckCast(c.card, c.target), c.err) {
			t.Fatalf("checkCast(%q, %d) disagrees", c.card, c.target)
		}
		if !slices.Equal(s.Hand(), before.Hand()) || len(s.Log()) != 0 {
			t.Fatal("a failing cast changed the grid")
		}
	}
	if err := s.CheckCast("Fireball", yeti); err != nil {
		t.Fatal(err)
	}
	if err := s.Cast("Fireball", yeti); err != nil {
		t.Fatal(err)
	}
	if h := s.Hand(); !slices.Equal(h, []string{"Fireball"}) {
		t.Fatalf("hand = %v", h)
	}
	if p := pos(t, s, yeti); p != nil {
		t.Fatalf("the dead yeti's object is still at %v", p)
	}
	if err := s.Cast("Fireball", yeti); !errors.Is(err, ErrTarget) {
		t.Fatalf("cast at a dead minion: %v", err)
	}
}

// §9 play: a minion in hand onto a tile inside the level holding no live
// object.
func TestPlay_MinionOntoEmptyTile(t *testing.T) {
	s := newGrid(t, `{"width":3,"height":3,"objects":[{"kind":"rock","x":0,"y":0}],"hand":["Wisp","Fireball"]}`)
	for _, c := range []struct {
		card string
		x, y int
		err  error
	}{
		{"Wisp", 0, 0, ErrTile},
		{"Wisp", 3, 0, ErrTile},
		{"Fireball", 1, 1, ErrNotAMinion},
		{"Leper Gnome", 1, 1, ErrNotInHand},
	} {
		if _, err := s.Play(c.card, c.x, c.y); !errors.Is(err, c.err) {
			t.Fatalf("play(%q, %d, %d) = %v, want %v", c.card, c.x, c.y, err, c.err)
		}
		if !errors.Is(s.CheckPlay(c.card, c.x, c.y), c.err) {
			t.Fatalf("checkPlay(%q) disagrees", c.card)
		}
	}
	if len(s.Hand()) != 2 || len(s.Snapshot().Objects) != 1 {
		t.Fatal("a failing play changed the grid")
	}
	if err := s.CheckPlay("Wisp", 1, 1); err != nil {
		t.Fatal(err)
	}
}

// §9 play: the play Sequence runs (Battlecry), and seam 1: BATTLECRY IS
// DOUBLE doubles it.
func TestSeam1_RuleAuraDoubleBattlecry(t *testing.T) {
	s := newGrid(t, `{"width":5,"height":3,"objects":[`+text(0, 0, "BATTLECRY", "IS", "DOUBLE")+`],"hand":["Novice Engineer"]}`)
	id := must(s.Play("Novice Engineer", 0, 2))
	if n := count(s, cards.EventTriggered); n != 2 {
		t.Fatalf("battlecry triggered %d times, want 2 (log %v)", n, s.Log())
	}
	_ = id
}

// §9 seam 1: T IS NOT DOUBLE is a cap, even against Baron Rivendare.
func TestSeam1_RuleAuraCap(t *testing.T) {
	s := newGrid(t, `{"width":7,"height":3,"objects":[`+text(0, 0, "DEATHRATTLE", "IS", "NOT", "DOUBLE")+`],
		"cards":[{"card":"Baron Rivendare","x":0,"y":2},{"card":"Leper Gnome","x":1,"y":2}],"hand":["Fireball"]}`)
	if err := s.Cast("Fireball", 6); err != nil {
		t.Fatal(err)
	}
	if h := health(t, s, hero(t, s, 1)); h != 28 {
		t.Fatalf("enemy hero health = %d, want 28 (capped)", h)
	}
}

// §9 seam 1: the rule-aura list follows the re-read rules; breaking the
// rule by a step takes the doubling away.
func TestSeam1_RefreshedAtReRead(t *testing.T) {
	s := newGrid(t, `{"width":6,"height":4,"objects":[`+text(0, 1, "DEATHRATTLE", "IS", "DOUBLE")+`,`+text(0, 3, "BABA", "IS", "YOU")+`,
		{"kind":"baba","x":2,"y":2}],"cards":[{"card":"Leper Gnome","x":5,"y":0}],"hand":["Fireball"]}`)
	if !hasRule(s, "DEATHRATTLE IS DOUBLE") {
		t.Fatal("no rule at the start")
	}
	if err := s.Step(baba.Up); err != nil { // the baba pushes DOUBLE off the rule
		t.Fatal(err)
	}
	if hasRule(s, "DEATHRATTLE IS DOUBLE") {
		t.Fatalf("rule still there: %v", s.ActiveRules())
	}
	if err := s.Cast("Fireball", 8); err != nil {
		t.Fatal(err)
	}
	if h := health(t, s, hero(t, s, 1)); h != 28 {
		t.Fatalf("enemy hero health = %d, want 28", h)
	}
}

// §9 seam 2: the minions one destroying step hits are destroyed by one
// Sequence; another step makes another Sequence.
func TestSeam2_OneSequencePerDestroyingStep(t *testing.T) {
	s := newGrid(t, `{"width":7,"height":5,"objects":[`+text(0, 0, "GNOME", "IS", "YOU")+`,`+text(0, 1, "SKULL", "IS", "DEFEAT")+`,`+
		text(0, 2, "WATER", "IS", "SINK")+`,
		{"kind":"skull","x":2,"y":4},{"kind":"skull","x":3,"y":4},{"kind":"water","x":4,"y":4}],
		"cards":[{"card":"Leper Gnome","x":1,"y":4},{"card":"Leper Gnome","x":2,"y":3},{"card":"Loot Hoarder","x":3,"y":3}]}`)
	// Down: gnome 2 onto a skull, the hoarder is no YOU; Right: gnome 1 onto skull.
	g1, g2 := ID(13), ID(14)
	if err := s.Step(baba.Right); err != nil {
		t.Fatal(err)
	}
	// gnome 1 to (2,4) skull: DEFEAT; gnome 2 to (3,3): nothing.
	if p := pos(t, s, g1); p != nil {
		t.Fatalf("gnome 1 at %v", p)
	}
	if n := count(s, cards.EventDeathPhase); n != 1 {
		t.Fatalf("%d Death Phases, want 1", n)
	}
	s.ClearLog()
	if err := s.Step(baba.Down); err != nil {
		t.Fatal(err)
	}
	if p := pos(t, s, g2); p != nil {
		t.Fatalf("gnome 2 at %v", p)
	}
	if n := count(s, cards.EventDestroyed); n != 1 {
		t.Fatalf("log %v", s.Log())
	}
}

// §9 seam 2: one Sequence for all the minions of a step, in order of play.
func TestSeam2_AllMinionsOfAStepInOneSequence(t *testing.T) {
	s := newGrid(t, `{"width":7,"height":4,"objects":[`+text(0, 0, "GNOME", "IS", "YOU")+`,`+text(0, 1, "SKULL", "IS", "DEFEAT")+`,
		{"kind":"skull","x":2,"y":3},{"kind":"skull","x":4,"y":3}],
		"cards":[{"card":"Leper Gnome","x":3,"y":3},{"card":"Leper Gnome","x":1,"y":3}]}`)
	if err := s.Step(baba.Right); err != nil {
		t.Fatal(err)
	}
	a, b := cards.ID(9), cards.ID(10)
	want := []cards.Event{cards.Destroyed(a), cards.Destroyed(b), cards.DeathPhase(1),
		cards.Triggered(a, "deathrattle"), cards.Damaged(cards.ID(hero(t, s, 1)), 2),
		cards.Triggered(b, "deathrattle"), cards.Damaged(cards.ID(hero(t, s, 1)), 2)}
	if got := s.Log(); !slices.Equal(got, want) {
		t.Fatalf("log = %v\nwant  %v", got, want)
	}
	if !s.Lost() {
		t.Fatal("no gnome left, yet not lost")
	}
}

// §9 seam 2: an OPEN/SHUT pair destroys the minion through a Sequence
// and the other object as in baba.md.
func TestSeam2_OpenShut(t *testing.T) {
	s := newGrid(t, `{"width":6,"height":5,"objects":[`+text(0, 0, "GNOME", "IS", "YOU")+`,`+text(0, 1, "GNOME", "IS", "OPEN")+`,`+
		text(0, 2, "DOOR", "IS", "SHUT")+`,{"kind":"door","x":2,"y":4}],"cards":[{"card":"Leper Gnome","x":1,"y":4}]}`)
	door, gnome := ID(10), ID(11)
	if err := s.Step(baba.Right); err != nil {
		t.Fatal(err)
	}
	if pos(t, s, door) != nil || pos(t, s, gnome) != nil {
		t.Fatal("door or gnome survived")
	}
	if n := count(s, cards.EventDestroyed); n != 1 {
		t.Fatalf("log = %v", s.Log())
	}
}

// §9 seam 3: spawn_text writes on the source's tile, the minion's object
// is removed, the rules are re-read; casting is not a turn.
func TestSeam3_EndOfSequence_CastIsNotATurn(t *testing.T) {
	s := newGrid(t, `{"width":5,"height":5,"objects":[`+text(0, 0, "BABA", "IS")+`,`+text(0, 1, "BABA", "IS", "YOU")+`,
		{"kind":"baba","x":0,"y":4}],"cards":[{"card":"Rune Scribe","x":2,"y":0}],"hand":["Fireball"]}`)
	scribe := ID(7)
	if err := s.Cast("Fireball", scribe); err != nil {
		t.Fatal(err)
	}
	if k := must(s.KindsAt(2, 0)); !slices.Equal(k, []string{"text:WIN"}) {
		t.Fatalf("kindsAt(2,0) = %v", k)
	}
	if !hasRule(s, "BABA IS WIN") {
		t.Fatalf("rules = %v", s.ActiveRules())
	}
	if s.Won() {
		t.Fatal("won after a cast")
	}
	if err := s.Step(baba.Right); err != nil {
		t.Fatal(err)
	}
	if !s.Won() {
		t.Fatal("not won after the step")
	}
}

// §9 seam 3: a minion summoned by an effect appears on the summoner's tile.
func TestSeam3_SummonedMinionOnSummonerTile(t *testing.T) {
	s := newGrid(t, `{"width":4,"height":4,"cards":[{"card":"Harvest Golem","x":2,"y":1}],"hand":["Fireball"]}`)
	if err := s.Cast("Fireball", 1); err != nil {
		t.Fatal(err)
	}
	id, ok, err := s.MinionAt(2, 1)
	if err != nil || !ok {
		t.Fatalf("no minion at the golem's tile: %v", err)
	}
	if n := must(s.NameOf(id)); n != "Damaged Golem" || id == 1 {
		t.Fatalf("minionAt = %d %q", id, n)
	}
	if k := must(s.KindsAt(2, 1)); !slices.Equal(k, []string{"golem"}) {
		t.Fatalf("kindsAt = %v", k)
	}
	found := false
	for _, e := range s.Log() {
		found = found || e == cards.Summoned(cards.ID(id))
	}
	if !found {
		t.Fatalf("log lacks Summoned(%d): %v", id, s.Log())
	}
}

// §9 minionAt: the lowest id of the live minions on the tile, or none.
func TestMinionAt_LowestID(t *testing.T) {
	s := newGrid(t, `{"width":3,"height":3,"objects":[{"kind":"rock","x":0,"y":0}],
		"cards":[{"card":"Wisp","x":1,"y":1},{"card":"Wisp","x":1,"y":1}]}`)
	if id, ok, _ := s.MinionAt(1, 1); !ok || id != 2 {
		t.Fatalf("minionAt = %d %v", id, ok)
	}
	if _, ok, _ := s.MinionAt(0, 0); ok {
		t.Fatal("a rock is a minion")
	}
	if _, _, err := s.MinionAt(5, 5); err == nil {
		t.Fatal("outside the level: no error")
	}
}

// §9 seam 2: one Sequence per destroying step that hit a minion: SINK and
// DEFEAT in one turn make two, each with its own Death Phase 1; the water
// is destroyed as in baba.md.
func TestSeam2_TwoHazardsTwoSequences(t *testing.T) {
	s := newGrid(t, `{"width":7,"height":5,"objects":[`+text(0, 0, "GNOME", "IS", "YOU")+`,`+text(0, 1, "SKULL", "IS", "DEFEAT")+`,`+
		text(0, 2, "WATER", "IS", "SINK")+`,{"kind":"water","x":2,"y":3},{"kind":"skull","x":2,"y":4}],
		"cards":[{"card":"Leper Gnome","x":1,"y":3},{"card":"Leper Gnome","x":1,"y":4}]}`)
	a, b, enemy := cards.ID(12), cards.ID(13), cards.ID(hero(t, s, 1))
	if err := s.Step(baba.Right); err != nil {
		t.Fatal(err)
	}
	want := []cards.Event{
		cards.Destroyed(a), cards.DeathPhase(1), cards.Triggered(a, "deathrattle"), cards.Damaged(enemy, 2),
		cards.Destroyed(b), cards.DeathPhase(1), cards.Triggered(b, "deathrattle"), cards.Damaged(enemy, 2),
	}
	if got := s.Log(); !slices.Equal(got, want) {
		t.Fatalf("log = %v\nwant  %v", got, want)
	}
	if k := must(s.KindsAt(2, 3)); len(k) != 0 {
		t.Fatalf("water tile holds %v", k)
	}
	if k := must(s.KindsAt(2, 4)); !slices.Equal(k, []string{"skull"}) {
		t.Fatalf("skull tile holds %v", k)
	}
}

// §9 seam 1 with seam 2: a rule the movement forms is read inside the
// turn, so the Sequence of a later destroying step of the same turn
// already has its rule aura.
func TestSeam1_RuleFormedInTheTurnAppliesToItsSequences(t *testing.T) {
	s := newGrid(t, `{"width":5,"height":5,"objects":[{"kind":"text:DEATHRATTLE","x":0,"y":0},{"kind":"text:IS","x":1,"y":0},
		{"kind":"text:DOUBLE","x":2,"y":1},`+text(0, 3, "GNOME", "IS", "YOU")+`,`+text(0, 4, "SKULL", "IS", "DEFEAT")+`,
		{"kind":"skull","x":2,"y":1}],"cards":[{"card":"Leper Gnome","x":2,"y":2}]}`)
	if err := s.Step(baba.Up); err != nil {
		t.Fatal(err)
	}
	if !hasRule(s, "DEATHRATTLE IS DOUBLE") {
		t.Fatalf("rules = %v", s.ActiveRules())
	}
	if pos(t, s, 11) != nil {
		t.Fatal("the gnome survived the skull")
	}
	if h := health(t, s, hero(t, s, 1)); h != 26 {
		t.Fatalf("enemy hero health = %d, want 26 (log %v)", h, s.Log())
	}
}

// §9 withNaiveAuraTiming: a Baron destroyed in the same step as a
// Deathrattle minion doubles it only under the naive timing.
func TestWithNaiveAuraTiming(t *testing.T) {
	for _, c := range []struct {
		naive bool
		want  int32
	}{{false, 28}, {true, 26}} {
		s := newGrid(t, `{"width":5,"height":3,"objects":[`+text(0, 0, "BARON", "IS", "NOT", "BARON")+`,`+text(0, 1, "GNOME", "IS", "NOT", "GNOME")+`],
			"cards":[{"card":"Baron Rivendare","x":4,"y":2},{"card":"Leper Gnome","x":3,"y":2}]}`)
		if c.naive {
			s.WithNaiveAuraTiming()
		}
		if err := s.Step(baba.Up); err != nil {
			t.Fatal(err)
		}
		if h := health(t, s, hero(t, s, 1)); h != c.want {
			t.Fatalf("naive %v: enemy hero health = %d, want %d (log %v)", c.naive, h, c.want, s.Log())
		}
	}
}

// §9 setChooser: the assemble effect works on player 0's hand, the card
// keeping its id, and the assembled minion can be played.
func TestSetChooser_AssembleInHand(t *testing.T) {
	s := newGrid(t, `{"width":3,"height":3,"hand":["Workshop","Leper Gnome"]}`)
	answers := []string{"Leper Gnome", "Loot Hoarder", "bottom"}
	s.SetChooser(func(kind string, options []string) string {
		a := answers[0]
		answers = answers[1:]
		return a
	})
	if err := s.Cast("Workshop", 0); err != nil {
		t.Fatal(err)
	}
	if h := s.Hand(); !slices.Equal(h, []string{"Leper Gnome (Assembled)"}) {
		t.Fatalf("hand = %v", h)
	}
	if n := must(s.NameOf(4)); n != "Leper Gnome (Assembled)" {
		t.Fatalf("nameOf(4) = %q", n)
	}
	id := must(s.Play("Leper Gnome (Assembled)", 1, 1))
	if k := must(s.KindsAt(1, 1)); !slices.Equal(k, []string{"gnome"}) || id != 5 {
		t.Fatalf("id %d, kindsAt = %v", id, k)
	}
	if n := must(s.NameOf(4)); n != "Leper Gnome (Assembled)" {
		t.Fatalf("nameOf(4) after play = %q", n)
	}
}
