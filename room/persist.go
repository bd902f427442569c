package room

import (
	"context"
	"errors"
	"time"

	"github.com/roomd/roomd/internal/ids"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/store"
)

// commit stores the batch's entries. On success the queued messages stand;
// on failure the room goes back to its stored state, the messages showing
// the lost changes are dropped and each sender learns storage is
// unavailable, so it may resend the same action later.
func (r *Room) commit() {
	if len(r.batch) == 0 {
		return
	}
	ctx, cancel := r.storeCtx()
	start := time.Now()
	err := r.m.cfg.Store.Append(ctx, r.lease, r.batch)
	cancel()
	r.m.cfg.Metrics.observeAppend(time.Since(start), len(r.batch), err)
	if err == nil {
		r.tail = append(r.tail, r.batch...)
		r.batch = r.batch[:0]
		r.published = append(r.published, r.accepted...)
		r.accepted = r.accepted[:0]
		r.unsure = false
		for _, f := range r.finished {
			r.m.record(f)
		}
		r.finished = r.finished[:0]
		for _, j := range r.joins {
			j.reply <- j.res
		}
		r.joins = r.joins[:0]
		if r.frozen {
			r.frozen = false
			r.log.Info("storage is back")
			r.publishInfo()
		}
		r.maybeSnapshot(false)
		return
	}
	switch {
	case errors.Is(err, store.ErrFenced):
		r.log.Error("lost the room's lease to another process; stopping", "err", err)
		r.stopping = true
		r.rollback()
	case errors.Is(err, store.ErrNotFound):
		// The store lost the room (a Redis restarted empty): the state in
		// memory is whole, so store it again under a new epoch.
		r.log.Warn("the store no longer has this room; storing it again under a new epoch", "err", err)
		r.rollback()
		r.recreate()
	case errors.Is(err, store.ErrGap):
		// The store holds entries this room does not: an earlier append
		// whose answer was lost did land. Load what the store has.
		r.log.Warn("the store is ahead of the room; reloading", "err", err)
		r.rollback()
		r.reload()
	default:
		r.log.Warn("append failed; rolling back", "entries", len(r.batch), "err", err)
		r.unsure = true
		r.rollback()
	}
}

// recreate stores the room's current state as a new room in the store, under
// a new epoch, and sends every member a snapshot of it.
func (r *Room) recreate() {
	r.st.Epoch = ids.New()
	data, ok := r.encodeState()
	if !ok {
		return
	}
	ctx, cancel := r.storeCtx()
	defer cancel()
	lease, err := r.m.cfg.Store.Create(ctx, r.code, store.Snapshot{Rev: r.st.Rev, Data: data})
	if err != nil {
		r.log.Warn("store the room again", "err", err)
		return // still frozen; the next write tries again
	}
	r.lease, r.base, r.tail, r.frozen, r.unsure = lease, data, nil, false, false
	r.resyncAll()
}

// reload replaces the room's state with what the store holds.
func (r *Room) reload() {
	ctx, cancel := r.storeCtx()
	defer cancel()
	lease, rec, err := r.m.cfg.Store.Open(ctx, r.code)
	if err != nil {
		r.log.Warn("reload from the store", "err", err)
		return
	}
	entries := make([][]byte, len(rec.Entries))
	for i, e := range rec.Entries {
		entries[i] = e.Data
	}
	st, err := rebuild(r.m.cfg.Games, rec.Snapshot.Data, entries)
	if err != nil {
		r.log.Error("the stored room does not rebuild; closing it", "err", err)
		r.closing = true
		return
	}
	r.st, r.lease, r.base, r.tail, r.frozen, r.unsure = st, lease, rec.Snapshot.Data, rec.Entries, false, false
	r.resyncAll()
}

// resyncAll sends every member a snapshot of the current state, dropping any
// member whose seat no longer exists.
func (r *Room) resyncAll() {
	for c, mem := range r.members {
		if mem.player != "" && r.st.seatOf(mem.player) < 0 {
			r.queue(out{to: c, close: protocol.CloseRestarting, reason: "seat not stored", forget: true})
			continue
		}
		r.queue(out{to: c, snapshot: true})
	}
	r.publishInfo()
}

func (r *Room) rollback() {
	entries := make([][]byte, len(r.tail))
	for i, e := range r.tail {
		entries[i] = e.Data
	}
	st, err := rebuild(r.m.cfg.Games, r.base, entries)
	if err != nil {
		// The stored state itself does not rebuild: a bug, not an outage.
		r.log.Error("rollback failed; closing the room", "err", err)
		r.closing = true
		return
	}
	r.st = st
	r.frozen = true
	kept := r.outs[:0]
	var resnap []Client
	for _, o := range r.outs {
		if !o.durable {
			kept = append(kept, o)
		} else if o.snapshot {
			resnap = append(resnap, o.to)
		}
	}
	r.outs = kept
	r.batch = r.batch[:0]
	for _, c := range resnap {
		if mem := r.members[c]; mem != nil && (mem.player == "" || r.st.seatOf(mem.player) >= 0) {
			r.queue(out{to: c, snapshot: true})
		}
	}
	notice := &protocol.Notice{Code: protocol.CodeStorageUnavailable, Message: "the change could not be stored; try again shortly", Temporary: true}
	for _, p := range r.accepted {
		switch {
		case p.reply != nil:
			p.reply <- JoinResult{Err: ErrStorage}
		case p.join:
			if p.c != nil {
				delete(r.members, p.c)
				r.queue(out{to: p.c, frame: encodeMsg(protocol.NoticeMessage{Type: protocol.TypeNotice, Code: notice.Code, Message: notice.Message, Temporary: true}),
					close: protocol.CloseRestarting, reason: "storage unavailable"})
			}
		case p.c != nil && p.aid != "":
			r.queue(out{to: p.c, frame: encodeReceipt(&protocol.Receipt{Type: protocol.TypeReceipt, ID: p.aid, Notice: notice})})
		}
	}
	r.batch = r.batch[:0]
	r.accepted = r.accepted[:0]
	r.joins = r.joins[:0]
	r.finished = r.finished[:0]
	clear(r.replaced)
	r.publishInfo()
}

// maybeSnapshot writes a snapshot when enough entries or time have piled up,
// or always when force is set, and drops the entries it covers.
func (r *Room) maybeSnapshot(force bool) {
	if len(r.tail) == 0 {
		return
	}
	if !force && len(r.tail) < r.m.cfg.SnapshotEvery && r.now().Sub(r.lastSnap) < r.m.cfg.SnapshotInterval {
		return
	}
	data, ok := r.encodeState()
	if !ok {
		return
	}
	ctx, cancel := r.storeCtx()
	defer cancel()
	if err := r.m.cfg.Store.WriteSnapshot(ctx, r.lease, store.Snapshot{Rev: r.st.Rev, Data: data}); err != nil {
		r.log.Warn("write snapshot", "rev", r.st.Rev, "err", err)
		return
	}
	r.base, r.tail, r.lastSnap = data, r.tail[:0:0], r.now()
}

// encodeMsg encodes a message built from plain data. Failing here is a bug
// in a game's view or events: it is reported loudly (as a notice frame
// naming the problem) instead of crashing the server.
// storeCtx bounds one store call of the actor.
func (r *Room) storeCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), r.m.cfg.StoreTimeout)
}

// encodeState encodes the room's snapshot, logging a failure (a bug).
func (r *Room) encodeState() ([]byte, bool) {
	data, err := r.st.encode()
	if err != nil {
		r.log.Error("encode snapshot", "rev", r.st.Rev, "err", err)
		return nil, false
	}
	return data, true
}
