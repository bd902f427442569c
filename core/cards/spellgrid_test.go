package cards

import (
	"errors"
	"slices"
	"testing"
)

func TestPutInPlay_NoSequenceOrderAfterHeroes(t *testing.T) {
	g, err := NewGame(Options{})
	if err != nil {
		t.Fatal(err)
	}
	juggler, err := g.PutInPlay("Knife Juggler", 0)
	if err != nil {
		t.Fatal(err)
	}
	wisp, err := g.PutInPlay("Wisp", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Log()) != 0 {
		t.Fatalf("log = %v", g.Log())
	}
	if o, _ := g.OrderOfPlay(juggler); o != 3 {
		t.Fatalf("order of play %d, want 3", o)
	}
	if o, _ := g.OrderOfPlay(wisp); o != 4 {
		t.Fatalf("order of play %d, want 4", o)
	}
	if b, _ := g.Board(0); !slices.Equal(b, []ID{juggler, wisp}) {
		t.Fatalf("board = %v", b)
	}
	if h, _ := g.Health(2); h != 30 {
		t.Fatal("the juggler triggered")
	}
	if _, err := g.PutInPlay("Fireball", 0); !errors.Is(err, ErrNotAMinion) {
		t.Fatalf("spell: %v", err)
	}
	for range 5 {
		g.PutInPlay("Wisp", 0)
	}
	if _, err := g.PutInPlay("Wisp", 0); !errors.Is(err, ErrBoardFull) {
		t.Fatalf("full board: %v", err)
	}
}
