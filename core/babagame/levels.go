package babagame

import (
	"embed"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/roomd/roomd/core/baba"
)

//go:embed levels/*.json
var levelFiles embed.FS

// LevelIDs are the levels a config may name, in the order a lobby lists
// them; the first is the default. Each is levels/<id>.json, a LevelDef
// (baba.md §4).
var LevelIDs = []string{"baba-is-you", "rock-is-you", "wall-is-stop", "rock-is-flag", "water-is-sink", "lava-is-hot"}

// Level is one playable level: its id, its definition and the engine built
// from it, which is never stepped (the start of every match of the level).
type Level struct {
	ID    string
	Def   baba.LevelDef
	start *baba.Baba
}

// levels holds every level, built once; a level that does not build is a
// programming error, found at start.
var levels = func() map[string]*Level {
	out := make(map[string]*Level, len(LevelIDs))
	for _, id := range LevelIDs {
		l, err := loadLevel(id)
		if err != nil {
			panic(err)
		}
		out[id] = l
	}
	return out
}()

// loadLevel reads and builds levels/<id>.json.
func loadLevel(id string) (*Level, error) {
	data, err := levelFiles.ReadFile("levels/" + id + ".json")
	if err != nil {
		return nil, fmt.Errorf("baba level %s: %w", id, err)
	}
	var def baba.LevelDef
	if err := json.Unmarshal(data, &def); err != nil {
		return nil, fmt.Errorf("baba level %s: %w", id, err)
	}
	start, err := baba.New(def)
	if err != nil {
		return nil, fmt.Errorf("baba level %s: %w", id, err)
	}
	return &Level{ID: id, Def: def, start: start}, nil
}

// LevelByID returns the level with that id.
func LevelByID(id string) (*Level, bool) {
	l, ok := levels[id]
	return l, ok
}

// knownLevel reports whether id names a level.
func knownLevel(id string) bool { return slices.Contains(LevelIDs, id) }
