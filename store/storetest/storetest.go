// Package storetest is the conformance suite every store implementation
// passes: Run runs each test against a fresh store from a Factory, in
// parallel, so one implementation's tests call
//
//	storetest.Run(t, func(t *testing.T) *storetest.Subject { ... })
//
// It also exports the helpers the implementations' own tests share.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/roomd/roomd/store"
)

// Subject is one store under test, fresh for each test.
type Subject struct {
	// S is the store. Reopen replaces it.
	S store.Backend
	// Advance moves the store's clock forward; nil when the store runs on
	// real time (then TTL tests poll).
	Advance func(time.Duration)
	// Reopen closes S and returns a new store on the same data (a new
	// process, a new client), which it also puts in S; nil when nothing
	// persists.
	Reopen func(t *testing.T) store.Backend
	// Now is the store's clock, for the times tests give it (a board's
	// Expires); nil means time.Now.
	Now func() time.Time
	// Boards returns another fresh store of the same kind, on the same
	// clock, whose boards keep size scores (its LeaderboardSize); nil when
	// the store has no such option.
	Boards func(t *testing.T, size int) store.Leaderboards
	// Outboxes returns another fresh store of the same kind, on the same
	// clock, whose outbox holds size events (its MaxOutbox option); nil
	// when the store has no such option.
	Outboxes func(t *testing.T, size int) store.Backend
	// Rewind crashes the store with its latest writes lost to damage and
	// reopens it accepting the loss (boltstore's DiscardAfterDamage),
	// putting the new store in S: every room appended to since the last
	// Create or Open of any room loses those appends (there must be two
	// appends at least). Nil for a store that never loses an acknowledged
	// write (memory, Redis), whose rooms then never open Rewound.
	Rewind func(t *testing.T) store.Backend
	// ClaimsKept runs the store's cleanup of expired claims (a sweep, for
	// a store that has one) and returns how many claims it keeps, expired
	// ones included; nil when the store cannot tell (Redis, which expires
	// keys by itself).
	ClaimsKept func(t *testing.T) int
}

// now reads the store's clock.
func (sub *Subject) now() time.Time {
	if sub.Now != nil {
		return sub.Now()
	}
	return time.Now()
}

// Factory makes a fresh subject for one test; it registers the store's
// Close with t.Cleanup. Stores that share a server give each subject its
// own key prefix.
type Factory func(t *testing.T) *Subject

// Run runs the conformance suite, each test as a parallel subtest with a
// subject of its own.
func Run(t *testing.T, newSubject Factory) {
	tests := []struct {
		name string
		fn   func(t *testing.T, sub *Subject)
	}{
		{"CreateOpen", testCreateOpen},
		{"AppendInOrder", testAppendInOrder},
		{"Gap", testGap},
		{"Fencing", testFencing},
		{"Snapshot", testSnapshot},
		{"KeepBelowRev", testKeepBelowRev},
		{"KeepTrims", testKeepTrims},
		{"KeepLater", testKeepLater},
		{"KeepAhead", testKeepAhead},
		{"List", testList},
		{"EndTTL", testEndTTL},
		{"Reopen", testReopen},
		{"Rewound", testRewound},
		{"ConcurrentRooms", testConcurrentRooms},
		{"Leaderboards", testLeaderboards},
		{"LeaderboardsHigher", testLeaderboardsHigher},
		{"LeaderboardSize", testLeaderboardSize},
		{"OnePerName", testOnePerName},
		{"OneNameFloods", testOneNameFloods},
		{"TrimFreesName", testTrimFreesName},
		{"OnePerPlayer", testOnePerPlayer},
		{"PlayersApartFromNames", testPlayersApartFromNames},
		{"TrimFreesPlayer", testTrimFreesPlayer},
		{"ConcurrentNames", testConcurrentNames},
		{"BoardExpires", testBoardExpires},
		{"DataRoundTrip", testDataRoundTrip},
		{"Closed", testClosed},
		{"ClaimOnce", testClaimOnce},
		{"ClaimKeys", testClaimKeys},
		{"ClaimExpires", testClaimExpires},
		{"ClaimReopen", testClaimReopen},
		{"ClaimConcurrent", testClaimConcurrent},
		{"ClaimLimits", testClaimLimits},
		{"ClaimClosed", testClaimClosed},
		{"ClaimCleanup", testClaimCleanup},
		{"ClaimMark", testClaimMark},
		{"OutboxRoundTrip", testOutboxRoundTrip},
		{"OutboxOrder", testOutboxOrder},
		{"OutboxDue", testOutboxDue},
		{"OutboxRetry", testOutboxRetry},
		{"OutboxAppendWith", testOutboxAppendWith},
		{"OutboxAppendWithFenced", testOutboxAppendWithFenced},
		{"OutboxBound", testOutboxBound},
		{"OutboxReopen", testOutboxReopen},
		{"OutboxConcurrent", testOutboxConcurrent},
		{"RatingsApply", testRatingsApply},
		{"RatingsOnce", testRatingsOnce},
		{"RatingsHistory", testRatingsHistory},
		{"RatingsTop", testRatingsTop},
		{"RatingsConcurrent", testRatingsConcurrent},
		{"RatingsRefused", testRatingsRefused},
		{"RatingsReopen", testRatingsReopen},
		{"ClusterOwnership", testClusterOwnership},
		{"ClusterExpiry", testClusterExpiry},
		{"ClusterNodes", testClusterNodes},
		{"PoolEnter", testPoolEnter},
		{"PoolPair", testPoolPair},
		{"PoolExpiry", testPoolExpiry},
		{"PoolConcurrentPair", testPoolConcurrentPair},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newSubject(t))
		})
	}
}

