package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/roomd/roomd/core/baba"
)

// `roomd script baba` drives core/baba with the calls of
// ../shared/specs/baba.md (seed 003, Part II):
//
//	newBaba(level)        level: a LevelDef object (§4)       → null
//	place(kind, x, y)                                          → id
//	rules(), activeRules()                                     → ["BABA IS YOU", …]
//	hasProperty(id, prop)                                      → true | false
//	move(dir), step(dir)  dir: "up" | "down" | "left" | "right" → null
//	posOf(id)                                                  → [x, y] | null
//	kindsAt(x, y)                                              → ["baba", "rock", …]
//	won(), lost()                                              → true | false
//	snapshot()            (not a harness call: §8's Snapshot)  → {"width", "height", "objects", …}
//
// Ids and coordinates are JSON numbers. Every call but newBaba needs a
// level first; a newBaba that fails keeps the level there was.

func init() { scriptEngines["baba"] = func() scriptEngine { return &babaScript{} } }

// babaScript is the harness's Baba: nil until newBaba succeeds.
type babaScript struct {
	b *baba.Baba
}

// babaCalls are the harness's calls.
var babaCalls = map[string]scriptFunc[*babaScript]{
	"newBaba": {1, func(s *babaScript, args []json.RawMessage) (any, error) {
		if err := babaNotNull(args, 0); err != nil {
			return nil, err
		}
		var def baba.LevelDef
		if err := json.Unmarshal(args[0], &def); err != nil {
			return nil, fmt.Errorf("argument 1: %v", err)
		}
		b, err := baba.New(def)
		if err != nil {
			return nil, err
		}
		s.b = b
		return nil, nil
	}},
	"place": {3, func(s *babaScript, args []json.RawMessage) (any, error) {
		kind, err := babaString(args, 0)
		if err != nil {
			return nil, err
		}
		x, y, err := babaXY(args, 1)
		if err != nil {
			return nil, err
		}
		return s.b.Place(kind, x, y)
	}},
	"rules":       {0, func(s *babaScript, _ []json.RawMessage) (any, error) { return s.b.Rules(), nil }},
	"activeRules": {0, func(s *babaScript, _ []json.RawMessage) (any, error) { return s.b.ActiveRules(), nil }},
	"hasProperty": {2, func(s *babaScript, args []json.RawMessage) (any, error) {
		id, err := babaID(args, 0)
		if err != nil {
			return nil, err
		}
		prop, err := babaString(args, 1)
		if err != nil {
			return nil, err
		}
		return s.b.HasProperty(id, prop)
	}},
	"move": {1, func(s *babaScript, args []json.RawMessage) (any, error) {
		d, err := babaDir(args, 0)
		if err != nil {
			return nil, err
		}
		s.b.Move(d)
		return nil, nil
	}},
	"step": {1, func(s *babaScript, args []json.RawMessage) (any, error) {
		d, err := babaDir(args, 0)
		if err != nil {
			return nil, err
		}
		s.b.Step(d)
		return nil, nil
	}},
	"posOf":    {1, func(s *babaScript, args []json.RawMessage) (any, error) { return gridPosOf(s.b, args) }},
	"kindsAt":  {2, func(s *babaScript, args []json.RawMessage) (any, error) { return gridKindsAt(s.b, args) }},
	"won":      {0, func(s *babaScript, _ []json.RawMessage) (any, error) { return s.b.Won(), nil }},
	"lost":     {0, func(s *babaScript, _ []json.RawMessage) (any, error) { return s.b.Lost(), nil }},
	"snapshot": {0, func(s *babaScript, _ []json.RawMessage) (any, error) { return s.b.Snapshot(), nil }},
}

// Call runs one harness call; a failed call leaves the Baba as it was
// (every argument is checked before the engine is called, and the engine's
// own failures change nothing).
func (s *babaScript) Call(name string, args []json.RawMessage) (any, error) {
	c, err := scriptLookup(babaCalls, name, args)
	if err != nil {
		return nil, err
	}
	if s.b == nil && name != "newBaba" {
		return nil, errors.New("no level yet: call newBaba first")
	}
	return c.run(s, args)
}

// babaNotNull refuses a missing or null argument i.
func babaNotNull(args []json.RawMessage, i int) error {
	if i >= len(args) {
		return fmt.Errorf("argument %d is missing", i+1)
	}
	if bytes.Equal(bytes.TrimSpace(args[i]), []byte("null")) {
		return fmt.Errorf("argument %d is null", i+1)
	}
	return nil
}

func babaString(args []json.RawMessage, i int) (string, error) {
	var s string
	if err := babaNotNull(args, i); err != nil {
		return "", err
	}
	_, err := scriptArg(args, i, &s, false)
	return s, err
}

// babaWhole reads argument i as a whole number within [lo, hi].
func babaWhole(args []json.RawMessage, i int, what string, lo, hi float64) (float64, error) {
	var v float64
	if err := babaNotNull(args, i); err != nil {
		return 0, err
	}
	if _, err := scriptArg(args, i, &v, false); err != nil {
		return 0, err
	}
	if v != math.Trunc(v) || v < lo || v > hi {
		return 0, fmt.Errorf("argument %d: %v is not %s", i+1, v, what)
	}
	return v, nil
}

// grid is what the Baba and SpellGrid scripts both read of a board.
type grid interface {
	PosOf(id baba.ID) (x, y int, alive bool, err error)
	KindsAt(x, y int) ([]string, error)
}

// gridPosOf answers posOf(id): [x, y], or null for an object no longer alive.
func gridPosOf(g grid, args []json.RawMessage) (any, error) {
	id, err := babaID(args, 0)
	if err != nil {
		return nil, err
	}
	x, y, alive, err := g.PosOf(id)
	if err != nil || !alive {
		return nil, err
	}
	return [2]int{x, y}, nil
}

// gridKindsAt answers kindsAt(x, y).
func gridKindsAt(g grid, args []json.RawMessage) (any, error) {
	x, y, err := babaXY(args, 0)
	if err != nil {
		return nil, err
	}
	return g.KindsAt(x, y)
}

func babaID(args []json.RawMessage, i int) (baba.ID, error) {
	v, err := babaWhole(args, i, "an id", 0, math.MaxUint32)
	return baba.ID(v), err
}

// babaXY reads arguments i and i+1 as a tile's x and y.
func babaXY(args []json.RawMessage, i int) (x, y int, err error) {
	vx, err := babaWhole(args, i, "a coordinate", math.MinInt32, math.MaxInt32)
	if err != nil {
		return 0, 0, err
	}
	vy, err := babaWhole(args, i+1, "a coordinate", math.MinInt32, math.MaxInt32)
	return int(vx), int(vy), err
}

func babaDir(args []json.RawMessage, i int) (baba.Dir, error) {
	s, err := babaString(args, i)
	if err != nil {
		return 0, err
	}
	return baba.ParseDir(s)
}
