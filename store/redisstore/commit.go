package redisstore

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/roomd/roomd/store"
)

// redisAppend is an append (scriptAppend) or an append with events
// (scriptAppendWith; scriptAppendHold on a cluster) waiting for the
// committer.
type redisAppend struct {
	ctx    context.Context
	script *redis.Script
	keys   []string
	args   []any
	done   chan error
	// reply is the script's reply, set before done is sent nil.
	reply any
	// err is the script's error, before the committer answers.
	err error
	// room is the room's code when the script holds events (a cluster's
	// AppendWith), empty otherwise; indexed says that the append carries
	// events, so the committer indexes the room (outbox.go).
	room    string
	indexed bool
}

// Append queues the entries for the committer and waits for the result.
func (r *Redis) Append(ctx context.Context, lease store.Lease, entries []store.Entry) error {
	op := "append " + lease.Room
	if len(entries) == 0 {
		return r.check(op)
	}
	args := make([]any, 0, 2+len(entries))
	args = append(args, strconv.FormatUint(lease.Token, 10), strconv.FormatUint(entries[0].Rev, 10))
	args, err := appendEntries(op, args, entries)
	if err != nil {
		return err
	}
	k := r.keys(lease.Room)
	_, err = r.commit(ctx, op, &redisAppend{script: scriptAppend, keys: []string{k[0], k[2], k[3]}, args: args})
	return err
}

// appendEntries appends the script arguments of entries (8-byte big-endian
// rev + data each) to args, checking that their revisions are contiguous.
func appendEntries(op string, args []any, entries []store.Entry) ([]any, error) {
	for i, e := range entries {
		if i > 0 && e.Rev != entries[i-1].Rev+1 {
			return nil, fmt.Errorf("%s: rev %d after %d in one batch: %w", op, e.Rev, entries[i-1].Rev, store.ErrGap)
		}
		el := make([]byte, 8, 8+len(e.Data))
		binary.BigEndian.PutUint64(el, e.Rev)
		args = append(args, append(el, e.Data...))
	}
	return args, nil
}

// commit queues a for the committer, waits for the result and returns the
// script's reply.
func (r *Redis) commit(ctx context.Context, op string, a *redisAppend) (any, error) {
	a.ctx, a.done = ctx, make(chan error, 1)
	if err := r.queue.Push(a); err != nil {
		return nil, fmt.Errorf("%s: %w", op, store.ErrClosed) // the only refusal of an unbounded queue
	}
	select {
	case err := <-a.done:
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		return a.reply, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: %w", op, ctx.Err())
	}
}

// commitLoop is the committer: on each signal it sends what waits, in
// pipelines of up to MaxBatch appends, until the queue is empty; then, on a
// cluster, the cleanup no batch carried (outbox.go).
func (r *Redis) commitLoop() {
	defer r.wg.Done()
	for {
		select {
		case <-r.queue.Signal():
		case <-r.quit:
			return
		}
		for {
			batch := r.queue.Take(r.opts.MaxBatch)
			if len(batch) == 0 {
				break
			}
			r.send(batch)
		}
		if r.cluster {
			r.flushHeld()
		}
	}
}

// send carries a batch of appends in one pipeline and answers each. On a
// cluster, the appends that hold events are answered once their events are
// in the outbox (moveHeld): one more round trip.
func (r *Redis) send(batch []*redisAppend) {
	todo := batch[:0]
	for _, a := range batch {
		if err := a.ctx.Err(); err != nil {
			a.done <- err // its caller has gone: do not write behind its back
			continue
		}
		todo = append(todo, a)
	}
	if len(todo) == 0 {
		return
	}
	r.batches.Add(1)
	r.appends.Add(uint64(len(todo)))
	ctx, cancel := context.WithTimeout(r.ctx, r.timeout)
	defer cancel()
	r.runScripts(ctx, todo)
	if r.cluster {
		r.moveHeld(ctx, todo)
	}
	for _, a := range todo {
		err := a.err
		if err == nil {
			r.accepted.Add(1)
		} else if r.ctx.Err() != nil {
			err = store.ErrClosed // Close cut the pipeline short
		}
		a.done <- mapErr(err)
	}
}

// runScripts runs the scripts of todo in one pipeline, then once more those
// that found the server without their script (a restart; on a cluster, of
// one node) after loading it again; it sets each one's reply or err. On a
// cluster the first pipeline also carries the cleanup of the batch before
// and the index of this batch's held events (heldWork.stage).
func (r *Redis) runScripts(ctx context.Context, todo []*redisAppend) {
	for attempt := 0; len(todo) > 0; attempt++ {
		pipe := r.c.Pipeline()
		var staged func()
		if attempt == 0 && r.cluster {
			staged = r.stageHeld(ctx, pipe, todo)
		}
		cmds := make([]*redis.Cmd, len(todo))
		for i, a := range todo {
			cmds[i] = a.script.EvalSha(ctx, pipe, a.keys, a.args...)
		}
		_, _ = pipe.Exec(ctx)
		r.roundTrips.Add(1)
		if staged != nil {
			staged()
		}
		var again []*redisAppend
		var missing []*redis.Script
		for i, cmd := range cmds {
			a := todo[i]
			if err := cmd.Err(); isNoScript(err) && attempt == 0 {
				again = append(again, a)
				if !slices.Contains(missing, a.script) {
					missing = append(missing, a.script)
				}
				continue
			}
			a.reply, a.err = cmd.Val(), cmd.Err()
		}
		for _, s := range missing {
			// SCRIPT LOAD: on a cluster, to every node.
			err := s.Load(ctx, r.c).Err()
			r.roundTrips.Add(1)
			if err != nil {
				for _, a := range again {
					a.err = err
				}
				again = nil
				break
			}
		}
		todo = again
	}
}
