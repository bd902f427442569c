package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// Rating is a player's rating in one game and mode: Glicko-2's rating,
// rating deviation (RD) and volatility, which the caller computes
// (core/rating); the store only keeps them.
type Rating struct {
	Rating     float64 `json:"rating"`
	RD         float64 `json:"rd"`
	Volatility float64 `json:"volatility"`
	// Matches counts the rated matches applied; zero for a player the
	// store has no rating of.
	Matches int `json:"matches"`
	// Name is the player's display name in his latest rated match.
	Name string `json:"name,omitempty"`
	// At is when the rating last changed (ms since the Unix epoch).
	At int64 `json:"at,omitempty"`
}

// RatingPool names the ratings of one game and mode: a player has one
// rating in each.
type RatingPool struct {
	Game, Mode string
}

func (p RatingPool) String() string { return p.Game + "/" + p.Mode }

// RatedMatch is the result of one rated match between two players.
type RatedMatch struct {
	// ID names the match: a match is applied once, whatever number of
	// times ApplyRating is called with its ID (within RatingMatchKept).
	ID   string
	Pool RatingPool
	// Players are the two players' ids (the site's sign-in subjects),
	// different from each other; Names their display names.
	Players [2]string
	Names   [2]string
	// Score is Players[0]'s: 1 a win, 0.5 a draw, 0 a loss.
	Score float64
	// At is when the match ended (ms since the Unix epoch).
	At int64
}

// RatingChange is one entry of a player's history: what one rated match
// did to his rating.
type RatingChange struct {
	Match    string `json:"match"`
	At       int64  `json:"at"`
	Opponent string `json:"opponent"`
	// OpponentName is the opponent's display name in that match.
	OpponentName string  `json:"opponentName,omitempty"`
	Score        float64 `json:"score"`
	Before       Rating  `json:"before"`
	After        Rating  `json:"after"`
}

// RatingEntry is one line of a rating leaderboard.
type RatingEntry struct {
	Player string `json:"player"`
	Rating
}

// RatingUpdate computes both players' ratings after a match from their
// ratings before it; a player the store has no rating of is passed as
// the zero Rating (Matches 0), and the caller supplies the default. It
// must be a pure function: a store may call it more than once for one
// match (Redis, when another node changed one of the two ratings between
// its read and its write). Only Rating, RD and Volatility of what it
// returns are kept; the store sets Matches, Name and At.
type RatingUpdate func(a, b Rating) (Rating, Rating)

// The bounds of the ratings.
const (
	// MaxPlayerID is the longest player id (a sign-in subject) and the
	// longest display name a rating keeps, in bytes.
	MaxPlayerID = 256
	// MaxPoolName bounds a pool's game and mode, each.
	MaxPoolName = 64
	// MaxRatingHistory is how many changes a player's history keeps in
	// each pool: the newest.
	MaxRatingHistory = 100
	// MaxRatingTop is the most lines one TopRatings call returns.
	MaxRatingTop = 100
	// ProvisionalRD: a player whose RD is above it is provisional (his
	// rating is still a guess: about his first 13 matches) and is not on
	// his pool's leaderboard, though his rating and history are kept.
	ProvisionalRD = 110
	// RatingMatchKept is how long a store remembers that a match was
	// applied: ApplyRating of the same ID within it changes nothing.
	RatingMatchKept = 30 * 24 * time.Hour
)

// RatingLimit is the number of lines TopRatings or changes RatingHistory
// returns at most for limit: limit, or max when limit is not in 1..max.
func RatingLimit(limit, most int) int {
	if limit <= 0 || limit > most {
		return most
	}
	return limit
}

// Ratings keeps players' ratings per game and mode, their histories and a
// leaderboard of each pool. Every method takes ctx first and is safe for
// concurrent use, across processes sharing one store too.
type Ratings interface {
	// ApplyRating applies m once: it reads both players' ratings, calls
	// update with them, and stores what it returns for both players, a
	// change in each one's history and their places on the pool's
	// leaderboard, all in one atomic write with the note that m.ID was
	// applied. It returns false, changing nothing, when m.ID was applied
	// already. Two matches of one player applied at once (on two nodes)
	// are applied one after the other: neither update is lost. A match
	// that fails CheckRatedMatch is an error that names the problem.
	ApplyRating(ctx context.Context, m RatedMatch, update RatingUpdate) (applied bool, err error)
	// Rating returns player's rating in pool; found is false (and the
	// Rating zero) when he has none.
	Rating(ctx context.Context, pool RatingPool, player string) (r Rating, found bool, err error)
	// RatingHistory returns up to limit of player's latest changes in
	// pool, newest first (RatingLimit(limit, MaxRatingHistory)).
	RatingHistory(ctx context.Context, pool RatingPool, player string, limit int) ([]RatingChange, error)
	// TopRatings returns up to limit players of pool with the highest
	// ratings, highest first, players of equal ratings by id; provisional
	// players (RD above ProvisionalRD) are not listed
	// (RatingLimit(limit, MaxRatingTop)).
	TopRatings(ctx context.Context, pool RatingPool, limit int) ([]RatingEntry, error)
}

