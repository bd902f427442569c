package boltstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"go.etcd.io/bbolt"

	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/internal/sortable"
)

// The buckets of the ratings (STORAGE.md). Every key starts with its
// pool's prefix (poolKey: the length of "game/mode" in two bytes, then
// it), so one pool's keys are contiguous.
var (
	bRatings   = []byte("ratings")        // pool, player → Rating (JSON)
	bRatingH   = []byte("ratinghist")     // pool, len(player) (2 bytes), player, matches (8 bytes) → RatingChange (JSON)
	bRatingTop = []byte("ratingtop")      // pool, ^rating (8 bytes, sortable), player → empty: the listed players
	bRatingM   = []byte("ratingmatch")    // pool, match id → until (8 bytes, ms): the matches applied
	bRatingMD  = []byte("ratingmatchdue") // until (8 bytes), pool, match id → empty
)

// matchesForgottenPerApply bounds how many expired notes of applied
// matches one ApplyRating deletes.
const matchesForgottenPerApply = 16

var _ store.Ratings = (*Bolt)(nil)

func poolKey(p store.RatingPool) []byte {
	name := p.String()
	return append(binary.BigEndian.AppendUint16(nil, uint16(len(name))), name...)
}

func playerKey(p store.RatingPool, player string) []byte { return append(poolKey(p), player...) }

func historyPrefix(p store.RatingPool, player string) []byte {
	k := binary.BigEndian.AppendUint16(poolKey(p), uint16(len(player)))
	return append(k, player...)
}

func topKey(p store.RatingPool, rating float64, player string) []byte {
	k := binary.BigEndian.AppendUint64(poolKey(p), ^sortable.Float(rating))
	return append(k, player...)
}

// ApplyRating runs in one transaction of the committer (apart from the
// rooms' log): bbolt has one writer at a time, so two matches of one
// player are applied one after the other.
func (b *Bolt) ApplyRating(ctx context.Context, m store.RatedMatch, update store.RatingUpdate) (bool, error) {
	const op = "apply rating"
	if err := store.CheckRatedMatch(m); err != nil {
		return false, fmt.Errorf("%s: %w", op, err)
	}
	var applied bool
	err := b.doApart(ctx, op, func(tx *bbolt.Tx) error {
		applied = false // the committer may run this again
		now := b.opts.Now().UnixMilli()
		if err := forgetMatches(tx, now); err != nil {
			return err
		}
		done, due := tx.Bucket(bRatingM), tx.Bucket(bRatingMD)
		id := append(poolKey(m.Pool), m.ID...)
		if until := done.Get(id); until != nil && int64(u64(until)) > now {
			return nil
		}
		ratings, hist, top := tx.Bucket(bRatings), tx.Bucket(bRatingH), tx.Bucket(bRatingTop)
		var before [2]store.Rating
		for i, p := range m.Players {
			if v := ratings.Get(playerKey(m.Pool, p)); v != nil {
				if err := json.Unmarshal(v, &before[i]); err != nil {
					return fmt.Errorf("the rating of %q: %w", p, err)
				}
			}
		}
		after, changes, err := store.Rated(m, before, update)
		if err != nil {
			return err
		}
		for i, p := range m.Players {
			data, err := json.Marshal(after[i])
			if err != nil {
				return err
			}
			if err := ratings.Put(playerKey(m.Pool, p), data); err != nil {
				return err
			}
			if before[i].Listed() {
				if err := top.Delete(topKey(m.Pool, before[i].Rating, p)); err != nil {
					return err
				}
			}
			if after[i].Listed() {
				if err := top.Put(topKey(m.Pool, after[i].Rating, p), []byte{}); err != nil {
					return err
				}
			}
			if data, err = json.Marshal(changes[i]); err != nil {
				return err
			}
			prefix := historyPrefix(m.Pool, p)
			if err := hist.Put(binary.BigEndian.AppendUint64(bytes.Clone(prefix), uint64(after[i].Matches)), data); err != nil {
				return err
			}
			if old := after[i].Matches - store.MaxRatingHistory; old > 0 {
				if err := hist.Delete(binary.BigEndian.AppendUint64(prefix, uint64(old))); err != nil {
					return err
				}
			}
		}
		if old := done.Get(id); old != nil {
			if err := due.Delete(append(bytes.Clone(old), id...)); err != nil {
				return err
			}
		}
		until := be64(uint64(now + store.RatingMatchKept.Milliseconds()))
		if err := done.Put(id, until); err != nil {
			return err
		}
		if err := due.Put(append(bytes.Clone(until), id...), []byte{}); err != nil {
			return err
		}
		applied = true
		return nil
	})
	return applied, err
}

