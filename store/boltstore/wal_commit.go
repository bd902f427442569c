package boltstore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"syscall"
	"time"

	"go.etcd.io/bbolt"

	"github.com/roomd/roomd/store"
)

// loggable reports whether ops can go to the log: all appends and
// snapshots, and the log usable — not broken, and not full (a checkpoint
// that is slow, or failed on a full disk say, leaves it full: the writes
// then go to bbolt with a checkpoint of everything).
func (b *Bolt) loggable(ops []*boltOp) bool {
	if w := b.wal; w == nil || w.broken != nil || w.off >= b.opts.WALSize || w.bytes >= b.opts.WALSize {
		return false
	}
	for _, o := range ops {
		if o.log == nil {
			return false
		}
	}
	return true
}

// undo restores one room's pending state when a log write fails.
type undo struct {
	room  string
	prev  *pendingRoom // nil: the room had nothing pending
	saved pendingRoom
}

// logOps is the committer's path for a batch of appends and snapshots:
// check each against bbolt and what is pending, as appendTx and snapshotTx
// would, write the accepted ones as one record, sync it, answer.
func (b *Bolt) logOps(ops []*boltOp) {
	w := b.wal
	// The batch's scratch slices are the committer's, kept from one batch
	// to the next (and cleared after, so they hold nothing).
	errs := slices.Grow(w.errs[:0], len(ops))[:len(ops)]
	accepted, undos := w.accepted[:0], w.undos[:0]
	defer func() {
		clear(errs)
		clear(accepted)
		clear(undos)
		w.errs, w.accepted, w.undos = errs[:0], accepted[:0], undos[:0]
	}()
	size := 0
	for _, o := range ops {
		size += o.log.size()
	}
	// What is kept until the checkpoint: one copy of the data for the
	// batch, not the callers' slices.
	arena := make([]byte, 0, size)
	keep := func(v []byte) []byte {
		start := len(arena)
		arena = append(arena, v...)
		return arena[start:len(arena):len(arena)]
	}
	now := b.opts.Now().UnixMilli()
	viewErr := b.db.View(func(tx *bbolt.Tx) error {
		for i, o := range ops {
			if err := o.ctx.Err(); err != nil {
				errs[i] = err // its caller has gone: leave it out
				continue
			}
			l := o.log
			p := w.pending[l.lease.Room]
			m, err := b.heldPending(tx, l.lease, now)
			if err == nil && l.snap == nil {
				err = w.checkFollows(tx, l.lease.Room, m, l.entries)
			}
			if errors.Is(err, errDup) || err == nil && l.snap != nil && l.snap.Rev < m.snapRev {
				continue // a retry that landed, an older snapshot: nothing to write
			}
			if err != nil {
				errs[i] = err
				continue
			}
			u := undo{room: l.lease.Room, prev: p}
			if p == nil {
				p = &pendingRoom{meta: m}
				w.pending[l.lease.Room] = p
			} else {
				u.saved = *p
			}
			undos = append(undos, u)
			if l.snap != nil {
				snap := *l.snap
				snap.Data = keep(snap.Data)
				p.snapshot(snap)
				accepted = append(accepted, walOp{lease: l.lease, snap: &snap})
				continue
			}
			for _, e := range l.entries {
				p.entries = append(p.entries, store.Entry{Rev: e.Rev, Data: keep(e.Data)})
			}
			p.meta.last = l.entries[len(l.entries)-1].Rev
			accepted = append(accepted, walOp{lease: l.lease, entries: p.entries[len(p.entries)-len(l.entries):]})
		}
		return nil
	})
	if viewErr != nil {
		for i := range errs {
			errs[i] = viewErr
		}
		b.rollback(undos)
		accepted = accepted[:0]
	}
	if len(accepted) > 0 {
		if err := w.write(accepted); err != nil {
			b.rollback(undos)
			for i := range errs {
				if errs[i] == nil {
					errs[i] = err
				}
			}
		} else {
			if w.writes == 0 {
				w.since = time.Now()
			}
			w.writes += len(accepted)
			w.bytes += int64(size)
			b.txs.Add(1)
			b.logged.Add(1)
		}
	}
	b.ops.Add(uint64(len(ops)))
	for i, o := range ops {
		o.done <- errs[i]
	}
}

// snapshot applies a snapshot to a room's pending state as snapshotTx
// applies it to bbolt (the caller has checked that it is not older than
// the room's).
func (p *pendingRoom) snapshot(snap store.Snapshot) {
	upTo := snap.FirstKept() - 1
	if snap.Rev > p.meta.last {
		upTo = math.MaxUint64 // ahead of the log: nothing stored can lead up to it
	}
	p.snap = &snap
	p.dropUpTo = max(p.dropUpTo, upTo)
	i := 0
	for i < len(p.entries) && p.entries[i].Rev <= upTo {
		i++
	}
	p.entries = p.entries[i:]
	p.meta.snapRev, p.meta.last = snap.Rev, max(p.meta.last, snap.Rev)
}

func (b *Bolt) rollback(undos []undo) {
	w := b.wal
	for i := len(undos) - 1; i >= 0; i-- {
		u := undos[i]
		if u.prev == nil {
			delete(w.pending, u.room)
			continue
		}
		*u.prev = u.saved
	}
}

