package room

import (
	"context"
	"errors"
	"fmt"
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
	b := &r.b
	if len(b.entries) == 0 {
		return
	}
	ctx, cancel := r.storeCtx()
	start := time.Now()
	var err error
	if len(b.events) > 0 && r.m.cfg.Outbox != nil {
		// Webhook events go in the same write as their entries: both are
		// stored, or neither (PROTOCOL.md §6).
		var dropped int
		dropped, err = r.m.cfg.Outbox.AppendWith(ctx, r.disk.lease, b.entries, b.events)
		if dropped > 0 {
			r.log.Error("outbox full: events dropped (webhook events, leaderboard results)", "dropped", dropped)
			r.m.cfg.Metrics.observeHooksDropped(dropped)
		}
	} else {
		err = r.m.cfg.Store.Append(ctx, r.disk.lease, b.entries)
	}
	cancel()
	r.m.cfg.Metrics.observeAppend(time.Since(start), len(b.entries), err)
	r.m.noteWrite(err)
	if err == nil {
		r.disk.entries = append(r.disk.entries, b.entries...)
		r.disk.sinceSnap += len(b.entries)
		b.entries = b.entries[:0]
		b.published = append(b.published, b.accepted...)
		b.accepted = b.accepted[:0]
		r.unsure = false
		for _, f := range b.finished {
			r.m.record(f)
		}
		b.finished = b.finished[:0]
		for _, m := range b.rated {
			r.m.enqueueRating(m)
		}
		b.rated = b.rated[:0]
		b.joined = append(b.joined, b.joins...)
		b.joins = b.joins[:0]
		if len(b.events) > 0 {
			b.events = b.events[:0]
			if r.m.cfg.HooksQueued != nil {
				r.m.cfg.HooksQueued()
			}
		}
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
		r.stopping, r.lost = true, true
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
		r.log.Warn("append failed; rolling back", "entries", len(b.entries), "err", err)
		r.unsure = true
		r.rollback()
	}
}

// retryStore tries, while the room is frozen, whether the store takes
// writes again — with a real write, since a store can answer pings and
// still refuse writes (a full disk). When the outcome of the failed append
// was unknown the room reloads what the store holds (whatever landed during
// the outage becomes the state); otherwise it stores its snapshot.
func (r *Room) retryStore() {
	if r.unsure {
		r.reload()
		if r.unsure || r.stopping || r.closing {
			return // the reload failed: again at the next tick
		}
		// A read worked; whether writes land again is for a write to say
		// (until then /readyz stays 503 and the room refuses actions).
		r.frozen = true
	}
	r.maybeSnapshot(true)
	if r.frozen {
		return // still refused
	}
	r.publishInfo()
}

// recreate stores the room's current state as a new room in the store, under
// a new epoch, and sends every member a snapshot of it. The store lost the
// match's log with the room, so the snapshot carries the match's moves.
func (r *Room) recreate() {
	r.st.Epoch = ids.New()
	if r.st.sess != nil {
		r.st.prefix, r.st.logFrom = len(r.st.sess.Log()), r.st.Rev+1
	}
	data, keep, ok := r.encodeState()
	if !ok {
		return
	}
	ctx, cancel := r.storeCtx()
	defer cancel()
	snap := store.Snapshot{Rev: r.st.Rev, Data: data, Keep: keep}
	lease, err := r.m.createInStore(ctx, r.code, snap)
	r.m.noteWrite(err)
	if err != nil {
		r.log.Warn("store the room again", "err", err)
		r.frozen = true // the next write tries again
		return
	}
	r.disk.restored(lease, store.Record{Snapshot: snap}, r.now())
	r.frozen, r.unsure = false, false
	r.resyncAll()
}

