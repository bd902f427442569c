package memstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/roomd/roomd/store"
)

// The memory store implements store.Cluster so that tests can run several
// nodes — several managers and servers — in one process on one store.

var _ store.Cluster = (*Memory)(nil)

// memLease is a room's ownership lease.
type memLease struct {
	node    string
	expires time.Time
}

// memNode is a registered node.
type memNode struct {
	n       store.Node
	expires time.Time
}

// ownerLocked returns room's lease holder, or "" when none is held.
func (m *Memory) ownerLocked(room string) (string, time.Duration) {
	l, ok := m.leases[room]
	if !ok {
		return "", 0
	}
	left := l.expires.Sub(m.now())
	if left <= 0 {
		delete(m.leases, room)
		return "", 0
	}
	return l.node, left
}

func (m *Memory) CreateOwned(ctx context.Context, room, node string, ttl time.Duration, snap store.Snapshot) (store.Lease, error) {
	if err := store.CheckLease(node, ttl); err != nil {
		return store.Lease{}, fmt.Errorf("create %s: %w", room, err)
	}
	lease, err := m.Create(ctx, room, snap)
	if err != nil {
		return lease, err
	}
	m.mu.Lock()
	m.leases[room] = memLease{node: node, expires: m.now().Add(ttl)}
	m.mu.Unlock()
	return lease, nil
}

func (m *Memory) OpenOwned(ctx context.Context, room, node string, ttl time.Duration) (store.Lease, store.Record, error) {
	if err := store.CheckLease(node, ttl); err != nil {
		return store.Lease{}, store.Record{}, fmt.Errorf("open %s: %w", room, err)
	}
	m.mu.Lock()
	if err := m.check(); err != nil {
		m.mu.Unlock()
		return store.Lease{}, store.Record{}, fmt.Errorf("open %s: %w", room, err)
	}
	if owner, left := m.ownerLocked(room); owner != "" && owner != node {
		m.mu.Unlock()
		return store.Lease{}, store.Record{}, &store.OwnedError{Room: room, Node: owner, Left: left}
	}
	if _, ok := m.live(room); ok {
		m.leases[room] = memLease{node: node, expires: m.now().Add(ttl)}
	}
	m.mu.Unlock()
	return m.Open(ctx, room)
}

func (m *Memory) Renew(ctx context.Context, node string, rooms []string, ttl time.Duration) ([]string, error) {
	if err := store.CheckLease(node, ttl); err != nil {
		return nil, fmt.Errorf("renew: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("renew: %w", err)
	}
	var lost []string
	for _, room := range rooms {
		if owner, _ := m.ownerLocked(room); owner != node && owner != "" {
			lost = append(lost, room)
			continue
		}
		m.leases[room] = memLease{node: node, expires: m.now().Add(ttl)}
	}
	return lost, nil
}

func (m *Memory) Release(ctx context.Context, room, node, next string, ttl time.Duration) error {
	if next != "" {
		if err := store.CheckLease(next, ttl); err != nil {
			return fmt.Errorf("release %s: %w", room, err)
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(); err != nil {
		return fmt.Errorf("release %s: %w", room, err)
	}
	if owner, _ := m.ownerLocked(room); owner == node {
		delete(m.leases, room)
		if next != "" {
			m.leases[room] = memLease{node: next, expires: m.now().Add(ttl)}
		}
	}
	return nil
}

func (m *Memory) Owner(ctx context.Context, room string) (string, time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return "", 0, fmt.Errorf("owner %s: %w", room, store.ErrClosed)
	}
	node, left := m.ownerLocked(room)
	return node, left, nil
}

func (m *Memory) Register(ctx context.Context, n store.Node, ttl time.Duration) error {
	if err := store.CheckLease(n.ID, ttl); err != nil {
		return fmt.Errorf("register: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.check(); err != nil {
		return fmt.Errorf("register %s: %w", n.ID, err)
	}
	m.nodes[n.ID] = memNode{n: n, expires: m.now().Add(ttl)}
	return nil
}

func (m *Memory) Deregister(ctx context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.nodes, id)
	return nil
}

func (m *Memory) Nodes(ctx context.Context) ([]store.Node, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, fmt.Errorf("nodes: %w", store.ErrClosed)
	}
	now := m.now()
	var out []store.Node
	for id, n := range m.nodes {
		if !now.Before(n.expires) {
			delete(m.nodes, id)
			continue
		}
		out = append(out, n.n)
	}
	slices.SortFunc(out, func(a, b store.Node) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}
