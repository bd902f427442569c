package baba

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// FuzzLevelJSON: §4's decoder of untrusted level JSON never panics,
// refuses with ErrLevel, and what it accepts re-encodes to itself; a level
// New accepts plays a few steps without panicking.
func FuzzLevelJSON(f *testing.F) {
	for _, s := range []string{
		`{"width": 7, "height": 5, "objects": [{"kind": "text:BABA", "x": 0, "y": 0}, {"kind": "baba", "x": 3, "y": 2}]}`,
		`{"width": 3, "height": 1, "objects": [{"kind": "text:BABA", "x": 0, "y": 0}, {"kind": "text:IS", "x": 1, "y": 0}, {"kind": "text:YOU", "x": 2, "y": 0}], "title": "t"}`,
		`{"width": 7, "height": 5, "cards": [{"card": "Leper Gnome", "x": 4, "y": 4}], "hand": ["Fireball"]}`,
		`{"width": 1.0, "height": 1, "objects": null, "note": ""}`,
		`{"width": 5}`, `[]`, `null`, `{"width": 5, "width": 5}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var def LevelDef
		if err := json.Unmarshal(data, &def); err != nil {
			var syntax *json.SyntaxError
			if !errors.Is(err, ErrLevel) && !errors.As(err, &syntax) {
				t.Fatalf("error %v is neither ErrLevel nor a syntax error", err)
			}
			return
		}
		again, err := json.Marshal(def)
		if err != nil {
			t.Fatal(err)
		}
		var def2 LevelDef
		if err := json.Unmarshal(again, &def2); err != nil || !reflect.DeepEqual(def, def2) {
			t.Fatalf("%s re-reads as %+v, %v; want %+v", again, def2, err, def)
		}
		b, err := New(def)
		if err != nil {
			if !errors.Is(err, ErrLevel) {
				t.Fatalf("New: %v is not ErrLevel", err)
			}
			return
		}
		for _, d := range []Dir{Right, Down, Left, Up} {
			b.Step(d)
		}
	})
}
