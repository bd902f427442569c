package baba

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// §4: width and height lie in 1..64.
func TestS4_LevelSize(t *testing.T) {
	for _, wh := range [][2]int{{1, 1}, {64, 64}, {1, 64}, {64, 1}, {7, 5}} {
		b := build(t, LevelDef{Width: wh[0], Height: wh[1]})
		if w, h := b.Size(); w != wh[0] || h != wh[1] {
			t.Errorf("Size() = %d×%d; want %d×%d", w, h, wh[0], wh[1])
		}
	}
	for _, wh := range [][2]int{{0, 1}, {1, 0}, {65, 1}, {1, 65}, {-1, 5}, {0, 0}} {
		if _, err := New(LevelDef{Width: wh[0], Height: wh[1]}); !errors.Is(err, ErrLevel) {
			t.Errorf("New(%d×%d): %v; want ErrLevel", wh[0], wh[1], err)
		}
	}
}

// §4: an entry with an invalid kind or a tile outside the level fails the
// construction with an error naming its index.
func TestS4_EntryErrorsNameTheIndex(t *testing.T) {
	cases := []struct {
		o    LevelObject
		want error
	}{
		{obj("stone", 0, 0), ErrKind},
		{obj("rock", 3, 0), ErrOutside},
		{obj("rock", 0, 2), ErrOutside},
		{obj("rock", -1, 0), ErrOutside},
		{obj("rock", 0, -1), ErrOutside},
	}
	for _, c := range cases {
		_, err := New(level(3, 2, obj("baba", 0, 0), obj("rock", 2, 1), c.o))
		if !errors.Is(err, c.want) || !errors.Is(err, ErrLevel) || !strings.Contains(err.Error(), "objects[2]") {
			t.Errorf("New with %+v: %v; want %v naming objects[2]", c.o, err, c.want)
		}
	}
}

// §4: a plain Baba refuses Part III's cards and hand.
func TestS4_CardsAndHandRefused(t *testing.T) {
	def := level(3, 3)
	def.Cards = []LevelCard{{Card: "Leper Gnome", X: 1, Y: 1}}
	if _, err := New(def); !errors.Is(err, ErrLevel) {
		t.Errorf("New with cards: %v; want ErrLevel", err)
	}
	def = level(3, 3)
	def.Hand = []string{"Fireball"}
	if _, err := New(def); !errors.Is(err, ErrLevel) {
		t.Errorf("New with a hand: %v; want ErrLevel", err)
	}
}

// §4: the JSON form: width and height required, objects optional, title
// and note free text, cards and hand read (and refused by New), any other
// field refused by name.
func TestS4_LevelJSON(t *testing.T) {
	good := []struct {
		json string
		want LevelDef
	}{
		{`{"width": 7, "height": 5}`, LevelDef{Width: 7, Height: 5}},
		{`{"width": 7.0, "height": 5, "objects": null}`, LevelDef{Width: 7, Height: 5}},
		{`{"width": 2, "height": 1, "objects": [{"kind": "text:BABA", "x": 0, "y": 0}, {"y": 0, "x": 1, "kind": "baba"}], "title": "t", "note": "n"}`,
			LevelDef{Width: 2, Height: 1, Objects: []LevelObject{obj("text:BABA", 0, 0), obj("baba", 1, 0)}, Title: "t", Note: "n"}},
		{`{"width": 7, "height": 5, "cards": [{"card": "Leper Gnome", "x": 4, "y": 4}], "hand": ["Fireball"]}`,
			LevelDef{Width: 7, Height: 5, Cards: []LevelCard{{Card: "Leper Gnome", X: 4, Y: 4}}, Hand: []string{"Fireball"}}},
	}
	for _, c := range good {
		var def LevelDef
		if err := json.Unmarshal([]byte(c.json), &def); err != nil {
			t.Errorf("%s: %v", c.json, err)
			continue
		}
		got, _ := json.Marshal(def)
		want, _ := json.Marshal(c.want)
		if string(got) != string(want) {
			t.Errorf("%s: read %s; want %s", c.json, got, want)
		}
	}
	bad := []struct{ json, mention string }{
		{`{"height": 5}`, "width"},
		{`{"width": 5}`, "height"},
		{`{"width": 5, "height": 5, "colour": "red"}`, `"colour"`},
		{`{"width": 5, "height": 5, "Width": 5}`, `"Width"`},
		{`{"width": 5, "width": 5, "height": 5}`, "duplicate"},
		{`{"width": 2.5, "height": 5}`, "width: not an integer"},
		{`{"width": "5", "height": 5}`, "width"},
		{`{"width": 5, "height": 5, "objects": {}}`, "objects"},
		{`{"width": 5, "height": 5, "objects": [{"kind": "baba", "x": 1}]}`, "objects[0]: y is missing"},
		{`{"width": 5, "height": 5, "objects": [{"kind": "baba", "x": 1, "y": 1}, {"kind": "baba", "x": 1, "y": 1, "id": 3}]}`, `objects[1]: unknown field "id"`},
		{`{"width": 5, "height": 5, "objects": [{"kind": null, "x": 1, "y": 1}]}`, "objects[0].kind: not a string"},
		{`{"width": 5, "height": 5, "objects": [{"kind": "rock", "x": 1.5, "y": 1}]}`, "objects[0].x: not an integer"},
		{`{"width": 5, "height": 5, "objects": [{"kind": "rock", "x": 1, "y": 1e10}]}`, "objects[0].y: not an integer"},
		{`{"width": 5, "height": 5, "objects": [3]}`, "objects[0]: not a JSON object"},
		{`{"width": 5, "height": 5, "cards": [{"card": "Leper Gnome", "x": 1}]}`, "cards[0]: y is missing"},
		{`{"width": 5, "height": 5, "hand": [1]}`, "hand: not an array of strings"},
		{`{"width": 5, "height": 5, "title": 3}`, "title"},
		{`[5, 5]`, "object"},
		{`null`, "object"},
	}
	for _, c := range bad {
		var def LevelDef
		err := json.Unmarshal([]byte(c.json), &def)
		if !errors.Is(err, ErrLevel) || !strings.Contains(err.Error(), c.mention) {
			t.Errorf("%s: %v; want ErrLevel mentioning %s", c.json, err, c.mention)
		}
	}
}

