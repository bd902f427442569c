package baba

import (
	"slices"
	"testing"
)

// §6: conversion uses the rules read after the movement: a rule completed
// by this step's push converts in this step.
func TestS6_ConversionAfterMovement(t *testing.T) {
	b := build(t, level(5, 4, text(0, 0, Right, "BABA IS YOU"), text(0, 1, Right, "ROCK IS"), obj("text:KEKE", 2, 2), obj("baba", 2, 3), obj("rock", 4, 3)))
	rock := idAt(t, b, "rock", 4, 3)
	b.Step(Up)
	at(t, b, rock, 4, 3)
	if got := kindsAt(t, b, 4, 3); !slices.Equal(got, []string{"keke"}) {
		t.Fatalf("tile (4,3) holds %v; want the rock converted to keke", got)
	}
}

// §6: hazards use R, read after the conversion: a keke converted into a
// DEFEAT skull defeats the baba on its tile in the same step.
func TestS6_HazardsUseRulesAfterConversion(t *testing.T) {
	b := build(t, level(5, 4, rulesRow("BABA IS YOU", "SKULL IS DEFEAT", "KEKE IS SKULL"), obj("baba", 0, 3), obj("keke", 1, 3)))
	baba := idAt(t, b, "baba", 0, 3)
	b.Step(Right)
	gone(t, b, baba)
	if !b.Lost() {
		t.Fatal("lost() = false")
	}
	// R is re-read after the conversion: TEXT IS ROCK turns every text into
	// a rock, WATER IS SINK with it, so the baba on the water survives.
	b = build(t, level(5, 4, rulesRow("BABA IS YOU", "WATER IS SINK", "TEXT IS ROCK"), obj("baba", 0, 3), obj("water", 1, 3)))
	baba = idAt(t, b, "baba", 0, 3)
	b.Step(Right)
	at(t, b, baba, 1, 3)
	if count(b, "rock") != 9 {
		t.Fatalf("%d rocks; want the 9 words converted", count(b, "rock"))
	}
	wantRules(t, "rules()", b.Rules(), implicit)
}

// §6: the last reading makes rules() match the board after the hazards:
// a word sunk in water breaks its rule.
func TestS6_FinalReading(t *testing.T) {
	b := build(t, level(4, 4, text(0, 1, Right, "BABA IS YOU"), text(0, 3, Right, "WATER IS SINK"), obj("water", 2, 0), obj("baba", 2, 2)))
	// The baba pushes YOU up onto the water, and both sink.
	b.Step(Up)
	wantRules(t, "rules()", b.Rules(), "WATER IS SINK", implicit)
	if got := kindsAt(t, b, 2, 0); len(got) != 0 {
		t.Fatalf("tile (2,0) holds %v; want everything sunk", got)
	}
	if !b.Lost() {
		t.Fatal("lost() = false after YOU sank")
	}
}

// §6.2: a converted object keeps its id and tile; several targets in byte
// order, the first in place, the others new, ids object by object.
func TestS6_2_ConversionTargetsAndIDs(t *testing.T) {
	b := build(t, level(4, 5, rulesRow("ROCK IS KEKE", "ROCK IS FLAG", "ROCK IS BABA"), obj("rock", 3, 4), obj("rock", 0, 4)))
	r1, r2 := idAt(t, b, "rock", 3, 4), idAt(t, b, "rock", 0, 4)
	next := b.Snapshot().NextID
	b.Step(Up) // nothing is YOU: no movement
	if got := kindsAt(t, b, 3, 4); !slices.Equal(got, []string{"baba", "flag", "keke"}) {
		t.Fatalf("tile (3,4) holds %v", got)
	}
	at(t, b, r1, 3, 4)
	at(t, b, r2, 0, 4)
	kind := map[ID]string{}
	for _, o := range b.Snapshot().Objects {
		kind[o.ID] = o.Kind
	}
	want := map[ID]string{r1: "baba", r2: "baba", next: "flag", next + 1: "keke", next + 2: "flag", next + 3: "keke"}
	for id, k := range want {
		if kind[id] != k {
			t.Errorf("id %d is a %q; want %s", id, kind[id], k)
		}
	}
	if x, _, _, _ := b.PosOf(next); x != 3 {
		t.Errorf("the first new object is at x=%d; want on the first rock's tile (3)", x)
	}
}

