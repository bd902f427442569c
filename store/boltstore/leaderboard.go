package boltstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"go.etcd.io/bbolt"

	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/internal/sortable"
)

// boardName names a board's buckets (neither Higher nor Expires is part of
// it: boards stored before Higher existed are all lower-is-better).
func boardName(b store.Board) []byte {
	return []byte(b.Game + "\x00" + b.Board + "\x00" + b.Kind)
}

// boardsDroppedPerRecord bounds how many other expired boards one Record
// deletes.
const boardsDroppedPerRecord = 10

// Record drops the board when it is past its expiry, and a few other such
// boards. It then puts s into the board's bucket under a key that sorts
// best first (the value in the board's direction, At, then a sequence
// number), in place of the score of s's player id or name (nameKey) when s
// ranks before it, and
// deletes the worst scores beyond LeaderboardSize.
func (b *Bolt) Record(ctx context.Context, board store.Board, s store.Score) error {
	const op = "record score"
	if math.IsNaN(s.Value) || math.IsInf(s.Value, 0) {
		return fmt.Errorf("%s: value %v is not a finite number", op, s.Value)
	}
	if board.Expires < 0 {
		return fmt.Errorf("%s: expiry %d is before the epoch", op, board.Expires)
	}
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	name := boardName(board)
	who := nameKey(data)
	return b.doApart(ctx, op, func(tx *bbolt.Tx) error {
		now := b.opts.Now().UnixMilli()
		if at := tx.Bucket(bBoardX).Get(name); at != nil && expired(at, now) {
			if err := deleteBoard(tx, name); err != nil {
				return err
			}
		}
		if err := dropExpiredBoards(tx, now, boardsDroppedPerRecord); err != nil {
			return err
		}
		if board.Expires != 0 {
			if err := setBoardExpiry(tx, name, uint64(board.Expires)); err != nil {
				return err
			}
		}
		bb, names, err := boardBuckets(tx, name)
		if err != nil {
			return err
		}
		counts := tx.Bucket(bCounts)
		n := u64(counts.Get(name))
		if k := names.Get(who); k != nil {
			if v := bb.Get(k); v != nil {
				var old store.Score
				if err := json.Unmarshal(v, &old); err != nil {
					return err
				}
				if !board.Before(s, old) {
					return nil // the player's or name's older score is as good
				}
				if err := bb.Delete(k); err != nil {
					return err
				}
				n--
			}
		}
		seq, err := bb.NextSequence()
		if err != nil {
			return err
		}
		key := binary.BigEndian.AppendUint64(nil, sortable.Float(sortable.Ranked(s.Value, board.Higher)))
		key = binary.BigEndian.AppendUint64(key, sortable.Int(s.At))
		key = binary.BigEndian.AppendUint64(key, seq)
		if err := bb.Put(key, data); err != nil {
			return err
		}
		if err := names.Put(who, key); err != nil {
			return err
		}
		for n++; n > uint64(b.opts.LeaderboardSize); n-- {
			k, v := bb.Cursor().Last()
			if err := unindex(names, k, v); err != nil {
				return err
			}
			if err := bb.Delete(k); err != nil {
				return err
			}
		}
		return counts.Put(name, be64(n))
	})
}

// nameKey is the key in its board's names bucket of the JSON score data,
// what the board keeps one score per (store.Score.Who): "p" and the player
// id as it reads back when the score has one, else "n" and the name (the
// key of every score stored before player ids, so those boards read and
// dedupe as before). The first byte keeps the two apart whatever a name
// holds, and a key is never empty, as bbolt keys must not be.
func nameKey(data []byte) []byte {
	var s store.Score
	_ = json.Unmarshal(data, &s) // data is a marshalled Score
	if s.Player != "" {
		return append([]byte("p"), s.Player...)
	}
	return append([]byte("n"), s.Name...)
}

