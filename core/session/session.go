package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// Clock returns the current time in milliseconds. It is injected: the
// session never reads a clock of its own.
type Clock func() float64

// Entry is one accepted move in the log. Seat 0 is omitted in JSON, so a
// solo log reads exactly like the reference's [{move, t}].
type Entry struct {
	Seat Seat            `json:"seat,omitempty"`
	Move json.RawMessage `json:"move"`
	T    float64         `json:"t"`
}

// UnmarshalJSON decodes an entry; a missing or null "t" becomes NaN so that
// replay can refuse it by name.
func (e *Entry) UnmarshalJSON(data []byte) error {
	var w struct {
		Seat *Seat           `json:"seat"`
		Move json.RawMessage `json:"move"`
		T    *float64        `json:"t"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return errors.New("log entry is null")
	}
	*e = Entry{Move: w.Move, T: math.NaN()}
	if w.Seat != nil {
		e.Seat = *w.Seat
	}
	if w.T != nil {
		e.T = *w.T
	}
	return nil
}

// Result is a finished match: what a leaderboard or a replay needs.
type Result struct {
	Status  string          `json:"status"`
	Time    float64         `json:"time"`
	Seed    int64           `json:"seed"`
	Config  json.RawMessage `json:"config"`
	Log     []Entry         `json:"log"`
	Winners []Seat          `json:"winners"`
}

// GameSession runs one match: it stamps every accepted move with the injected
// clock, keeps the move log and measures elapsed time from the first move
// that starts the game to the move that ends it.
type GameSession struct {
	game   Game
	match  Match
	seed   int64
	config json.RawMessage
	seats  int
	clock  Clock
	log    []Entry

	t0, tEnd         float64
	started, stopped bool
}

// NewSession starts a match of game. A nil clock always reads 0, like the
// reference's default.
func NewSession(game Game, seed int64, config json.RawMessage, seats int, clock Clock) (*GameSession, error) {
	m, err := game.New(seed, config, seats)
	if err != nil {
		return nil, err
	}
	if clock == nil {
		clock = func() float64 { return 0 }
	}
	return &GameSession{game: game, match: m, seed: seed, config: append(json.RawMessage(nil), config...), seats: seats, clock: clock}, nil
}

// Apply plays command for seat at the clock's current time.
func (s *GameSession) Apply(seat Seat, command json.RawMessage) (Step, error) {
	return s.ApplyAt(seat, command, s.clock())
}

// ApplyAt plays command for seat at time t (ms). Rejected commands are not
// logged and change nothing.
func (s *GameSession) ApplyAt(seat Seat, command json.RawMessage, t float64) (Step, error) {
	if math.IsNaN(t) || math.IsInf(t, 0) {
		return nil, Malformed(CodeMalformedInput, "timestamp %v is not a finite number", t)
	}
	if n := len(s.log); n > 0 && t < s.log[n-1].T {
		return nil, Malformed(CodeMalformedInput, "timestamp %v is before the previous move's %v", t, s.log[n-1].T)
	}
	st, err := s.match.Apply(seat, command)
	if err != nil {
		return nil, err
	}
	s.log = append(s.log, Entry{Seat: seat, Move: append(json.RawMessage(nil), command...), T: t})
	s.stamp(t)
	return st, nil
}

func (s *GameSession) stamp(t float64) {
	status := s.match.Status()
	if status.Started && !s.started {
		s.started, s.t0 = true, t
	}
	if status.Over && !s.stopped {
		s.stopped, s.tEnd = true, t
	}
}

// Game returns the session's game.
func (s *GameSession) Game() Game { return s.game }

// Match returns the running match, for views, audiences and AI moves.
func (s *GameSession) Match() Match { return s.match }

// Status reports the match's status.
func (s *GameSession) Status() Status { return s.match.Status() }

// Seed returns the seed as given.
func (s *GameSession) Seed() int64 { return s.seed }

// Config returns the config as given.
func (s *GameSession) Config() json.RawMessage { return s.config }

// Seats returns the number of seats in the match.
func (s *GameSession) Seats() int { return s.seats }

// Log returns the accepted moves. The slice must not be modified.
func (s *GameSession) Log() []Entry { return s.log }

// Elapsed is the authoritative game time in ms: 0 before the game starts,
// fixed once it ends, and otherwise the clock's time since the start.
func (s *GameSession) Elapsed() float64 {
	switch {
	case !s.started:
		return 0
	case s.stopped:
		return s.tEnd - s.t0
	default:
		return s.clock() - s.t0
	}
}

// Started returns the start time (ms) and whether the game has started.
func (s *GameSession) Started() (float64, bool) { return s.t0, s.started }

// Result returns the finished match, or false while it runs.
func (s *GameSession) Result() (Result, bool) {
	st := s.match.Status()
	if !st.Over {
		return Result{}, false
	}
	winners := st.Winners
	if winners == nil {
		winners = []Seat{}
	}
	return Result{Status: st.Phase, Time: s.Elapsed(), Seed: s.seed, Config: s.config, Log: s.log, Winners: winners}, true
}

// Restore rebuilds a session by replaying log from the seed. Every entry must
// be accepted again; one that is not means the log does not belong to these
// rules, and Restore fails naming it.
func Restore(game Game, seed int64, config json.RawMessage, seats int, log []Entry, clock Clock) (*GameSession, error) {
	s, err := NewSession(game, seed, config, seats, clock)
	if err != nil {
		return nil, err
	}
	s.log = make([]Entry, 0, len(log))
	for i, e := range log {
		if _, err := s.ApplyAt(e.Seat, e.Move, e.T); err != nil {
			return nil, fmt.Errorf("session: restore entry %d: %w", i, err)
		}
	}
	return s, nil
}
