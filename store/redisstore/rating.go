package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/roomd/roomd/store"
)

var _ store.Ratings = (*Redis)(nil)

// ratingAttempts bounds how many times ApplyRating starts its transaction
// again after another client changed one of its keys.
const ratingAttempts = 100

// ratingKeys are a pool's keys. They share the hash tag {rt:game/mode}, so
// that one transaction can check and write a match's note and both
// players' keys on Redis Cluster: a pool lives on one slot.
type ratingKeys struct{ base string }

func (r *Redis) ratingKeys(p store.RatingPool) ratingKeys {
	return ratingKeys{base: r.prefix + ":{rt:" + p.String() + "}:"}
}

// rating is a player's Rating (JSON); history his changes (a list, newest
// first, at most store.MaxRatingHistory); top the listed players (a sorted
// set by the negated rating, so that ZRANGE lists the highest first and
// equal ratings by id); match the note that a match was applied (its
// time, expiring after store.RatingMatchKept).
func (k ratingKeys) rating(player string) string  { return k.base + "r:" + player }
func (k ratingKeys) history(player string) string { return k.base + "h:" + player }
func (k ratingKeys) top() string                  { return k.base + "top" }
func (k ratingKeys) match(id string) string       { return k.base + "m:" + id }

// ApplyRating is an optimistic transaction: WATCH the match's note and
// both ratings, read them, compute, and write everything in MULTI/EXEC,
// which fails when another client changed a watched key in between; then
// it starts again, after a short random wait.
func (r *Redis) ApplyRating(ctx context.Context, m store.RatedMatch, update store.RatingUpdate) (bool, error) {
	const op = "apply rating"
	if err := store.CheckRatedMatch(m); err != nil {
		return false, fmt.Errorf("%s: %w", op, err)
	}
	if err := r.check(op); err != nil {
		return false, err
	}
	k := r.ratingKeys(m.Pool)
	mk, keys := k.match(m.ID), [2]string{k.rating(m.Players[0]), k.rating(m.Players[1])}
	for attempt := range ratingAttempts {
		applied := false
		err := r.c.Watch(ctx, func(tx *redis.Tx) error {
			n, err := tx.Exists(ctx, mk).Result()
			if err != nil || n > 0 {
				return err
			}
			vals, err := tx.MGet(ctx, keys[0], keys[1]).Result()
			if err != nil {
				return err
			}
			var before [2]store.Rating
			for i, v := range vals {
				if s, ok := v.(string); ok {
					if err := json.Unmarshal([]byte(s), &before[i]); err != nil {
						return fmt.Errorf("the rating of %q: %w", m.Players[i], err)
					}
				}
			}
			after, changes, err := store.Rated(m, before, update)
			if err != nil {
				return err
			}
			var data [2][2][]byte
			for i := range 2 {
				if data[i][0], err = json.Marshal(after[i]); err != nil {
					return err
				}
				if data[i][1], err = json.Marshal(changes[i]); err != nil {
					return err
				}
			}
			_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				for i, player := range m.Players {
					p.Set(ctx, keys[i], data[i][0], 0)
					p.LPush(ctx, k.history(player), data[i][1])
					p.LTrim(ctx, k.history(player), 0, store.MaxRatingHistory-1)
					if after[i].Listed() {
						p.ZAdd(ctx, k.top(), redis.Z{Score: -after[i].Rating, Member: player})
					} else {
						p.ZRem(ctx, k.top(), player)
					}
				}
				p.Set(ctx, mk, m.At, store.RatingMatchKept)
				return nil
			})
			applied = err == nil
			return err
		}, mk, keys[0], keys[1])
		if errors.Is(err, redis.TxFailedErr) {
			wait := time.Duration(rand.Int64N(int64(time.Millisecond) * int64(1+min(attempt, 10))))
			select {
			case <-time.After(wait):
				continue
			case <-ctx.Done():
				return false, fmt.Errorf("%s: %w", op, ctx.Err())
			}
		}
		if err != nil {
			return false, fmt.Errorf("%s: %w", op, mapErr(err))
		}
		return applied, nil
	}
	return false, fmt.Errorf("%s: %d attempts, each changed under it by another client", op, ratingAttempts)
}

func (r *Redis) Rating(ctx context.Context, pool store.RatingPool, player string) (store.Rating, bool, error) {
	const op = "rating"
	if err := store.CheckPoolPlayer(pool, player); err != nil {
		return store.Rating{}, false, fmt.Errorf("%s: %w", op, err)
	}
	if err := r.check(op); err != nil {
		return store.Rating{}, false, err
	}
	v, err := r.c.Get(ctx, r.ratingKeys(pool).rating(player)).Bytes()
	if errors.Is(err, redis.Nil) {
		return store.Rating{}, false, nil
	}
	if err != nil {
		return store.Rating{}, false, fmt.Errorf("%s: %w", op, mapErr(err))
	}
	var out store.Rating
	if err := json.Unmarshal(v, &out); err != nil {
		return store.Rating{}, false, fmt.Errorf("%s: %w", op, err)
	}
	return out, true, nil
}

func (r *Redis) RatingHistory(ctx context.Context, pool store.RatingPool, player string, limit int) ([]store.RatingChange, error) {
	const op = "rating history"
	if err := store.CheckPoolPlayer(pool, player); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if err := r.check(op); err != nil {
		return nil, err
	}
	limit = store.RatingLimit(limit, store.MaxRatingHistory)
	vals, err := r.c.LRange(ctx, r.ratingKeys(pool).history(player), 0, int64(limit)-1).Result()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, mapErr(err))
	}
	out := make([]store.RatingChange, 0, len(vals))
	for _, v := range vals {
		var c store.RatingChange
		if err := json.Unmarshal([]byte(v), &c); err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		out = append(out, c)
	}
	return out, nil
}

func (r *Redis) TopRatings(ctx context.Context, pool store.RatingPool, limit int) ([]store.RatingEntry, error) {
	const op = "top ratings"
	if err := store.CheckPool(pool); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if err := r.check(op); err != nil {
		return nil, err
	}
	k := r.ratingKeys(pool)
	limit = store.RatingLimit(limit, store.MaxRatingTop)
	players, err := r.c.ZRange(ctx, k.top(), 0, int64(limit)-1).Result()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, mapErr(err))
	}
	if len(players) == 0 {
		return nil, nil
	}
	keys := make([]string, len(players))
	for i, p := range players {
		keys[i] = k.rating(p)
	}
	vals, err := r.c.MGet(ctx, keys...).Result() // one slot: the pool's
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, mapErr(err))
	}
	out := make([]store.RatingEntry, 0, len(players))
	for i, v := range vals {
		s, ok := v.(string)
		if !ok {
			continue
		}
		p := store.RatingEntry{Player: players[i]}
		if err := json.Unmarshal([]byte(s), &p.Rating); err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		out = append(out, p)
	}
	return out, nil
}
