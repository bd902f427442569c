package boltstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.etcd.io/bbolt"

	"github.com/roomd/roomd/internal/finetimer"
	"github.com/roomd/roomd/internal/queue"
	"github.com/roomd/roomd/store"
)

// boltOp is one write waiting for the committer. fn runs inside the shared
// transaction; it must make no change when it returns one of the sentinel
// errors (other errors roll the whole transaction back and it is retried
// without that op).
type boltOp struct {
	ctx  context.Context
	fn   func(tx *bbolt.Tx) error
	done chan error
	// log is set for an append or a snapshot, which the committer may log
	// instead of running fn.
	log *walOp
	// apart is set for a write that touches no room (claims, boards, the
	// outbox, a ping): it goes to its own committer (Bolt.apart), whose
	// transactions leave the write-ahead log alone.
	apart bool
}

// do queues fn for the committer and waits for its result.
func (b *Bolt) do(ctx context.Context, op string, fn func(tx *bbolt.Tx) error) error {
	return b.run(ctx, op, &boltOp{ctx: ctx, fn: fn})
}

// doApart is do for a write that touches no room's buckets (rooms, snaps,
// log, expiry), which therefore need not wait for the write-ahead log's
// pending writes to be carried into bbolt.
func (b *Bolt) doApart(ctx context.Context, op string, fn func(tx *bbolt.Tx) error) error {
	return b.run(ctx, op, &boltOp{ctx: ctx, fn: fn, apart: true})
}

// run queues o for the committer and waits for its result, which it
// prefixes with op.
func (b *Bolt) run(ctx context.Context, op string, o *boltOp) error {
	if err := b.submit(ctx, o); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// submit is run without the prefix: for Append, which names itself only
// when it fails.
func (b *Bolt) submit(ctx context.Context, o *boltOp) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	o.done = make(chan error, 1)
	q := b.queue
	if o.apart {
		q = b.apart
	}
	if err := q.Push(o); err != nil {
		return store.ErrClosed // the only refusal of an unbounded queue
	}
	select {
	case err := <-o.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// commitLoop is a committer: on each signal it commits what waits in q,
// in batches of up to MaxBatch operations, until q is empty; under load
// the batches start at least interval apart.
func (b *Bolt) commitLoop(q *queue.Queue[*boltOp], interval time.Duration, commit func([]*boltOp)) {
	defer b.wg.Done()
	var last time.Time // when the last commit started
	// Not a time.Timer: the runtime wakes an idle process for one only on
	// whole milliseconds, which made a 1 ms interval 1.3 to 1.6 ms.
	var gather finetimer.Sleeper
	if interval > 0 {
		gather = finetimer.Open()
		defer gather.Close()
	}
	for {
		select {
		case <-q.Signal():
		case <-b.quit:
			return
		}
		for {
			// Back to back under load: wait out the interval since the
			// last commit started, gathering what arrives meanwhile (at
			// most interval: Close is seen after it).
			if wait := interval - time.Since(last); wait > 0 && q.Len() < b.opts.MaxBatch {
				gather.Sleep(wait)
			}
			ops := q.Take(b.opts.MaxBatch)
			if len(ops) == 0 {
				break
			}
			last = time.Now()
			commit(ops)
		}
	}
}

// soft reports whether err is an answer (the op made no change, or only a
// consistent one) rather than a failure of the transaction.
func soft(err error) bool {
	return errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrExists) ||
		errors.Is(err, store.ErrFenced) || errors.Is(err, store.ErrGap)
}

// commit logs ops when they are all appends and the write-ahead log takes
// them, else runs them in one transaction; either way it answers each.
func (b *Bolt) commit(ops []*boltOp) {
	b.checkpointDone(false)
	if b.loggable(ops) {
		b.logOps(ops)
		b.startCheckpoint()
		return
	}
	b.checkpointDone(true) // bbolt takes one writer: let a checkpoint land first
	b.commitTx(ops)
}

// commitTx runs ops in one transaction and answers each. A transaction
// with a write that touches rooms — or with none, a checkpoint — first
// carries the write-ahead log's pending writes into bbolt.
func (b *Bolt) commitTx(ops []*boltOp) {
	rooms := len(ops) == 0
	for _, o := range ops {
		rooms = rooms || !o.apart
	}
	for len(ops) > 0 || (rooms && b.wal.holds()) {
		errs := make([]error, len(ops))
		bad := -1
		err := b.update(func(tx *bbolt.Tx) error {
			if rooms {
				if err := b.applyPending(tx); err != nil {
					return err
				}
			}
			for i, o := range ops {
				if err := o.ctx.Err(); err != nil {
					errs[i] = err // its caller has gone: leave it out
					continue
				}
				err := o.fn(tx)
				errs[i] = err
				if err != nil && !soft(err) {
					bad = i
					return err
				}
			}
			return nil
		})
		if bad >= 0 {
			ops[bad].done <- errs[bad]
			ops = slices.Delete(ops, bad, bad+1)
			continue
		}
		if err == nil && rooms {
			b.checkpointed()
		}
		b.txs.Add(1)
		b.ops.Add(uint64(len(ops)))
		for i, o := range ops {
			if err != nil {
				o.done <- err
			} else {
				o.done <- errs[i]
			}
		}
		return
	}
}
