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

// Entry is one accepted move in the log. Seat 0 and tick 0 are omitted in
// JSON, so a solo log reads exactly like the reference's [{move, t}].
type Entry struct {
	Seat Seat            `json:"seat,omitempty"`
	Move json.RawMessage `json:"move"`
	T    float64         `json:"t"`
	// Tick is the tick a fixed-step game's input took effect at.
	Tick uint64 `json:"tick,omitempty"`
}

// UnmarshalJSON decodes an entry; a missing or null "t" becomes NaN so that
// replay can refuse it by name.
func (e *Entry) UnmarshalJSON(data []byte) error {
	var w struct {
		Seat *Seat           `json:"seat"`
		Move json.RawMessage `json:"move"`
		T    *float64        `json:"t"`
		Tick uint64          `json:"tick"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return errors.New("log entry is null")
	}
	*e = Entry{Move: w.Move, T: math.NaN(), Tick: w.Tick}
	if w.Seat != nil {
		e.Seat = *w.Seat
	}
	if w.T != nil {
		e.T = *w.T
	}
	return nil
}

// Header is what a match was started from: with its log, everything needed
// to play it again.
type Header struct {
	Game         string          `json:"game"`
	RulesVersion string          `json:"rulesVersion"`
	Seed         Seed            `json:"seed"`
	Config       json.RawMessage `json:"config"`
	Seats        int             `json:"seats"`
}

// Checkpoint is a saved point of a match: the game's own encoding of its
// state after the first At log entries, and the session's clock marks.
// Restoring from it replays only the entries after At.
type Checkpoint struct {
	At      int             `json:"at"`
	Tick    uint64          `json:"tick,omitempty"`
	Started bool            `json:"started,omitempty"`
	T0      float64         `json:"t0,omitempty"`
	Stopped bool            `json:"stopped,omitempty"`
	TEnd    float64         `json:"tEnd,omitempty"`
	State   json.RawMessage `json:"state"`
}

// ErrRulesVersion is wrapped by Restore when a match was played under
// other rules than the game's now: its log means nothing under these.
var ErrRulesVersion = errors.New("the match was played under other rules")

// Result is a finished match: what a leaderboard or a replay needs.
type Result struct {
	Status  string          `json:"status"`
	Time    float64         `json:"time"`
	Seed    Seed            `json:"seed"`
	Config  json.RawMessage `json:"config"`
	Log     []Entry         `json:"log"`
	Outcome Outcome         `json:"outcome"`
}

// GameSession runs one match: it stamps every accepted move with the injected
// clock, keeps the move log, measures elapsed time from the first move that
// starts the game to the move that ends it, and — for a fixed-step game —
// queues inputs for the next tick and runs the ticks.
type GameSession struct {
	game   Game
	match  Match
	seed   Seed
	config json.RawMessage
	seats  int
	clock  Clock
	log    []Entry

	stepMs  float64   // a fixed-step game's step length; 0 otherwise
	tick    uint64    // ticks run
	inputs  []Command // queued for the next tick
	scratch []Command

	t0, tEnd         float64
	started, stopped bool
}

// NewSession starts a match of game. A nil clock always reads 0, like the
// reference's default.
func NewSession(game Game, seed Seed, config json.RawMessage, seats int, clock Clock) (*GameSession, error) {
	m, err := game.New(seed, config, seats)
	if err != nil {
		return nil, err
	}
	return newSession(game, m, Header{Seed: seed, Config: config, Seats: seats}, clock), nil
}

func newSession(game Game, m Match, h Header, clock Clock) *GameSession {
	if clock == nil {
		clock = func() float64 { return 0 }
	}
	s := &GameSession{game: game, match: m, seed: h.Seed, config: append(json.RawMessage(nil), h.Config...), seats: h.Seats, clock: clock}
	if r := game.Info().Tick; r != nil {
		s.stepMs = r.StepMs()
	}
	return s
}

// Header returns what the match was started from.
func (s *GameSession) Header() Header {
	info := s.game.Info()
	return Header{Game: info.ID, RulesVersion: info.RulesVersion, Seed: s.seed, Config: s.config, Seats: s.seats}
}

// Apply plays command for seat at the clock's current time.
func (s *GameSession) Apply(seat Seat, command json.RawMessage) (Step, error) {
	return s.ApplyAt(seat, command, s.clock())
}

func (s *GameSession) checkTime(t float64) error {
	if math.IsNaN(t) || math.IsInf(t, 0) {
		return Malformed(CodeMalformedInput, "timestamp %v is not a finite number", t)
	}
	if n := len(s.log); n > 0 && t < s.log[n-1].T {
		return Malformed(CodeMalformedInput, "timestamp %v is before the previous move's %v", t, s.log[n-1].T)
	}
	return nil
}

// ApplyAt plays command for seat at time t (ms). The log keeps the
// command's canonical form (Step.Move), never the caller's bytes. Rejected
// commands are not logged and change nothing. A fixed-step game takes
// Input instead.
func (s *GameSession) ApplyAt(seat Seat, command json.RawMessage, t float64) (Step, error) {
	if err := s.checkTime(t); err != nil {
		return nil, err
	}
	st, err := s.match.Apply(Command{Seat: seat, Move: command, T: t})
	if err != nil {
		return nil, err
	}
	s.log = append(s.log, Entry{Seat: seat, Move: st.Move(), T: t})
	s.stamp(t)
	return st, nil
}

// Input queues a fixed-step game's input for the next tick, logs it with
// that tick and returns the tick. A malformed input is refused and not
// logged.
func (s *GameSession) Input(seat Seat, command json.RawMessage, t float64) (uint64, error) {
	if s.stepMs == 0 {
		return 0, ErrNotStepped
	}
	if err := s.checkTime(t); err != nil {
		return 0, err
	}
	move, err := s.match.Check(Command{Seat: seat, Move: command, T: t})
	if err != nil {
		return 0, err
	}
	c := Command{Seat: seat, Move: move, T: t}
	tick := s.tick + 1
	s.inputs = append(s.inputs, c)
	s.log = append(s.log, Entry{Seat: seat, Move: c.Move, T: t, Tick: tick})
	return tick, nil
}

// Advance runs the next tick of a fixed-step game with the inputs queued
// for it.
func (s *GameSession) Advance() (Step, error) {
	if s.stepMs == 0 {
		return nil, ErrNotStepped
	}
	s.tick++
	s.scratch, s.inputs = s.inputs, s.scratch[:0]
	st, err := s.match.Advance(s.tick, s.scratch)
	clear(s.scratch)
	if err != nil {
		return nil, err
	}
	s.stamp(float64(s.tick) * s.stepMs)
	return st, nil
}

// AIMove asks the game's AI for seat's next command, handing it the
// match's AI source for this point of the match (Seed.AISource: the seat,
// the log's length and the tick), so that the same match asks the same.
func (s *GameSession) AIMove(seat Seat) (json.RawMessage, bool) {
	return s.match.AIMove(seat, s.seed.AISource(seat, len(s.log), s.tick))
}

// Tick returns how many ticks a fixed-step match has run.
func (s *GameSession) Tick() uint64 { return s.tick }

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
func (s *GameSession) Seed() Seed { return s.seed }

// Config returns the config as given.
func (s *GameSession) Config() json.RawMessage { return s.config }

// Seats returns the number of seats in the match.
func (s *GameSession) Seats() int { return s.seats }

// Log returns the accepted moves. The slice must not be modified.
func (s *GameSession) Log() []Entry { return s.log }

// Played returns the accepted moves that took effect: the log without a
// fixed-step game's inputs queued for a tick that has not run (a match
// that ended before it — a resignation — never applies them). The slice
// must not be modified.
func (s *GameSession) Played() []Entry { return s.log[:len(s.log)-len(s.inputs)] }

// now is the match's current time: the clock's, or for a fixed-step game
// its ticks.
func (s *GameSession) now() float64 {
	if s.stepMs > 0 {
		return float64(s.tick) * s.stepMs
	}
	return s.clock()
}

// Elapsed is the authoritative game time in ms: 0 before the game starts,
// fixed once it ends, and otherwise the time since the start (for a
// fixed-step game, ticks times the step length).
func (s *GameSession) Elapsed() float64 {
	switch {
	case !s.started:
		return 0
	case s.stopped:
		return s.tEnd - s.t0
	default:
		return s.now() - s.t0
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
	out := st.Outcome
	if out.Winners == nil {
		out.Winners = []Seat{}
	}
	return Result{Status: st.Phase, Time: s.Elapsed(), Seed: s.seed, Config: s.config, Log: s.Played(), Outcome: out}, true
}

// Save returns a checkpoint of the match as it is now, or nil when the game
// keeps none (a restore then replays the whole log).
func (s *GameSession) Save() (*Checkpoint, error) {
	data, err := s.match.Checkpoint()
	if errors.Is(err, ErrNoCheckpoint) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("session: checkpoint %s: %w", s.game.Info().ID, err)
	}
	// The inputs queued for the next tick are the log's last entries, and
	// not in the state yet: a restore queues them again.
	return &Checkpoint{At: len(s.log) - len(s.inputs), Tick: s.tick, Started: s.started, T0: s.t0, Stopped: s.stopped, TEnd: s.tEnd,
		State: data}, nil
}

// Restore rebuilds a session from its header and full log: from the
// checkpoint when there is one (the game resumes its state and replays the
// entries after it), else by replaying the whole log from the seed. ticks is
// how many ticks a fixed-step match had run. Every replayed entry must be
// accepted again; one that is not means the log does not belong to these
// rules, and Restore fails naming it.
func Restore(game Game, h Header, cp *Checkpoint, log []Entry, ticks uint64, clock Clock) (*GameSession, error) {
	if info := game.Info(); (h.Game != "" && h.Game != info.ID) || (h.RulesVersion != "" && h.RulesVersion != info.RulesVersion) {
		return nil, fmt.Errorf("session: restore %s %s with %s %s: %w", h.Game, h.RulesVersion, info.ID, info.RulesVersion, ErrRulesVersion)
	}
	var (
		m   Match
		err error
		at  int
	)
	if cp != nil {
		if cp.At < 0 || cp.At > len(log) {
			return nil, fmt.Errorf("session: checkpoint after %d entries of a log of %d", cp.At, len(log))
		}
		m, err = game.Resume(h.Seed, h.Config, h.Seats, cp.State)
		at = cp.At
	} else {
		m, err = game.New(h.Seed, h.Config, h.Seats)
	}
	if err != nil {
		return nil, err
	}
	s := newSession(game, m, h, clock)
	s.log = make([]Entry, 0, len(log))
	s.log = append(s.log, log[:at]...)
	if cp != nil {
		s.tick, s.started, s.t0, s.stopped, s.tEnd = cp.Tick, cp.Started, cp.T0, cp.Stopped, cp.TEnd
	}
	if s.stepMs == 0 {
		for i, e := range log[at:] {
			if _, err := s.ApplyAt(e.Seat, e.Move, e.T); err != nil {
				return nil, fmt.Errorf("session: restore entry %d: %w", at+i, err)
			}
		}
		return s, nil
	}
	// A fixed-step match: run the ticks, each with the inputs logged for it.
	rest := log[at:]
	for s.tick < ticks || len(rest) > 0 {
		next := s.tick + 1
		for len(rest) > 0 && rest[0].Tick <= next {
			e := rest[0]
			if e.Tick != next {
				return nil, fmt.Errorf("session: restore: input for tick %d after tick %d ran", e.Tick, s.tick)
			}
			if _, err := s.Input(e.Seat, e.Move, e.T); err != nil {
				return nil, fmt.Errorf("session: restore input at tick %d: %w", e.Tick, err)
			}
			rest = rest[1:]
		}
		if s.tick >= ticks {
			break // the rest was queued for a tick that had not run yet
		}
		if _, err := s.Advance(); err != nil {
			return nil, err
		}
	}
	return s, nil
}