// moveRewound moves a room that the store rewound (store.Record.Rewound: it
// lost entries the room had acknowledged) to a new epoch before the room is
// served, so that a client who saw the lost revisions gets a snapshot of the
// new epoch, which wins over what it has, rather than waiting for revisions
// that will never come back. The epoch's entry is stored first (the store
// then stops reporting the room rewound); rec gets it too, as the store
// holds it.
func (m *Manager) moveRewound(ctx context.Context, lease store.Lease, st *state, rec *store.Record) error {
	from, rev := st.Epoch, st.Rev
	e := &entry{Rev: st.Rev + 1, Kind: kindEpoch, Epoch: ids.New(), T: m.cfg.Now().UnixMilli()}
	if _, err := st.apply(e); err != nil {
		return err
	}
	data, err := e.encode()
	if err != nil {
		return err
	}
	entries := []store.Entry{{Rev: e.Rev, Data: data}}
	err = m.cfg.Store.Append(ctx, lease, entries)
	m.noteWrite(err)
	if err != nil {
		return fmt.Errorf("store the new epoch of rewound room %s: %w", lease.Room, err)
	}
	rec.Entries = append(rec.Entries, entries...)
	m.cfg.Logger.Warn("the store lost changes this room had acknowledged; moved it to a new epoch", "room", lease.Room,
		"rev", rev, "epoch", e.Epoch, "from_epoch", from)
	return nil
}

// reload replaces the room's state with what the store holds.
func (r *Room) reload() {
	ctx, cancel := r.storeCtx()
	defer cancel()
	lease, rec, err := r.m.openInStore(ctx, r.code)
	if errors.Is(err, store.ErrOwned) {
		r.log.Error("the room's lease is held by another node now; stopping", "err", err)
		r.stopping, r.lost = true, true
		return
	}
	if errors.Is(err, store.ErrNotFound) {
		// The store lost the room: the state in memory is whole (recreate
		// notes whether its write lands).
		r.unsure = false
		r.recreate()
		return
	}
	if err != nil {
		r.m.noteWrite(err)
		r.log.Warn("reload from the store", "err", err)
		return
	}
	// A read that worked says nothing of writes: the store stays unhealthy
	// (/readyz 503) until one of them lands again.
	st, err := rebuild(r.m.cfg.Games, rec.Snapshot.Data, rec.Entries)
	if err != nil {
		r.log.Error("the stored room does not rebuild; closing it", "err", err)
		r.closing = true
		return
	}
	r.adopt(st)
	r.disk.restored(lease, rec, r.now())
	r.frozen, r.unsure = false, false
	r.resyncAll()
}

// resyncAll sends every member a snapshot of the current state, dropping any
// member whose seat no longer exists.
func (r *Room) resyncAll() {
	for c, mem := range r.members {
		if mem.player != "" && r.st.seatOf(mem.player) < 0 {
			r.send(out{to: c, close: protocol.CloseRestarting, reason: "seat not stored", forget: true})
			continue
		}
		r.sendSnapshot(c)
	}
	r.publishInfo()
}

// rollback returns the room to what the store holds: it rebuilds the state
// from the last snapshot and the stored entries, drops the batch's messages
// that showed what was lost (members shown a lost state get a fresh
// snapshot) and tells every sender storage is unavailable.
func (r *Room) rollback() {
	b := &r.b
	st, err := rebuild(r.m.cfg.Games, r.disk.base, r.disk.entries)
	if err != nil {
		// The stored state itself does not rebuild: a bug, not an outage.
		r.log.Error("rollback failed; closing the room", "err", err)
		r.closing = true
		return
	}
	r.adopt(st)
	r.frozen = true
	kept := b.outs[:0]
	var resnap []Client
	for _, o := range b.outs {
		if !o.durable {
			kept = append(kept, o)
		} else if o.snapshot {
			resnap = append(resnap, o.to)
		}
	}
	clear(b.outs[len(kept):])
	b.outs = kept
	b.entries = b.entries[:0]
	for _, c := range resnap {
		if mem := r.members[c]; mem != nil && (mem.player == "" || r.st.seatOf(mem.player) >= 0) {
			r.sendSnapshot(c)
		}
	}
	const why = "the change could not be stored; try again shortly"
	for _, p := range b.accepted {
		switch {
		case p.reply != nil:
			p.reply <- JoinResult{Err: ErrStorage}
		case p.join:
			if p.c != nil {
				delete(r.members, p.c)
				r.send(out{to: p.c, frame: temporaryNotice(protocol.CodeStorageUnavailable, why),
					close: protocol.CloseRestarting, reason: "storage unavailable"})
			}
		case p.c != nil && p.aid != "":
			r.send(out{to: p.c, frame: receiptRefused(p.aid, &protocol.Notice{Code: protocol.CodeStorageUnavailable, Message: why, Temporary: true})})
		}
	}
	b.accepted, b.joins, b.finished, b.events, b.rated = b.accepted[:0], b.joins[:0], b.finished[:0], b.events[:0], b.rated[:0]
	clear(b.replaced)
	r.publishInfo()
}

