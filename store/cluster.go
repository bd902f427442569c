package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Cluster is what several roomd processes (nodes) sharing one store agree
// on: which node owns each live room, and which nodes are alive. A store
// that one process alone can open (bbolt) does not implement it; Redis
// does, and the memory store does so that tests can run several nodes in
// one process.
//
// A room's owner holds a lease with a TTL, renewed while it runs. Only the
// owner opens a room (OpenOwned bumps the fencing token, as Open does), so
// a node that lost its lease — paused past the TTL, say — finds every
// write fenced, and Renew tells it which rooms it lost.
type Cluster interface {
	// CreateOwned is Create, with node taking the room's lease for ttl.
	CreateOwned(ctx context.Context, room, node string, ttl time.Duration, snap Snapshot) (Lease, error)
	// OpenOwned takes the room's lease for node (for ttl) unless another
	// node holds it, then opens the room as Open does. When another node
	// holds the lease it fails with an *OwnedError (errors.Is ErrOwned)
	// naming that node and the time its lease has left, and changes
	// nothing. A node that holds the lease already may open the room
	// again (a restarted process with the same node id).
	OpenOwned(ctx context.Context, room, node string, ttl time.Duration) (Lease, Record, error)
	// Renew extends node's leases on rooms by ttl and returns the rooms
	// whose lease another node holds now. A lease nobody holds (it
	// expired and nobody took it, or the store lost it) is taken again:
	// the room's fencing token still guards its writes.
	Renew(ctx context.Context, node string, rooms []string, ttl time.Duration) (lost []string, err error)
	// Release gives up node's lease on room, if node holds it. When next
	// is not empty the lease passes to next for ttl instead (a handoff: no
	// third node can take the room in between); nothing happens when node
	// does not hold the lease.
	Release(ctx context.Context, room, node, next string, ttl time.Duration) error
	// Owner returns the node holding room's lease and the time the lease
	// has left; node is empty when no lease is held.
	Owner(ctx context.Context, room string) (node string, left time.Duration, err error)

	// Register records (or refreshes) a live node for ttl.
	Register(ctx context.Context, n Node, ttl time.Duration) error
	// Deregister removes a node at once (a node that stops).
	Deregister(ctx context.Context, id string) error
	// Nodes returns the nodes registered and not expired, by ID.
	Nodes(ctx context.Context) ([]Node, error)
}

// Node is one roomd process of a cluster, as it registers itself.
type Node struct {
	ID string `json:"id"`
	// URL is where clients reach the node (--public-url); PeerURL where
	// other nodes do (--peer-url, by default URL).
	URL     string `json:"url,omitempty"`
	PeerURL string `json:"peerUrl"`
	// Rooms and Conns are its load when it last registered.
	Rooms int `json:"rooms"`
	Conns int `json:"conns"`
	// Draining is set while it hands its rooms to other nodes: it takes
	// no new room.
	Draining bool `json:"draining,omitempty"`
	// Started is when it started (Unix ms).
	Started int64 `json:"started"`
}

// ErrOwned is what OpenOwned fails with when another node holds the lease.
var ErrOwned = errors.New("room owned by another node")

// OwnedError names the node that holds a room's lease.
type OwnedError struct {
	Room string
	Node string
	// Left is the time the lease has left.
	Left time.Duration
}

func (e *OwnedError) Error() string {
	return fmt.Sprintf("room %s is owned by node %s (lease has %v left)", e.Room, e.Node, e.Left.Round(time.Millisecond))
}

// Is makes errors.Is(err, ErrOwned) true.
func (e *OwnedError) Is(target error) bool { return target == ErrOwned }

// MaxNodeID bounds a node id, in bytes.
const MaxNodeID = 128

// CheckLease returns the error the Cluster methods return for a node id
// and a lease TTL out of bounds, or nil.
func CheckLease(node string, ttl time.Duration) error {
	switch {
	case node == "" || len(node) > MaxNodeID:
		return fmt.Errorf("node id of %d bytes: 1 to %d", len(node), MaxNodeID)
	case ttl <= 0:
		return fmt.Errorf("lease ttl %v: must be positive", ttl)
	}
	return nil
}
