package snake

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/roomd/roomd/core/session"
)

// A checkpoint is the whole state but the config and seat count:
//
//	{"tick":912,"phase":"running",
//	 "snakes":[{"body":[[6,9],[6,8],[6,7]],"dir":"right","queue":["up"],"alive":true,"score":2},…],
//	 "food":[[3,9],[12,20],[17,1]],"key":"<64 hex digits>","draws":5}
//
// with, once over, "winners" and "why". The snakes are by seat, bodies head
// first; "queue" is omitted when empty and "food" is row-major. "key" is
// the food key and "draws" the food draws made: a checkpoint is as secret
// as the seed.
type checkpoint struct {
	Tick    uint64            `json:"tick"`
	Phase   string            `json:"phase"`
	Snakes  []snakeCheckpoint `json:"snakes"`
	Food    []Cell            `json:"food"`
	Key     string            `json:"key"`
	Draws   uint64            `json:"draws"`
	Winners []Seat            `json:"winners,omitempty"`
	Why     string            `json:"why,omitempty"`
}

type snakeCheckpoint struct {
	Body  []Cell `json:"body"`
	Dir   Dir    `json:"dir"`
	Queue []Dir  `json:"queue,omitempty"`
	Alive bool   `json:"alive"`
	Score int    `json:"score"`
}

// Checkpoint implements session.Checkpointer.
func (Rules) Checkpoint(s *State) ([]byte, error) {
	cp := checkpoint{
		Tick:   s.tick,
		Phase:  s.phase,
		Snakes: make([]snakeCheckpoint, len(s.snakes)),
		Food:   s.foodCells(),
		Key:    hex.EncodeToString(s.secret[:]),
		Draws:  s.draws,
		Why:    s.why,
	}
	for i := range s.snakes {
		sn := &s.snakes[i]
		cp.Snakes[i] = snakeCheckpoint{Body: s.body(i), Dir: sn.dir, Queue: slices.Clone(sn.queue[:sn.queued]),
			Alive: sn.alive, Score: sn.score}
	}
	if s.phase == PhaseOver {
		cp.Winners = slices.Clone(s.winners)
	}
	return json.Marshal(cp)
}

// Resume implements session.Checkpointer. It refuses a state no match
// reaches: a phase that does not fit the tick, snakes that are not one a
// seat, a body shorter than StartLength, not a chain of neighbouring
// cells, off the arena, crossing another or not behind its head's
// direction, a queue that breaks the queue's rules, food on a body or
// more food than the config keeps, a key that is not 32 bytes of hex, or
// an end that does not fit the snakes.
func (Rules) Resume(_ session.Seed, c Config, seats int, data []byte) (*State, error) {
	s, err := newState(c, seats)
	if err != nil {
		return nil, err
	}
	var cp checkpoint
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cp); err != nil {
		return nil, fmt.Errorf("snake checkpoint: %w", err)
	}
	if err := s.restore(&cp); err != nil {
		return nil, fmt.Errorf("snake checkpoint: %w", err)
	}
	return s, nil
}