// §4: at most MaxObjects objects alive: a bigger level and a place beyond
// the limit are errors, the latter leaving the Baba unchanged.
func TestS4_ObjectLimit(t *testing.T) {
	full := LevelDef{Width: 64, Height: 64}
	for i := range MaxObjects {
		full.Objects = append(full.Objects, obj("rock", i%64, i/64))
	}
	b := build(t, full)
	unchanged(t, b, func() error {
		_, err := b.Place("baba", 0, 0)
		if !errors.Is(err, ErrTooMany) {
			t.Errorf("Place beyond the limit: %v; want ErrTooMany", err)
		}
		return err
	})
	full.Objects = append(full.Objects, obj("rock", 0, 0))
	if _, err := New(full); !errors.Is(err, ErrTooMany) {
		t.Fatalf("New with %d objects: %v; want ErrTooMany", len(full.Objects), err)
	}
}

// §4: ids start at 1 and follow creation order: the level's objects, then
// places, then conversions; never reused.
func TestS4_IDs(t *testing.T) {
	b := build(t, level(5, 3, obj("rock", 0, 2), text(0, 0, Right, "BABA IS YOU"), obj("baba", 2, 2)))
	kindOf := func(id ID) string {
		for _, o := range b.Snapshot().Objects {
			if o.ID == id {
				return o.Kind
			}
		}
		return ""
	}
	for i, kind := range []string{"rock", "text:BABA", "text:IS", "text:YOU", "baba"} {
		if got := kindOf(ID(i + 1)); got != kind {
			t.Errorf("id %d is a %q; want a %s", i+1, got, kind)
		}
	}
	for i, kind := range []string{"text:ROCK", "text:IS", "text:KEKE"} {
		id, err := b.Place(kind, i, 1)
		if err != nil || id != ID(6+i) {
			t.Fatalf("Place(%s) = %d, %v; want %d", kind, id, err, 6+i)
		}
	}
	// ROCK IS KEKE converts the rock in place: no new id.
	b.Step(Right)
	if got := b.Snapshot().NextID; got != 9 {
		t.Fatalf("nextId after a conversion in place = %d; want 9", got)
	}
	if at(t, b, 1, 0, 2); kindOf(1) != "keke" {
		t.Fatalf("id 1 is a %s; want keke", kindOf(1))
	}
	// KEKE IS FLAG and KEKE IS ROCK: the keke becomes a flag in place, a
	// new rock (id 8) appears; a place then gets 9.
	b2 := build(t, level(4, 3, obj("keke", 3, 2), text(0, 0, Right, "KEKE IS ROCK"), text(0, 1, Right, "KEKE IS FLAG")))
	b2.Step(Up)
	if got := kindsAt(t, b2, 3, 2); len(got) != 2 || got[0] != "flag" || got[1] != "rock" {
		t.Fatalf("tile (3,2) holds %v; want [flag rock]", got)
	}
	at(t, b2, 8, 3, 2)
	if id, _ := b2.Place("rock", 3, 2); id != 9 {
		t.Fatalf("Place after a conversion = %d; want 9", id)
	}
}
