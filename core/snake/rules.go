package snake

import (
	"slices"

	"github.com/roomd/roomd/core/grid"
	"github.com/roomd/roomd/core/session"
)

// Seat is a player seat, as in session.
type Seat = session.Seat

// Phases reported by Status and shown in views.
const (
	// PhaseCountdown is before tick Countdown has run: nothing moves yet.
	PhaseCountdown = "countdown"
	// PhaseRunning is from tick Countdown until the end.
	PhaseRunning = "running"
	// PhaseOver is the end.
	PhaseOver = "over"
)

// Why a snake died (the "why" of a die event).
const (
	// WhyWall: its head left the arena.
	WhyWall = "wall"
	// WhyBody: its head entered a body (its own or another's).
	WhyBody = "body"
	// WhyHead: its head met another head: both entered the same cell, or
	// two snakes swapped heads.
	WhyHead = "head"
)

// Why a match ended (the "why" of the over event and of the view).
const (
	// WhyLast: at most one snake is alive after a move; the one alive
	// wins, or, when the last ones died together, the one of them with
	// the highest score.
	WhyLast = "last"
	// WhyDraw: the last snakes died together, and more than one of them
	// has the highest score: they all win.
	WhyDraw = "draw"
	// WhyTime: time ran out; the live snakes with the highest score win.
	WhyTime = "time"
	// WhyDead: the snake of a one-seat match died (nobody wins).
	WhyDead = "dead"
)

// State is a match. Only Rules changes it; views share nothing with it.
// It owns the buffers Step returns and ProjectEvents fills: both are valid
// until the next Step.
type State struct {
	rows, cols int
	movesEvery int
	end        uint64 // the last tick: Countdown + timeLimit*Hz
	food       int    // food kept on the board

	tick    uint64
	phase   string
	g       *grid.Grid[cell]
	snakes  []snake
	secret  [32]byte // the food key: never in a view, an event or a log
	draws   uint64   // food draws made
	winners []Seat   // once over, sorted
	why     string   // once over

	events []Event               // the last step's, reused
	turned uint8                 // seats with a turn event in the last step
	proj   [MaxSeats][]Event     // ProjectEvents' per-seat buffers
	moving [MaxSeats]moveScratch // Step's per-snake scratch
}

// moveScratch is what a move resolves for one snake.
type moveScratch struct {
	next  int32 // the key of the new head; -1 outside the arena
	at    Cell  // the new head
	eats  bool
	why   string // why it dies; "" when it lives
	moves bool
}

// Rules are the rules of the snake arena. The zero value is ready to use.
type Rules struct{}

var (
	_ session.Rules[Config, *State, Move, Event, View] = Rules{}
	_ session.Stepper[*State, Move, Event]             = Rules{}
	_ session.Checkpointer[Config, *State]             = Rules{}
	_ session.AI[Move, View]                           = Rules{}
)

// Init places each seat's snake in its spawn slot (seat i in slot i) and
// the first food, drawn from a key made of the seed's first eight outputs.
// It refuses, with a session.CodeInvalidConfig rejection, more seats than
// the board holds, and fewer than one (a one-seat match is allowed for
// practice and tests, though the mode asks for two).
func (Rules) Init(seed session.Seed, c Config, seats int) (*State, error) {
	s, err := newState(c, seats)
	if err != nil {
		return nil, err
	}
	s.secret = drawKey(seed.Source())
	cells := s.g.Cells()
	for i := range s.snakes {
		body, d := spawn(s.rows, s.cols, i)
		sn := &s.snakes[i]
		sn.dir, sn.alive = d, true
		for j := len(body) - 1; j >= 0; j-- {
			k := s.key(body[j])
			sn.push(k)
			cells[k] = cellBody + cell(i)
		}
	}
	for range s.food {
		s.placeFood()
	}
	return s, nil
}

