package boltstore

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"go.etcd.io/bbolt"

	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/internal/fence"
)

func checkCode(op, code string) error {
	if code == "" || len(code) > 255 {
		return fmt.Errorf("%s: room code must be 1 to 255 bytes", op)
	}
	return nil
}

// room loads the room's meta; ok is false when there is none. A room whose
// TTL has passed is deleted.
func (b *Bolt) room(tx *bbolt.Tx, code string) (m roomMeta, ok bool, err error) {
	v := tx.Bucket(bRooms).Get([]byte(code))
	if v == nil {
		return roomMeta{}, false, nil
	}
	m = decodeMeta(v)
	if m.ended != 0 && b.opts.Now().UnixMilli() >= int64(m.ended) {
		if err := tx.Bucket(bExpiry).Delete(expiryKey(m.ended, code)); err != nil {
			return roomMeta{}, false, err
		}
		return roomMeta{}, false, deleteRoom(tx, code)
	}
	return m, true, nil
}

// held loads the meta of the room lease holds, or says why it may not write.
func (b *Bolt) held(tx *bbolt.Tx, lease store.Lease) (roomMeta, error) {
	m, ok, err := b.room(tx, lease.Room)
	if err != nil {
		return m, err
	}
	if !ok {
		return m, store.ErrNotFound
	}
	if m.fence != lease.Token {
		return m, fmt.Errorf("token %d, current %d: %w", lease.Token, m.fence, store.ErrFenced)
	}
	return m, nil
}

func (b *Bolt) Create(ctx context.Context, room string, snap store.Snapshot) (store.Lease, error) {
	op := "create " + room
	if err := checkCode(op, room); err != nil {
		return store.Lease{}, err
	}
	var lease store.Lease
	err := b.do(ctx, op, func(tx *bbolt.Tx) error {
		_, ok, err := b.room(tx, room)
		if err != nil {
			return err
		}
		if ok {
			return store.ErrExists
		}
		// A room that expired is gone with its log, but be sure.
		if err := deleteLog(tx, room, math.MaxUint64); err != nil {
			return err
		}
		token := fence.First(time.Now())
		if err := tx.Bucket(bSnaps).Put([]byte(room), nonNil(snap.Data)); err != nil {
			return err
		}
		if err := putMeta(tx, room, roomMeta{fence: token, last: snap.Rev, snapRev: snap.Rev}); err != nil {
			return err
		}
		lease = store.Lease{Room: room, Token: token}
		return nil
	})
	return lease, err
}

func (b *Bolt) Open(ctx context.Context, room string) (store.Lease, store.Record, error) {
	var (
		lease store.Lease
		rec   store.Record
	)
	// An unknown room costs a read, not a write transaction: a stranger
	// trying codes must not make the committer (and fsync) work.
	known := false
	if err := b.db.View(func(tx *bbolt.Tx) error {
		known = tx.Bucket(bRooms).Get([]byte(room)) != nil
		return nil
	}); err != nil {
		return store.Lease{}, store.Record{}, b.viewErr("open "+room, err)
	}
	if !known {
		return store.Lease{}, store.Record{}, fmt.Errorf("open %s: %w", room, store.ErrNotFound)
	}
	err := b.do(ctx, "open "+room, func(tx *bbolt.Tx) error {
		m, ok, err := b.room(tx, room)
		if err != nil {
			return err
		}
		if !ok {
			return store.ErrNotFound
		}
		m.fence++
		if err := putMeta(tx, room, m); err != nil {
			return err
		}
		lease = store.Lease{Room: room, Token: m.fence}
		rec = store.Record{
			Snapshot: store.Snapshot{Rev: m.snapRev, Data: slices.Clone(tx.Bucket(bSnaps).Get([]byte(room)))},
			Ended:    m.ended != 0,
		}
		if rec.Rewound, err = rewound(tx, room, m); err != nil {
			return err
		}
		prefix := logPrefix(room)
		c := tx.Bucket(bLog).Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			rec.Entries = append(rec.Entries, store.Entry{Rev: u64(k[len(prefix):]), Data: slices.Clone(v)})
		}
		return nil
	})
	if err != nil {
		return store.Lease{}, store.Record{}, err
	}
	return lease, rec, nil
}

func (b *Bolt) Append(ctx context.Context, lease store.Lease, entries []store.Entry) error {
	if len(entries) == 0 {
		return b.check("append " + lease.Room)
	}
	err := checkBatch(entries)
	if err == nil {
		err = b.submit(ctx, &boltOp{ctx: ctx, log: &walOp{lease: lease, entries: entries}, fn: func(tx *bbolt.Tx) error {
			_, err := b.appendTx(tx, lease, entries)
			return err
		}})
	}
	if err != nil {
		return fmt.Errorf("append %s: %w", lease.Room, err)
	}
	return nil
}

// checkBatch checks that entries have contiguous revisions.
func checkBatch(entries []store.Entry) error {
	for i := 1; i < len(entries); i++ {
		if entries[i].Rev != entries[i-1].Rev+1 {
			return fmt.Errorf("rev %d after %d in one batch: %w", entries[i].Rev, entries[i-1].Rev, store.ErrGap)
		}
	}
	return nil
}

