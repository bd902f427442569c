package boltstore

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	"go.etcd.io/bbolt"

	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/internal/sortable"
)

// The outbox's buckets. Events are kept in (Due, ID) order, so Due is a
// cursor from the start; the index finds an event's key from its ID, and
// the count is kept so that the bound costs no scan.
var (
	bOutbox   = []byte("outbox")   // sortable due (8 bytes), id → attempts (8 bytes), data
	bOutboxID = []byte("outboxid") // id → sortable due (8 bytes)
	bOutboxN  = []byte("outboxn")  // "n" → number of events (8 bytes)
)

var keyN = []byte("n")

var (
	_ store.Outbox  = (*Bolt)(nil)
	_ store.Backend = (*Bolt)(nil)
)

func outboxKey(due []byte, id string) []byte { return append(slices.Clone(due), id...) }

// enqueue puts events into the outbox inside tx and returns how many it
// dropped because the outbox holds MaxOutbox. An event whose ID is queued
// replaces it.
func (b *Bolt) enqueue(tx *bbolt.Tx, events []store.Event) (dropped int, err error) {
	box, ids, counts := tx.Bucket(bOutbox), tx.Bucket(bOutboxID), tx.Bucket(bOutboxN)
	n := u64(counts.Get(keyN))
	for _, e := range events {
		id := []byte(e.ID)
		if old := ids.Get(id); old != nil {
			if err := box.Delete(outboxKey(old, e.ID)); err != nil {
				return 0, err
			}
		} else if n >= uint64(b.opts.MaxOutbox) {
			dropped++
			continue
		} else {
			n++
		}
		due := be64(sortable.Int(e.Due))
		v := binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(e.Data)), uint64(e.Attempts))
		if err := box.Put(outboxKey(due, e.ID), append(v, e.Data...)); err != nil {
			return 0, err
		}
		if err := ids.Put(id, due); err != nil {
			return 0, err
		}
	}
	return dropped, counts.Put(keyN, be64(n))
}

// Enqueue puts the events in one transaction of the committer.
func (b *Bolt) Enqueue(ctx context.Context, events []store.Event) (int, error) {
	if err := store.CheckEvents(events); err != nil {
		return 0, err
	}
	var dropped int
	err := b.doApart(ctx, "enqueue", func(tx *bbolt.Tx) error {
		var err error
		dropped, err = b.enqueue(tx, events)
		return err
	})
	return dropped, err
}

// AppendWith is Append and enqueue in one op of the committer, hence one
// transaction: both are committed or neither. A refused append (fenced, a
// gap) returns before it changes anything, and a retry of an append that
// landed enqueues nothing (the first attempt did).
func (b *Bolt) AppendWith(ctx context.Context, lease store.Lease, entries []store.Entry, events []store.Event) (int, error) {
	op := "append " + lease.Room
	if err := store.CheckEvents(events); err != nil {
		return 0, err
	}
	if err := checkBatch(entries); err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	var dropped int
	err := b.do(ctx, op, func(tx *bbolt.Tx) error {
		dropped = 0 // the committer may run this again
		dup, err := b.appendTx(tx, lease, entries)
		if err != nil || dup {
			return err
		}
		dropped, err = b.enqueue(tx, events)
		return err
	})
	if err != nil {
		return 0, err
	}
	return dropped, nil
}

func (b *Bolt) Due(ctx context.Context, now int64, limit int) ([]store.Event, error) {
	const op = "due events"
	if err := b.check(op); err != nil {
		return nil, err
	}
	limit = store.DueLimit(limit)
	var out []store.Event
	err := b.db.View(func(tx *bbolt.Tx) error {
		c := tx.Bucket(bOutbox).Cursor()
		for k, v := c.First(); k != nil && len(out) < limit; k, v = c.Next() {
			due := int64(u64(k) ^ 1<<63) // sortable.Int reversed
			if due > now || len(v) < 8 {
				break
			}
			out = append(out, store.Event{ID: string(k[8:]), Data: slices.Clone(v[8:]), Attempts: int(u64(v)), Due: due})
		}
		return nil
	})
	if err != nil {
		return nil, b.viewErr(op, err)
	}
	return out, nil
}

func (b *Bolt) Retry(ctx context.Context, id string, attempts int, due int64) error {
	return b.doApart(ctx, "retry event", func(tx *bbolt.Tx) error {
		box, ids := tx.Bucket(bOutbox), tx.Bucket(bOutboxID)
		old := ids.Get([]byte(id))
		if old == nil {
			return nil
		}
		k := outboxKey(old, id)
		v := box.Get(k)
		if v == nil || len(v) < 8 {
			return nil
		}
		nv := binary.BigEndian.AppendUint64(make([]byte, 0, len(v)), uint64(attempts))
		nv = append(nv, v[8:]...)
		if err := box.Delete(k); err != nil {
			return err
		}
		at := be64(sortable.Int(due))
		if err := box.Put(outboxKey(at, id), nv); err != nil {
			return err
		}
		return ids.Put([]byte(id), at)
	})
}

func (b *Bolt) Ack(ctx context.Context, ids []string) error {
	return b.doApart(ctx, "ack events", func(tx *bbolt.Tx) error {
		box, idx, counts := tx.Bucket(bOutbox), tx.Bucket(bOutboxID), tx.Bucket(bOutboxN)
		n := u64(counts.Get(keyN))
		for _, id := range ids {
			if id == "" {
				continue
			}
			old := idx.Get([]byte(id))
			if old == nil {
				continue
			}
			if err := box.Delete(outboxKey(old, id)); err != nil {
				return err
			}
			if err := idx.Delete([]byte(id)); err != nil {
				return err
			}
			n--
		}
		return counts.Put(keyN, be64(n))
	})
}
