package boltstore

import (
	"maps"
	"runtime"
	"slices"
	"time"

	"go.etcd.io/bbolt"
)

// startCheckpoint starts a checkpoint goroutine when none runs and one is
// due: the pending writes are frozen and carried into bbolt while the
// committer logs on into the other file; or, when the last one failed, the
// frozen writes again.
func (b *Bolt) startCheckpoint() {
	w := b.wal
	if w == nil || w.inflight {
		return
	}
	if w.frozen == nil {
		if w.writes == 0 || w.off < b.opts.WALSize && w.bytes < b.opts.WALSize && time.Since(w.since) < b.opts.CheckpointInterval {
			return
		}
		w.frozen, w.frozenSeq = w.pending, w.seq
		w.pending = map[string]*pendingRoom{}
		w.writes, w.bytes = 0, 0
		w.cur, w.off = 1-w.cur, 0
	} else if time.Now().Before(w.retryAt) {
		return
	}
	w.inflight = true
	frozen, seq, sizes := w.frozen, w.frozenSeq, w.size
	b.ckwg.Add(1)
	go func() {
		defer b.ckwg.Done()
		err := b.update(func(tx *bbolt.Tx) error {
			if b.testCheckpoint != nil {
				if err := b.testCheckpoint(); err != nil {
					return err
				}
			}
			if err := applyLayer(tx, frozen, true); err != nil {
				return err
			}
			return w.putPosition(tx, seq, sizes)
		})
		w.done <- err
	}()
}

// checkpointDone takes a finished checkpoint goroutine's answer: wait for
// it, or only look.
func (b *Bolt) checkpointDone(wait bool) {
	w := b.wal
	if w == nil || !w.inflight {
		return
	}
	var err error
	if wait {
		err = <-w.done
	} else {
		select {
		case err = <-w.done:
		default:
			return
		}
	}
	w.inflight = false
	if err != nil {
		w.retryAt = time.Now().Add(b.opts.CheckpointInterval)
		return
	}
	w.frozen = nil
	b.checkpoints.Add(1)
}

// applyPending writes everything frozen and pending into tx and moves the
// checkpoint past every record handed out; no checkpoint goroutine runs.
// The committer calls it at the start of a transaction that touches rooms,
// and checkpointed when that commits.
func (b *Bolt) applyPending(tx *bbolt.Tx) error {
	w := b.wal
	if w == nil {
		return nil
	}
	if err := applyLayer(tx, w.frozen, false); err != nil {
		return err
	}
	if err := applyLayer(tx, w.pending, false); err != nil {
		return err
	}
	return w.putPosition(tx, w.seq, w.size)
}

// applyLayer writes a layer of pending writes into tx, room by room in key
// order (so that the tree is walked once). A checkpoint goroutine yields
// its thread every few rooms: with one scheduler thread (GOMAXPROCS=1)
// the rooms and sockets it shares it with then wait for a slice of the
// checkpoint, not for the scheduler's 10 ms preemption.
func applyLayer(tx *bbolt.Tx, layer map[string]*pendingRoom, yield bool) error {
	log := tx.Bucket(bLog)
	for i, code := range slices.Sorted(maps.Keys(layer)) {
		p := layer[code]
		if yield && i%16 == 15 {
			runtime.Gosched()
		}
		if p.dropUpTo > 0 {
			if err := deleteLog(tx, code, p.dropUpTo); err != nil {
				return err
			}
		}
		if p.snap != nil {
			if err := tx.Bucket(bSnaps).Put([]byte(code), nonNil(p.snap.Data)); err != nil {
				return err
			}
		}
		for _, e := range p.entries {
			if err := log.Put(logKey(code, e.Rev), nonNil(e.Data)); err != nil {
				return err
			}
		}
		if err := putMeta(tx, code, p.meta); err != nil {
			return err
		}
	}
	return nil
}

// checkpointed is called after a transaction that ran applyPending
// committed: bbolt holds everything, and the log starts over at offset 0.
func (b *Bolt) checkpointed() {
	w := b.wal
	if w == nil {
		return
	}
	if w.writes > 0 || w.frozen != nil {
		b.checkpoints.Add(1)
	}
	clear(w.pending)
	w.frozen = nil
	w.writes, w.bytes, w.off, w.broken = 0, 0, 0, nil
}

// putPosition records in tx the log's checkpoint (the last sequence number
// bbolt holds) and the files' sizes.
func (w *wal) putPosition(tx *bbolt.Tx, seq uint64, sizes [2]int64) error {
	bk := tx.Bucket(bWAL)
	if err := bk.Put(walApplied, be64(seq)); err != nil {
		return err
	}
	v := append(be64(uint64(sizes[0])), be64(uint64(sizes[1]))...)
	return bk.Put(walSizes, v)
}
