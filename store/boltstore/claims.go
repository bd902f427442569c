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
// for never) followed by the value.
var bClaims = []byte("claims")

var _ store.Claims = (*Bolt)(nil)

// Claim stores value under key, in one transaction of the committer, unless
// the key holds a claim that has not expired (by BoltOptions.Now). An
// expired claim is overwritten when the key is claimed again; the sweep
// does not delete it.
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
	err := b.do(ctx, "claim", func(tx *bbolt.Tx) error {
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
		if err := tx.Bucket(bClaims).Put([]byte(key), v); err != nil {
			return err
		}
		held, stored = slices.Clone(v[8:]), true
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return held, stored, nil
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
