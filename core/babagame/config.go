package babagame

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/roomd/roomd/core/session"
)

// ModeCoop is the only mode.
const ModeCoop = "coop"

// Seat limits of the mode.
const (
	MinSeats = 1
	MaxSeats = 4
)

// Control values: who may step.
const (
	// ControlShared lets any seat step at any time (the default).
	ControlShared = "shared"
	// ControlTurns lets only the seat whose turn it is step; each accepted
	// step passes the turn to the next seat.
	ControlTurns = "turns"
)

// Config is how a match is set up. Its JSON form is
//
//	{"level":"baba-is-you","control":"shared"}
//
// with both members optional: "level" is one of LevelIDs (default the
// first), "control" is "shared" (default) or "turns". "mode" may be given as
// "coop", the only mode (the id GET /api/games lists, so that a generic
// client creates every mode alike); the canonical form leaves it out. The
// zero value is the first level, shared.
type Config struct {
	Level   string
	Control string
}

// level returns the config's level id, the default filled in.
func (c Config) level() string {
	if c.Level == "" {
		return LevelIDs[0]
	}
	return c.Level
}

// turns reports whether seats take turns.
func (c Config) turns() bool { return c.Control == ControlTurns }

// UnmarshalJSON decodes a config strictly: an object whose members may be
// "level" (a level id), "control" ("shared" or "turns") and "mode"
// ("coop"), each at most once.
func (c *Config) UnmarshalJSON(data []byte) error {
	members, err := session.Members(data)
	if err != nil {
		return errors.New("config must be a JSON object")
	}
	out := Config{}
	for _, m := range members {
		var s string
		switch m.Key {
		case "level":
			if json.Unmarshal(m.Value, &s) != nil || !knownLevel(s) {
				return fmt.Errorf("level must be one of %q, got %s", LevelIDs, session.Clip(string(m.Value)))
			}
			out.Level = s
		case "control":
			if json.Unmarshal(m.Value, &s) != nil || (s != ControlShared && s != ControlTurns) {
				return fmt.Errorf(`control must be "shared" or "turns", got %s`, session.Clip(string(m.Value)))
			}
			out.Control = s
		case "mode":
			if json.Unmarshal(m.Value, &s) != nil || s != ModeCoop {
				return fmt.Errorf(`mode must be "coop", got %s`, session.Clip(string(m.Value)))
			}
		default:
			return fmt.Errorf(`unknown config field %q (they are "level", "control" and "mode")`, session.Clip(m.Key))
		}
	}
	*c = out
	return nil
}

// MarshalJSON writes the config in full, defaults filled in:
// {"level":"baba-is-you","control":"shared"}.
func (c Config) MarshalJSON() ([]byte, error) {
	control := c.Control
	if control == "" {
		control = ControlShared
	}
	return json.Marshal(struct {
		Level   string `json:"level"`
		Control string `json:"control"`
	}{c.level(), control})
}

// Validate checks a config built in Go; decoding checks JSON configs.
func (c *Config) Validate() error {
	if c.Level != "" && !knownLevel(c.Level) {
		return fmt.Errorf("level must be one of %q, got %q", LevelIDs, session.Clip(c.Level))
	}
	if c.Control != "" && c.Control != ControlShared && c.Control != ControlTurns {
		return fmt.Errorf(`control must be "shared" or "turns", got %q`, session.Clip(c.Control))
	}
	return nil
}
