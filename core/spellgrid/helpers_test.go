package spellgrid

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/roomd/roomd/core/baba"
	"github.com/roomd/roomd/core/cards"
)

// newGrid builds a SpellGrid from a level's JSON.
func newGrid(t *testing.T, level string) *SpellGrid {
	t.Helper()
	var def baba.LevelDef
	if err := json.Unmarshal([]byte(level), &def); err != nil {
		t.Fatalf("level: %v", err)
	}
	s, err := New(def, nil)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

// must returns v, panicking on err (the test fails with it).
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func pos(t *testing.T, s *SpellGrid, id ID) []int {
	t.Helper()
	x, y, alive, err := s.PosOf(id)
	if err != nil {
		t.Fatal(err)
	}
	if !alive {
		return nil
	}
	return []int{x, y}
}

func health(t *testing.T, s *SpellGrid, id ID) int32 {
	t.Helper()
	return must(s.Health(id))
}

func hero(t *testing.T, s *SpellGrid, p cards.Player) ID {
	t.Helper()
	return must(s.Hero(p))
}

// count returns how many events of the log have type typ.
func count(s *SpellGrid, typ cards.EventType) int {
	n := 0
	for _, e := range s.Log() {
		if e.Type == typ {
			n++
		}
	}
	return n
}

// text lays a rule's words left to right from (x, y).
func text(x, y int, words ...string) string {
	out := ""
	for i, w := range words {
		b, _ := json.Marshal(map[string]any{"kind": "text:" + w, "x": x + i, "y": y})
		if out != "" {
			out += ","
		}
		out += string(b)
	}
	return out
}

func hasRule(s *SpellGrid, r string) bool { return slices.Contains(s.ActiveRules(), r) }