// write logs one record and syncs it. A failure breaks the log until the
// next checkpoint.
func (w *wal) write(ops []walOp) error {
	seq := w.seq + 1
	w.seq = seq // handed out even when the write fails: never reused
	w.buf = appendRecord(w.buf[:0], seq, ops)
	if err := w.writeSync(w.files[w.cur]); err != nil {
		w.broken = err
		return err
	}
	w.off += int64(len(w.buf))
	w.size[w.cur] = max(w.size[w.cur], w.off)
	if cap(w.buf) > 1<<20 {
		w.buf = nil // a rare large batch: do not keep its buffer
	}
	return nil
}

// writeSync writes w.buf at w.off in f and syncs it (unless noSync):
// through the ring, as one submission, when there is one.
func (w *wal) writeSync(f *os.File) error {
	written := 0
	if w.ring != nil && !w.noSync && !w.noRingWrite {
		n, err := w.ring.writeSync(f, w.buf, w.off)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, errUnsubmitted):
			w.dropRing(err) // nothing in flight: pwrite and fdatasync
		case errors.Is(err, errRing):
			// The requests may still be in flight: the kernel may yet
			// read the buffer, so it is never reused, and what the file
			// holds at off is unknown (the caller breaks the log).
			w.stranded = append(w.stranded, w.buf)
			w.buf = nil
			w.dropRing(err)
			return fmt.Errorf("write-ahead log: %w", err)
		case n == 0 && errors.Is(err, syscall.EINVAL):
			w.noRingWrite = true // a kernel before 5.6: pwrite, then the ring's sync
		case errors.Is(err, io.ErrShortWrite):
			written = n // the kernel cancelled the sync: the rest, then a sync
		case n == len(w.buf):
			return fmt.Errorf("write-ahead log: sync: %w", err)
		default:
			return fmt.Errorf("write-ahead log: %w", err)
		}
	}
	if _, err := f.WriteAt(w.buf[written:], w.off+int64(written)); err != nil {
		return fmt.Errorf("write-ahead log: %w", err)
	}
	if !w.noSync {
		if err := w.sync(f); err != nil {
			return fmt.Errorf("write-ahead log: sync: %w", err)
		}
	}
	return nil
}

// sync syncs f's data: through the ring when there is one, else (or when
// the ring fails, for good) with fdatasync.
func (w *wal) sync(f *os.File) error {
	if w.ring != nil {
		err := w.ring.fdatasync(f)
		if !errors.Is(err, errRing) {
			return err
		}
		w.dropRing(err)
	}
	return fdatasync(f)
}

// dropRing closes a ring that failed: the log syncs with fdatasync(2)
// from now on.
func (w *wal) dropRing(err error) {
	w.ring.close()
	w.ring = nil
	w.ringGone(err)
	if !w.keepProcs && !w.borrowed {
		// Each sync blocks a thread now: with one P, keep a second until
		// Close, as roomd does for a store that had no ring at start
		// (procs.go).
		borrowProc(w.defaultProcs)
		w.borrowed = true
	}
}

// ringGone records why the log syncs with fdatasync(2) rather than
// through a ring (BoltStats.RingError).
func (w *wal) ringGone(err error) {
	msg := err.Error()
	w.ringErr.Store(&msg)
	w.ringOn.Store(false)
}

// errDup is checkFollows' answer for a retry of an append that landed.
var errDup = errors.New("already stored")

// heldPending is held for the log's path: the room's meta as the pending
// or frozen writes left it or as bbolt holds it, read in a read-only
// transaction (an expired room is left for the next write to delete).
func (b *Bolt) heldPending(tx *bbolt.Tx, lease store.Lease, now int64) (roomMeta, error) {
	var m roomMeta
	w := b.wal
	if p := w.pending[lease.Room]; p != nil {
		m = p.meta
	} else if p := w.frozen[lease.Room]; p != nil {
		m = p.meta
	} else {
		v := tx.Bucket(bRooms).Get([]byte(lease.Room))
		if v == nil {
			return m, store.ErrNotFound
		}
		m = decodeMeta(v)
	}
	if m.ended != 0 && now >= int64(m.ended) {
		return m, store.ErrNotFound
	}
	if m.fence != lease.Token {
		return m, fmt.Errorf("token %d, current %d: %w", lease.Token, m.fence, store.ErrFenced)
	}
	return m, nil
}

// checkFollows is appendTx's check for the log's path: nil when entries
// follow m.last, errDup when they are all stored already with the same
// bytes (pending or in bbolt), else ErrGap.
func (w *wal) checkFollows(tx *bbolt.Tx, code string, m roomMeta, entries []store.Entry) error {
	first := entries[0].Rev
	if first <= m.last {
		log := tx.Bucket(bLog)
		for _, e := range entries {
			if v := w.entry(log, code, e.Rev); v == nil || !bytes.Equal(v, e.Data) {
				return fmt.Errorf("rev %d after %d: %w", first, m.last, store.ErrGap)
			}
		}
		return errDup
	}
	if first != m.last+1 {
		return fmt.Errorf("rev %d after %d: %w", first, m.last, store.ErrGap)
	}
	return nil
}
