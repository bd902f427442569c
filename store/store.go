// Package store is what the room layer needs to persist rooms: the Store,
// Leaderboards and Claims interfaces, the types they carry and the sentinel
// errors. It links no implementation; those are store/memstore (memory, for
// tests), store/boltstore (embedded bbolt) and store/redisstore (Redis), and
// store/storetest is the conformance suite every one of them passes.
//
// A room is stored as commands, not as a world: a snapshot of its state at
// some revision plus the log of accepted entries after it (and, when the
// snapshot says so with Keep, some entries it covers). Every write
// carries the lease's fencing token; a write with a stale token fails with
// ErrFenced, so two processes never both write one room.
package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Entry is one accepted room entry at revision Rev. Data is opaque to the
// store.
type Entry struct {
	Rev  uint64
	Data []byte
}

// Snapshot is a room's whole state at revision Rev.
type Snapshot struct {
	Rev  uint64
	Data []byte
	// Keep is the first revision whose entry the store keeps after this
	// snapshot: entries with Rev < Keep are dropped, entries with Rev >= Keep
	// are kept even when the snapshot covers them (a room keeps the log of
	// its running match, so that its snapshot need not embed it). Zero means
	// Rev+1 (drop everything the snapshot covers); a value above Rev+1 is
	// treated as Rev+1. Only WriteSnapshot reads it: it is not stored, and
	// the snapshot Open returns has Keep zero.
	Keep uint64
}

// FirstKept is the Keep that WriteSnapshot applies: Keep, or Rev+1 when Keep
// is zero or above Rev+1.
func (s Snapshot) FirstKept() uint64 {
	if s.Keep == 0 || s.Keep > s.Rev+1 {
		return s.Rev + 1
	}
	return s.Keep
}

// Record is what Open loads: the newest snapshot and every entry the store
// still keeps, in revision order and contiguous. They follow the snapshot
// unless a snapshot's Keep kept entries it covers: then they start at or
// before Snapshot.Rev, and a room replays only those after it.
type Record struct {
	Snapshot Snapshot
	Entries  []Entry
	// Ended is true when the room was marked ended (it expires later).
	Ended bool
	// Rewound is true when the store may have lost writes of this room
	// that it had acknowledged — an embedded store whose damaged log the
	// operator chose to open without what followed the damage — so that
	// clients may have seen revisions it no longer has. The room moves to a new
	// epoch before it serves anyone. The store reports it until an entry
	// after the revision the room came back at is stored. Stores that
	// never lose an acknowledged write never set it.
	Rewound bool
}

// Lease is the right to write one room. Token is the fencing token: it
// rises every time the room is opened or created.
type Lease struct {
	Room  string
	Token uint64
}

// Store is what the room layer needs. Every method takes ctx first and is
// safe for concurrent use.
type Store interface {
	// Create stores a new room with its first snapshot and returns its lease.
	// It fails with ErrExists when the code is taken.
	Create(ctx context.Context, room string, snap Snapshot) (Lease, error)
	// Open takes the room's lease (fencing out any earlier holder) and loads
	// it. It fails with ErrNotFound for an unknown or expired room.
	Open(ctx context.Context, room string) (Lease, Record, error)
	// Append stores entries durably, in order, after the room's last entry.
	// Implementations group concurrent appends of many rooms into one write
	// (group commit). When it returns nil the entries survive a crash of
	// this process. Appending entries that are already stored with the same
	// bytes succeeds without writing (a retried append whose first attempt
	// landed); any other entry that does not follow the last one is ErrGap.
	// An error other than the sentinels (a timeout, an outage) leaves the
	// outcome unknown: the entries may or may not be stored.
	Append(ctx context.Context, lease Lease, entries []Entry) error
	// WriteSnapshot stores snap and drops the entries with revisions below
	// snap.FirstKept() (by default, every entry it covers). Entries already
	// dropped never come back. An older snapshot (Rev below the stored one)
	// is accepted and changes nothing, the log included. A snapshot ahead of
	// the log (Rev above the last stored revision) moves the room on, the
	// next entry is Rev+1, and drops the whole log whatever Keep says: the
	// entries kept stay contiguous.
	WriteSnapshot(ctx context.Context, lease Lease, snap Snapshot) error
	// End marks the room ended; it is deleted after ttl.
	End(ctx context.Context, lease Lease, ttl time.Duration) error
	// List returns the codes of rooms that are stored and not ended.
	List(ctx context.Context) ([]string, error)
	// Ping reports whether the store can take writes now.
	Ping(ctx context.Context) error
	// Close releases resources; pending appends fail with ErrClosed.
	Close() error
}