// forgetMatches deletes a few notes of applied matches whose time is up.
func forgetMatches(tx *bbolt.Tx, now int64) error {
	done, c := tx.Bucket(bRatingM), tx.Bucket(bRatingMD).Cursor()
	for i, k := 0, []byte(nil); i < matchesForgottenPerApply; i++ {
		if k, _ = c.First(); k == nil || len(k) < 8 || int64(u64(k)) > now {
			return nil
		}
		if err := done.Delete(bytes.Clone(k[8:])); err != nil {
			return err
		}
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return nil
}

func (b *Bolt) Rating(ctx context.Context, pool store.RatingPool, player string) (store.Rating, bool, error) {
	const op = "rating"
	if err := store.CheckPoolPlayer(pool, player); err != nil {
		return store.Rating{}, false, fmt.Errorf("%s: %w", op, err)
	}
	if err := b.check(op); err != nil {
		return store.Rating{}, false, err
	}
	var (
		r     store.Rating
		found bool
	)
	err := b.db.View(func(tx *bbolt.Tx) error {
		v := tx.Bucket(bRatings).Get(playerKey(pool, player))
		if v == nil {
			return nil
		}
		found = true
		return json.Unmarshal(v, &r)
	})
	if err != nil {
		return store.Rating{}, false, b.viewErr(op, err)
	}
	return r, found, nil
}

func (b *Bolt) RatingHistory(ctx context.Context, pool store.RatingPool, player string, limit int) ([]store.RatingChange, error) {
	const op = "rating history"
	if err := store.CheckPoolPlayer(pool, player); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if err := b.check(op); err != nil {
		return nil, err
	}
	limit = store.RatingLimit(limit, store.MaxRatingHistory)
	var out []store.RatingChange
	err := b.db.View(func(tx *bbolt.Tx) error {
		prefix := historyPrefix(pool, player)
		c := tx.Bucket(bRatingH).Cursor()
		k, v := c.Seek(binary.BigEndian.AppendUint64(bytes.Clone(prefix), ^uint64(0)))
		if k == nil || !bytes.HasPrefix(k, prefix) {
			k, v = c.Prev()
		}
		for ; k != nil && bytes.HasPrefix(k, prefix) && len(k) == len(prefix)+8 && len(out) < limit; k, v = c.Prev() {
			var ch store.RatingChange
			if err := json.Unmarshal(v, &ch); err != nil {
				return err
			}
			out = append(out, ch)
		}
		return nil
	})
	if err != nil {
		return nil, b.viewErr(op, err)
	}
	return out, nil
}

func (b *Bolt) TopRatings(ctx context.Context, pool store.RatingPool, limit int) ([]store.RatingEntry, error) {
	const op = "top ratings"
	if err := store.CheckPool(pool); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if err := b.check(op); err != nil {
		return nil, err
	}
	limit = store.RatingLimit(limit, store.MaxRatingTop)
	var out []store.RatingEntry
	err := b.db.View(func(tx *bbolt.Tx) error {
		prefix := poolKey(pool)
		ratings := tx.Bucket(bRatings)
		c := tx.Bucket(bRatingTop).Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) && len(out) < limit; k, _ = c.Next() {
			if len(k) < len(prefix)+8 {
				continue
			}
			p := store.RatingEntry{Player: string(k[len(prefix)+8:])}
			v := ratings.Get(playerKey(pool, p.Player))
			if v == nil {
				continue
			}
			if err := json.Unmarshal(v, &p.Rating); err != nil {
				return err
			}
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, b.viewErr(op, err)
	}
	return out, nil
}
