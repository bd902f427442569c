package baba

import (
	"errors"
	"testing"
)

const implicit = "TEXT IS PUSH"

// §3.1: rows read left to right, columns top to bottom; never the other
// way, never diagonally.
func TestS3_1_ReadsRowsLeftToRightAndColumnsTopToBottom(t *testing.T) {
	cases := []struct {
		name string
		def  LevelDef
		want []string
	}{
		{"row", level(5, 5, text(1, 2, Right, "BABA IS YOU")), []string{"BABA IS YOU"}},
		{"column", level(5, 5, text(2, 1, Down, "ROCK IS PUSH")), []string{"ROCK IS PUSH"}},
		{"row right to left", level(5, 5, text(1, 2, Right, "YOU IS BABA")), nil},
		{"column bottom to top", level(5, 5, text(2, 1, Down, "PUSH IS ROCK")), nil},
		{"diagonal", level(5, 5, obj("text:BABA", 0, 0), obj("text:IS", 1, 1), obj("text:YOU", 2, 2)), nil},
		{"gap", level(5, 5, text(0, 0, Right, "BABA _ IS YOU")), nil},
		{"row at the edge", level(3, 1, text(0, 0, Right, "FLAG IS WIN")), []string{"FLAG IS WIN"}},
		{"cut by the edge", level(2, 1, text(0, 0, Right, "FLAG IS")), nil},
		{"crossing", level(5, 5, text(0, 1, Right, "BABA IS YOU"), text(1, 0, Down, "ROCK _ PUSH")), []string{"BABA IS YOU", "ROCK IS PUSH"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := build(t, c.def)
			wantRules(t, "rules()", b.Rules(), append(c.want, implicit)...)
		})
	}
}

// §3.1: only text counts; things on a text's tile are ignored, and a thing
// never stands for a word.
func TestS3_1_OnlyTextCounts(t *testing.T) {
	b := build(t, level(4, 2, text(0, 0, Right, "BABA IS YOU"), obj("rock", 1, 0), obj("baba", 0, 1), obj("text:IS", 1, 1), obj("text:WIN", 2, 1)))
	wantRules(t, "rules()", b.Rules(), "BABA IS YOU", implicit)
}

// §3.1: every match from every tile is a rule.
func TestS3_1_EveryStartingTile(t *testing.T) {
	b := build(t, level(5, 1, text(0, 0, Right, "BABA IS ROCK IS PUSH")))
	wantRules(t, "rules()", b.Rules(), "BABA IS ROCK", "ROCK IS PUSH", implicit)
}

// §3.1: the grammar: a noun subject, IS, an optional NOT, a noun or
// property complement; NOT only between IS and the complement.
func TestS3_1_Grammar(t *testing.T) {
	cases := []struct {
		sentence string
		want     []string
	}{
		{"BABA IS NOT YOU", []string{"BABA IS NOT YOU"}},
		{"NOT BABA IS YOU", []string{"BABA IS YOU"}},
		{"BABA IS NOT NOT YOU", nil},
		{"BABA NOT IS YOU", nil},
		{"BABA IS IS YOU", nil},
		{"BABA IS NOT", nil},
		{"IS YOU", nil},
		{"YOU IS BABA", nil},
		{"IS IS YOU", nil},
		{"BABA IS IS", nil},
		{"BABA IS NOT IS", nil},
		{"TEXT IS WIN", []string{"TEXT IS WIN"}},
		{"ALL IS YOU", []string{"ALL IS YOU"}},
		{"DEATHRATTLE IS DOUBLE", []string{"DEATHRATTLE IS DOUBLE"}},
		{"BATTLECRY IS NOT DOUBLE", []string{"BATTLECRY IS NOT DOUBLE"}},
		{"BABA IS ALL", []string{"BABA IS ALL"}},
		{"BABA IS TEXT", []string{"BABA IS TEXT"}},
		{"BABA IS DEATHRATTLE", []string{"BABA IS DEATHRATTLE"}},
		{"BABA IS BABA", []string{"BABA IS BABA"}},
		{"BABA IS ROCK IS NOT PUSH", []string{"BABA IS ROCK", "ROCK IS NOT PUSH"}},
		{"BABA IS NOT ROCK IS PUSH", []string{"BABA IS NOT ROCK", "ROCK IS PUSH"}},
	}
	for _, c := range cases {
		t.Run(c.sentence, func(t *testing.T) {
			b := build(t, level(7, 7, text(0, 0, Right, c.sentence), text(0, 1, Down, c.sentence)))
			wantRules(t, "rules()", b.Rules(), append(c.want, implicit)...)
		})
	}
}