// §6.2: what a target is: a thing noun, not the object's own, not denied
// by a negated rule naming it.
func TestS6_2_Targets(t *testing.T) {
	cases := []struct {
		name  string
		rules []string
		want  []string // kinds on the tile of the rock, the baba and the word
	}{
		{"ALL IS BABA leaves a baba alone", []string{"ALL IS BABA"}, []string{"baba", "baba"}},
		{"TEXT, ALL and meta nouns are no targets", []string{"ROCK IS TEXT", "ROCK IS ALL", "ROCK IS DEATHRATTLE", "ROCK IS BATTLECRY"}, []string{"rock", "baba"}},
		{"a negated rule naming it", []string{"ROCK IS KEKE", "ALL IS NOT KEKE"}, []string{"rock", "baba"}},
		{"ALL IS NOT BABA keeps the rock a rock", []string{"ROCK IS BABA", "ALL IS NOT BABA", "ROCK IS FLAG"}, []string{"flag", "baba"}},
		{"a text object turns into a thing", []string{"TEXT IS WALL"}, []string{"rock", "baba"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := build(t, level(5, len(c.rules)+1, rulesRow(c.rules...), obj("rock", 4, len(c.rules)), obj("baba", 3, len(c.rules))))
			b.Step(Up)
			got := slices.Concat(kindsAt(t, b, 4, len(c.rules)), kindsAt(t, b, 3, len(c.rules)))
			if !slices.Equal(got, c.want) {
				t.Fatalf("kinds %v; want %v", got, c.want)
			}
		})
	}
	b := build(t, level(5, 2, rulesRow("TEXT IS WALL"), obj("text:YOU", 4, 1)))
	word := idAt(t, b, "text:YOU", 4, 1)
	b.Step(Up)
	if got := kindsAt(t, b, 4, 1); !slices.Equal(got, []string{"wall"}) {
		t.Fatalf("the word became %v; want a wall", got)
	}
	at(t, b, word, 4, 1)
}

// §6.2: protected and deleted objects: an active N IS N protects, an
// active N IS NOT N deletes, and a deleted object's targets still appear.
func TestS6_2_ProtectedAndDeleted(t *testing.T) {
	cases := []struct {
		name    string
		rules   []string
		want    []string // kinds on the rock's tile after a step
		deleted bool
	}{
		{"ALL IS ALL protects", []string{"ALL IS ALL", "ROCK IS BABA"}, []string{"rock"}, false},
		{"ROCK IS ROCK protects", []string{"ROCK IS ROCK", "ALL IS BABA"}, []string{"rock"}, false},
		{"ROCK IS NOT ROCK deletes", []string{"ROCK IS NOT ROCK"}, []string{}, true},
		{"ALL IS NOT ALL deletes", []string{"ALL IS NOT ALL"}, []string{}, true},
		{"a deleted rock's targets appear", []string{"ROCK IS NOT ROCK", "ROCK IS KEKE", "ROCK IS BABA"}, []string{"baba", "keke"}, true},
		{"deleted beats protected", []string{"ALL IS ALL", "ROCK IS NOT ROCK", "ROCK IS BABA"}, []string{"baba"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			y := len(c.rules)
			b := build(t, level(6, y+1, rulesRow(c.rules...), obj("rock", 5, y)))
			rock := idAt(t, b, "rock", 5, y)
			b.Step(Up)
			if got := kindsAt(t, b, 5, y); !slices.Equal(got, c.want) {
				t.Fatalf("kinds %v; want %v", got, c.want)
			}
			if c.deleted {
				gone(t, b, rock)
			} else {
				at(t, b, rock, 5, y)
			}
		})
	}
}

// §6.2: decisions are taken before any change: an object created by the
// conversion is not converted again in the same step.
func TestS6_2_DecisionsBeforeChanges(t *testing.T) {
	b := build(t, level(5, 3, rulesRow("ROCK IS BABA", "BABA IS KEKE"), obj("rock", 4, 2), obj("baba", 3, 2)))
	b.Step(Up)
	if got := slices.Concat(kindsAt(t, b, 4, 2), kindsAt(t, b, 3, 2)); !slices.Equal(got, []string{"baba", "keke"}) {
		t.Fatalf("kinds %v; want [baba keke]", got)
	}
	b.Step(Up)
	if got := slices.Concat(kindsAt(t, b, 4, 2), kindsAt(t, b, 3, 2)); !slices.Equal(got, []string{"keke", "keke"}) {
		t.Fatalf("kinds after a second step %v; want [keke keke]", got)
	}
}

