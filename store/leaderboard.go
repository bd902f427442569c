package store

import "context"

// Score is one leaderboard entry.
type Score struct {
	// Name is the player's display name.
	Name string `json:"name"`
	// TimeMs is the game time in milliseconds (lower is better).
	TimeMs float64 `json:"time"`
	// Room and Match say where the result comes from (empty for a replay).
	Room  string `json:"room,omitempty"`
	Match int    `json:"match,omitempty"`
	// At is when it was recorded (ms since the Unix epoch).
	At int64 `json:"at"`
}

// Leaderboard kinds: results timed by the host (live rooms) and results of
// offline games, timed by the client and validated by replay.
const (
	KindHost   = "host"
	KindClient = "client"
)

// Leaderboards keeps the best times per game, board and kind.
type Leaderboards interface {
	// Record adds a score.
	Record(ctx context.Context, game, board, kind string, s Score) error
	// Top returns up to limit best (lowest) times, best first.
	Top(ctx context.Context, game, board, kind string, limit int) ([]Score, error)
}