// ErrBadRating wraps a rated match or a pool the store refuses.
var ErrBadRating = errors.New("store: bad rating request")

// CheckPool returns the error the Ratings methods return for a pool
// outside the bounds: a game and a mode of 1 to MaxPoolName bytes, without
// "/" or control characters.
func CheckPool(p RatingPool) error {
	for _, s := range []struct{ what, v string }{{"game", p.Game}, {"mode", p.Mode}} {
		switch {
		case s.v == "" || len(s.v) > MaxPoolName:
			return fmt.Errorf("%w: the pool's %s must be 1 to %d bytes", ErrBadRating, s.what, MaxPoolName)
		case strings.ContainsFunc(s.v, func(r rune) bool { return r == '/' || r < ' ' || r == 0x7f }):
			return fmt.Errorf("%w: the pool's %s %q holds a slash or a control character", ErrBadRating, s.what, s.v)
		}
	}
	return nil
}

// CheckPlayer returns the error for a player id outside 1..MaxPlayerID bytes.
func CheckPlayer(player string) error {
	if player == "" || len(player) > MaxPlayerID {
		return fmt.Errorf("%w: a player id is 1 to %d bytes", ErrBadRating, MaxPlayerID)
	}
	return nil
}

// CheckPoolPlayer is CheckPool, then CheckPlayer.
func CheckPoolPlayer(pool RatingPool, player string) error {
	if err := CheckPool(pool); err != nil {
		return err
	}
	return CheckPlayer(player)
}

// CheckRatedMatch returns the error ApplyRating returns for m before it
// stores anything, or nil: an ID of 1 to MaxClaimKey bytes, a good pool,
// two different good player ids, names of at most MaxPlayerID bytes, a
// score of 0, 0.5 or 1 and a time not before the epoch.
func CheckRatedMatch(m RatedMatch) error {
	if m.ID == "" || len(m.ID) > MaxClaimKey {
		return fmt.Errorf("%w: a match id is 1 to %d bytes", ErrBadRating, MaxClaimKey)
	}
	if err := CheckPool(m.Pool); err != nil {
		return err
	}
	for i, p := range m.Players {
		if err := CheckPlayer(p); err != nil {
			return fmt.Errorf("player %d: %w", i, err)
		}
		if len(m.Names[i]) > MaxPlayerID {
			return fmt.Errorf("%w: player %d's name is over %d bytes", ErrBadRating, i, MaxPlayerID)
		}
	}
	if m.Players[0] == m.Players[1] {
		return fmt.Errorf("%w: a player cannot be rated against himself", ErrBadRating)
	}
	if m.Score != 0 && m.Score != 0.5 && m.Score != 1 {
		return fmt.Errorf("%w: score %v is not 0, 0.5 or 1", ErrBadRating, m.Score)
	}
	if m.At < 0 {
		return fmt.Errorf("%w: time %d is before the epoch", ErrBadRating, m.At)
	}
	return nil
}

// Rated returns the ratings and history changes ApplyRating stores for m:
// update's ratings with Matches, Name and At set. before are the two
// players' ratings as stored (zero when none). A rating update returns
// that is not a finite number, or an RD or volatility not above zero, is
// an error.
func Rated(m RatedMatch, before [2]Rating, update RatingUpdate) (after [2]Rating, changes [2]RatingChange, err error) {
	after[0], after[1] = update(before[0], before[1])
	for i := range 2 {
		if r := after[i]; !finite(r.Rating) || !finite(r.RD) || !finite(r.Volatility) || r.RD <= 0 || r.Volatility <= 0 {
			return after, changes, fmt.Errorf("%w: the update gave player %d rating %v, RD %v, volatility %v",
				ErrBadRating, i, r.Rating, r.RD, r.Volatility)
		}
		after[i] = Rating{Rating: after[i].Rating, RD: after[i].RD, Volatility: after[i].Volatility,
			Matches: before[i].Matches + 1, Name: m.Names[i], At: m.At}
		score := m.Score
		if i == 1 {
			score = 1 - m.Score
		}
		changes[i] = RatingChange{Match: m.ID, At: m.At, Opponent: m.Players[1-i], OpponentName: m.Names[1-i],
			Score: score, Before: before[i], After: after[i]}
	}
	return after, changes, nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Listed reports whether r is on its pool's leaderboard: not provisional.
func (r Rating) Listed() bool { return r.Matches > 0 && r.RD <= ProvisionalRD }