// §6.2 with §4: a conversion that would bring the live objects over
// MaxObjects creates nothing; its conversions in place still happen.
func TestS6_2_ObjectLimit(t *testing.T) {
	for _, c := range []struct {
		rocks   int
		created bool
	}{{MaxObjects - 6 - 3000, true}, {MaxObjects - 6, false}} {
		def := level(64, 64, text(0, 0, Right, "ROCK IS BABA"), text(0, 1, Right, "ROCK IS KEKE"))
		for i := range c.rocks {
			def.Objects = append(def.Objects, obj("rock", i%64, 2+i/64%62))
		}
		b := build(t, def)
		b.Step(Up)
		babas, kekes := count(b, "baba"), count(b, "keke")
		want := 0
		if c.created {
			want = c.rocks
		}
		if babas != c.rocks || kekes != want || count(b, "rock") != 0 {
			t.Fatalf("%d rocks: %d babas, %d kekes; want %d and %d", c.rocks, babas, kekes, c.rocks, want)
		}
	}
}

// §6.3: SINK: a group of two or more with a SINK object loses all; a lone
// SINK survives; FLOAT separates groups.
func TestS6_3_Sink(t *testing.T) {
	rules := rulesRow("BABA IS YOU", "WATER IS SINK", "ROCK IS FLOAT")
	b := build(t, level(6, 5, rules, obj("baba", 0, 4), obj("water", 1, 4), obj("water", 4, 4), obj("rock", 5, 3), obj("water", 5, 4)))
	b.Step(Right)
	if got := kindsAt(t, b, 1, 4); len(got) != 0 {
		t.Fatalf("tile (1,4) holds %v; want baba and water sunk", got)
	}
	if got := kindsAt(t, b, 4, 4); !slices.Equal(got, []string{"water"}) {
		t.Fatalf("a lone water: %v", got)
	}
	// A floating rock on two waters: the waters sink each other, the rock
	// is in a group of its own.
	b = build(t, level(6, 5, rules, obj("rock", 5, 4), obj("water", 5, 4), obj("water", 5, 4)))
	b.Step(Right)
	if got := kindsAt(t, b, 5, 4); !slices.Equal(got, []string{"rock"}) {
		t.Fatalf("tile (5,4) holds %v; want the floating rock alone (two waters sink each other)", got)
	}
	// Text sinks too.
	b = build(t, level(6, 5, rules, obj("text:FLAG", 2, 4), obj("water", 2, 4)))
	b.Step(Right)
	if got := kindsAt(t, b, 2, 4); len(got) != 0 {
		t.Fatalf("tile (2,4) holds %v; want text and water sunk", got)
	}
}

// §6.3: HOT/MELT: a HOT object melts every MELT one of its group, itself
// included; DEFEAT destroys every YOU of its group, itself included.
func TestS6_3_HotMeltAndDefeat(t *testing.T) {
	cases := []struct {
		name  string
		rules []string
		tile  []string
		want  []string
	}{
		{"hot melts", []string{"LAVA IS HOT", "BABA IS MELT"}, []string{"lava", "baba", "rock"}, []string{"lava", "rock"}},
		{"hot and melt melts itself", []string{"LAVA IS HOT", "LAVA IS MELT"}, []string{"lava", "lava"}, []string{}},
		{"float separates hot from melt", []string{"LAVA IS HOT", "BABA IS MELT", "BABA IS FLOAT"}, []string{"lava", "baba"}, []string{"baba", "lava"}},
		{"no hot, no melting", []string{"BABA IS MELT"}, []string{"lava", "baba"}, []string{"baba", "lava"}},
		{"defeat", []string{"BABA IS YOU", "SKULL IS DEFEAT"}, []string{"skull", "baba", "baba"}, []string{"skull"}},
		{"you and defeat defeats itself", []string{"BABA IS YOU", "BABA IS DEFEAT"}, []string{"baba"}, []string{}},
		{"float separates defeat", []string{"BABA IS YOU", "SKULL IS DEFEAT", "SKULL IS FLOAT"}, []string{"skull", "baba"}, []string{"baba", "skull"}},
		{"defeat spares non-YOU", []string{"SKULL IS DEFEAT"}, []string{"skull", "rock"}, []string{"rock", "skull"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			y := len(c.rules)
			def := level(6, y+1, rulesRow(c.rules...))
			for _, k := range c.tile {
				def.Objects = append(def.Objects, obj(k, 5, y))
			}
			b := build(t, def)
			b.Step(Down) // every YOU is blocked by the edge
			if got := kindsAt(t, b, 5, y); !slices.Equal(got, c.want) {
				t.Fatalf("kinds %v; want %v", got, c.want)
			}
		})
	}
}

