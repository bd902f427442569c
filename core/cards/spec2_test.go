package cards

import (
	"slices"
	"testing"
)

// §1 and §2: the game, entities, ids, zones, order of play, limits, stats.

func TestS1_TwoHeroesWith30Health(t *testing.T) {
	g := newGame(t, Options{})
	for p := range Player(2) {
		h := must[ID](t)(g.Hero(p))
		if h != ID(p)+1 {
			t.Errorf("hero(%d) = %d, want %d", p, h, p+1)
		}
		if got := health(t, g, h); got != 30 {
			t.Errorf("hero %d health %d, want 30", p, got)
		}
		if got := attack(t, g, h); got != 0 {
			t.Errorf("hero %d attack %d, want 0", p, got)
		}
		if got := must[int32](t)(g.Armor(p)); got != 0 {
			t.Errorf("armor(%d) = %d", p, got)
		}
		if b := board(t, g, p); len(b) != 0 {
			t.Errorf("board(%d) = %v, want no minions (heroes are not listed)", p, b)
		}
	}
	if len(g.Log()) != 0 {
		t.Errorf("a new game logs %v", g.Log())
	}
}

func TestS2_IDs(t *testing.T) {
	g := newGame(t, Options{Decks: [2][]string{{"Wisp", "Fireball"}, {"Chillwind Yeti"}}})
	// Heroes 1 and 2, then player 0's deck in order, then player 1's.
	if d := must[[]ID](t)(g.Deck(0)); !slices.Equal(d, []ID{3, 4}) {
		t.Fatalf("deck 0 = %v", d)
	}
	if d := must[[]ID](t)(g.Deck(1)); !slices.Equal(d, []ID{5}) {
		t.Fatalf("deck 1 = %v", d)
	}
	// Then created entities in creation order, summoned tokens included.
	if id := addToHand(t, g, "Wisp", 1); id != 6 {
		t.Fatalf("addToHand id %d, want 6", id)
	}
	if id := must[ID](t)(g.AddToDeck("Wisp", 0)); id != 7 {
		t.Fatalf("addToDeck id %d, want 7", id)
	}
	golem := summon(t, g, "Harvest Golem", 0)
	if golem != 8 {
		t.Fatalf("summon id %d, want 8", golem)
	}
	ok(t, g.Destroy(golem))
	if b := board(t, g, 0); !slices.Equal(b, []ID{9}) {
		t.Fatalf("board after the Golem's death = %v, want the token 9", b)
	}
	// Ids are never reused.
	if id := summon(t, g, "Wisp", 1); id != 10 {
		t.Fatalf("next id %d, want 10", id)
	}
}

func TestS2_IDKeptAcrossZones(t *testing.T) {
	g := newGame(t, Options{Decks: [2][]string{{"Wisp"}, nil}})
	id := must[[]ID](t)(g.Deck(0))[0]
	if zone(t, g, id) != ZoneDeck {
		t.Fatal("not in the deck")
	}
	ok(t, g.Cast("Arcane Intellect", 0, NoID))
	if zone(t, g, id) != ZoneHand || !slices.Equal(hand(t, g, 0), []ID{id}) {
		t.Fatal("not drawn into the hand with its id")
	}
	ok(t, g.Play(id))
	if zone(t, g, id) != ZoneBoard || !slices.Equal(board(t, g, 0), []ID{id}) {
		t.Fatal("not played onto the board with its id")
	}
	ok(t, g.DealDamage(id, 1))
	if zone(t, g, id) != ZoneGraveyard || !slices.Equal(must[[]ID](t)(g.Graveyard(0)), []ID{id}) {
		t.Fatal("not in the graveyard with its id")
	}
}

func TestS2_Zones(t *testing.T) {
	g := newGame(t, Options{Decks: [2][]string{{"Wisp"}, nil}})
	for _, c := range []struct {
		id   ID
		want Zone
	}{{1, ZoneBoard}, {2, ZoneBoard}, {3, ZoneDeck}} {
		if got := zone(t, g, c.id); got != c.want {
			t.Errorf("zoneOf(%d) = %v, want %v", c.id, got, c.want)
		}
	}
	h := addToHand(t, g, "Wisp", 0)
	b := summon(t, g, "Wisp", 0)
	ok(t, g.Destroy(b))
	if zone(t, g, h) != ZoneHand || zone(t, g, b) != ZoneGraveyard {
		t.Error("hand or graveyard zone wrong")
	}
	for z, want := range map[Zone]string{ZoneDeck: "deck", ZoneHand: "hand", ZoneBoard: "board", ZoneGraveyard: "graveyard"} {
		if text, _ := z.MarshalText(); string(text) != want || z.String() != want {
			t.Errorf("zone %d is %q, want %q", z, text, want)
		}
	}
}

