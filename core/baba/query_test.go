package baba

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"testing"
)

// §7: posOf gives the tile, nothing (alive false) once destroyed; an id
// never issued is an error.
func TestS7_PosOf(t *testing.T) {
	b := build(t, level(4, 3, rulesRow("BABA IS YOU", "ROCK IS SINK"), obj("baba", 0, 2), obj("rock", 2, 2)))
	baba := idAt(t, b, "baba", 0, 2)
	b.Step(Right)
	at(t, b, baba, 1, 2)
	b.Step(Right)
	gone(t, b, baba)
	for _, id := range []ID{0, b.Snapshot().NextID} {
		unchanged(t, b, func() error {
			_, _, _, err := b.PosOf(id)
			if !errors.Is(err, ErrUnknownID) {
				t.Errorf("posOf(%d): %v; want ErrUnknownID", id, err)
			}
			return err
		})
	}
}

// §7: kindsAt lists the kinds of a tile's live objects, one per object, in
// byte order; an empty tile gives []; a tile outside is an error.
func TestS7_KindsAt(t *testing.T) {
	b := build(t, level(3, 2, obj("rock", 1, 1), obj("text:ROCK", 1, 1), obj("baba", 1, 1), obj("rock", 1, 1)))
	if got := kindsAt(t, b, 1, 1); !slices.Equal(got, []string{"baba", "rock", "rock", "text:ROCK"}) {
		t.Fatalf("kindsAt = %v", got)
	}
	got := kindsAt(t, b, 0, 0)
	if got == nil || len(got) != 0 {
		t.Fatalf("kindsAt of an empty tile = %#v; want []", got)
	}
	if j, _ := json.Marshal(got); string(j) != "[]" {
		t.Fatalf("kindsAt of an empty tile encodes as %s", j)
	}
	for _, xy := range [][2]int{{-1, 0}, {3, 0}, {0, 2}, {0, -1}} {
		unchanged(t, b, func() error {
			_, err := b.KindsAt(xy[0], xy[1])
			if !errors.Is(err, ErrOutside) {
				t.Errorf("kindsAt(%d, %d): %v; want ErrOutside", xy[0], xy[1], err)
			}
			return err
		})
	}
}

// §8: a failing call leaves the state unchanged: every error of Place.
func TestS8_FailedPlaceChangesNothing(t *testing.T) {
	b := build(t, level(3, 3, text(0, 0, Right, "BABA IS"), obj("baba", 0, 2)))
	for _, c := range []struct {
		kind string
		x, y int
		want error
	}{
		{"text:YOU", 3, 0, ErrOutside},
		{"text:YOU", 0, -1, ErrOutside},
		{"text:you", 2, 0, ErrKind},
		{"stone", 1, 1, ErrKind},
	} {
		unchanged(t, b, func() error {
			_, err := b.Place(c.kind, c.x, c.y)
			if !errors.Is(err, c.want) {
				t.Errorf("Place(%q, %d, %d): %v; want %v", c.kind, c.x, c.y, err, c.want)
			}
			return err
		})
	}
}

// §8: Snapshot and Clone share nothing with the Baba.
func TestS8_SnapshotAndCloneIndependent(t *testing.T) {
	b := build(t, level(4, 3, text(0, 0, Right, "BABA IS YOU"), obj("baba", 0, 2)))
	s := b.Snapshot()
	c := b.Clone()
	b.Step(Right)
	if s.Objects[3].X != 0 {
		t.Fatal("the snapshot followed the Baba")
	}
	if x, _, _, _ := c.PosOf(4); x != 0 {
		t.Fatal("the clone followed the Baba")
	}
	c.Step(Right)
	if !reflect.DeepEqual(b.Snapshot(), c.Snapshot()) {
		t.Fatal("the clone and the Baba differ after the same step")
	}
}

// Notation: the four directions, by their words and nothing else.
func TestNotation_Directions(t *testing.T) {
	for _, d := range []Dir{Up, Down, Left, Right} {
		got, err := ParseDir(d.String())
		if err != nil || got != d {
			t.Errorf("ParseDir(%q) = %v, %v", d.String(), got, err)
		}
		var u Dir
		if j, _ := json.Marshal(d); json.Unmarshal(j, &u) != nil || u != d {
			t.Errorf("%v does not round-trip through JSON (%s)", d, j)
		}
	}
	for _, s := range []string{"", "UP", "north", "Left", " up"} {
		if _, err := ParseDir(s); !errors.Is(err, ErrDir) {
			t.Errorf("ParseDir(%q): %v; want ErrDir", s, err)
		}
	}
	if Dir(4).Valid() {
		t.Fatal("Dir(4) is valid")
	}
}