// boardBuckets returns the board's bucket of scores and its bucket of
// names, creating them. A board stored before names were indexed is indexed
// now; of several scores under one name it keeps the best.
func boardBuckets(tx *bbolt.Tx, name []byte) (scores, names *bbolt.Bucket, err error) {
	scores, err = tx.Bucket(bBoards).CreateBucketIfNotExists(name)
	if err != nil {
		return nil, nil, err
	}
	if names = tx.Bucket(bNames).Bucket(name); names != nil {
		return scores, names, nil
	}
	if names, err = tx.Bucket(bNames).CreateBucket(name); err != nil {
		return nil, nil, err
	}
	var (
		drop [][]byte
		kept uint64
	)
	c := scores.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() { // best first
		who := nameKey(v)
		if names.Get(who) != nil {
			drop = append(drop, slices.Clone(k))
			continue
		}
		if err := names.Put(who, slices.Clone(k)); err != nil {
			return nil, nil, err
		}
		kept++
	}
	for _, k := range drop {
		if err := scores.Delete(k); err != nil {
			return nil, nil, err
		}
	}
	if err := tx.Bucket(bCounts).Put(name, be64(kept)); err != nil {
		return nil, nil, err
	}
	return scores, names, nil
}

// unindex deletes the names entry of the score at key k (JSON v) when it
// points at k.
func unindex(names *bbolt.Bucket, k, v []byte) error {
	who := nameKey(v)
	if bytes.Equal(names.Get(who), k) {
		return names.Delete(who)
	}
	return nil
}

// expired reports whether a board whose expiry (8 bytes) is at is past it
// at now (ms).
func expired(at []byte, now int64) bool { return int64(u64(at)) < now }

// setBoardExpiry sets the expiry of board name to at (ms).
func setBoardExpiry(tx *bbolt.Tx, name []byte, at uint64) error {
	bx, due := tx.Bucket(bBoardX), tx.Bucket(bBoardD)
	if old := bx.Get(name); old != nil {
		if err := due.Delete(append(slices.Clone(old), name...)); err != nil {
			return err
		}
	}
	if err := bx.Put(name, be64(at)); err != nil {
		return err
	}
	return due.Put(append(be64(at), name...), []byte{})
}

// deleteBoard deletes every bucket and key of board name.
func deleteBoard(tx *bbolt.Tx, name []byte) error {
	for _, parent := range []*bbolt.Bucket{tx.Bucket(bBoards), tx.Bucket(bNames)} {
		if parent.Bucket(name) != nil {
			if err := parent.DeleteBucket(name); err != nil {
				return err
			}
		}
	}
	if err := tx.Bucket(bCounts).Delete(name); err != nil {
		return err
	}
	bx := tx.Bucket(bBoardX)
	if at := bx.Get(name); at != nil {
		if err := tx.Bucket(bBoardD).Delete(append(slices.Clone(at), name...)); err != nil {
			return err
		}
	}
	return bx.Delete(name)
}

// dropExpiredBoards deletes up to max boards past their expiry at now (ms).
func dropExpiredBoards(tx *bbolt.Tx, now int64, max int) error {
	due, bx := tx.Bucket(bBoardD), tx.Bucket(bBoardX)
	var keys [][]byte
	c := due.Cursor()
	for k, _ := c.First(); k != nil && len(keys) < max && expired(k, now); k, _ = c.Next() {
		keys = append(keys, slices.Clone(k))
	}
	for _, k := range keys {
		name := k[8:]
		if bytes.Equal(bx.Get(name), k[:8]) {
			if err := deleteBoard(tx, name); err != nil { // deletes k
				return err
			}
			continue
		}
		if err := due.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

func (b *Bolt) Top(ctx context.Context, board store.Board, limit int) ([]store.Score, error) {
	if err := b.check("top scores"); err != nil {
		return nil, err
	}
	var out []store.Score
	name := boardName(board)
	now := b.opts.Now().UnixMilli()
	err := b.db.View(func(tx *bbolt.Tx) error {
		if at := tx.Bucket(bBoardX).Get(name); at != nil && expired(at, now) {
			return nil
		}
		bb := tx.Bucket(bBoards).Bucket(name)
		if bb == nil {
			return nil
		}
		c := bb.Cursor()
		for k, v := c.First(); k != nil && (limit <= 0 || len(out) < limit); k, v = c.Next() {
			var s store.Score
			if err := json.Unmarshal(v, &s); err != nil {
				return err
			}
			out = append(out, s)
		}
		return nil
	})
	if err != nil {
		return nil, b.viewErr("top scores", err)
	}
	return out, nil
}
