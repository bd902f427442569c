package babagame

import (
	"fmt"

	"github.com/roomd/roomd/core/baba"
	"github.com/roomd/roomd/core/session"
)

// Rejection codes of the game. Each is something a genuine client may send
// (its view a moment old), so replay skips it.
const (
	// CodeFinished refuses a step once the level is won (undo and restart
	// are still allowed).
	CodeFinished = "game:Finished"
	// CodeAtStart refuses an undo or a restart with no step to revert.
	CodeAtStart = "game:AtStart"
	// CodeTooManySteps refuses a step beyond MaxSteps.
	CodeTooManySteps = "game:TooManySteps"
)

// Phases reported by Status.
const (
	PhasePlaying = "playing"
	PhaseWon     = "won"
)

// Seat is a player seat, as in session.
type Seat = session.Seat

// State is a match. Only Rules changes it; views share nothing with it.
type State struct {
	config Config
	seats  int
	h      history
	// played counts every step ever accepted, undone ones included: the
	// match has started once it is positive, and in turns control the seat
	// to step is played mod seats.
	played int
	// snap is the engine's snapshot after the last command, for views and
	// for the next command's delta.
	snap baba.State
}

// turn is the seat whose turn it is in turns control.
func (s *State) turn() Seat { return s.played % s.seats }

// Rules are the rules of Baba as a roomd game. The zero value is ready to
// use.
type Rules struct{}

var (
	_ session.Rules[Config, *State, Move, Event, View] = Rules{}
	_ session.Mover[*State, Move, Event]               = Rules{}
	_ session.Checkpointer[Config, *State]             = Rules{}
)

// Init starts the config's level with no step played. The seed is not
// used: the game draws nothing at random.
func (Rules) Init(_ session.Seed, c Config, seats int) (*State, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("baba config: %w", err)
	}
	if seats < MinSeats || seats > MaxSeats {
		return nil, fmt.Errorf("baba: %d seats, want %d to %d", seats, MinSeats, MaxSeats)
	}
	l, _ := LevelByID(c.level())
	s := &State{config: c, seats: seats, h: newHistory(l)}
	s.snap = s.h.cur.Snapshot()
	return s, nil
}

// Apply plays a command. It refuses, leaving s untouched, a seat that is
// not in the match or a move no decoder returns (malformed); a step once
// won (CodeFinished), out of turn in turns control
// (session.CodeNotYourTurn) or beyond MaxSteps (CodeTooManySteps); and an
// undo or restart with nothing to revert (CodeAtStart). Any seat may undo
// or restart, in either control, and neither passes the turn. An accepted
// command gives one delta event.
func (Rules) Apply(s *State, in session.Input[Move]) (*State, []Event, error) {
	seat, m := in.Seat, in.Move
	switch {
	case seat < 0 || seat >= s.seats:
		return s, nil, session.Malformed(session.CodeNoSuchSeat, "seat %d is not in this match of %d", seat, s.seats)
	case !m.valid():
		return s, nil, session.Malformed(session.CodeMalformedInput, "not a command: %+v", m)
	}
	switch m.Type {
	case MoveStep:
		switch {
		case s.snap.Won:
			return s, nil, session.Reject(CodeFinished, "the level is won: undo or restart")
		case s.config.turns() && seat != s.turn():
			return s, nil, session.Reject(session.CodeNotYourTurn, "it is seat %d's turn", s.turn())
		case len(s.h.dirs) >= MaxSteps:
			return s, nil, session.Reject(CodeTooManySteps, "a match keeps at most %d steps: undo or restart", MaxSteps)
		}
		s.h.step(m.Dir)
		s.played++
	case MoveUndo, MoveRestart:
		if len(s.h.dirs) == 0 {
			return s, nil, session.Reject(CodeAtStart, "no step to %s", m.Type)
		}
		if m.Type == MoveUndo {
			s.h.undo()
		} else {
			s.h.restart()
		}
	}
	before := s.snap
	s.snap = s.h.cur.Snapshot()
	return s, []Event{s.delta(before)}, nil
}

// Status is playing until the level is won, and won (over, every seat a
// winner, unranked) while it is; an undo or restart after the win makes it
// playing again. The game clock starts at the first step.
func (Rules) Status(s *State) session.Status {
	st := session.Status{Phase: PhasePlaying, Started: s.played > 0}
	if s.snap.Won {
		st.Phase, st.Over = PhaseWon, true
		st.Outcome.Winners = make([]Seat, s.seats)
		for i := range st.Outcome.Winners {
			st.Outcome.Winners[i] = i
		}
	}
	return st
}

// Pending is every seat in shared control and the seat whose turn it is in
// turns control, or nobody once the level is won.
func (Rules) Pending(s *State) []Seat {
	switch {
	case s.snap.Won:
		return []Seat{}
	case s.config.turns():
		return []Seat{s.turn()}
	}
	out := make([]Seat, s.seats)
	for i := range out {
		out[i] = i
	}
	return out
}

// Project returns the same view to every viewer: nothing is hidden.
func (Rules) Project(s *State, _ Seat) View { return s.view() }

// ProjectEvents shows every viewer every event.
func (Rules) ProjectEvents(_ *State, events []Event, _ Seat) []Event { return events }

// Audience is 0 for everyone: every viewer sees the same, so a room encodes
// each view and each update once.
func (Rules) Audience(*State, Seat) int { return 0 }
