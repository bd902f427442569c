// Package session is the generic layer under every game: the rules contract,
// its type-erased form driven by JSON, the registry of games, the seedable
// RNG, the GameSession with its injected clock and move log, replay and
// snapshots. It never imports a game.
package session

import (
	"fmt"
)

// Seat numbers a player seat from 0. Spectator is the viewer without a seat.
type Seat = int

// Spectator is the viewer that holds no seat: it gets the spectator
// projection.
const Spectator Seat = -1

// Status is the outcome-relevant part of a state.
type Status struct {
	// Phase is the game's own name for where it is ("fresh", "active",
	// "won", "lost", ...). Replay verdicts report it as their status.
	Phase string `json:"phase"`
	// Started is true once the game clock runs: the session stamps t0 on the
	// first move after which Started holds.
	Started bool `json:"started"`
	// Over is true in a terminal state; the session stamps tEnd then.
	Over bool `json:"over"`
	// Winners lists the seats that won, when Over. Empty means nobody won.
	Winners []Seat `json:"winners,omitempty"`
}

// Rejection is the typed refusal of a move. The state is unchanged when a
// move is rejected, and the move is not logged.
type Rejection struct {
	// Code is client-facing and namespaced by "game:", e.g. game:NotYourTurn.
	Code string
	// Reason says what was wrong, in words.
	Reason string
	// Malformed marks moves no genuine client sends: an unknown type,
	// coordinates outside the board, a missing field. Replay refuses a log
	// that holds one; other rejections (a reveal on a revealed cell, a move
	// after the end) are moves the reference treats as no-ops, and replay
	// skips them the same way.
	Malformed bool
}

func (r *Rejection) Error() string { return r.Code + ": " + r.Reason }

// Reject returns an ineffective-move rejection.
func Reject(code, format string, args ...any) *Rejection {
	return &Rejection{Code: code, Reason: fmt.Sprintf(format, args...)}
}

// Malformed returns a rejection for a move no genuine client sends.
func Malformed(code, format string, args ...any) *Rejection {
	return &Rejection{Code: code, Reason: fmt.Sprintf(format, args...), Malformed: true}
}

// Rejection codes shared by games.
const (
	CodeNotYourTurn    = "game:NotYourTurn"
	CodeGameOver       = "game:GameOver"
	CodeInvalidMove    = "game:InvalidMove"
	CodeUnknownMove    = "game:UnknownMove"
	CodeOutOfBounds    = "game:OutOfBounds"
	CodeNoSuchSeat     = "game:NoSuchSeat"
	CodeIneffective    = "game:Ineffective"
	CodeInvalidConfig  = "game:InvalidConfig"
	CodeMalformedInput = "game:Malformed"
)

// Rules is the contract every game implements: pure and deterministic, with
// no clock, no I/O and no goroutines. C is the config, S the state, M a
// move, E an event (a delta) and V a projected view.
//
// Apply may update s in place and returns the state to use from then on; it
// must leave s untouched when it rejects the move. Callers that need the old
// state rebuild it by replay (which is cheap, and keeps one code path).
type Rules[C, S, M, E, V any] interface {
	// Init builds the initial state for a match of the given seat count.
	Init(seed int64, config C, seats int) (S, error)
	// Apply plays move m for seat and returns the new state and the events
	// it caused, or a *Rejection.
	Apply(s S, seat Seat, m M) (S, []E, error)
	// Status reports the phase and outcome.
	Status(s S) Status
	// Pending lists the seats that must (or may) act next.
	Pending(s S) []Seat
	// Project returns what viewer may see: a seat, or Spectator.
	Project(s S, viewer Seat) V
	// ProjectEvents returns the part of events (just produced by Apply on
	// s) that viewer may see. It may return events unchanged.
	ProjectEvents(s S, events []E, viewer Seat) []E
	// Audience groups viewers: two viewers with the same key get identical
	// views and events in state s, so a room encodes one message for each
	// distinct key.
	Audience(s S, viewer Seat) int
}

// AI is implemented by rules that can play a seat. Choose sees only that
// seat's projected view, as a person would.
type AI[M, V any] interface {
	Choose(view V, seat Seat) (M, bool)
}

// Validator is implemented by configs and moves that check themselves after
// JSON decoding.
type Validator interface{ Validate() error }
