package room

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/roomd/roomd/core/rating"
	"github.com/roomd/roomd/store"
)

// ratings.go: the ratings beside the rooms — applying a rated match's
// result (from the outbox, or the manager's own rating writer when there
// is no outbox) and reading ratings, histories and leaderboards for the
// API and the rated pool. Rated rooms themselves are in rated.go.

// RatingEvent is the type of the outbox event that carries a rated match's
// result (Manager.ApplyRatingEvent applies it). It is never sent to a
// webhook receiver.
const RatingEvent = "roomd.rating"

// ratingJob is the data of a RatingEvent.
type ratingJob struct {
	ID      string    `json:"id"`
	Game    string    `json:"game"`
	Mode    string    `json:"mode"`
	Players [2]string `json:"players"`
	Names   [2]string `json:"names"`
	Score   float64   `json:"score"`
	At      int64     `json:"at"`
}

func ratingJobOf(m store.RatedMatch) ratingJob {
	return ratingJob{ID: m.ID, Game: m.Pool.Game, Mode: m.Pool.Mode, Players: m.Players, Names: m.Names, Score: m.Score, At: m.At}
}

// ApplyRatingEvent applies one RatingEvent from the outbox. It is
// idempotent (the store applies a match id once), so the dispatcher
// retries it until it succeeds. An event it cannot read is an error that
// says so.
func (m *Manager) ApplyRatingEvent(ctx context.Context, ev store.Event) error {
	var env struct {
		Type string    `json:"type"`
		Data ratingJob `json:"data"`
	}
	if err := json.Unmarshal(ev.Data, &env); err != nil || env.Type != RatingEvent {
		return fmt.Errorf("room: event %s is not a %s event: %v", ev.ID, RatingEvent, err)
	}
	j := env.Data
	return m.applyRating(ctx, store.RatedMatch{ID: j.ID, Pool: store.RatingPool{Game: j.Game, Mode: j.Mode},
		Players: j.Players, Names: j.Names, Score: j.Score, At: j.At})
}

// applyRating applies a rated match with Glicko-2 (one rating period).
func (m *Manager) applyRating(ctx context.Context, rm store.RatedMatch) error {
	if m.cfg.Ratings == nil {
		return ErrNoRatings
	}
	applied, err := m.cfg.Ratings.ApplyRating(ctx, rm, glicko(rm.Score))
	if err != nil {
		return fmt.Errorf("room: apply rating of %s: %w", rm.ID, err)
	}
	if applied {
		m.cfg.Logger.Info("rating applied", "match", rm.ID, "pool", rm.Pool.String(), "score", rm.Score)
	}
	return nil
}

// glicko is the store's update for a match a's score was score in: a
// player with no rating starts at the default.
func glicko(score float64) store.RatingUpdate {
	return func(a, b store.Rating) (store.Rating, store.Rating) {
		ra, rb := rating.System{}.Match(coreRating(a), coreRating(b), score)
		return Rating{Rating: ra.Rating, RD: ra.RD, Volatility: ra.Volatility},
			Rating{Rating: rb.Rating, RD: rb.RD, Volatility: rb.Volatility}
	}
}

func coreRating(r store.Rating) rating.Rating {
	if r.Matches == 0 {
		return rating.Default()
	}
	return rating.Rating{Rating: r.Rating, RD: r.RD, Volatility: r.Volatility}
}

// The rating writer: without an outbox, the rated matches stored go
// through this queue, applied beside the rooms, with retries.
const (
	ratingQueue      = 1024
	ratingRetryFirst = 100 * time.Millisecond
	ratingRetryMost  = 5 * time.Second
)

// enqueueRating hands a stored rated match to the rating writer without
// waiting. When the queue is full or the writer has stopped, it is
// dropped and logged: the room applies it again when it is next loaded.
func (m *Manager) enqueueRating(rm store.RatedMatch) {
	if m.ratings == nil {
		return
	}
	select {
	case <-m.ratingsQuit:
		m.cfg.Logger.Warn("rating writer stopped; rated match left for the room's next load", "match", rm.ID)
		return
	default:
	}
	select {
	case m.ratings <- rm:
	default:
		m.cfg.Logger.Warn("rating queue full; rated match left for the room's next load", "match", rm.ID)
	}
}