// maybeSnapshot writes a snapshot when enough entries or time have piled up
// since the last one, or always when force is set. The store then drops the
// entries the snapshot covers, but for the running match's: a snapshot holds
// the match's checkpoint, not its log.
func (r *Room) maybeSnapshot(force bool) {
	d := &r.disk
	if !force && !r.snapshotDue() {
		return
	}
	data, keep, ok := r.encodeState()
	if !ok {
		return
	}
	ctx, cancel := r.storeCtx()
	err := r.m.cfg.Store.WriteSnapshot(ctx, d.lease, store.Snapshot{Rev: r.st.Rev, Data: data, Keep: keep})
	cancel()
	r.m.noteWrite(err)
	switch {
	case errors.Is(err, store.ErrNotFound):
		// The store lost the room (a Redis restarted empty) while it was
		// idle: store it again now, not only at its next change.
		r.log.Warn("the store no longer has this room; storing it again under a new epoch", "err", err)
		r.recreate()
		return
	case errors.Is(err, store.ErrFenced):
		r.log.Error("lost the room's lease to another process; stopping", "err", err)
		r.stopping, r.lost = true, true
		return
	case err != nil:
		r.log.Warn("write snapshot", "rev", r.st.Rev, "err", err)
		return
	}
	if r.frozen {
		r.frozen = false
		r.log.Info("storage is back")
	}
	if keep == 0 {
		keep = r.st.Rev + 1
	}
	i := 0
	for i < len(d.entries) && d.entries[i].Rev < keep {
		i++
	}
	d.base, d.entries, d.sinceSnap, d.lastSnap = data, append(d.entries[:0:0], d.entries[i:]...), 0, r.now()
	d.snapTick = r.st.tick()
}

// snapshotDue reports whether a snapshot is due: after SnapshotEvery
// entries, when entries are older than SnapshotInterval, or when a
// real-time match has ticked for CheckpointInterval since the last one (its
// checkpoint then saves a restore from running those ticks again).
func (r *Room) snapshotDue() bool {
	d, cfg := &r.disk, r.m.cfg
	age := r.now().Sub(d.lastSnap)
	switch {
	case d.sinceSnap >= cfg.SnapshotEvery:
		return true
	case d.sinceSnap > 0 && age >= cfg.SnapshotInterval:
		return true
	}
	return r.st.tick() != d.snapTick && age >= cfg.CheckpointInterval
}

// storeCtx bounds one store call of the actor: it ends StoreTimeout from
// now, give or take a sixteenth (see Manager.storeCtx); cancel is a no-op.
func (r *Room) storeCtx() (context.Context, context.CancelFunc) {
	return r.m.storeCtx(), noCancel
}

func noCancel() {}

// sharedDeadline is a store context the actors' calls share.
type sharedDeadline struct {
	ctx    context.Context
	cancel context.CancelFunc // never called: the context ends at its deadline
	until  time.Time          // the last instant a call may take it
}

// storeCtx returns a context whose deadline is StoreTimeout to 17/16 of it
// away. The actors' store calls in one sixteenth of StoreTimeout share it,
// so that a commit — one per room and batch, thousands a second — makes
// no context and timer of its own: those were 5.5 % of roomd's allocated
// bytes with the embedded store and 15 % with the memory store under
// 1,000 rooms × 2 players × 1 move/s (BENCHMARKS.md, "The embedded store
// under load"; BenchmarkStoreCtx: 65–75 ns and no allocation against
// 540–590 ns and 384 B). At most 17 such contexts are live at once.
func (m *Manager) storeCtx() context.Context {
	now := time.Now()
	if d := m.deadline.Load(); d != nil && !now.After(d.until) {
		return d.ctx
	}
	slack := m.cfg.StoreTimeout / 16
	ctx, cancel := context.WithTimeout(context.Background(), m.cfg.StoreTimeout+slack)
	m.deadline.Store(&sharedDeadline{ctx: ctx, cancel: cancel, until: now.Add(slack)})
	return ctx
}

// encodeState encodes the room's snapshot, logging a failure (a bug).
func (r *Room) encodeState() ([]byte, uint64, bool) {
	data, keep, err := r.st.encode()
	if err != nil {
		r.log.Error("encode snapshot", "rev", r.st.Rev, "err", err)
		return nil, 0, false
	}
	return data, keep, true
}
