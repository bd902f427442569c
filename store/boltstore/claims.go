package boltstore

import (
	"context"
	"encoding/binary"
	"slices"
	"time"

	"go.etcd.io/bbolt"

	"github.com/roomd/roomd/store"
)

// bClaims holds the claims: key → expiry (8 bytes, ms since the epoch, 0
// for never) followed by the value. bClaimD indexes the claims that
// expire, for the sweep: expiry (8 bytes), key → empty.
var (
	bClaims = []byte("claims")
	bClaimD = []byte("claimdue")
)

var _ store.Claims = (*Bolt)(nil)

// Claim stores value under key, in one transaction of the committer, unless
// the key holds a claim that has not expired (by BoltOptions.Now). An
// expired claim is overwritten when the key is claimed again, or deleted
// by the sweep (through the expiry index, bClaimD).
func (b *Bolt) Claim(ctx context.Context, key string, value []byte, ttl time.Duration) ([]byte, bool, error) {
	if err := store.CheckClaim(key, value, ttl); err != nil {
		return nil, false, err
	}
	var (
		held          []byte
		found, stored bool
	)
	// A key that is held costs a read, not a write transaction: it stays
	// held until it expires.
	if err := b.db.View(func(tx *bbolt.Tx) error {
		held, found = b.holds(tx, key)
		return nil
	}); err != nil {
		return nil, false, b.viewErr("claim", err)
	}
	if found {
		return held, false, nil
	}
	err := b.doApart(ctx, "claim", func(tx *bbolt.Tx) error {
		// The committer may run this again when another op of its
		// transaction fails: set the results afresh each time.
		if held, found = b.holds(tx, key); found {
			stored = false
			return nil
		}
		now := b.opts.Now()
		var at int64
		if ttl > 0 {
			at = max(now.Add(ttl).UnixMilli(), 1)
		}
		v := make([]byte, 8, 8+len(value))
		binary.BigEndian.PutUint64(v, uint64(at))
		v = append(v, value...)
		claims, due := tx.Bucket(bClaims), tx.Bucket(bClaimD)
		if old := claims.Get([]byte(key)); len(old) >= 8 && u64(old) != 0 { // an expired claim
			if err := due.Delete(append(slices.Clone(old[:8]), key...)); err != nil {
				return err
			}
		}
		if err := claims.Put([]byte(key), v); err != nil {
			return err
		}
		if at != 0 {
			if err := due.Put(append(be64(uint64(at)), key...), []byte{}); err != nil {
				return err
			}
		}
		held, stored = slices.Clone(v[8:]), true
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return held, stored, nil
}

// Mark stores value under key for good, whatever is held there.
func (b *Bolt) Mark(ctx context.Context, key string, value []byte) error {
	if err := store.CheckClaim(key, value, 0); err != nil {
		return err
	}
	return b.doApart(ctx, "mark", func(tx *bbolt.Tx) error {
		claims, due := tx.Bucket(bClaims), tx.Bucket(bClaimD)
		if old := claims.Get([]byte(key)); len(old) >= 8 && u64(old) != 0 {
			if err := due.Delete(append(slices.Clone(old[:8]), key...)); err != nil {
				return err
			}
		}
		return claims.Put([]byte(key), append(make([]byte, 8, 8+len(value)), value...))
	})
}

// holds returns a copy of the value of key's claim; ok is false when there
// is none or it has expired.
func (b *Bolt) holds(tx *bbolt.Tx, key string) (value []byte, ok bool) {
	v := tx.Bucket(bClaims).Get([]byte(key))
	if len(v) < 8 {
		return nil, false
	}
	if at := int64(u64(v)); at != 0 && b.opts.Now().UnixMilli() >= at {
		return nil, false
	}
	return append([]byte{}, v[8:]...), true
}

// dropExpiredClaims deletes up to max claims expired at now (ms), and
// their index keys.
func dropExpiredClaims(tx *bbolt.Tx, now int64, max int) error {
	claims, due := tx.Bucket(bClaims), tx.Bucket(bClaimD)
	var keys [][]byte
	c := due.Cursor()
	for k, _ := c.First(); k != nil && len(keys) < max && int64(u64(k)) <= now; k, _ = c.Next() {
		keys = append(keys, slices.Clone(k))
	}
	for _, k := range keys {
		key := k[8:]
		if v := claims.Get(key); len(v) >= 8 && u64(v) == u64(k) {
			if err := claims.Delete(key); err != nil {
				return err
			}
		}
		if err := due.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// indexClaimExpiry indexes the expiry of every claim that has one (the
// claims of a store written before the index existed).
func indexClaimExpiry(tx *bbolt.Tx) error {
	due := tx.Bucket(bClaimD)
	return tx.Bucket(bClaims).ForEach(func(k, v []byte) error {
		if at := u64(v); len(v) >= 8 && at != 0 {
			return due.Put(append(be64(at), k...), []byte{})
		}
		return nil
	})
}