// Clock is a clock tests move by hand, for a store's Now option.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock at a fixed time (November 2023).
func NewClock() *Clock { return &Clock{now: time.Unix(1_700_000_000, 0)} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Ctx returns a context that ends with the test or after 30 seconds.
func Ctx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// Entry returns the entry of room at rev: its bytes name both, so entries
// of different rooms or revisions never compare equal.
func Entry(room string, rev uint64) store.Entry {
	return store.Entry{Rev: rev, Data: fmt.Appendf(nil, `{"room":%q,"rev":%d}`, room, rev)}
}

// Entries returns Entry(room, rev) for rev from..to.
func Entries(room string, from, to uint64) []store.Entry {
	var out []store.Entry
	for rev := from; rev <= to; rev++ {
		out = append(out, Entry(room, rev))
	}
	return out
}

// MustCreate creates room or fails the test.
func MustCreate(t testing.TB, s store.Store, room string, snap store.Snapshot) store.Lease {
	t.Helper()
	l, err := s.Create(Ctx(t), room, snap)
	if err != nil {
		t.Fatalf("create %s: %v", room, err)
	}
	return l
}

// MustOpen opens room or fails the test.
func MustOpen(t testing.TB, s store.Store, room string) (store.Lease, store.Record) {
	t.Helper()
	l, rec, err := s.Open(Ctx(t), room)
	if err != nil {
		t.Fatalf("open %s: %v", room, err)
	}
	return l, rec
}

// MustAppend appends es or fails the test.
func MustAppend(t testing.TB, s store.Store, l store.Lease, es []store.Entry) {
	t.Helper()
	if err := s.Append(Ctx(t), l, es); err != nil {
		t.Fatalf("append %s %d..: %v", l.Room, es[0].Rev, err)
	}
}

// MustSnapshot writes snap or fails the test.
func MustSnapshot(t testing.TB, s store.Store, l store.Lease, snap store.Snapshot) {
	t.Helper()
	if err := s.WriteSnapshot(Ctx(t), l, snap); err != nil {
		t.Fatalf("snapshot %s rev %d keep %d: %v", l.Room, snap.Rev, snap.Keep, err)
	}
}

// WantErr fails the test unless errors.Is(err, want).
func WantErr(t testing.TB, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: err = %v, want %v", what, err, want)
	}
}

// CheckRecord compares a loaded record with the snapshot and entries
// expected.
func CheckRecord(t testing.TB, rec store.Record, snap store.Snapshot, want []store.Entry) {
	t.Helper()
	if rec.Snapshot.Rev != snap.Rev || !bytes.Equal(rec.Snapshot.Data, snap.Data) {
		t.Fatalf("snapshot = rev %d %q, want rev %d %q", rec.Snapshot.Rev, trunc(rec.Snapshot.Data), snap.Rev, trunc(snap.Data))
	}
	if len(rec.Entries) != len(want) {
		t.Fatalf("%d entries %v, want %d %v", len(rec.Entries), Revs(rec.Entries), len(want), Revs(want))
	}
	for i, e := range rec.Entries {
		if e.Rev != want[i].Rev || !bytes.Equal(e.Data, want[i].Data) {
			t.Fatalf("entry %d = rev %d %q, want rev %d %q", i, e.Rev, trunc(e.Data), want[i].Rev, trunc(want[i].Data))
		}
	}
}

func trunc(b []byte) []byte {
	if len(b) > 40 {
		return b[:40]
	}
	return b
}

// Revs returns the revisions of es.
func Revs(es []store.Entry) []uint64 {
	out := make([]uint64, len(es))
	for i, e := range es {
		out[i] = e.Rev
	}
	return out
}

// waitExpired waits until the room is gone: the fake clock jumps past ttl,
// a real one is polled with a deadline.
func waitExpired(t *testing.T, sub *Subject, room string, ttl time.Duration) {
	t.Helper()
	if sub.Advance != nil {
		sub.Advance(ttl + time.Millisecond)
	}
	deadline := time.Now().Add(ttl + 10*time.Second)
	for {
		_, _, err := sub.S.Open(Ctx(t), room)
		if errors.Is(err, store.ErrNotFound) {
			return
		}
		if err != nil {
			t.Fatalf("open %s while waiting for expiry: %v", room, err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("room %s did not expire within %v", room, ttl+10*time.Second)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// WaitQueued waits until n writes wait in q, a store's committer queue.
func WaitQueued(t testing.TB, q interface{ Len() int }, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for q.Len() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d writes queued, want %d", q.Len(), n)
		}
		time.Sleep(time.Millisecond)
	}
}
