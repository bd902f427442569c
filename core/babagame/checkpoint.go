package babagame

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/roomd/roomd/core/baba"
	"github.com/roomd/roomd/core/session"
)

// A checkpoint is the level's id, its accepted directions as one letter
// each ('u', 'd', 'l', 'r') and the count of steps ever played, undone ones
// included (it starts the clock and gives the turn):
//
//	{"level":"rock-is-you","steps":"uurddd","played":7}
//
// Everything else follows by replaying the steps, which Resume does.
type checkpoint struct {
	Level  *string `json:"level"`
	Steps  *string `json:"steps"`
	Played *int    `json:"played"`
}

// dirLetters are the directions' letters, in baba.Dir order.
const dirLetters = "udlr"

// Checkpoint implements session.Checkpointer.
func (Rules) Checkpoint(s *State) ([]byte, error) {
	steps := make([]byte, len(s.h.dirs))
	for i, d := range s.h.dirs {
		steps[i] = dirLetters[d]
	}
	id, str := s.h.level.ID, string(steps)
	return json.Marshal(checkpoint{Level: &id, Steps: &str, Played: &s.played})
}

// Resume implements session.Checkpointer. It replays the steps from the
// level's start, and refuses a checkpoint of another level, an unknown
// letter, more than MaxSteps steps, fewer steps played than kept, or a step
// after the level was won.
func (Rules) Resume(seed session.Seed, c Config, seats int, data []byte) (*State, error) {
	s, err := Rules{}.Init(seed, c, seats)
	if err != nil {
		return nil, err
	}
	var cp checkpoint
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cp); err != nil {
		return nil, fmt.Errorf("baba checkpoint: %w", err)
	}
	switch {
	case cp.Level == nil || cp.Steps == nil || cp.Played == nil:
		return nil, errors.New(`baba checkpoint: needs "level", "steps" and "played"`)
	case *cp.Level != s.h.level.ID:
		return nil, fmt.Errorf("baba checkpoint: level %q in a match of %q", session.Clip(*cp.Level), s.h.level.ID)
	case len(*cp.Steps) > MaxSteps:
		return nil, fmt.Errorf("baba checkpoint: %d steps, more than %d", len(*cp.Steps), MaxSteps)
	case *cp.Played < len(*cp.Steps):
		return nil, fmt.Errorf("baba checkpoint: %d steps kept of %d played", len(*cp.Steps), *cp.Played)
	}
	s.h.dirs = make([]baba.Dir, 0, len(*cp.Steps))
	for i, r := range []byte(*cp.Steps) {
		d := strings.IndexByte(dirLetters, r)
		if d < 0 {
			return nil, fmt.Errorf("baba checkpoint: step %d is %q", i, r)
		}
		if s.h.cur.Won() {
			return nil, fmt.Errorf("baba checkpoint: step %d after the level was won", i)
		}
		s.h.step(baba.Dir(d))
	}
	s.played = *cp.Played
	s.snap = s.h.cur.Snapshot()
	return s, nil
}