// §3.2: a tile of several texts gives any one of its words; every
// combination that fits the grammar is a rule, each once.
func TestS3_2_StackedText(t *testing.T) {
	b := build(t, level(4, 1,
		text(0, 0, Right, "BABA IS YOU"),
		obj("text:ROCK", 0, 0), obj("text:PUSH", 2, 0), obj("text:NOT", 2, 0), obj("text:WIN", 3, 0),
		obj("text:IS", 0, 0),  // a stacked operator adds no subject
		obj("text:YOU", 2, 0), // the same word twice spells the same rule once
	))
	wantRules(t, "rules()", b.Rules(),
		"BABA IS YOU", "BABA IS PUSH", "ROCK IS YOU", "ROCK IS PUSH",
		"BABA IS NOT WIN", "ROCK IS NOT WIN", implicit)
}

// §3.3: rules() is sorted, each rule once, always with TEXT IS PUSH; the
// negated rules are listed too.
func TestS3_3_RulesSortedDistinctWithImplicitTextIsPush(t *testing.T) {
	b := build(t, level(1, 1))
	wantRules(t, "rules() of an empty level", b.Rules(), implicit)

	b = build(t, level(5, 5,
		text(0, 0, Right, "WALL IS STOP"), text(0, 1, Right, "WALL IS STOP"),
		text(0, 2, Right, "TEXT IS PUSH"), text(0, 3, Right, "BABA IS NOT YOU"), text(0, 4, Right, "BABA IS YOU")))
	got := b.Rules()
	want := []string{"BABA IS NOT YOU", "BABA IS YOU", "TEXT IS PUSH", "WALL IS STOP"}
	wantRules(t, "rules()", got, want...)
}

// §3.4 step 1: X IS NOT Y removes X IS Y and stays; X IS NOT X removes
// X IS X; TEXT IS NOT PUSH removes the implicit rule.
func TestS3_4_NegationRemovesTheSameRule(t *testing.T) {
	b := build(t, level(4, 4,
		text(0, 0, Right, "BABA IS YOU"), text(0, 1, Right, "BABA IS NOT YOU"),
		text(0, 2, Right, "ROCK IS ROCK"), text(0, 3, Right, "ROCK IS NOT ROCK")))
	wantRules(t, "rules()", b.Rules(), "BABA IS YOU", "BABA IS NOT YOU", "ROCK IS ROCK", "ROCK IS NOT ROCK", implicit)
	wantRules(t, "activeRules()", b.ActiveRules(), "BABA IS NOT YOU", "ROCK IS NOT ROCK", implicit)

	b = build(t, level(4, 1, text(0, 0, Right, "TEXT IS NOT PUSH")))
	wantRules(t, "rules()", b.Rules(), "TEXT IS NOT PUSH", implicit)
	wantRules(t, "activeRules()", b.ActiveRules(), "TEXT IS NOT PUSH")
}

// §3.4 step 2: a surviving X IS X removes every X IS Y with Y a noun other
// than X; properties stay; an X IS X removed by step 1 removes nothing.
func TestS3_4_IdentityRemovesConversions(t *testing.T) {
	b := build(t, level(3, 6,
		text(0, 0, Right, "ROCK IS ROCK"), text(0, 1, Right, "ROCK IS BABA"), text(0, 2, Right, "ROCK IS PUSH"),
		text(0, 3, Right, "ROCK IS TEXT"), text(0, 4, Right, "BABA IS KEKE")))
	wantRules(t, "activeRules()", b.ActiveRules(), "ROCK IS ROCK", "ROCK IS PUSH", "BABA IS KEKE", implicit)

	b = build(t, level(4, 3,
		text(0, 0, Right, "ROCK IS ROCK"), text(0, 1, Right, "ROCK IS NOT ROCK"), text(0, 2, Right, "ROCK IS BABA")))
	wantRules(t, "activeRules()", b.ActiveRules(), "ROCK IS NOT ROCK", "ROCK IS BABA", implicit)
}

// §3.4: the subject is compared literally: ALL IS NOT PUSH leaves ROCK IS
// PUSH active and acts through naming (§3.5).
func TestS3_4_SubjectComparedLiterally(t *testing.T) {
	b := build(t, level(4, 3, text(0, 0, Right, "ALL IS NOT PUSH"), text(0, 1, Right, "ROCK IS PUSH"), obj("rock", 0, 2)))
	wantRules(t, "activeRules()", b.ActiveRules(), "ALL IS NOT PUSH", "ROCK IS PUSH", implicit)
	if has(t, b, idAt(t, b, "rock", 0, 2), "PUSH") {
		t.Fatal("a rock is PUSH under ALL IS NOT PUSH")
	}
	if !has(t, b, idAt(t, b, "text:ROCK", 0, 1), "PUSH") {
		t.Fatal("text is not PUSH: ALL does not name text")
	}
}