// newState returns an empty arena for c and seats: no snake placed, no
// food, no key.
func newState(c Config, seats int) (*State, error) {
	if err := c.Validate(); err != nil {
		return nil, session.Reject(session.CodeInvalidConfig, "snake config: %v", err)
	}
	b := c.board()
	if seats < 1 || seats > b.MaxSeats {
		return nil, session.Reject(session.CodeInvalidConfig, "snake: %d seats on the %s board, which holds 1 to %d", seats, b.ID, b.MaxSeats)
	}
	s := &State{
		rows:       b.Rows,
		cols:       b.Cols,
		movesEvery: movesEvery(c.speed()),
		end:        Countdown + uint64(c.timeLimit())*Hz,
		food:       c.food(),
		phase:      PhaseCountdown,
		g:          grid.New[cell](b.Rows, b.Cols, nil),
		snakes:     make([]snake, seats),
		events:     make([]Event, 0, 4*MaxSeats+4),
	}
	ring := make([]int32, seats*b.Rows*b.Cols)
	for i := range s.snakes {
		s.snakes[i].ring = ring[i*b.Rows*b.Cols : (i+1)*b.Rows*b.Cols : (i+1)*b.Rows*b.Cols]
	}
	return s, nil
}

// Status is "countdown" until tick Countdown has run, then "running" until
// the end; the match (and the session's clock) starts at tick Countdown.
// Once over, the winners are ranked by their score: the food they ate.
func (Rules) Status(s *State) session.Status {
	st := session.Status{Phase: s.phase, Started: s.tick >= Countdown, Over: s.phase == PhaseOver}
	if st.Over {
		st.Outcome = session.Outcome{Winners: slices.Clone(s.winners), Ranked: true}
		if len(s.winners) > 0 {
			st.Outcome.Score = float64(s.snakes[s.winners[0]].score)
		}
	}
	return st
}

// Pending lists the seats whose snake is alive, or none once over.
func (Rules) Pending(s *State) []Seat {
	if s.phase == PhaseOver {
		return nil
	}
	var out []Seat
	for i := range s.snakes {
		if s.snakes[i].alive {
			out = append(out, i)
		}
	}
	return out
}

// Project shows every viewer the whole arena. A seat's view adds its own
// snake's queued turns; a spectator's has no queue.
func (Rules) Project(s *State, viewer Seat) View {
	v := View{
		Rows:       s.rows,
		Cols:       s.cols,
		MovesEvery: s.movesEvery,
		Start:      Countdown,
		End:        s.end,
		Phase:      s.phase,
		Snakes:     make([]ViewSnake, len(s.snakes)),
		Food:       s.foodCells(),
	}
	for i := range s.snakes {
		sn := &s.snakes[i]
		vs := ViewSnake{Body: s.body(i), Dir: sn.dir, Alive: sn.alive, Score: sn.score}
		if i == viewer && sn.queued > 0 {
			vs.Queue = slices.Clone(sn.queue[:sn.queued])
		}
		v.Snakes[i] = vs
	}
	if s.phase == PhaseOver {
		v.Winners, v.Why = slices.Clone(s.winners), s.why
	}
	return v
}

// ProjectEvents shows a seat every event but the other seats' turns, and a
// spectator every event but the turns. The result may be events itself, a
// part of it, or a buffer of s kept for viewer (so that it allocates
// nothing once grown): it is valid until the next Step, and like Step it
// must be called from the match's goroutine.
func (Rules) ProjectEvents(s *State, events []Event, viewer Seat) []Event {
	hidden, prefix := 0, true
	for i := range events {
		if e := &events[i]; e.Type == EventTurn && e.Seat != viewer {
			hidden++
			prefix = prefix && hidden == i+1
		}
	}
	switch {
	case hidden == 0:
		return events
	case prefix:
		return events[hidden:] // Step puts the turns first: no copy
	}
	var out []Event
	if viewer >= 0 && viewer < len(s.snakes) {
		out = s.proj[viewer][:0]
	}
	for i := range events {
		if e := &events[i]; e.Type != EventTurn || e.Seat == viewer {
			out = append(out, *e)
		}
	}
	if viewer >= 0 && viewer < len(s.snakes) {
		s.proj[viewer] = out
	}
	return out
}

// Audience is viewer+1 for a seat that has turns queued or got a turn
// event at the last step, which it alone sees; 0 for every other viewer,
// who all see the same.
func (Rules) Audience(s *State, viewer Seat) int {
	if viewer < 0 || viewer >= len(s.snakes) || (s.snakes[viewer].queued == 0 && s.turned&(1<<viewer) == 0) {
		return 0
	}
	return viewer + 1
}