// startRatings starts the rating writer when there are ratings and no
// outbox to carry them.
func (m *Manager) startRatings() {
	m.ratingsQuit, m.ratingsDone = make(chan struct{}), make(chan struct{})
	if m.cfg.Ratings == nil || m.cfg.Outbox != nil {
		close(m.ratingsDone)
		return
	}
	m.ratings = make(chan store.RatedMatch, ratingQueue)
	go m.writeRatings()
}

// stopRatings stops the rating writer and waits for it (or ctx).
func (m *Manager) stopRatings(ctx context.Context) error {
	m.stopRatingsOnce.Do(func() { close(m.ratingsQuit) })
	select {
	case <-m.ratingsDone:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("room: shutdown: rating writer: %w", ctx.Err())
	}
}

// writeRatings applies the queued rated matches, each retried with a
// growing wait until it is applied or the writer stops (what is left is
// applied when its room is next loaded).
func (m *Manager) writeRatings() {
	defer close(m.ratingsDone)
	for {
		select {
		case rm := <-m.ratings:
			wait := ratingRetryFirst
			for {
				ctx, cancel := context.WithTimeout(context.Background(), m.cfg.StoreTimeout)
				err := m.applyRating(ctx, rm)
				cancel()
				if err == nil || errors.Is(err, store.ErrBadRating) {
					if err != nil {
						m.cfg.Logger.Error("rated match refused by the store", "match", rm.ID, "err", err)
					}
					break
				}
				m.cfg.Logger.Warn("apply rating; retrying", "match", rm.ID, "in", wait, "err", err)
				select {
				case <-time.After(wait):
					wait = min(2*wait, ratingRetryMost)
				case <-m.ratingsQuit:
					return
				}
			}
		case <-m.ratingsQuit:
			return
		}
	}
}

// rerate queues again the rating of a rated room's finished match when the
// room is loaded from the store, in case the process that ended it
// stopped before applying it (only without an outbox: the outbox keeps
// its events across crashes).
func (m *Manager) rerate(st *state) {
	if st.Rated == nil || m.cfg.Outbox != nil || m.cfg.Ratings == nil {
		return
	}
	if rm, why := st.ratedMatch(m.ratedMode); why == "" {
		m.enqueueRating(rm)
	}
}

// Rating returns player's rating in game's mode: the default (1500, RD
// 350, volatility 0.06) when he has none.
func (m *Manager) Rating(ctx context.Context, game, mode, player string) (Rating, error) {
	pool, err := m.ratingPool(game, mode)
	if err != nil {
		return Rating{}, err
	}
	if err := store.CheckPlayer(player); err != nil {
		return Rating{}, fmt.Errorf("%w: %v", ErrNotRated, err)
	}
	r, found, err := m.cfg.Ratings.Rating(ctx, pool, player)
	if err != nil {
		return Rating{}, fmt.Errorf("%w: %v", ErrStorage, err)
	}
	if !found {
		return DefaultRating(), nil
	}
	return r, nil
}

// ratingPool checks that game's mode is rated and ratings are kept.
func (m *Manager) ratingPool(game, mode string) (store.RatingPool, error) {
	if m.cfg.Ratings == nil {
		return store.RatingPool{}, ErrNoRatings
	}
	if !m.ratedMode(game, mode) {
		return store.RatingPool{}, fmt.Errorf("%w: %s/%s is not rated (rated: %v)", ErrNotRated, game, mode, m.ratedModes())
	}
	return store.RatingPool{Game: game, Mode: mode}, nil
}

// PoolRating is a player's rating in one game and mode.
type PoolRating struct {
	Game string `json:"game"`
	Mode string `json:"mode"`
	Rating
	// Rated is false when the player has no rated match there (the
	// rating is the default).
	Rated bool `json:"rated"`
	// Provisional is true while the RD is above store.ProvisionalRD: the
	// player is not on the leaderboard yet.
	Provisional bool `json:"provisional"`
}

