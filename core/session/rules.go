// Package session is the generic layer under every game: the rules contract,
// its type-erased form driven by JSON, the registry of games, seeds and their
// generators, the fixed-step runner, the GameSession with its injected clock
// and move log, checkpoints, replay and snapshots. It never imports a game.
package session

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Seat numbers a player seat from 0. Spectator is the viewer without a seat.
type Seat = int

// Spectator is the viewer that holds no seat: it gets the spectator
// projection.
const Spectator Seat = -1

// Status is the outcome-relevant part of a state.
type Status struct {
	// Phase is the game's own name for where it is ("fresh", "active",
	// "won", "lost", ...). Replay verdicts and results report it as their
	// status; rooms and leaderboards decide nothing from it (they read
	// Outcome).
	Phase string `json:"phase"`
	// Started is true once the game clock runs: the session stamps t0 on the
	// first move after which Started holds.
	Started bool `json:"started"`
	// Over is true in a terminal state; the session stamps tEnd then.
	Over bool `json:"over"`
	// Outcome is how the match ended, when Over.
	Outcome Outcome `json:"outcome"`
}

// Outcome is how a finished match ended, in the terms rooms and leaderboards
// use for every game.
type Outcome struct {
	// Winners lists the seats that won. Empty means nobody won.
	Winners []Seat `json:"winners"`
	// Ranked says the match may go on the game's leaderboards (see
	// Info.Ranking): a Minesweeper board that was cleared, say, but not
	// one that exploded.
	Ranked bool `json:"ranked"`
	// Score is the match's ranked value when the game ranks by score
	// (Ranking.By == RankScore); a game that ranks by time leaves it zero:
	// the session measures the time.
	Score float64 `json:"score,omitempty"`
	// Detail is what a game says of its ended match that its views do not
	// (JSON, the game's own shape): Minesweeper's wrong flags, which the
	// reference's view shows as plain flags.
	Detail json.RawMessage `json:"detail,omitempty"`
}

// What a game's leaderboards rank by.
const (
	// RankTime ranks by the match's host time, from its first effective
	// move to the move that ended it (ms).
	RankTime = "time"
	// RankScore ranks by Outcome.Score.
	RankScore = "score"
)

// Ranking says how a game's results are ranked on its leaderboards.
type Ranking struct {
	// By is RankTime or RankScore.
	By string `json:"by" jsonschema:"enum=time,enum=score"`
	// Higher is true when a higher value ranks better (a score), false when
	// lower does (a time).
	Higher bool `json:"higher"`
	// Boards lists the boards (Setup.Board) that keep leaderboards, so that
	// a client cannot make new lists by inventing boards (a custom
	// Minesweeper size); nil means every board the game names.
	Boards []string `json:"boards,omitempty"`
}

// Keeps reports whether board has leaderboards.
func (r *Ranking) Keeps(board string) bool {
	return r != nil && board != "" && (r.Boards == nil || slices.Contains(r.Boards, board))
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

// Input is one move as the rules get it: who made it, and when.
type Input[M any] struct {
	Seat Seat
	Move M
	// T is the host time of the move in ms, never earlier than the previous
	// move's. The clock is the host's (a room's), injected: rules never read
	// one.
	T float64
	// Tick is the tick the input takes effect at, in a fixed-step game
	// (0 in a game driven by commands).
	Tick uint64
}

// Rules is the contract every game implements: pure and deterministic, with
// no clock, no I/O and no goroutines. C is the config, S the state, M a
// move, E an event (a delta) and V a projected view. A game also implements
// Mover (it changes on commands), Stepper (it advances on a fixed step), or
// both; Checkpointer and AI are optional.
type Rules[C, S, M, E, V any] interface {
	// Init builds the initial state for a match of the given seat count.
	// Every random draw of the game comes from seed.Source().
	Init(seed Seed, config C, seats int) (S, error)
	// Status reports the phase and, once over, the outcome.
	Status(s S) Status
	// Pending lists the seats that must (or may) act next.
	Pending(s S) []Seat
	// Project returns what viewer may see: a seat, or Spectator.
	Project(s S, viewer Seat) V
	// ProjectEvents returns the part of events (just produced on s) that
	// viewer may see. It may return events unchanged.
	ProjectEvents(s S, events []E, viewer Seat) []E
	// Audience groups viewers: two viewers with the same key get identical
	// views and events in state s, so a room encodes one message for each
	// distinct key.
	Audience(s S, viewer Seat) int
}

// Mover is implemented by games that change on commands (turn-based and
// puzzle games).
type Mover[S, M, E any] interface {
	// Apply plays one move and returns the new state and the events it
	// caused, or a *Rejection. It may update s in place and must leave it
	// untouched when it rejects the move.
	Apply(s S, in Input[M]) (S, []E, error)
}

// Stepper is implemented by real-time games that advance on a fixed step
// (Info.Tick gives the rate). Their commands are inputs: each is queued when
// it arrives and handed to the next step, with the other inputs that arrived
// since the last one, in arrival order. The world after tick N is a pure
// function of the seed, the config and the inputs with their ticks.
type Stepper[S, M, E any] interface {
	// Step advances s by one tick (numbered from 1). It never fails: an
	// input that cannot take effect (from a seat that is out) is ignored.
	Step(s S, tick uint64, inputs []Input[M]) (S, []E)
}

// Checkpointer is implemented by games whose state can be saved and
// resumed, so that a long match is restored from its last checkpoint plus
// the moves after it instead of being replayed from its first move.
type Checkpointer[C, S any] interface {
	// Checkpoint encodes s as JSON. Everything s will need is in it but the
	// seed, config and seat count, which Resume gets again.
	Checkpoint(s S) ([]byte, error)
	// Resume decodes a checkpoint of a match of these seed, config and
	// seats.
	Resume(seed Seed, config C, seats int, data []byte) (S, error)
}

// AI is implemented by rules that can play a seat. Choose sees only that
// seat's projected view, as a person would, and draws whatever randomness
// it needs from src: a stream derived from the match's secret, the seat and
// the move number (Seed.AISource). The same match replays to the same AI
// moves, and no client can compute the stream before the secret is
// disclosed at the end.
type AI[M, V any] interface {
	Choose(view V, seat Seat, src Source) (M, bool)
}

// Hider is implemented by the rules of a game with hidden information or
// randomness still to come (a deck's order, mines, other seats' secrets,
// future food). The game kit (sessiontest.Run) checks with it that nothing
// sent to a viewer gives the hidden state away.
type Hider[S any] interface {
	// Secrets lists what viewer must not learn in state s, each with the
	// bytes that would give it away in a projection or an event sent to
	// that viewer. It is empty once the game has revealed everything.
	Secrets(s S, viewer Seat) []Secret
	// Resample returns a new state, sharing nothing that changes with s,
	// in which everything viewer must not know is drawn again from src and
	// everything it has seen is kept: viewer's projection of the new state
	// is byte for byte the old one's, and the other seats' projections keep
	// what they show of the public state.
	Resample(s S, viewer Seat, src Source) S
}

// Secret is one thing a viewer must not learn.
type Secret struct {
	// What names it, for a failing test: "seat 1's hand card 17".
	What string
	// Tell is the bytes that would give it away in what the viewer is
	// sent: the JSON the game's own projection would show if it were
	// revealed (`"id":17,"name":"Wisp"`), or the secret's own encoding (a
	// key in hex). Two states with the same hidden state have the same
	// Secrets, so the kit also compares them to see the hidden state change.
	Tell string
}

// Validator is implemented by configs and moves that check themselves after
// JSON decoding.
type Validator interface{ Validate() error }