// §3.5: a thing is named by its noun and ALL, text by TEXT only, and a
// meta noun names nothing; a negated rule naming the object wins.
func TestS3_5_NamingAndHasProperty(t *testing.T) {
	b := build(t, level(5, 8,
		text(0, 0, Right, "ALL IS YOU"), text(0, 1, Right, "TEXT IS WIN"),
		text(0, 2, Right, "ROCK IS NOT YOU"), text(0, 3, Right, "DEATHRATTLE IS STOP"),
		text(0, 4, Right, "ALL IS NOT HOT"), text(0, 5, Right, "BABA IS HOT"),
		obj("baba", 4, 6), obj("rock", 4, 7)))
	baba, rock, word := idAt(t, b, "baba", 4, 6), idAt(t, b, "rock", 4, 7), idAt(t, b, "text:ALL", 0, 0)
	cases := []struct {
		id   ID
		prop string
		want bool
	}{
		{baba, "YOU", true}, {rock, "YOU", false}, {word, "YOU", false},
		{word, "WIN", true}, {baba, "WIN", false},
		{word, "PUSH", true}, {baba, "PUSH", false},
		{baba, "STOP", false}, {rock, "STOP", false}, {word, "STOP", false},
		{baba, "HOT", false},
		{baba, "you", false}, {baba, "NOTAWORD", false}, {baba, "", false},
	}
	for _, c := range cases {
		if got := has(t, b, c.id, c.prop); got != c.want {
			t.Errorf("hasProperty(%d, %q) = %v; want %v", c.id, c.prop, got, c.want)
		}
	}
}

// §3.5: prop is read literally, as a rule's complement: a noun complement
// counts too.
func TestS3_5_PropIsAComplementWord(t *testing.T) {
	b := build(t, level(3, 2, text(0, 0, Right, "BABA IS ROCK"), obj("baba", 0, 1)))
	if !has(t, b, idAt(t, b, "baba", 0, 1), "ROCK") {
		t.Fatal(`hasProperty(baba, "ROCK") = false under BABA IS ROCK`)
	}
}

// §3.5: a destroyed object has no properties; an id never issued is an
// error.
func TestS3_5_DestroyedAndUnknown(t *testing.T) {
	b := build(t, level(4, 3, text(0, 0, Right, "BABA IS YOU"), text(0, 1, Right, "ROCK IS SINK"), obj("baba", 0, 2), obj("rock", 1, 2)))
	baba := idAt(t, b, "baba", 0, 2)
	if !has(t, b, baba, "YOU") {
		t.Fatal("baba is not YOU")
	}
	b.Step(Right)
	gone(t, b, baba)
	if has(t, b, baba, "YOU") {
		t.Fatal("a destroyed baba is YOU")
	}
	for _, id := range []ID{0, ID(len(b.objs) + 1), 1 << 31} {
		unchanged(t, b, func() error {
			_, err := b.HasProperty(id, "YOU")
			if !errors.Is(err, ErrUnknownID) {
				t.Errorf("hasProperty(%d): %v; want ErrUnknownID", id, err)
			}
			return err
		})
	}
}

// §3.6: the rules are read at construction, after every place, at the end
// of move and during a step; not in between.
func TestS3_6_ReadingMoments(t *testing.T) {
	b := build(t, level(5, 3, text(0, 0, Right, "BABA IS"), obj("baba", 1, 2)))
	wantRules(t, "rules() at construction", b.Rules(), implicit)
	if _, err := b.Place("text:YOU", 2, 0); err != nil {
		t.Fatal(err)
	}
	wantRules(t, "rules() after place", b.Rules(), "BABA IS YOU", implicit)

	// Move: the baba pushes YOU out of line; the re-read breaks the rule.
	b2 := build(t, level(4, 3, text(0, 1, Right, "BABA IS YOU"), obj("baba", 2, 2)))
	b2.Move(Up)
	wantRules(t, "rules() after move", b2.Rules(), implicit)
	if !b2.Lost() {
		t.Fatal("lost() = false with no rule giving YOU")
	}

	// Step: the same push through a whole turn.
	b3 := build(t, level(4, 3, text(0, 1, Right, "BABA IS YOU"), obj("baba", 2, 2)))
	b3.Step(Up)
	wantRules(t, "rules() after step", b3.Rules(), implicit)
}