func TestS2_OrderOfPlay(t *testing.T) {
	g := newGame(t, Options{Decks: [2][]string{{"Wisp"}, nil}})
	order := func(id ID) uint32 { return must[uint32](t)(g.OrderOfPlay(id)) }
	if order(1) != 1 || order(2) != 2 {
		t.Fatalf("heroes' order %d, %d", order(1), order(2))
	}
	inHand := addToHand(t, g, "Novice Engineer", 0)
	if order(3) != 0 || order(inHand) != 0 {
		t.Fatal("a card never in play must have order 0")
	}
	a := summon(t, g, "Wisp", 1)
	b := summon(t, g, "Wisp", 0)
	if order(a) != 3 || order(b) != 4 {
		t.Fatalf("orders %d, %d; want 3, 4", order(a), order(b))
	}
	ok(t, g.Play(inHand)) // enters: 5
	if order(inHand) != 5 {
		t.Fatalf("played card's order %d, want 5", order(inHand))
	}
	ok(t, g.Destroy(a))
	if order(a) != 3 {
		t.Fatal("a dead minion keeps its order of play")
	}
}

func TestS2_BoardLimit(t *testing.T) {
	g := newGame(t, Options{})
	for range MaxBoard {
		summon(t, g, "Wisp", 0)
	}
	refused(t, g, ErrBoardFull, func() error { _, err := g.Summon("Wisp", 0); return err })
	h := addToHand(t, g, "Wisp", 0)
	refused(t, g, ErrBoardFull, func() error { return g.Play(h) })
	// The other board is not full.
	summon(t, g, "Wisp", 1)

	// A summon by an effect does nothing on a full board: a Haunted Creeper
	// dying beside 6 minions makes one Spider, not two.
	g = newGame(t, Options{})
	creeper := summon(t, g, "Haunted Creeper", 0)
	for range MaxBoard - 1 {
		summon(t, g, "Wisp", 0)
	}
	next := ID(len(g.s.ents))
	g.ClearLog()
	ok(t, g.Destroy(creeper))
	if n := len(ofType(g, EventSummoned)); n != 1 {
		t.Fatalf("%d summoned, want 1", n)
	}
	if len(board(t, g, 0)) != MaxBoard || ID(len(g.s.ents)) != next+1 {
		t.Fatal("the second spider must not be created")
	}
}

func TestS2_HandLimit(t *testing.T) {
	g := newGame(t, Options{Decks: [2][]string{{"Wisp", "Wisp"}, nil}})
	for range MaxHand {
		addToHand(t, g, "Wisp", 0)
	}
	// addToHand into a full hand sends the card to the graveyard.
	extra := addToHand(t, g, "Chillwind Yeti", 0)
	if zone(t, g, extra) != ZoneGraveyard || len(hand(t, g, 0)) != MaxHand {
		t.Fatal("addToHand into a full hand must burn the card")
	}
	// A draw into a full hand logs Drew and burns the card.
	g.ClearLog()
	ok(t, g.Cast("Arcane Intellect", 0, NoID))
	wantLog(t, g, SpellCast("Arcane Intellect"), Drew(0, 3), Drew(0, 4))
	if zone(t, g, 3) != ZoneGraveyard || zone(t, g, 4) != ZoneGraveyard {
		t.Fatal("overdrawn cards must go to the graveyard")
	}
	if gy := must[[]ID](t)(g.Graveyard(0)); !slices.Equal(gy, []ID{extra, 3, 4}) {
		t.Fatalf("graveyard %v", gy)
	}
}

func TestS2_Stats(t *testing.T) {
	g := newGame(t, Options{})
	yeti := summon(t, g, "Chillwind Yeti", 0)
	if attack(t, g, yeti) != 4 || health(t, g, yeti) != 5 {
		t.Fatal("base stats")
	}
	summon(t, g, "Stormwind Champion", 0)
	if attack(t, g, yeti) != 5 || health(t, g, yeti) != 6 {
		t.Fatal("base plus the aura bonus")
	}
	ok(t, g.DealDamage(yeti, 2))
	if health(t, g, yeti) != 4 {
		t.Fatal("base plus bonus minus damage")
	}
	// A hero's Health may go below 0, and stays readable.
	ok(t, g.DealDamage(2, 45))
	if health(t, g, 2) != -15 {
		t.Fatalf("hero health %d, want -15", health(t, g, 2))
	}
	// A card in hand or deck has its base stats.
	if h := addToHand(t, g, "Bloodfen Raptor", 1); attack(t, g, h) != 3 || health(t, g, h) != 2 {
		t.Fatal("a card in hand")
	}
}

func TestS2_MortallyWoundedAndPendingDestroyRemoveNothingByThemselves(t *testing.T) {
	// Within one Phase, a minion at 0 Health or pending destroy is still on
	// the board: a later effect of the same spell still finds it.
	g := custom(t, Options{}, `[
	 {"name": "Doom", "type": "spell", "cost": 0, "text": "", "effects": [
	  {"do": "destroy", "to": "all_minions"},
	  {"do": "damage", "amount": 1, "to": "all_minions"},
	  {"do": "damage", "amount": 1, "to": "all_minions"}]}]`)
	a := summon(t, g, "Wisp", 0)
	b := summon(t, g, "Chillwind Yeti", 1)
	g.ClearLog()
	ok(t, g.Cast("Doom", 0, NoID))
	wantLog(t, g, SpellCast("Doom"),
		Damaged(a, 1), Damaged(b, 1), // a is pending destroy and mortally wounded now
		Damaged(a, 1), Damaged(b, 1), // and still there
		Destroyed(a), Destroyed(b), DeathPhase(1))
}
