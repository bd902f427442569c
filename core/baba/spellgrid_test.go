package baba

import (
	"errors"
	"slices"
	"testing"
)

func TestNewWithNouns_CardNounsAreThingNouns(t *testing.T) {
	level := LevelDef{Width: 4, Height: 3, Objects: []LevelObject{
		{Kind: "text:GNOME", X: 0, Y: 0}, {Kind: "text:IS", X: 1, Y: 0}, {Kind: "text:YOU", X: 2, Y: 0},
		{Kind: "gnome", X: 0, Y: 2},
	}}
	if _, err := New(level); !errors.Is(err, ErrLevel) {
		t.Fatalf("a plain Baba took a card noun: %v", err)
	}
	b, err := NewWithNouns(level, []string{"GNOME", "GNOME", "YETI"})
	if err != nil {
		t.Fatal(err)
	}
	if r := b.Rules(); !slices.Equal(r, []string{"GNOME IS YOU", "TEXT IS PUSH"}) {
		t.Fatalf("rules = %v", r)
	}
	if ok, _ := b.HasProperty(4, "YOU"); !ok {
		t.Fatal("the gnome is not YOU")
	}
	if !b.ValidKind("yeti") || !b.ValidKind("text:YETI") || ValidKind("yeti") {
		t.Fatal("ValidKind")
	}
	if k, _ := b.KindsAt(0, 2); !slices.Equal(k, []string{"gnome"}) {
		t.Fatalf("kindsAt = %v", k)
	}
	for _, bad := range [][]string{{"ROCK"}, {"Gnome"}, {""}} {
		if _, err := NewWithNouns(LevelDef{Width: 1, Height: 1}, bad); !errors.Is(err, ErrLevel) {
			t.Fatalf("noun %q: %v", bad, err)
		}
	}
}

func TestNewWithNouns_NeverConvertedNorTargets(t *testing.T) {
	b, err := NewWithNouns(LevelDef{Width: 4, Height: 3, Objects: []LevelObject{
		{Kind: "text:GNOME", X: 0, Y: 0}, {Kind: "text:IS", X: 1, Y: 0}, {Kind: "text:ROCK", X: 2, Y: 0},
		{Kind: "text:ROCK", X: 0, Y: 1}, {Kind: "text:IS", X: 1, Y: 1}, {Kind: "text:GNOME", X: 2, Y: 1},
		{Kind: "gnome", X: 0, Y: 2}, {Kind: "rock", X: 1, Y: 2},
	}}, []string{"GNOME"})
	if err != nil {
		t.Fatal(err)
	}
	b.Step(Up)
	if k, _ := b.KindsAt(0, 2); !slices.Equal(k, []string{"gnome"}) {
		t.Fatalf("gnome tile = %v", k)
	}
	if k, _ := b.KindsAt(1, 2); !slices.Equal(k, []string{"rock"}) {
		t.Fatalf("rock tile = %v", k)
	}
}

func TestReserveAndRemove(t *testing.T) {
	b, _ := NewWithNouns(LevelDef{Width: 2, Height: 2, Objects: []LevelObject{{Kind: "rock", X: 0, Y: 0}}}, nil)
	id, err := b.Reserve()
	if err != nil || id != 2 {
		t.Fatalf("reserve = %d, %v", id, err)
	}
	if _, _, alive, err := b.PosOf(id); alive || err != nil {
		t.Fatalf("a reserved id is alive (%v)", err)
	}
	if p, _ := b.Place("rock", 1, 1); p != 3 {
		t.Fatalf("place after reserve = %d", p)
	}
	if err := b.Remove(1); err != nil {
		t.Fatal(err)
	}
	if k, _ := b.KindsAt(0, 0); len(k) != 0 {
		t.Fatalf("removed rock still there: %v", k)
	}
	if err := b.Remove(9); !errors.Is(err, ErrUnknownID) {
		t.Fatalf("remove(9) = %v", err)
	}
}

func TestStepWith_KeepsCardObjectsForHit(t *testing.T) {
	level := LevelDef{Width: 5, Height: 4, Objects: []LevelObject{
		{Kind: "text:GNOME", X: 0, Y: 0}, {Kind: "text:IS", X: 1, Y: 0}, {Kind: "text:YOU", X: 2, Y: 0},
		{Kind: "text:SKULL", X: 0, Y: 1}, {Kind: "text:IS", X: 1, Y: 1}, {Kind: "text:DEFEAT", X: 2, Y: 1},
		{Kind: "gnome", X: 0, Y: 3}, {Kind: "skull", X: 1, Y: 3},
	}}
	b, _ := NewWithNouns(level, []string{"GNOME"})
	c := b.Clone()
	var got [][]ID
	b.StepWith(Right, func(ids []ID) {
		got = append(got, ids)
		if _, _, alive, _ := b.PosOf(7); !alive {
			t.Error("the gnome was destroyed before hit")
		}
		b.Remove(7)
	})
	if len(got) != 1 || !slices.Equal(got[0], []ID{7}) {
		t.Fatalf("hit got %v", got)
	}
	if _, _, alive, _ := b.PosOf(7); alive {
		t.Fatal("gnome alive")
	}
	c.StepWith(Right, nil) // without hit, the Baba destroys it
	if _, _, alive, _ := c.PosOf(7); alive {
		t.Fatal("gnome alive without hit")
	}
}
