package bot

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/snake"
	"github.com/roomd/roomd/protocol"
)

// snakeAdapter plays the snake arena, roombot's real-time game: players
// steer with the core's snake AI on their own followed view, which moves
// with every tick's beats (see bot.onTick and bot.realtimeMove).
type snakeAdapter struct{}

func (snakeAdapter) info() session.Info { return snake.Game.Info() }

func (snakeAdapter) help() string {
	return "                       real time (20 ticks a second): after each tick players\n" +
		"                       steer with the snake AI on their own followed view, one\n" +
		"                       input in flight at a time (see Pacing)\n" +
		"      --board SIZE     the arena: " + boardIDs() + "\n" +
		"                       (default medium; small holds at most 4 seats)\n" +
		"      --speed SPEED    slow, normal or fast: a move every 4, 3 or 2 ticks\n" +
		"                       (default normal)\n" +
		fmt.Sprintf("      --time-limit D   match time, %ds to %ds in whole seconds (default %ds)\n",
			snake.MinTimeLimit, snake.MaxTimeLimit, snake.DefaultTimeLimit) +
		"      --crash-host     the host's snake never turns: it runs into a wall a few\n" +
		"                       seconds into each match, which ends a match of two seats\n" +
		"                       (short matches, for tests)\n"
}

// boardIDs lists the arenas with their sizes.
func boardIDs() string {
	var ids []string
	for _, b := range snake.Boards() {
		ids = append(ids, fmt.Sprintf("%s (%d×%d)", b.ID, b.Rows, b.Cols))
	}
	return strings.Join(ids, ", ")
}

func (snakeAdapter) defaultMode() string { return snake.ModeArena }

// config is the scenario's snake config, checked flag by flag.
func (snakeAdapter) config(c *config) (snake.Config, error) {
	board, ok := snake.Board{}, false
	for _, b := range snake.Boards() {
		if b.ID == c.Board {
			board, ok = b, true
		}
	}
	if !ok {
		return snake.Config{}, fmt.Errorf("--board %q: want one of %s", c.Board, boardIDs())
	}
	if seats := c.Players + c.AI; seats > board.MaxSeats {
		return snake.Config{}, fmt.Errorf("--board %s holds at most %d seats, not %d (--players + --ai)", board.ID, board.MaxSeats, seats)
	}
	switch c.Speed {
	case snake.SpeedSlow, snake.SpeedNormal, snake.SpeedFast:
	default:
		return snake.Config{}, fmt.Errorf("--speed %q: want slow, normal or fast", c.Speed)
	}
	secs := c.TimeLimit / time.Second
	if c.TimeLimit%time.Second != 0 || secs < snake.MinTimeLimit || secs > snake.MaxTimeLimit {
		return snake.Config{}, fmt.Errorf("--time-limit %s: want whole seconds from %ds to %ds", c.TimeLimit, snake.MinTimeLimit, snake.MaxTimeLimit)
	}
	cfg := snake.Config{Mode: c.Mode, Board: board.ID, Speed: c.Speed, TimeLimit: int(secs)}
	return cfg, cfg.Validate()
}

func (a snakeAdapter) settings(c *config) (json.RawMessage, error) {
	cfg, err := a.config(c)
	if err != nil {
		return nil, err
	}
	return json.Marshal(cfg)
}

func (snakeAdapter) describe(c *config, s *scenarioInfo) {
	s.Mode, s.Board, s.Speed, s.TimeLimit, s.CrashHost = c.Mode, c.Board, c.Speed, c.TimeLimit.String(), c.CrashHost
}

// ineffective: no code of the game's own answers an input a player sends
// (a turn the snake cannot take is dropped by the rules, not refused).
func (snakeAdapter) ineffective(string) bool { return false }

func (snakeAdapter) decodeView(raw json.RawMessage) (snake.View, error) {
	var v snake.View
	err := json.Unmarshal(raw, &v)
	return v, err
}

// decodeBeats reads a tick's beats: the hot path of a real-time game, 20
// times a second per bot. Most ticks carry none ("[]") or a move; beats in
// the form the server writes (snake.Event.AppendJSON) are read by hand, and
// anything else by the game's own decoder.
func (snakeAdapter) decodeBeats(raw json.RawMessage) ([]snake.Event, error) {
	if evs, ok := decodeSnakeBeats(raw); ok {
		return evs, nil
	}
	var evs []snake.Event
	err := json.Unmarshal(raw, &evs)
	return evs, err
}

