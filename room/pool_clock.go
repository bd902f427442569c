package room

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// pool_clock.go: settings.clock as rated quick play reads it, to key its
// pools (PROTOCOL.md §2.12). The bounds are the turn clocks' (the room's
// own reading of settings.clock, which takes the clock out before the game
// validates the rest, is the one that runs the clock).

// Turn clock bounds, in ms.
const (
	minMoveMs, maxMoveMs = 1000, 3_600_000
	minBaseMs, maxBaseMs = 1000, 10_800_000
	maxIncrementMs       = 600_000
)

// poolClock is a settings.clock: a per-move limit (MoveMs) or a chess
// clock (BaseMs and IncrementMs). A nil *poolClock is no clock.
type poolClock struct {
	MoveMs      int64
	BaseMs      int64
	IncrementMs int64
}

// splitClock returns settings without its clock, and the clock (nil
// when there is none).
func splitClock(settings json.RawMessage) (json.RawMessage, *poolClock, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(settings, &fields); err != nil || fields == nil {
		return settings, nil, nil // not an object: the game says what is wrong
	}
	raw, ok := fields["clock"]
	if !ok {
		return settings, nil, nil
	}
	delete(fields, "clock")
	rest, err := json.Marshal(fields)
	if err != nil {
		return nil, nil, err
	}
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return rest, nil, nil
	}
	var c struct {
		MoveMs      *int64 `json:"moveMs"`
		BaseMs      *int64 `json:"baseMs"`
		IncrementMs *int64 `json:"incrementMs"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, nil, fmt.Errorf("clock: %v (it is {\"moveMs\": N} or {\"baseMs\": B, \"incrementMs\": I})", err)
	}
	switch {
	case c.MoveMs != nil && (c.BaseMs != nil || c.IncrementMs != nil):
		return nil, nil, errors.New("clock: moveMs is a per-move limit; it does not go with baseMs or incrementMs")
	case c.MoveMs != nil:
		if *c.MoveMs < minMoveMs || *c.MoveMs > maxMoveMs {
			return nil, nil, fmt.Errorf("clock: moveMs must be from %d to %d", minMoveMs, maxMoveMs)
		}
		return rest, &poolClock{MoveMs: *c.MoveMs}, nil
	case c.BaseMs != nil:
		inc := int64(0)
		if c.IncrementMs != nil {
			inc = *c.IncrementMs
		}
		if *c.BaseMs < minBaseMs || *c.BaseMs > maxBaseMs {
			return nil, nil, fmt.Errorf("clock: baseMs must be from %d to %d", minBaseMs, maxBaseMs)
		}
		if inc < 0 || inc > maxIncrementMs {
			return nil, nil, fmt.Errorf("clock: incrementMs must be from 0 to %d", maxIncrementMs)
		}
		return rest, &poolClock{BaseMs: *c.BaseMs, IncrementMs: inc}, nil
	}
	return nil, nil, errors.New("clock: moveMs, or baseMs with incrementMs, is required")
}

// canonical is the clock as rooms store and echo it.
func (c *poolClock) canonical() json.RawMessage {
	if c.MoveMs != 0 {
		return json.RawMessage(`{"moveMs":` + strconv.FormatInt(c.MoveMs, 10) + `}`)
	}
	return json.RawMessage(`{"baseMs":` + strconv.FormatInt(c.BaseMs, 10) + `,"incrementMs":` + strconv.FormatInt(c.IncrementMs, 10) + `}`)
}

// key is the clock's part of a pool key: "none", "move5000" (a per-move
// limit of 5 s) or "300000+2000" (a chess clock of 5 min plus 2 s a move).
func (c *poolClock) key() string {
	switch {
	case c == nil:
		return "none"
	case c.MoveMs != 0:
		return "move" + strconv.FormatInt(c.MoveMs, 10)
	}
	return strconv.FormatInt(c.BaseMs, 10) + "+" + strconv.FormatInt(c.IncrementMs, 10)
}
