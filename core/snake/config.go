package snake

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/roomd/roomd/core/session"
)

// ModeArena is the only mode.
const ModeArena = "arena"

// Seat limits of the mode. A board may allow fewer (Board.MaxSeats).
const (
	MinSeats = 2
	MaxSeats = 8
)

// Board ids.
const (
	BoardSmall  = "small"
	BoardMedium = "medium"
	BoardLarge  = "large"
)

// Speed ids.
const (
	SpeedSlow   = "slow"
	SpeedNormal = "normal"
	SpeedFast   = "fast"
)

// Config limits and defaults.
const (
	// DefaultTimeLimit is the match's length in seconds, after the
	// countdown, of a config that names none.
	DefaultTimeLimit = 120
	// MinTimeLimit and MaxTimeLimit bound a config's time limit (seconds).
	MinTimeLimit = 30
	MaxTimeLimit = 600
	// DefaultFood is how many food cells lie on the board at a time.
	DefaultFood = 3
	// MaxFood bounds a config's food.
	MaxFood = 16
)

// Board is an arena: its size and how many seats it holds.
type Board struct {
	ID         string
	Rows, Cols int
	MaxSeats   int
}

// boards are the arenas, smallest first.
var boards = [...]Board{
	{ID: BoardSmall, Rows: 16, Cols: 16, MaxSeats: 4},
	{ID: BoardMedium, Rows: 24, Cols: 24, MaxSeats: 8},
	{ID: BoardLarge, Rows: 32, Cols: 32, MaxSeats: 8},
}

// Boards returns the arenas, smallest first.
func Boards() []Board { return append([]Board(nil), boards[:]...) }

// speeds maps a speed id to the ticks between two moves.
var speeds = [...]struct {
	id         string
	movesEvery int
}{{SpeedSlow, 4}, {SpeedNormal, 3}, {SpeedFast, 2}}

// Config is how a match is set up. Its JSON form is
//
//	{"mode":"arena","board":"medium","speed":"normal","timeLimit":120,"food":3}
//
// with every member optional (those are the defaults); it is encoded in
// full, defaults applied. The zero value is the default game.
type Config struct {
	// Mode is the mode's id. "" means ModeArena, the only one.
	Mode string
	// Board is the arena: BoardSmall (16×16, up to 4 seats), BoardMedium
	// (24×24) or BoardLarge (32×32). "" means BoardMedium.
	Board string
	// Speed is how often snakes move: SpeedSlow (every 4 ticks),
	// SpeedNormal (3) or SpeedFast (2). "" means SpeedNormal.
	Speed string
	// TimeLimit is the match's length in seconds after the countdown,
	// MinTimeLimit to MaxTimeLimit. Zero means DefaultTimeLimit.
	TimeLimit int
	// Food is how many food cells lie on the board at a time, 1 to
	// MaxFood. Zero means DefaultFood.
	Food int
}