// restore fills an empty arena from a checkpoint, checking it.
func (s *State) restore(cp *checkpoint) error {
	switch {
	case cp.Phase == PhaseCountdown && cp.Tick < Countdown:
	case cp.Phase == PhaseRunning && cp.Tick >= Countdown && cp.Tick < s.end:
	case cp.Phase == PhaseOver && cp.Tick > Countdown && cp.Tick <= s.end:
	default:
		return fmt.Errorf("phase %q at tick %d", session.Clip(cp.Phase), cp.Tick)
	}
	s.tick, s.phase, s.draws = cp.Tick, cp.Phase, cp.Draws
	if len(cp.Key) != hex.EncodedLen(len(s.secret)) {
		return errors.New(`"key" is not 64 hex digits`)
	}
	if _, err := hex.Decode(s.secret[:], []byte(cp.Key)); err != nil {
		return errors.New(`"key" is not 64 hex digits`)
	}
	if len(cp.Snakes) != len(s.snakes) {
		return fmt.Errorf("%d snakes for %d seats", len(cp.Snakes), len(s.snakes))
	}
	cells := s.g.Cells()
	alive := 0
	for i, sc := range cp.Snakes {
		if err := s.restoreSnake(i, sc); err != nil {
			return fmt.Errorf("snake %d: %w", i, err)
		}
		if sc.Alive {
			alive++
		}
	}
	if len(cp.Food) > s.food {
		return fmt.Errorf("%d food, more than %d", len(cp.Food), s.food)
	}
	for _, at := range cp.Food {
		if !s.g.InBounds(at[0], at[1]) || cells[s.key(at)] != cellEmpty {
			return fmt.Errorf("food on %v", at)
		}
		cells[s.key(at)] = cellFood
	}
	if s.phase != PhaseOver {
		if cp.Winners != nil || cp.Why != "" {
			return errors.New("winners before the end")
		}
		if (len(s.snakes) == 1 && alive != 1) || (len(s.snakes) > 1 && alive < 2) {
			return fmt.Errorf("%d snakes alive of %d and the match not over", alive, len(s.snakes))
		}
		return nil
	}
	s.why, s.winners = cp.Why, cp.Winners
	if s.winners == nil {
		s.winners = []Seat{}
	}
	if !slices.Contains([]string{WhyLast, WhyDraw, WhyTime, WhyDead}, s.why) {
		return fmt.Errorf("over for %q", session.Clip(s.why))
	}
	for k, w := range s.winners {
		if w < 0 || w >= len(s.snakes) || (k > 0 && w <= s.winners[k-1]) {
			return fmt.Errorf("winners %v", s.winners)
		}
	}
	return nil
}

// restoreSnake puts snake i of a checkpoint on the arena.
func (s *State) restoreSnake(i int, sc snakeCheckpoint) error {
	sn := &s.snakes[i]
	cells := s.g.Cells()
	switch {
	case !sc.Dir.Valid():
		return errors.New("no direction")
	case sc.Score < 0:
		return fmt.Errorf("score %d", sc.Score)
	case !sc.Alive && (len(sc.Body) > 0 || len(sc.Queue) > 0):
		return errors.New("dead with a body or a queue")
	case sc.Alive && (len(sc.Body) < StartLength || len(sc.Body) > len(sn.ring)):
		return fmt.Errorf("a body of %d cells", len(sc.Body))
	case len(sc.Queue) > QueueLen || (s.phase == PhaseOver && len(sc.Queue) > 0):
		return fmt.Errorf("a queue of %d turns", len(sc.Queue))
	}
	last := sc.Dir
	for _, d := range sc.Queue {
		if !d.Valid() || d == last || d == last.Reverse() {
			return fmt.Errorf("queue %v after %v", sc.Queue, sc.Dir)
		}
		last = d
	}
	for j, at := range sc.Body {
		if !s.g.InBounds(at[0], at[1]) || cells[s.key(at)] != cellEmpty {
			return fmt.Errorf("body cell %v", at)
		}
		if j > 0 {
			prev := sc.Body[j-1]
			if d := abs(prev[0]-at[0]) + abs(prev[1]-at[1]); d != 1 {
				return fmt.Errorf("body cells %v and %v are not neighbours", prev, at)
			}
		}
		cells[s.key(at)] = cellBody + cell(i)
	}
	if sc.Alive && (sc.Body[0] != Cell{sc.Body[1][0] + dirDelta[sc.Dir][0], sc.Body[1][1] + dirDelta[sc.Dir][1]}) {
		return fmt.Errorf("head %v is not %v of %v", sc.Body[0], sc.Dir, sc.Body[1])
	}
	for j := len(sc.Body) - 1; j >= 0; j-- {
		sn.push(s.key(sc.Body[j]))
	}
	sn.dir, sn.alive, sn.score = sc.Dir, sc.Alive, sc.Score
	sn.queued = copy(sn.queue[:], sc.Queue)
	return nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