// clone copies everything Apply changes: bodies, queues and food are
// edited in place.
func (snakeAdapter) clone(v snake.View) snake.View {
	v.Snakes = slices.Clone(v.Snakes)
	for i := range v.Snakes {
		v.Snakes[i].Body = slices.Clone(v.Snakes[i].Body)
		v.Snakes[i].Queue = slices.Clone(v.Snakes[i].Queue)
	}
	v.Food = slices.Clone(v.Food)
	v.Winners = slices.Clone(v.Winners)
	return v
}

func (snakeAdapter) apply(v *snake.View, beats []snake.Event) error {
	v.Apply(beats)
	return nil
}

func (snakeAdapter) choose(v snake.View, seat int) (json.RawMessage, bool) {
	mv, ok := snake.Rules{}.Choose(v, seat, botChoice)
	if !ok {
		return nil, false
	}
	return mv.AppendJSON(make([]byte, 0, 32)), true
}

func (snakeAdapter) encode(v snake.View) []byte { return v.AppendJSON(nil) }

// encodePublic drops the queues: only their own players see them, and a
// match its room ended (a resignation) discloses nothing of them.
func (snakeAdapter) encodePublic(v snake.View) []byte {
	snakes := make([]snake.ViewSnake, len(v.Snakes))
	for i, sn := range v.Snakes {
		sn.Queue = nil
		snakes[i] = sn
	}
	v.Snakes = snakes
	return v.AppendJSON(nil)
}

func (snakeAdapter) quirk(followed, server snake.View) bool { return false }

// leaks checks the snapshots and updates of a match (its ticks are checked
// as they come, by tickLeaks): no view shows the queue of a snake other
// than the viewer's own (a spectator's: of any), and no beat another
// seat's turn. The seed is looked for by checkLeaks.
func (a snakeAdapter) leaks(frames []frame[snake.View, snake.Event], res protocol.Result, seat int) []finding {
	var out []finding
	for _, f := range frames {
		for _, v := range f.views {
			for i, sn := range v.Snakes {
				if len(sn.Queue) > 0 && i != seat {
					out = append(out, finding{vLeakTurn, fmt.Sprintf("match %d: %s got seat %d's queued turns %v in a view", res.Match, viewer(seat), i, sn.Queue)})
				}
			}
		}
		for _, fd := range a.tickLeaks(f.beats, seat) {
			fd.detail = fmt.Sprintf("match %d: %s", res.Match, fd.detail)
			out = append(out, fd)
		}
	}
	return out
}

// tickLeaks finds turn beats of other seats: a seat's queued turn is its
// own secret until its snake moves.
func (snakeAdapter) tickLeaks(beats []snake.Event, seat int) []finding {
	var out []finding
	for _, e := range beats {
		if e.Type == snake.EventTurn && e.Seat != seat {
			out = append(out, finding{vLeakTurn, fmt.Sprintf("%s got seat %d's turn %v", viewer(seat), e.Seat, e.Dir)})
		}
	}
	return out
}

func viewer(seat int) string {
	if seat < 0 {
		return "a spectator"
	}
	return fmt.Sprintf("seat %d", seat)
}

// inputsShown counts seat's turn beats: an input that takes effect queues
// one turn at most (none when the rules drop it).
func (snakeAdapter) inputsShown(evs []snake.Event, seat int) int {
	n := 0
	for _, e := range evs {
		if e.Type == snake.EventTurn && e.Seat == seat {
			n++
		}
	}
	return n
}

// decodeSnakeBeats reads beats written exactly as snake.Event.AppendJSON
// writes them, in an array without spaces; ok is false for anything else
// (the caller then decodes the general way, which also names errors). "[]"
// allocates nothing.
func decodeSnakeBeats(raw []byte) (evs []snake.Event, ok bool) {
	p := beatParser{b: raw}
	if !p.lit(`[`) {
		return nil, false
	}
	if p.lit(`]`) {
		return nil, p.i == len(p.b)
	}
	for {
		e, good := p.event()
		if !good {
			return nil, false
		}
		evs = append(evs, e)
		if p.lit(`]`) {
			return evs, p.i == len(p.b)
		}
		if !p.lit(`,`) {
			return nil, false
		}
	}
}

