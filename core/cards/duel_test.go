package cards

import (
	"errors"
	"fmt"
	"testing"
)

func TestDraw(t *testing.T) {
	g, err := NewGame(Options{Decks: [2][]string{{"Wisp", "Fireball"}, nil}})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := g.Draw(0); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Draw(1); err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(g.Log()), fmt.Sprint([]Event{Drew(0, 3), Drew(0, 4), Fatigue(0), Fatigue(1)}); got != want {
		t.Errorf("log %s, want %s", got, want)
	}
	if err := g.Draw(2); !errors.Is(err, ErrNoSuchPlayer) {
		t.Errorf("Draw(2) = %v", err)
	}
	for _, c := range []struct {
		id   ID
		want Player
	}{{1, 0}, {2, 1}, {3, 0}, {4, 0}} {
		if p, err := g.OwnerOf(c.id); err != nil || p != c.want {
			t.Errorf("OwnerOf(%d) = %d, %v, want %d", c.id, p, err, c.want)
		}
	}
	if _, err := g.OwnerOf(99); !errors.Is(err, ErrUnknownID) {
		t.Errorf("OwnerOf(99) = %v", err)
	}
}

// A draw into a full hand burns the card: Drew, then the graveyard.
func TestDrawFullHand(t *testing.T) {
	g, _ := NewGame(Options{Decks: [2][]string{{"Wisp"}, nil}})
	for range MaxHand {
		if _, err := g.AddToHand("Wisp", 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.Draw(0); err != nil {
		t.Fatal(err)
	}
	if z, _ := g.ZoneOf(3); z != ZoneGraveyard {
		t.Errorf("the drawn card is in the %s", z)
	}
}

func TestFight(t *testing.T) {
	g, _ := NewGame(Options{})
	raptor, _ := g.Summon("Bloodfen Raptor", 0)  // 3/2
	acolyte, _ := g.Summon("Acolyte of Pain", 1) // 1/3, draws when damaged
	g.ClearLog()
	if err := g.Fight(acolyte, raptor); err != nil {
		t.Fatal(err)
	}
	// Both hits first, in order of play, then the Acolyte's trigger.
	want := []Event{Damaged(raptor, 1), Damaged(acolyte, 3), Triggered(acolyte, "damaged"), Fatigue(1),
		Destroyed(acolyte), DeathPhase(1)}
	if got := g.Log(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("log %v\nwant %v", got, want)
	}
	// A hero deals nothing back.
	g.ClearLog()
	if err := g.Fight(raptor, 2); err != nil {
		t.Fatal(err)
	}
	if got := g.Log(); fmt.Sprint(got) != fmt.Sprint([]Event{Damaged(2, 3)}) {
		t.Errorf("log %v", got)
	}
	for _, c := range [][2]ID{{raptor, raptor}, {raptor, 99}, {99, 2}} {
		if err := g.Fight(c[0], c[1]); err == nil {
			t.Errorf("Fight(%d, %d) accepted", c[0], c[1])
		}
	}
}