// §6.3: the hazards run in order, SINK, HOT/MELT, DEFEAT, each deciding
// and destroying before the next; a victim of one is gone for the next.
func TestS6_3_HazardOrder(t *testing.T) {
	// SINK before HOT: a SINK keke that would melt sinks with the lava.
	b := build(t, level(6, 4, rulesRow("KEKE IS SINK", "KEKE IS MELT", "LAVA IS HOT"), obj("keke", 5, 3), obj("lava", 5, 3)))
	b.Step(Down)
	if got := kindsAt(t, b, 5, 3); len(got) != 0 {
		t.Fatalf("kinds %v; want both sunk (a melt first would have saved the lava)", got)
	}
	// HOT/MELT before DEFEAT: the DEFEAT skull melts before it defeats.
	b = build(t, level(6, 5, rulesRow("BABA IS YOU", "SKULL IS DEFEAT", "SKULL IS MELT", "LAVA IS HOT"), obj("baba", 5, 4), obj("skull", 5, 4), obj("lava", 5, 4)))
	b.Step(Down)
	if got := kindsAt(t, b, 5, 4); !slices.Equal(got, []string{"baba", "lava"}) {
		t.Fatalf("kinds %v; want the skull melted and the baba alive", got)
	}
}

// §6.4: the win check: a YOU object that is WIN, or that shares a group
// with a WIN object, after the hazards; won() stays true; move never
// changes it.
func TestS6_4_Win(t *testing.T) {
	cases := []struct {
		name  string
		rules []string
		tile  []string
		won   bool
	}{
		{"you on win", []string{"BABA IS YOU", "FLAG IS WIN"}, []string{"baba", "flag"}, true},
		{"you is win", []string{"BABA IS YOU", "BABA IS WIN"}, []string{"baba"}, true},
		{"float apart", []string{"BABA IS YOU", "FLAG IS WIN", "BABA IS FLOAT"}, []string{"baba", "flag"}, false},
		{"both float", []string{"BABA IS YOU", "FLAG IS WIN", "ALL IS FLOAT"}, []string{"baba", "flag"}, true},
		{"defeated first", []string{"BABA IS YOU", "FLAG IS WIN", "SKULL IS DEFEAT"}, []string{"baba", "flag", "skull"}, false},
		{"win without you", []string{"FLAG IS WIN"}, []string{"baba", "flag"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			y := len(c.rules)
			def := level(6, y+1, rulesRow(c.rules...))
			for _, k := range c.tile {
				def.Objects = append(def.Objects, obj(k, 5, y))
			}
			b := build(t, def)
			b.Move(Down)
			if b.Won() {
				t.Fatal("won() after a move")
			}
			b.Step(Down)
			if b.Won() != c.won {
				t.Fatalf("won() = %v; want %v", b.Won(), c.won)
			}
		})
	}
	// Sticky: the baba walks off the flag and the rule breaks; still won.
	b := build(t, level(4, 3, text(0, 0, Right, "BABA IS YOU"), text(0, 1, Right, "FLAG IS WIN"), obj("baba", 3, 2), obj("flag", 3, 2)))
	b.Step(Left)
	if b.Won() {
		t.Fatal("won() after stepping off the flag")
	}
	b.Step(Right)
	if !b.Won() {
		t.Fatal("won() = false on the flag")
	}
	b.Step(Up) // pushes WIN out of its row
	b.Step(Left)
	if !b.Won() {
		t.Fatal("won() went back to false")
	}
}

// §6.4: lost() holds whenever no live object is YOU, before any turn too.
func TestS6_4_Lost(t *testing.T) {
	if b := build(t, level(3, 3)); !b.Lost() {
		t.Fatal("an empty level is not lost")
	}
	if b := build(t, level(3, 3, text(0, 0, Right, "BABA IS YOU"))); !b.Lost() {
		t.Fatal("BABA IS YOU without a baba is not lost")
	}
	b := build(t, level(3, 3, text(0, 0, Right, "BABA IS YOU"), obj("baba", 0, 2)))
	if b.Lost() {
		t.Fatal("a level with a YOU baba is lost")
	}
	if _, err := b.Place("text:NOT", 2, 0); err != nil {
		t.Fatal(err)
	}
	if b.Lost() {
		t.Fatal("BABA IS YOU still holds under a stacked NOT")
	}
	b = build(t, level(4, 3, text(0, 0, Right, "BABA IS NOT YOU"), text(0, 1, Right, "BABA IS YOU"), obj("baba", 0, 2)))
	if !b.Lost() {
		t.Fatal("BABA IS NOT YOU: not lost")
	}
}
