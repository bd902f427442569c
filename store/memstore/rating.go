package memstore

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/roomd/roomd/store"
)

var _ store.Ratings = (*Memory)(nil)

// ratingKey is one player's place in one pool.
type ratingKey struct {
	pool   store.RatingPool
	player string
}

// memRatings is what Memory keeps of the ratings (under Memory.mu).
type memRatings struct {
	ratings map[ratingKey]store.Rating
	history map[ratingKey][]store.RatingChange // newest first
	// applied holds the matches applied, by pool and id: when each is
	// forgotten (Unix ms). scan is how many were kept after the last
	// sweep of the forgotten ones: the next comes at twice as many.
	applied map[ratingKey]int64
	scan    int
}

// ApplyRating applies m under the store's lock.
func (m *Memory) ApplyRating(ctx context.Context, rm store.RatedMatch, update store.RatingUpdate) (bool, error) {
	const op = "apply rating"
	if err := store.CheckRatedMatch(rm); err != nil {
		return false, fmt.Errorf("%s: %w", op, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(); err != nil {
		return false, fmt.Errorf("%s: %w", op, err)
	}
	rt := &m.ratingsData
	if rt.ratings == nil {
		rt.ratings, rt.history, rt.applied = map[ratingKey]store.Rating{}, map[ratingKey][]store.RatingChange{}, map[ratingKey]int64{}
	}
	now := m.now().UnixMilli()
	id := ratingKey{rm.Pool, rm.ID}
	if until, ok := rt.applied[id]; ok && now < until {
		return false, nil
	}
	keys := [2]ratingKey{{rm.Pool, rm.Players[0]}, {rm.Pool, rm.Players[1]}}
	before := [2]store.Rating{rt.ratings[keys[0]], rt.ratings[keys[1]]}
	after, changes, err := store.Rated(rm, before, update)
	if err != nil {
		return false, fmt.Errorf("%s: %w", op, err)
	}
	for i, k := range keys {
		rt.ratings[k] = after[i]
		h := slices.Insert(rt.history[k], 0, changes[i])
		rt.history[k] = h[:min(len(h), store.MaxRatingHistory)]
	}
	rt.applied[id] = now + store.RatingMatchKept.Milliseconds()
	if len(rt.applied) >= 2*max(rt.scan, 64) {
		for k, until := range rt.applied {
			if now >= until {
				delete(rt.applied, k)
			}
		}
		rt.scan = len(rt.applied)
	}
	return true, nil
}

func (m *Memory) Rating(ctx context.Context, pool store.RatingPool, player string) (store.Rating, bool, error) {
	if err := store.CheckPoolPlayer(pool, player); err != nil {
		return store.Rating{}, false, fmt.Errorf("rating: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return store.Rating{}, false, fmt.Errorf("rating: %w", store.ErrClosed)
	}
	r, ok := m.ratingsData.ratings[ratingKey{pool, player}]
	return r, ok, nil
}

func (m *Memory) RatingHistory(ctx context.Context, pool store.RatingPool, player string, limit int) ([]store.RatingChange, error) {
	if err := store.CheckPoolPlayer(pool, player); err != nil {
		return nil, fmt.Errorf("rating history: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, fmt.Errorf("rating history: %w", store.ErrClosed)
	}
	h := m.ratingsData.history[ratingKey{pool, player}]
	return slices.Clone(h[:min(len(h), store.RatingLimit(limit, store.MaxRatingHistory))]), nil
}

// TopRatings sorts the pool's listed players: the memory store is for
// tests and single processes, not for pools of millions.
func (m *Memory) TopRatings(ctx context.Context, pool store.RatingPool, limit int) ([]store.RatingEntry, error) {
	if err := store.CheckPool(pool); err != nil {
		return nil, fmt.Errorf("top ratings: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, fmt.Errorf("top ratings: %w", store.ErrClosed)
	}
	var out []store.RatingEntry
	for k, r := range m.ratingsData.ratings {
		if k.pool == pool && r.Listed() {
			out = append(out, store.RatingEntry{Player: k.player, Rating: r})
		}
	}
	slices.SortFunc(out, func(x, y store.RatingEntry) int {
		return cmp.Or(cmp.Compare(y.Rating.Rating, x.Rating.Rating), cmp.Compare(x.Player, y.Player))
	})
	return out[:min(len(out), store.RatingLimit(limit, store.MaxRatingTop))], nil
}
