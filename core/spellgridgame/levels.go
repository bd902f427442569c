package spellgridgame

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/roomd/roomd/core/baba"
	"github.com/roomd/roomd/core/spellgrid"
)

// Level is one puzzle: its id (a config's "level") and its LevelDef, with
// the minions on the grid ("cards") and the hand (baba.md §4).
type Level struct {
	ID    string        `json:"id"`
	Level baba.LevelDef `json:"level"`
}

//go:embed levels/levels.json
var levelsJSON []byte

// levels are the embedded levels, in order; the first is the default.
var levels = loadLevels()

// loadLevels decodes the embedded levels and builds each once, so that a
// broken level stops the program at start rather than a match.
func loadLevels() []Level {
	var ls []Level
	if err := json.Unmarshal(levelsJSON, &ls); err != nil {
		panic(fmt.Sprintf("spellgridgame: levels: %v", err))
	}
	seen := map[string]bool{}
	for _, l := range ls {
		if l.ID == "" || seen[l.ID] {
			panic(fmt.Sprintf("spellgridgame: level id %q empty or repeated", l.ID))
		}
		seen[l.ID] = true
		if _, err := spellgrid.New(l.Level, nil); err != nil {
			panic(fmt.Sprintf("spellgridgame: level %q: %v", l.ID, err))
		}
	}
	if len(ls) == 0 {
		panic("spellgridgame: no levels")
	}
	return ls
}

// Levels returns the ids of the levels, in order; the first is the default.
func Levels() []string {
	ids := make([]string, len(levels))
	for i, l := range levels {
		ids[i] = l.ID
	}
	return ids
}

// level returns the level with id, if there is one.
func level(id string) (Level, bool) {
	for _, l := range levels {
		if l.ID == id {
			return l, true
		}
	}
	return Level{}, false
}
