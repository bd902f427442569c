package room

import (
	"time"

	"github.com/roomd/roomd/store"
)

// store.go: the names of package store that the layer above (transport/
// and its subpackages) needs, re-exported so that it reaches storage only
// through room/ (ARCHITECTURE.md, checked by arch_test.go). They are
// aliases: a store.Node is a room.Node, and callers that wire a store in
// (cmd/, package roomd) keep using package store.

// Node is one roomd process of a cluster, as it registers itself
// (store.Node).
type Node = store.Node

// Cluster is what the nodes sharing one store agree on: room leases and
// the live nodes (store.Cluster).
type Cluster = store.Cluster

// Claims holds small values set once, such as the key the nodes sign
// their requests to each other with (store.Claims).
type Claims = store.Claims

// Event is a webhook event waiting in the outbox (store.Event).
type Event = store.Event

// Outbox is the durable queue of webhook events (store.Outbox).
type Outbox = store.Outbox

// Rating is a player's rating in one game and mode (store.Rating).
type Rating = store.Rating

// RatingChange is one rated match's change to a player's rating
// (store.RatingChange).
type RatingChange = store.RatingChange

// RatingEntry is one line of a rating leaderboard (store.RatingEntry).
type RatingEntry = store.RatingEntry

// MaxDue bounds how many events one Outbox.Due call returns (store.MaxDue).
const MaxDue = store.MaxDue

// ErrOwned is what opening a room fails with when another node holds its
// lease (store.ErrOwned).
var ErrOwned = store.ErrOwned

// CheckLease returns the error the Cluster methods return for a node id
// and a lease TTL out of bounds, or nil (store.CheckLease).
func CheckLease(node string, ttl time.Duration) error { return store.CheckLease(node, ttl) }