// beatParser reads the canonical JSON of snake events from b at i.
type beatParser struct {
	b []byte
	i int
}

func (p *beatParser) lit(s string) bool {
	if len(p.b)-p.i >= len(s) && string(p.b[p.i:p.i+len(s)]) == s {
		p.i += len(s)
		return true
	}
	return false
}

// int reads a non-negative integer of at most 9 digits.
func (p *beatParser) int() (int, bool) {
	start, v := p.i, 0
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' && p.i-start < 9 {
		v = v*10 + int(p.b[p.i]-'0')
		p.i++
	}
	n := p.i - start
	return v, n > 0 && (n == 1 || p.b[start] != '0')
}

// str reads a string of printable ASCII without escapes.
func (p *beatParser) str() (string, bool) {
	if !p.lit(`"`) {
		return "", false
	}
	start := p.i
	for p.i < len(p.b) {
		switch c := p.b[p.i]; {
		case c == '"':
			p.i++
			return string(p.b[start : p.i-1]), true
		case c < 0x20 || c == '\\' || c >= 0x7f || c == '<' || c == '>' || c == '&':
			return "", false
		}
		p.i++
	}
	return "", false
}

// cell reads [r,c].
func (p *beatParser) cell() (snake.Cell, bool) {
	if !p.lit(`[`) {
		return snake.Cell{}, false
	}
	r, ok1 := p.int()
	if !ok1 || !p.lit(`,`) {
		return snake.Cell{}, false
	}
	c, ok2 := p.int()
	return snake.Cell{r, c}, ok2 && p.lit(`]`)
}

// event reads one event in its canonical form.
func (p *beatParser) event() (snake.Event, bool) {
	switch {
	case p.lit(`{"t":"move","d":"`):
		e := snake.Event{Type: snake.EventMove}
		for p.i < len(p.b) && p.b[p.i] != '"' {
			if e.Moves.N == snake.MaxSeats || !strings.ContainsRune("udlr.", rune(p.b[p.i])) {
				return e, false
			}
			e.Moves.D[e.Moves.N] = p.b[p.i]
			e.Moves.N++
			p.i++
		}
		return e, p.lit(`"}`)
	case p.lit(`{"t":"food","at":`):
		at, ok := p.cell()
		return snake.Event{Type: snake.EventFood, At: at}, ok && p.lit(`}`)
	case p.lit(`{"t":"turn","s":`):
		s, ok := p.int()
		if !ok || !p.lit(`,"d":`) {
			return snake.Event{}, false
		}
		name, ok := p.str()
		d, valid := snake.ParseDir(name)
		return snake.Event{Type: snake.EventTurn, Seat: s, Dir: d}, ok && valid && p.lit(`}`)
	case p.lit(`{"t":"go"}`):
		return snake.Event{Type: snake.EventGo}, true
	case p.lit(`{"t":"die","s":`):
		s, ok := p.int()
		if !ok || !p.lit(`,"at":`) {
			return snake.Event{}, false
		}
		at, ok := p.cell() // a wall's cell off the arena at -1 is left to the general decoder
		if !ok || !p.lit(`,"why":`) {
			return snake.Event{}, false
		}
		why, ok := p.str()
		return snake.Event{Type: snake.EventDie, Seat: s, At: at, Why: why}, ok && p.lit(`}`)
	case p.lit(`{"t":"over","winners":[`):
		e := snake.Event{Type: snake.EventOver, Winners: []snake.Seat{}}
		for !p.lit(`]`) {
			if len(e.Winners) > 0 && !p.lit(`,`) {
				return e, false
			}
			w, ok := p.int()
			if !ok {
				return e, false
			}
			e.Winners = append(e.Winners, w)
		}
		if !p.lit(`,"why":`) {
			return e, false
		}
		why, ok := p.str()
		e.Why = why
		return e, ok && p.lit(`}`)
	}
	return snake.Event{}, false
}
