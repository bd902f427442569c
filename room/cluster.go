package room

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/roomd/roomd/store"
)

// cluster.go: several nodes on one store (Config.Cluster). Each live room
// has one owner node, holding a lease in the store that the manager renews
// every third of its TTL. Only the owner opens a room; a room whose lease
// was lost (the node paused past the TTL, the store unreachable that long)
// stops without writing — its writes would be fenced anyway — and tells its
// clients it moved (4009), so they come back through any node to the new
// owner. On drain (Handoff) a room writes its final snapshot, gives up its
// lease and tells its clients where it went.

// MovedRetry is how soon clients told 4009 come back: the room is
// somewhere else already, or is taken over by the next node they reach.
const MovedRetry = 100 * time.Millisecond

// clustered reports whether rooms are owned by leases (several nodes).
func (m *Manager) clustered() bool { return m.cfg.Cluster != nil }

// Node returns this node's id ("" without a cluster).
func (m *Manager) Node() string { return m.cfg.Node }

// createInStore stores a new room, with this node's lease in a cluster.
func (m *Manager) createInStore(ctx context.Context, code string, snap store.Snapshot) (store.Lease, error) {
	if m.clustered() {
		return m.cfg.Cluster.CreateOwned(ctx, code, m.cfg.Node, m.cfg.LeaseTTL, snap)
	}
	return m.cfg.Store.Create(ctx, code, snap)
}

// openInStore opens a room, taking its lease in a cluster: an
// *store.OwnedError when another node holds it.
func (m *Manager) openInStore(ctx context.Context, code string) (store.Lease, store.Record, error) {
	if m.clustered() {
		return m.cfg.Cluster.OpenOwned(ctx, code, m.cfg.Node, m.cfg.LeaseTTL)
	}
	return m.cfg.Store.Open(ctx, code)
}

// startLeases starts renewing this node's leases.
func (m *Manager) startLeases() {
	if !m.clustered() {
		return
	}
	m.leaseStop, m.leaseDone = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(m.leaseDone)
		t := time.NewTicker(m.cfg.LeaseTTL / 3)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				m.renew()
			case <-m.leaseStop:
				return
			}
		}
	}()
}

func (m *Manager) stopLeases() {
	if m.leaseStop == nil {
		return
	}
	m.leaseOnce.Do(func() { close(m.leaseStop) })
	<-m.leaseDone
}

// renew extends the leases of the rooms loaded here; a room whose lease
// another node holds now stops (4009).
func (m *Manager) renew() {
	rooms := m.Rooms()
	if len(rooms) == 0 {
		return
	}
	codes := make([]string, len(rooms))
	for i, r := range rooms {
		codes[i] = r.code
	}
	ctx, cancel := context.WithTimeout(context.Background(), m.cfg.StoreTimeout)
	start := time.Now()
	lost, err := m.cfg.Cluster.Renew(ctx, m.cfg.Node, codes, m.cfg.LeaseTTL)
	cancel()
	m.cfg.Metrics.observeRenew(time.Since(start), err)
	if err != nil {
		m.cfg.Logger.Warn("leases not renewed", "rooms", len(codes), "err", err)
	}
	for _, code := range lost {
		if r, ok := m.Lookup(code); ok {
			r.log.Error("the room's lease is held by another node now; stopping")
			_ = r.mb.push(input{kind: inLost})
		}
	}
}

// release gives up this node's lease on a room that stopped here, passing
// it to next when next is not empty (a handoff).
func (m *Manager) release(code, next string) {
	if !m.clustered() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), m.cfg.StoreTimeout)
	defer cancel()
	if err := m.cfg.Cluster.Release(ctx, code, m.cfg.Node, next, m.cfg.LeaseTTL); err != nil {
		m.cfg.Logger.Warn("lease not released: the room waits for it to expire", "room", code, "next", next, "err", err)
	}
}

// Handoff stops every room of this node for other nodes to take: each
// writes its final snapshot, passes its lease to the node to(code) names
// and tells its clients that the room moved there (to its URL). New rooms
// are refused from now on, as by Shutdown. It returns the codes of the
// rooms handed off, once their actors have stopped or ctx ended.
func (m *Manager) Handoff(ctx context.Context, to func(code string) store.Node) ([]string, error) {
	if !m.clustered() {
		return nil, errors.New("room: handoff needs a cluster")
	}
	rooms := m.close()
	codes := make([]string, 0, len(rooms))
	for _, r := range rooms {
		codes = append(codes, r.code)
		next := to(r.code)
		_ = r.mb.push(input{kind: inHandoff, next: &next})
	}
	for _, r := range rooms {
		select {
		case <-r.done:
		case <-ctx.Done():
			return codes, fmt.Errorf("room: handoff: %w", ctx.Err())
		}
	}
	m.cfg.Metrics.observeMoves(len(rooms))
	return codes, nil
}

// Move hands one room of this node to node next (an operator's move): the
// room stops as on drain, and its clients are told to go there.
func (m *Manager) Move(ctx context.Context, code string, next store.Node) error {
	if !m.clustered() {
		return errors.New("room: moving a room needs a cluster")
	}
	r, ok := m.Lookup(code)
	if !ok {
		return ErrNoRoom
	}
	if next.ID == "" || next.ID == m.cfg.Node {
		return fmt.Errorf("room: move %s: to %q, which is not another node", code, next.ID)
	}
	if err := r.mb.push(input{kind: inHandoff, next: &next}); err != nil {
		return err
	}
	select {
	case <-r.done:
		m.cfg.Metrics.observeMoves(1)
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