func poolRating(pool store.RatingPool, r Rating, found bool) PoolRating {
	if !found {
		r = DefaultRating()
	}
	return PoolRating{Game: pool.Game, Mode: pool.Mode, Rating: r, Rated: found, Provisional: !r.Listed()}
}

// PlayerRatings returns player's rating in every rated mode of the games
// this server runs, in the order of the rated modes.
func (m *Manager) PlayerRatings(ctx context.Context, player string) ([]PoolRating, error) {
	if m.cfg.Ratings == nil {
		return nil, ErrNoRatings
	}
	if err := store.CheckPlayer(player); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotRated, err)
	}
	out := []PoolRating{}
	for _, gm := range m.ratedModes() {
		game, mode, ok := cutPool(gm)
		if _, known := m.cfg.Games.Lookup(game); !ok || !known {
			continue
		}
		pool := store.RatingPool{Game: game, Mode: mode}
		r, found, err := m.cfg.Ratings.Rating(ctx, pool, player)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrStorage, err)
		}
		out = append(out, poolRating(pool, r, found))
	}
	return out, nil
}

func cutPool(gm string) (game, mode string, ok bool) {
	for i := range len(gm) {
		if gm[i] == '/' {
			return gm[:i], gm[i+1:], i > 0 && i < len(gm)-1
		}
	}
	return "", "", false
}

// PlayerRating is a player's rating in one game and mode with his latest
// changes, newest first.
type PlayerRating struct {
	PoolRating
	Player  string         `json:"player"`
	History []RatingChange `json:"history"`
}

// RatingHistory returns player's rating in game's mode and up to limit of
// his latest changes (store.MaxRatingHistory at most).
func (m *Manager) RatingHistory(ctx context.Context, game, mode, player string, limit int) (PlayerRating, error) {
	pool, err := m.ratingPool(game, mode)
	if err != nil {
		return PlayerRating{}, err
	}
	if err := store.CheckPlayer(player); err != nil {
		return PlayerRating{}, fmt.Errorf("%w: %v", ErrNotRated, err)
	}
	r, found, err := m.cfg.Ratings.Rating(ctx, pool, player)
	if err != nil {
		return PlayerRating{}, fmt.Errorf("%w: %v", ErrStorage, err)
	}
	h, err := m.cfg.Ratings.RatingHistory(ctx, pool, player, limit)
	if err != nil {
		return PlayerRating{}, fmt.Errorf("%w: %v", ErrStorage, err)
	}
	if h == nil {
		h = []RatingChange{}
	}
	return PlayerRating{PoolRating: poolRating(pool, r, found), Player: player, History: h}, nil
}

// RatingBoard is a rating leaderboard: the players of a game's mode with
// the highest ratings, provisional players left out.
type RatingBoard struct {
	Game          string        `json:"game"`
	Mode          string        `json:"mode"`
	ProvisionalRD float64       `json:"provisionalRd"`
	Players       []RatingEntry `json:"players"`
}

// RatingLeaderboard returns up to limit players of game's mode with the
// highest ratings (store.MaxRatingTop at most).
func (m *Manager) RatingLeaderboard(ctx context.Context, game, mode string, limit int) (RatingBoard, error) {
	pool, err := m.ratingPool(game, mode)
	if err != nil {
		return RatingBoard{}, err
	}
	top, err := m.cfg.Ratings.TopRatings(ctx, pool, limit)
	if err != nil {
		return RatingBoard{}, fmt.Errorf("%w: %v", ErrStorage, err)
	}
	if top == nil {
		top = []RatingEntry{}
	}
	return RatingBoard{Game: game, Mode: mode, ProvisionalRD: store.ProvisionalRD, Players: top}, nil
}

// RatedModes returns the rated modes of the games this server runs, as
// "game/mode" (none when it keeps no ratings).
func (m *Manager) RatedModes() []string {
	if m.cfg.Ratings == nil {
		return nil
	}
	var out []string
	for _, gm := range m.ratedModes() {
		if game, _, ok := cutPool(gm); ok {
			if _, known := m.cfg.Games.Lookup(game); known {
				out = append(out, gm)
			}
		}
	}
	return out
}