// UnmarshalJSON decodes a config strictly: an object whose members may be
// "mode" ("arena"), "board", "speed" (one of their ids), "timeLimit" and
// "food" (integers within their bounds), each at most once.
func (c *Config) UnmarshalJSON(data []byte) error {
	ms, err := session.Members(data)
	if errors.Is(err, session.ErrNotObject) {
		return errors.New("config must be a JSON object")
	}
	if err != nil {
		return err
	}
	out := Config{Mode: ModeArena}
	for _, m := range ms {
		switch m.Key {
		case "mode":
			var mode string
			if err := json.Unmarshal(m.Value, &mode); err != nil || mode != ModeArena {
				return fmt.Errorf("mode must be %q, got %s", ModeArena, session.Clip(string(m.Value)))
			}
		case "board":
			var id string
			if err := json.Unmarshal(m.Value, &id); err != nil || !validBoard(id) {
				return fmt.Errorf(`board must be "small", "medium" or "large", got %s`, session.Clip(string(m.Value)))
			}
			out.Board = id
		case "speed":
			var id string
			if err := json.Unmarshal(m.Value, &id); err != nil || movesEvery(id) == 0 {
				return fmt.Errorf(`speed must be "slow", "normal" or "fast", got %s`, session.Clip(string(m.Value)))
			}
			out.Speed = id
		case "timeLimit":
			v, ok := session.Whole(m.Value)
			if !ok || v < MinTimeLimit || v > MaxTimeLimit {
				return fmt.Errorf("timeLimit must be an integer from %d to %d, got %s", MinTimeLimit, MaxTimeLimit, session.Clip(string(m.Value)))
			}
			out.TimeLimit = int(v)
		case "food":
			v, ok := session.Whole(m.Value)
			if !ok || v < 1 || v > MaxFood {
				return fmt.Errorf("food must be an integer from 1 to %d, got %s", MaxFood, session.Clip(string(m.Value)))
			}
			out.Food = int(v)
		default:
			return fmt.Errorf(`unknown config field %q (want "mode", "board", "speed", "timeLimit" or "food")`, session.Clip(m.Key))
		}
	}
	*c = out
	return nil
}

// MarshalJSON writes the config in full, defaults applied: its canonical
// form.
func (c Config) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Mode      string `json:"mode"`
		Board     string `json:"board"`
		Speed     string `json:"speed"`
		TimeLimit int    `json:"timeLimit"`
		Food      int    `json:"food"`
	}{ModeArena, c.board().ID, c.speed(), c.timeLimit(), c.food()})
}

// Validate checks a config built in Go; decoding checks JSON configs.
func (c *Config) Validate() error {
	switch {
	case c.Mode != "" && c.Mode != ModeArena:
		return fmt.Errorf("mode must be %q, got %q", ModeArena, session.Clip(c.Mode))
	case c.Board != "" && !validBoard(c.Board):
		return fmt.Errorf(`board must be "small", "medium" or "large", got %q`, session.Clip(c.Board))
	case c.Speed != "" && movesEvery(c.Speed) == 0:
		return fmt.Errorf(`speed must be "slow", "normal" or "fast", got %q`, session.Clip(c.Speed))
	case c.TimeLimit != 0 && (c.TimeLimit < MinTimeLimit || c.TimeLimit > MaxTimeLimit):
		return fmt.Errorf("timeLimit must be an integer from %d to %d, got %d", MinTimeLimit, MaxTimeLimit, c.TimeLimit)
	case c.Food < 0 || c.Food > MaxFood:
		return fmt.Errorf("food must be an integer from 1 to %d, got %d", MaxFood, c.Food)
	}
	return nil
}

// board is the config's arena, the default applied.
func (c Config) board() Board {
	if b, ok := boardOf(c.Board); ok {
		return b
	}
	b, _ := boardOf(BoardMedium)
	return b
}

// speed is the config's speed id, the default applied.
func (c Config) speed() string {
	if c.Speed == "" {
		return SpeedNormal
	}
	return c.Speed
}

// timeLimit is the config's time limit in seconds, the default applied.
func (c Config) timeLimit() int {
	if c.TimeLimit == 0 {
		return DefaultTimeLimit
	}
	return c.TimeLimit
}

// food is the config's food count, the default applied.
func (c Config) food() int {
	if c.Food == 0 {
		return DefaultFood
	}
	return c.Food
}

// boardOf returns the arena named id.
func boardOf(id string) (Board, bool) {
	for _, b := range boards {
		if b.ID == id {
			return b, true
		}
	}
	return Board{}, false
}

func validBoard(id string) bool { _, ok := boardOf(id); return ok }

// movesEvery returns the ticks between two moves at speed id, or 0 for an
// unknown id.
func movesEvery(id string) int {
	for _, s := range speeds {
		if s.id == id {
			return s.movesEvery
		}
	}
	return 0
}
