package spellgridgame

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/roomd/roomd/core/session"
)

// Config is how a match is set up: which level. Its JSON form is {} or
// {"level":ID}; the zero value is the first level.
type Config struct {
	// Level is the level's id; "" means the first level.
	Level string
}

// levelID returns the config's level id, the default filled in.
func (c Config) levelID() string {
	if c.Level == "" {
		return levels[0].ID
	}
	return c.Level
}

// UnmarshalJSON decodes a config strictly: an object whose members may be
// "level", a string naming a level, and "mode", "solo" (the only mode, as
// GET /api/games lists it; the canonical form leaves it out).
func (c *Config) UnmarshalJSON(data []byte) error {
	ms, err := session.Members(data)
	if err != nil {
		return fmt.Errorf("config must be a JSON object: %v", err)
	}
	var out Config
	for _, m := range ms {
		if m.Key == "mode" {
			var mode string
			if json.Unmarshal(m.Value, &mode) != nil || mode != ModeSolo {
				return fmt.Errorf(`mode must be "solo", got %s`, session.Clip(string(m.Value)))
			}
			continue
		}
		if m.Key != "level" {
			return fmt.Errorf(`unknown config field %q (they are "level" and "mode")`, session.Clip(m.Key))
		}
		if err := json.Unmarshal(m.Value, &out.Level); err != nil || string(m.Value) == "null" {
			return fmt.Errorf("level must be a string, got %s", session.Clip(string(m.Value)))
		}
		if _, ok := level(out.Level); !ok {
			return fmt.Errorf("no level %q (the levels are %s)", session.Clip(out.Level), strings.Join(Levels(), ", "))
		}
	}
	out.Level = out.levelID()
	*c = out
	return nil
}

// MarshalJSON writes the config in full: {"level":ID}.
func (c Config) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Level string `json:"level"`
	}{c.levelID()})
}

// Validate checks a config built in Go; decoding checks JSON configs.
func (c *Config) Validate() error {
	if _, ok := level(c.levelID()); !ok {
		return fmt.Errorf("no level %q", session.Clip(c.Level))
	}
	return nil
}
