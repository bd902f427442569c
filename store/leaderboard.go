package store

import (
	"context"
	"encoding/json"
)

// Score is one leaderboard entry.
type Score struct {
	// Name is the player's display name.
	Name string `json:"name"`
	// Value is what is ranked: ms for a time board, points for a score
	// board.
	Value float64 `json:"value"`
	// Room and Match say where the result comes from (empty for a replay).
	Room  string `json:"room,omitempty"`
	Match int    `json:"match,omitempty"`
	// At is when it was recorded (ms since the Unix epoch).
	At int64 `json:"at"`
}

// UnmarshalJSON decodes a score. Scores stored by earlier versions have only
// "time" (ms, on boards where lower is better): it is read into Value when
// "value" is absent.
func (s *Score) UnmarshalJSON(b []byte) error {
	type plain Score // without this method
	var v struct {
		plain
		Value *float64 `json:"value"` // shadows plain's, to see whether it is there
		Time  *float64 `json:"time"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = Score(v.plain)
	switch {
	case v.Value != nil:
		s.Value = *v.Value
	case v.Time != nil:
		s.Value = *v.Time
	}
	return nil
}

// Leaderboard kinds: results timed by the host (live rooms) and results of
// offline games, timed by the client and validated by replay.
const (
	KindHost   = "host"
	KindClient = "client"
)

// Board names one leaderboard: a board of a game (e.g. a Minesweeper level)
// of one kind, and the way it ranks. Game, Board and Kind name where it is
// stored; Higher is how it ranks, and a board must always be used with the
// same Higher.
type Board struct {
	Game, Board string
	// Kind is KindHost or KindClient.
	Kind string
	// Higher ranks higher values first (points); false ranks lower values
	// first (times).
	Higher bool
}

// Before reports whether x ranks before y on b: a better value in b's
// direction, then an earlier At. Scores equal in both rank in the order
// they were recorded.
func (b Board) Before(x, y Score) bool {
	if x.Value != y.Value {
		return (x.Value > y.Value) == b.Higher
	}
	return x.At < y.At
}

// Leaderboards keeps the best scores of each board.
type Leaderboards interface {
	// Record adds a score to board b. A board keeps its store's
	// LeaderboardSize best scores (1000 by default): the worst are dropped.
	// A Value that is not a finite number is refused.
	Record(ctx context.Context, b Board, s Score) error
	// Top returns up to limit best scores of b (every score kept when limit
	// ≤ 0), best first in the board's direction; equal values rank the
	// earliest At first.
	Top(ctx context.Context, b Board, limit int) ([]Score, error)
}
