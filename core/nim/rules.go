package nim

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/roomd/roomd/core/session"
)

// CodeTooMany refuses a take larger than the pile. Like a move out of turn
// it is something a genuine client may send, so replay skips it.
const CodeTooMany = "game:TooMany"

// Seat limits of the classic mode.
const (
	MinSeats = 2
	MaxSeats = 4
)

// Phases reported by Status.
const (
	PhaseActive = "active"
	PhaseOver   = "over"
)

// Seat is a player seat, as in session.
type Seat = session.Seat

// State is a match. Only Rules changes it; views share no slice of it but
// the config bytes, which never change.
type State struct {
	config  json.RawMessage // as views echo it
	seats   int
	pile    int
	turn    Seat // the seat to act; once over, the seat that took last
	secrets []int
	history []Take
	over    bool
	winner  Seat
}

// Pile returns the items left.
func (s *State) Pile() int { return s.pile }

// Secrets returns every seat's secret, by seat. It is for tests and tools:
// clients learn secrets only through views.
func (s *State) Secrets() []int { return slices.Clone(s.secrets) }

// Rules are the rules of Hidden Nim. The zero value is ready to use.
type Rules struct{}

var (
	_ session.Rules[Config, *State, Move, Event, View] = Rules{}
	_ session.Mover[*State, Move, Event]               = Rules{}
	_ session.AI[Move, View]                           = Rules{}
)

// Init deals every seat its secret, 1 to 3, from seed.Source(): seat 0
// first. Seat 0 moves first.
func (Rules) Init(seed session.Seed, c Config, seats int) (*State, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("nim config: %w", err)
	}
	if seats < MinSeats || seats > MaxSeats {
		return nil, fmt.Errorf("nim: %d seats, want %d to %d", seats, MinSeats, MaxSeats)
	}
	rng := seed.Source()
	secrets := make([]int, seats)
	for i := range secrets {
		secrets[i] = deal(rng)
	}
	return &State{config: c.echo(), seats: seats, pile: c.pile(), secrets: secrets, history: []Take{}}, nil
}

// Apply plays a take. Whoever takes the last item wins, unless it took
// exactly its secret on that turn: then it loses and the next seat in turn
// order wins.
func (Rules) Apply(s *State, in session.Input[Move]) (*State, []Event, error) {
	seat, m := in.Seat, in.Move
	switch {
	case seat < 0 || seat >= s.seats:
		return s, nil, session.Malformed(session.CodeNoSuchSeat, "seat %d is not in this match of %d", seat, s.seats)
	case m.N < MinTake || m.N > MaxTake:
		return s, nil, session.Malformed(session.CodeInvalidMove, "take n must be 1, 2 or 3, got %d", m.N)
	case s.over:
		return s, nil, session.Reject(session.CodeGameOver, "the game is over")
	case seat != s.turn:
		return s, nil, session.Reject(session.CodeNotYourTurn, "it is seat %d's turn", s.turn)
	case m.N > s.pile:
		return s, nil, session.Reject(CodeTooMany, "take %d from a pile of %d", m.N, s.pile)
	}
	s.pile -= m.N
	s.history = append(s.history, Take{Seat: seat, N: m.N})
	events := []Event{{Type: EventTook, Seat: seat, N: m.N, Pile: s.pile}}
	if s.pile > 0 {
		s.turn = (seat + 1) % s.seats
		return s, events, nil
	}
	s.over = true
	s.winner = seat
	if m.N == s.secrets[seat] {
		s.winner = (seat + 1) % s.seats
	}
	events = append(events, Event{Type: EventEnd, Winner: s.winner, LastTaker: seat, Secrets: slices.Clone(s.secrets)})
	return s, events, nil
}

// Status is active until the last item is taken. The game clock starts at
// the first take.
func (Rules) Status(s *State) session.Status {
	st := session.Status{Phase: PhaseActive, Started: len(s.history) > 0, Over: s.over}
	if s.over {
		st.Phase = PhaseOver
		st.Outcome.Winners = []Seat{s.winner}
	}
	return st
}

// Pending is the seat to act, or nobody once the game is over.
func (Rules) Pending(s *State) []Seat {
	if s.over {
		return []Seat{}
	}
	return []Seat{s.turn}
}

// Project shows viewer the pile, the turn and the history, which are
// public, and its own secret; a spectator, or a viewer that is no seat, sees
// no secret. Once the game is over everyone sees the same view, with every
// secret and the winner.
func (Rules) Project(s *State, viewer Seat) View {
	v := View{
		Config:  s.config,
		Pile:    s.pile,
		Turn:    s.turn,
		Seats:   s.seats,
		History: append([]Take{}, s.history...),
		Over:    s.over,
	}
	if s.over {
		w := s.winner
		v.Winner = &w
		v.Secrets = slices.Clone(s.secrets)
		return v
	}
	if viewer >= 0 && viewer < s.seats {
		you, secret := viewer, s.secrets[viewer]
		v.You, v.Secret = &you, &secret
	}
	return v
}

// ProjectEvents shows every viewer the same events: takes are public, and
// the only event with secrets is the end event, which Apply emits once the
// game is over, when every secret is public.
func (Rules) ProjectEvents(_ *State, events []Event, _ Seat) []Event { return events }

// Audience is seat+1 for a seat while the game runs, since seats differ by
// their own secret, and 0 for spectators; once over, 0 for everyone.
func (Rules) Audience(s *State, viewer Seat) int {
	if s.over || viewer < 0 || viewer >= s.seats {
		return 0
	}
	return viewer + 1
}