// Claims holds small values under keys, each set once: the first claim of
// a key stores its value, and later claims get the stored value back. It is
// what servers must agree on without a room — across restarts and across
// nodes sharing one store: the key that daily secrets are drawn from, and
// who has played a day's ranked daily.
type Claims interface {
	// Claim stores value under key unless the key is held (and not
	// expired); it returns the value held after the call and whether this
	// call stored it. A ttl of zero keeps the key for good; otherwise the
	// key expires ttl after it was stored (a claim that finds the key held
	// does not extend it). Keys are 1 to 256 bytes and values at most 4 KiB
	// (larger is an error wrapping ErrTooLarge, nothing stored); an empty
	// key or a negative ttl is an error too.
	Claim(ctx context.Context, key string, value []byte, ttl time.Duration) (held []byte, stored bool, err error)
	// Mark stores value under key whatever is held there, for good (no
	// expiry): what changes over time, such as the process heartbeat;
	// Claim reads it back. The same limits as Claim.
	Mark(ctx context.Context, key string, value []byte) error
}

// The limits of Claims: the longest key and the largest value.
const (
	MaxClaimKey   = 256
	MaxClaimValue = 4 << 10
)

// CheckClaim returns the error Claim returns for its arguments before it
// stores anything, or nil when they are within the limits.
func CheckClaim(key string, value []byte, ttl time.Duration) error {
	switch {
	case key == "":
		return errors.New("claim: empty key")
	case len(key) > MaxClaimKey:
		return fmt.Errorf("claim: key of %d bytes, at most %d: %w", len(key), MaxClaimKey, ErrTooLarge)
	case len(value) > MaxClaimValue:
		return fmt.Errorf("claim: value of %d bytes, at most %d: %w", len(value), MaxClaimValue, ErrTooLarge)
	case ttl < 0:
		return fmt.Errorf("claim: negative ttl %v", ttl)
	}
	return nil
}

// Event is a webhook event waiting in the outbox (package
// transport/webhook delivers them).
type Event struct {
	// ID is unique (a ULID): the receiver deduplicates by it.
	ID string
	// Data is the JSON body, as it is signed and sent.
	Data []byte
	// Attempts counts failed deliveries; Due (Unix ms) is when the next
	// may be tried.
	Attempts int
	Due      int64
}

// MaxOutbox is how many events an outbox holds by default; events beyond
// it are dropped (and counted), never blocking a room.
const MaxOutbox = 100_000

// Outbox is a durable queue of webhook events, delivered at least once: an
// event stays until it is acknowledged, across restarts and crashes.
type Outbox interface {
	// Enqueue adds events. It returns how many were dropped because the
	// outbox was full.
	Enqueue(ctx context.Context, events []Event) (dropped int, err error)
	// AppendWith is Append that also enqueues events, in one atomic write:
	// the entries and the events are both stored or neither is, fenced by
	// the lease as Append is. Events beyond the outbox's bound are dropped
	// and counted, never failing the append.
	AppendWith(ctx context.Context, lease Lease, entries []Entry, events []Event) (dropped int, err error)
	// Due returns up to limit events whose Due time is at or before now,
	// oldest (by Due, then ID) first.
	Due(ctx context.Context, now int64, limit int) ([]Event, error)
	// Retry records a failed delivery: the event's attempts and its next
	// due time. An unknown id is not an error.
	Retry(ctx context.Context, id string, attempts int, due int64) error
	// Ack removes delivered events. Unknown ids are not an error.
	Ack(ctx context.Context, ids []string) error
}

// MaxDue bounds how many events one Due call returns, whatever its limit
// (a limit of zero or less asks for MaxDue).
const MaxDue = 1000

// DueLimit is the number of events Due returns at most for limit: limit,
// or MaxDue when limit is not in 1..MaxDue.
func DueLimit(limit int) int {
	if limit <= 0 || limit > MaxDue {
		return MaxDue
	}
	return limit
}

// CheckEvents returns the error Enqueue and AppendWith return for events
// before they store anything: every event needs an ID.
func CheckEvents(events []Event) error {
	for i, e := range events {
		if e.ID == "" {
			return fmt.Errorf("outbox: event %d has no ID", i)
		}
	}
	return nil
}

// Backend is a store of rooms that also keeps leaderboards, claims, the
// webhook outbox and the players' ratings: what a server wires into the
// room layer.
type Backend interface {
	Store
	Leaderboards
	Claims
	Outbox
	Ratings
}
