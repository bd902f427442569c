package minesweeper

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/roomd/roomd/core/session"
)

// Level is a preset board.
type Level struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Rows  int    `json:"rows"`
	Cols  int    `json:"cols"`
	Mines int    `json:"mines"`
}

// Levels are the reference's presets, easiest first.
var Levels = [...]Level{
	{ID: "beginner", Name: "Noobs", Rows: 9, Cols: 9, Mines: 10},
	{ID: "intermediate", Name: "Normies", Rows: 16, Cols: 16, Mines: 40},
	{ID: "expert", Name: "Torment", Rows: 16, Cols: 30, Mines: 99},
	{ID: "nightmare", Name: "Hell", Rows: 20, Cols: 30, Mines: 150},
}

// LevelCustom is the level id of a config that gives rows, cols and mines.
const LevelCustom = "custom"

// MaxSide bounds rows and cols.
const MaxSide = 100

// LevelByID returns the preset with id.
func LevelByID(id string) (Level, bool) {
	for _, l := range Levels {
		if l.ID == id {
			return l, true
		}
	}
	return Level{}, false
}

// Mode is how a match is played.
type Mode string

// Modes.
const (
	ModeSolo Mode = "solo" // one seat, one board
	ModeCoop Mode = "coop" // 1–4 seats sweep one board together
	ModeRace Mode = "race" // 2–4 seats, each on its own board from the same seed
)

// Config is a match's config. It decodes from either the reference's form,
// {"rows","cols","mines"} (extra keys such as "id" and "name" are kept but
// not read), or a preset, {"level":"expert"}; "mode" is optional (solo).
// An empty object is the beginner level. The JSON as given is kept and
// echoed unchanged in views, as the reference echoes its whole config.
type Config struct {
	Rows, Cols, Mines int
	// Level is the level id as given ("" when the config has none).
	Level string
	// Mode is solo when empty.
	Mode Mode

	raw json.RawMessage // compacted input, key order kept
}

// DecodeConfig decodes and validates a config.
func DecodeConfig(data []byte) (Config, error) {
	var c Config
	err := c.UnmarshalJSON(data)
	return c, err
}

func configError(format string, args ...any) error {
	return session.Malformed(session.CodeInvalidConfig, format, args...)
}

// UnmarshalJSON decodes and validates a config strictly: numbers must be
// integers, strings strings, and the level and mode known.
func (c *Config) UnmarshalJSON(data []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil || fields == nil {
		return configError("config must be a JSON object")
	}
	var out Config
	var have [3]bool
	dims := [3]*int{&out.Rows, &out.Cols, &out.Mines}
	for i, name := range [3]string{"rows", "cols", "mines"} {
		raw, ok := fields[name]
		if !ok {
			continue
		}
		v, err := jsonInt(raw)
		if err != nil {
			return configError("%s must be an integer, got %s", name, clip(raw))
		}
		*dims[i], have[i] = v, true
	}
	if raw, ok := fields["level"]; ok {
		if err := json.Unmarshal(raw, &out.Level); err != nil || raw[0] != '"' {
			return configError("level must be a string, got %s", clip(raw))
		}
		if out.Level == "" {
			return configError("level must not be empty")
		}
	}
	if raw, ok := fields["mode"]; ok {
		var m string
		if err := json.Unmarshal(raw, &m); err != nil || raw[0] != '"' {
			return configError("mode must be a string, got %s", clip(raw))
		}
		out.Mode = Mode(m)
	}
	if have != [3]bool{} || out.Level == LevelCustom {
		for i, name := range [3]string{"rows", "cols", "mines"} {
			if !have[i] {
				return configError("%s is required with explicit dimensions", name)
			}
		}
	}
	switch lv, preset := LevelByID(out.Level); {
	case preset:
		for i, want := range [3]int{lv.Rows, lv.Cols, lv.Mines} {
			if have[i] && *dims[i] != want {
				return configError("%s %d contradicts level %s (%d)", [3]string{"rows", "cols", "mines"}[i], *dims[i], lv.ID, want)
			}
			*dims[i] = want
		}
	case out.Level != "" && out.Level != LevelCustom:
		return configError("unknown level %q", clip([]byte(out.Level)))
	case have == [3]bool{}: // {} or {"mode": ...}: the beginner level
		out.Rows, out.Cols, out.Mines = Levels[0].Rows, Levels[0].Cols, Levels[0].Mines
	}
	if err := out.Validate(); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		return configError("config must be a JSON object")
	}
	out.raw = buf.Bytes()
	*c = out
	return nil
}

