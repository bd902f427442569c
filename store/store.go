// Package store is what the room layer needs to persist rooms: the Store and
// Leaderboards interfaces, the types they carry and the sentinel errors. It
// links no implementation; those are store/memstore (memory, for tests),
// store/boltstore (embedded bbolt) and store/redisstore (Redis), and
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

// Backend is a store of rooms that also keeps leaderboards: what a server
// wires into the room layer.
type Backend interface {
	Store
	Leaderboards
}