// appendTx appends entries (contiguous, see checkBatch) inside tx, fenced
// by lease; dup is true when they were all stored already (a retry that
// changes nothing). It changes nothing when it returns an error.
func (b *Bolt) appendTx(tx *bbolt.Tx, lease store.Lease, entries []store.Entry) (dup bool, err error) {
	m, err := b.held(tx, lease)
	if err != nil || len(entries) == 0 {
		return false, err
	}
	log := tx.Bucket(bLog)
	first := entries[0].Rev
	if first <= m.last {
		for _, e := range entries {
			if v := log.Get(logKey(lease.Room, e.Rev)); v == nil || !bytes.Equal(v, e.Data) {
				return false, fmt.Errorf("rev %d after %d: %w", first, m.last, store.ErrGap)
			}
		}
		return true, nil // a retry of an append that landed
	}
	if first != m.last+1 {
		return false, fmt.Errorf("rev %d after %d: %w", first, m.last, store.ErrGap)
	}
	for _, e := range entries {
		if err := log.Put(logKey(lease.Room, e.Rev), nonNil(e.Data)); err != nil {
			return false, err
		}
	}
	m.last = entries[len(entries)-1].Rev
	return false, putMeta(tx, lease.Room, m)
}

func (b *Bolt) WriteSnapshot(ctx context.Context, lease store.Lease, snap store.Snapshot) error {
	return b.run(ctx, "snapshot "+lease.Room, &boltOp{ctx: ctx, log: &walOp{lease: lease, snap: &snap}, fn: func(tx *bbolt.Tx) error {
		return b.snapshotTx(tx, lease, snap)
	}})
}

// snapshotTx is WriteSnapshot inside tx (pendingRoom.snapshot is the same
// for the write-ahead log's pending state).
func (b *Bolt) snapshotTx(tx *bbolt.Tx, lease store.Lease, snap store.Snapshot) error {
	m, err := b.held(tx, lease)
	if err != nil {
		return err
	}
	if snap.Rev < m.snapRev {
		return nil // an older snapshot never replaces a newer one
	}
	if err := tx.Bucket(bSnaps).Put([]byte(lease.Room), nonNil(snap.Data)); err != nil {
		return err
	}
	upTo := snap.FirstKept() - 1
	if snap.Rev > m.last {
		upTo = math.MaxUint64 // ahead of the log: nothing stored can lead up to it
	}
	m.snapRev, m.last = snap.Rev, max(m.last, snap.Rev)
	if err := putMeta(tx, lease.Room, m); err != nil {
		return err
	}
	return deleteLog(tx, lease.Room, upTo)
}

func (b *Bolt) End(ctx context.Context, lease store.Lease, ttl time.Duration) error {
	return b.do(ctx, "end "+lease.Room, func(tx *bbolt.Tx) error {
		m, err := b.held(tx, lease)
		if err != nil {
			return err
		}
		exp := tx.Bucket(bExpiry)
		if m.ended != 0 {
			if err := exp.Delete(expiryKey(m.ended, lease.Room)); err != nil {
				return err
			}
		}
		m.ended = uint64(max(b.opts.Now().Add(ttl).UnixMilli(), 1))
		if err := putMeta(tx, lease.Room, m); err != nil {
			return err
		}
		return exp.Put(expiryKey(m.ended, lease.Room), []byte{})
	})
}

func (b *Bolt) List(ctx context.Context) ([]string, error) {
	if err := b.check("list"); err != nil {
		return nil, err
	}
	var out []string
	err := b.db.View(func(tx *bbolt.Tx) error {
		return tx.Bucket(bRooms).ForEach(func(k, v []byte) error {
			if decodeMeta(v).ended == 0 {
				out = append(out, string(k))
			}
			return nil
		})
	})
	if err != nil {
		return nil, b.viewErr("list", err)
	}
	return out, nil // bbolt keeps keys sorted
}

func (b *Bolt) sweepLoop() {
	defer b.wg.Done()
	t := time.NewTicker(b.opts.SweepInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_, _ = b.sweep(ctx)
			cancel()
		case <-b.quit:
			return
		}
	}
}

// sweep deletes up to 1000 rooms whose TTL has passed, up to 100 boards
// past their expiry and up to 1000 expired claims, and returns how many
// rooms.
func (b *Bolt) sweep(ctx context.Context) (int, error) {
	n := 0
	err := b.do(ctx, "sweep", func(tx *bbolt.Tx) error {
		n = 0
		now := b.opts.Now().UnixMilli()
		if err := dropExpiredBoards(tx, now, 100); err != nil {
			return err
		}
		if err := dropExpiredClaims(tx, now, 1000); err != nil {
			return err
		}
		exp, rooms := tx.Bucket(bExpiry), tx.Bucket(bRooms)
		var keys [][]byte
		c := exp.Cursor()
		for k, _ := c.First(); k != nil && len(keys) < 1000 && int64(u64(k[:8])) <= now; k, _ = c.Next() {
			keys = append(keys, slices.Clone(k))
		}
		for _, k := range keys {
			code := string(k[8:])
			if v := rooms.Get([]byte(code)); v != nil && decodeMeta(v).ended == u64(k) {
				if err := deleteRoom(tx, code); err != nil {
					return err
				}
				n++
			}
			if err := exp.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
	return n, err
}
