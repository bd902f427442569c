package cards

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// Properties of any list of calls, valid or not.

// op is one harness call of a generated script.
type op struct {
	call   string
	card   string
	p      Player
	id     ID
	amount int32
}

func (o op) String() string {
	return fmt.Sprintf("%s(%q, p%d, id%d, %d)", o.call, o.card, o.p, o.id, o.amount)
}

var opCalls = []string{"summon", "addToHand", "addToDeck", "play", "cast", "dealDamage", "destroy", "assemble"}

// drawOps draws a list of calls over every card and a name that is none.
func drawOps(t *rapid.T) []op {
	names := []string{"Nobody"}
	for _, d := range Library() {
		names = append(names, d.Name)
	}
	return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) op {
		return op{
			call:   rapid.SampledFrom(opCalls).Draw(t, "call"),
			card:   rapid.SampledFrom(names).Draw(t, "card"),
			p:      Player(rapid.IntRange(0, 2).Draw(t, "player")),
			id:     ID(rapid.IntRange(0, 60).Draw(t, "id")),
			amount: int32(rapid.IntRange(-1, 8).Draw(t, "amount")),
		}
	}), 1, 60).Draw(t, "ops")
}

// apply runs o; it returns the id a creating call made (NoID if none).
func apply(g *Game, o op) (ID, error) {
	switch o.call {
	case "summon":
		return g.Summon(o.card, o.p)
	case "addToHand":
		return g.AddToHand(o.card, o.p)
	case "addToDeck":
		return g.AddToDeck(o.card, o.p)
	case "play":
		return NoID, g.Play(o.id)
	case "cast":
		target := o.id
		if d, ok := g.Card(o.card); ok && d.Target == NoTargetKind && o.amount%2 == 0 {
			target = NoID
		}
		return NoID, g.Cast(o.card, o.p, target)
	case "dealDamage":
		return NoID, g.DealDamage(o.id, o.amount)
	case "destroy":
		return NoID, g.Destroy(o.id)
	case "assemble":
		_, err := g.Assemble(o.card, "Loot Hoarder", []Half{HalfTop, HalfBottom, "x"}[(o.amount+1)%3])
		return NoID, err
	}
	panic(o.call)
}

// middleChooser answers the middle option: deterministic, and not always
// the default.
func middleChooser(kind string, options []string) string { return options[len(options)/2] }

// startGame is the game the properties start from: two small decks.
func startGame(t tb, seed uint32) *Game {
	g := newGame(t, Options{Seed: seed, Decks: [2][]string{
		{"Loot Hoarder", "Workshop", "Wisp", "Leper Gnome", "Acolyte of Pain"},
		{"Fireball", "Harvest Golem", "Abomination"},
	}})
	g.SetChooser(middleChooser)
	return g
}

func TestProperty_IDsConservedAndNeverReused(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := startGame(t, rapid.Uint32().Draw(t, "seed"))
		issued := ID(len(g.s.ents)) - 1
		for _, o := range drawOps(t) {
			before := fingerprint(t, g)
			id, err := apply(g, o)
			if err != nil {
				if after := fingerprint(t, g); after != before {
					t.Fatalf("%v failed (%v) and changed the game:\n%s", o, err, diff(before, after))
				}
			}
			if id != NoID && id <= issued {
				t.Fatalf("%v returned id %d, issued before", o, id)
			}
			checkInvariants(t, g, &issued)
		}
	})
}

// checkInvariants checks that every id issued is in exactly one place,
// its zone's, that the limits hold and that boards are in order of play;
// issued becomes the greatest id issued so far.
func checkInvariants(t *rapid.T, g *Game, issued *ID) {
	last := ID(len(g.s.ents)) - 1
	if last < *issued {
		t.Fatalf("ids went back from %d to %d", *issued, last)
	}
	*issued = last
	where := map[ID]Zone{}
	put := func(id ID, z Zone) {
		if old, dup := where[id]; dup {
			t.Fatalf("id %d is in the %v and the %v", id, old, z)
		}
		where[id] = z
	}
	for p := range Player(2) {
		put(must[ID](t)(g.Hero(p)), ZoneBoard)
		for _, z := range []Zone{ZoneDeck, ZoneHand, ZoneBoard, ZoneGraveyard} {
			var ids []ID
			switch z {
			case ZoneDeck:
				ids = must[[]ID](t)(g.Deck(p))
			case ZoneHand:
				ids = must[[]ID](t)(g.Hand(p))
				if len(ids) > MaxHand {
					t.Fatalf("hand of %d cards", len(ids))
				}
			case ZoneBoard:
				ids = must[[]ID](t)(g.Board(p))
				if len(ids) > MaxBoard {
					t.Fatalf("board of %d minions", len(ids))
				}
				if !slices.IsSortedFunc(ids, func(a, b ID) int {
					return int(must[uint32](t)(g.OrderOfPlay(a))) - int(must[uint32](t)(g.OrderOfPlay(b)))
				}) {
					t.Fatalf("board %v is not in order of play", ids)
				}
			case ZoneGraveyard:
				ids = must[[]ID](t)(g.Graveyard(p))
			}
			for _, id := range ids {
				put(id, z)
			}
		}
	}
	for id := ID(1); id <= last; id++ {
		z, ok := where[id]
		if !ok {
			t.Fatalf("id %d is nowhere", id)
		}
		if got := must[Zone](t)(g.ZoneOf(id)); got != z {
			t.Fatalf("zoneOf(%d) = %v, but it is listed in the %v", id, got, z)
		}
		o := must[uint32](t)(g.OrderOfPlay(id))
		if (z == ZoneDeck || z == ZoneHand) && o != 0 || z == ZoneBoard && o == 0 {
			t.Fatalf("id %d in the %v has order of play %d", id, z, o)
		}
	}
}

func TestProperty_Deterministic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		seed := rapid.Uint32().Draw(t, "seed")
		ops := drawOps(t)
		cut := rapid.IntRange(0, len(ops)).Draw(t, "cut")
		a, b := startGame(t, seed), startGame(t, seed)
		var clone *Game
		for i, o := range ops {
			if i == cut {
				clone = a.Clone()
			}
			_, errA := apply(a, o)
			_, errB := apply(b, o)
			if (errA == nil) != (errB == nil) {
				t.Fatalf("%v: %v vs %v", o, errA, errB)
			}
		}
		if fa, fb := fingerprint(t, a), fingerprint(t, b); fa != fb {
			t.Fatalf("the same seed and calls gave two games:\n%s", diff(fa, fb))
		}
		// A clone goes on alike, and is independent of its original.
		if clone != nil {
			for _, o := range ops[cut:] {
				apply(clone, o)
			}
			if fa, fc := fingerprint(t, a), fingerprint(t, clone); fa != fc {
				t.Fatalf("the clone went another way:\n%s", diff(fa, fc))
			}
		}
	})
}
