package nim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/roomd/roomd/core/session"
)

// Config limits and defaults.
const (
	// DefaultPile is the pile of a config that names none.
	DefaultPile = 21
	// MaxPile is the largest pile a config may ask for.
	MaxPile = 1000
	// ModeClassic is the only mode.
	ModeClassic = "classic"
)

// Config is how a match is set up. Its JSON form is {"pile": N, "mode":
// "classic"}, both optional. The zero value is the default game.
type Config struct {
	// Pile is the starting pile, 1 to MaxPile. Zero means DefaultPile.
	Pile int
	// Mode is the mode's id. "" means ModeClassic, the only one.
	Mode string

	// raw is the JSON the config was decoded from, compacted; views echo it.
	raw json.RawMessage
}

// UnmarshalJSON decodes a config strictly: an object whose only members are
// "pile", an integer from 1 to MaxPile, and "mode", which must be "classic".
func (c *Config) UnmarshalJSON(data []byte) error {
	ms, err := session.Members(data)
	if errors.Is(err, session.ErrNotObject) {
		return errors.New("config must be a JSON object")
	}
	if err != nil {
		return err
	}
	out := Config{Mode: ModeClassic}
	for _, m := range ms {
		switch m.Key {
		case "pile":
			v, ok := session.Whole(m.Value)
			if !ok || v < 1 || v > MaxPile {
				return fmt.Errorf("pile must be an integer from 1 to %d, got %s", MaxPile, session.Clip(string(m.Value)))
			}
			out.Pile = int(v)
		case "mode":
			var mode string
			if err := json.Unmarshal(m.Value, &mode); err != nil || mode != ModeClassic {
				return fmt.Errorf("mode must be %q, got %s", ModeClassic, session.Clip(string(m.Value)))
			}
		default:
			return fmt.Errorf(`unknown config field %q (want "pile" or "mode")`, session.Clip(m.Key))
		}
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		return err
	}
	out.raw = buf.Bytes()
	*c = out
	return nil
}

// MarshalJSON writes the config in full, defaults applied:
// {"pile":N,"mode":"classic"}.
func (c Config) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Pile int    `json:"pile"`
		Mode string `json:"mode"`
	}{c.pile(), ModeClassic})
}

// Validate checks a config built in Go; decoding checks JSON configs.
func (c *Config) Validate() error {
	if c.Pile < 0 || c.Pile > MaxPile {
		return fmt.Errorf("pile must be an integer from 1 to %d, got %d", MaxPile, c.Pile)
	}
	if c.Mode != "" && c.Mode != ModeClassic {
		return fmt.Errorf("mode must be %q, got %q", ModeClassic, session.Clip(c.Mode))
	}
	return nil
}

// pile is the starting pile, the default applied.
func (c Config) pile() int {
	if c.Pile == 0 {
		return DefaultPile
	}
	return c.Pile
}

// echo is the config as views show it: as the client sent it, or in full
// when it was built in Go.
func (c Config) echo() json.RawMessage {
	if c.raw != nil {
		return c.raw
	}
	b, _ := c.MarshalJSON() // two ints and a string: cannot fail
	return b
}
