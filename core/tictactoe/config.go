package tictactoe

import (
	"fmt"

	"github.com/roomd/roomd/core/session"
)

// ModeClassic is the only mode.
const ModeClassic = "classic"

// Config is how a match is set up. Its JSON form is {} or
// {"mode":"classic"}: tic-tac-toe has nothing to choose. The zero value is
// the game.
type Config struct {
	// Mode is the mode's id. "" means ModeClassic, the only one.
	Mode string
}

// UnmarshalJSON decodes a config strictly: an object whose only member may
// be "mode", which must be "classic".
func (c *Config) UnmarshalJSON(data []byte) error {
	w := struct {
		Mode string `json:"mode,omitempty"`
	}{ModeClassic} // a missing mode stays classic
	if err := session.Strict(data, &w); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if w.Mode != ModeClassic {
		return fmt.Errorf("mode must be %q, got %q", ModeClassic, session.Clip(w.Mode))
	}
	*c = Config{Mode: ModeClassic}
	return nil
}

// MarshalJSON writes the config in full: {"mode":"classic"}.
func (c Config) MarshalJSON() ([]byte, error) {
	return []byte(`{"mode":"` + ModeClassic + `"}`), nil
}

// Validate checks a config built in Go; decoding checks JSON configs.
func (c *Config) Validate() error {
	if c.Mode != "" && c.Mode != ModeClassic {
		return fmt.Errorf("mode must be %q, got %q", ModeClassic, session.Clip(c.Mode))
	}
	return nil
}
