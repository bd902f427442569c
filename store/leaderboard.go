package store

import (
	"context"
	"encoding/json"
)

// Score is one leaderboard entry.
type Score struct {
	// Name is the player's display name.
	Name string `json:"name"`
	// Player is the player id(s) of the entry's winners when the site
	// signed them in — several joined by " & " in the same order as Name's
	// names — else empty.
	Player string `json:"player,omitempty"`
	// Value is what is ranked: ms for a time board, points for a score
	// board.
	Value float64 `json:"value"`
	// Room and Match say where the result comes from (empty for a replay).
	Room  string `json:"room,omitempty"`
	Match int    `json:"match,omitempty"`
	// At is when it was recorded (ms since the Unix epoch).
	At int64 `json:"at"`
}

// Who is what a list keeps one entry per: the player id when the entry has
// one, else the name. A player key starts with a NUL byte, which no cleaned
// name contains, so a name can never pass for a player id.
func (s Score) Who() string {
	if s.Player != "" {
		return "\x00" + s.Player
	}
	return s.Name
}

// SameWho reports whether x and y are kept as one entry: the same player
// id, or both without one and the same name. Unlike comparing Who, it holds
// for any name, a name starting with NUL included.
func SameWho(x, y Score) bool {
	return x.Player == y.Player && (x.Player != "" || x.Name == y.Name)
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
// of one kind, the way it ranks and when it goes. Game, Board and Kind name
// where it is stored; Higher is how it ranks, and a board must always be
// used with the same Higher; Expires is when it may be dropped.
type Board struct {
	Game, Board string
	// Kind names one list of the board: KindHost, KindClient, or a list of
	// one period such as "solo/day/2026-12-01".
	Kind string
	// Higher ranks higher values first (points); false ranks lower values
	// first (times).
	Higher bool
	// Expires is when the whole board may be dropped, in ms since the Unix
	// epoch; zero means never. Like Higher it is not part of the board's
	// name: each Record that carries it (re)sets the board's expiry (see
	// Leaderboards.Record). After that time the board reads as empty, its
	// store frees its space, and a later Record starts it afresh.
	Expires int64
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

// Leaderboards keeps the best scores of each board, at most one per player
// id or name (Score.Who).
type Leaderboards interface {
	// Record adds a score to board b. A board keeps one score per Who: per
	// Player when the score has one, else per Name among the scores without
	// one (SameWho), so a signed-in entry and an anonymous one with the
	// same name are two entries, and one player's scores under two names
	// are one. When the board holds a score of s's Who already, s replaces
	// it whole, Name included, only when b.Before(s, old) (a better value,
	// or an equal value with an earlier At); otherwise the older score
	// stays, with its name, and Record returns nil. A board keeps its
	// store's LeaderboardSize best scores (1000 by default): the worst are
	// dropped, and the player id or name of a dropped score is free again.
	// A Value that is not a finite number, or a negative b.Expires, is
	// refused.
	//
	// When b.Expires is not zero, Record sets the board's expiry to it,
	// whether s was kept or not (a later Expires extends the board, an
	// earlier one shortens it); when it is zero, the board's expiry stays as
	// it is.
	Record(ctx context.Context, b Board, s Score) error
	// Top returns up to limit best scores of b (every score kept when limit
	// ≤ 0), best first in the board's direction; equal values rank the
	// earliest At first. A board past its expiry returns none.
	Top(ctx context.Context, b Board, limit int) ([]Score, error)
}