// Validate checks the dimensions and the mode. Bounding the mines by
// rows*cols−1 is what makes generation terminate: the excluded zone is the
// clicked cell, or a 3×3 that leaves room for every mine (the reference
// hangs on {3,3,9}).
func (c *Config) Validate() error {
	switch {
	case c.Rows < 1 || c.Rows > MaxSide:
		return configError("rows must be an integer from 1 to %d, got %d", MaxSide, c.Rows)
	case c.Cols < 1 || c.Cols > MaxSide:
		return configError("cols must be an integer from 1 to %d, got %d", MaxSide, c.Cols)
	case c.Mines < 0 || c.Mines > c.Rows*c.Cols-1:
		return configError("mines must be an integer from 0 to rows*cols-1 = %d, got %d", c.Rows*c.Cols-1, c.Mines)
	}
	switch c.Mode {
	case "", ModeSolo, ModeCoop, ModeRace:
	default:
		return configError("unknown mode %q (want solo, coop or race)", clip([]byte(c.Mode)))
	}
	return nil
}

// ModeOrSolo returns the mode, solo when unset.
func (c Config) ModeOrSolo() Mode {
	if c.Mode == "" {
		return ModeSolo
	}
	return c.Mode
}

// Board names the leaderboard: the preset id when the dimensions equal a
// preset's, else "custom-RxCxM".
// levelIDs lists the ids of Levels: the boards with leaderboards.
func levelIDs() []string {
	out := make([]string, len(Levels))
	for i, l := range Levels {
		out[i] = l.ID
	}
	return out
}

func (c Config) Board() string {
	for _, l := range Levels {
		if l.Rows == c.Rows && l.Cols == c.Cols && l.Mines == c.Mines {
			return l.ID
		}
	}
	return fmt.Sprintf("custom-%dx%dx%d", c.Rows, c.Cols, c.Mines)
}

// Safe is the number of safe cells, rows*cols − mines.
func (c Config) Safe() int { return c.Rows*c.Cols - c.Mines }

// Raw returns the config's JSON: the input as given (compacted), or for a
// config built in Go, {"rows","cols","mines"} and the mode when not solo.
func (c Config) Raw() json.RawMessage {
	if c.raw != nil {
		return c.raw
	}
	b := []byte(`{"rows":`)
	b = strconv.AppendInt(b, int64(c.Rows), 10)
	b = append(b, `,"cols":`...)
	b = strconv.AppendInt(b, int64(c.Cols), 10)
	b = append(b, `,"mines":`...)
	b = strconv.AppendInt(b, int64(c.Mines), 10)
	if c.Mode != "" && c.Mode != ModeSolo {
		b = append(b, `,"mode":`...)
		b = strconv.AppendQuote(b, string(c.Mode))
	}
	return append(b, '}')
}

// Canonical is the config as a room keeps it: the mode, and the level —
// with the dimensions only for a custom board. Unknown keys and formatting
// are gone; decoding it gives the same config.
func (c Config) Canonical() json.RawMessage {
	b := []byte(`{"mode":`)
	b = strconv.AppendQuote(b, string(c.ModeOrSolo()))
	b = append(b, `,"level":`...)
	board := c.Board()
	if _, preset := LevelByID(board); preset {
		b = strconv.AppendQuote(b, board)
		return append(b, '}')
	}
	b = append(b, `"custom","rows":`...)
	b = strconv.AppendInt(b, int64(c.Rows), 10)
	b = append(b, `,"cols":`...)
	b = strconv.AppendInt(b, int64(c.Cols), 10)
	b = append(b, `,"mines":`...)
	b = strconv.AppendInt(b, int64(c.Mines), 10)
	return append(b, '}')
}

// MarshalJSON returns Raw.
func (c Config) MarshalJSON() ([]byte, error) { return c.Raw(), nil }

// jsonInt decodes a JSON number whose value is an integer (10, -3, 1e1,
// 2.0) of magnitude at most 2^31. Strings, fractions and other values fail.
func jsonInt(raw []byte) (int, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return 0, fmt.Errorf("not a number")
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<31 {
		return 0, fmt.Errorf("not an integer")
	}
	return int(f), nil
}

// clip shortens raw input quoted in an error.
func clip(raw []byte) string {
	const max = 40
	if len(raw) > max {
		return string(raw[:max]) + "…"
	}
	return string(raw)
}
