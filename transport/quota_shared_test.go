package transport

import (
	"context"
	"errors"
	"net/netip"
	"sync"
	"testing"
	"time"
)

// fakeShared is a shared limiter in this process for the fallback's unit
// tests: it counts calls, grants or refuses as told, fails or hangs until
// its context ends. (The real one, on Redis, is tested in cmd/roomd with
// real nodes.)
type fakeShared struct {
	mu    sync.Mutex
	calls int
	keys  []string
	grant bool
	fail  error
	hang  bool
}

func (f *fakeShared) answer(ctx context.Context, key string) (time.Duration, bool, error) {
	f.mu.Lock()
	f.calls++
	f.keys = append(f.keys, key)
	grant, fail, hang := f.grant, f.fail, f.hang
	f.mu.Unlock()
	if hang {
		<-ctx.Done()
		return 0, false, ctx.Err()
	}
	if fail != nil {
		return 0, false, fail
	}
	if !grant {
		return 7 * time.Second, false, nil
	}
	return 0, true, nil
}

func (f *fakeShared) Take(ctx context.Context, key string, _ Limit) (time.Duration, bool, error) {
	return f.answer(ctx, key)
}

func (f *fakeShared) Left(ctx context.Context, key string, _ Limit) (time.Duration, bool, error) {
	return f.answer(ctx, key)
}

func (f *fakeShared) set(change func(*fakeShared)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change(f)
}

func (f *fakeShared) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// TestSharedQuotasDecide: while the shared limiter answers, its answer
// decides (a refusal with its wait, whatever this node's buckets hold),
// and this node's buckets follow what it grants; keys name the quota and
// the address.
func TestSharedQuotasDecide(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_750_000_000, 0)
	f := &fakeShared{grant: true}
	q := newQuotas(Quotas{Rooms: Limit{PerMinute: 4}, Shared: f}, func() time.Time { return now }) // bursts of 2
	addr := netip.MustParseAddr("203.0.113.7")
	ctx := context.Background()
	if _, ok := q.spend(ctx, addr, qRooms); !ok {
		t.Fatal("refused while the shared limiter grants")
	}
	if f.keys[0] != "rooms:203.0.113.7" {
		t.Fatalf("key %q", f.keys[0])
	}
	f.set(func(f *fakeShared) { f.grant = false })
	if wait, ok := q.spend(ctx, addr, qRooms); ok || wait != 7*time.Second {
		t.Fatalf("the shared limiter refused, spend = %v, %v", wait, ok)
	}
	if wait, spent := q.exhausted(ctx, addr, qRooms); !spent || wait != 7*time.Second {
		t.Fatalf("the shared limiter has none left, exhausted = %v, %v", wait, spent)
	}
	// This node spent one of its own two: one is left for a fallback.
	if _, spent := q.spent(addr, qRooms); spent {
		t.Fatal("this node's bucket is empty after one grant of two")
	}
	if _, ok := q.take(addr, qRooms); !ok {
		t.Fatal("this node's second token is gone")
	}
	if _, ok := q.take(addr, qRooms); ok {
		t.Fatal("this node's bucket did not follow the shared grant")
	}
}

// TestSharedQuotasFallBack: when the shared limiter fails, the node counts
// on its own buckets at once, leaves the shared limiter alone for
// sharedRetry, then asks it again with one request; a limiter that hangs
// costs a request no more than SharedTimeout.
func TestSharedQuotasFallBack(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_750_000_000, 0)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	f := &fakeShared{grant: true, fail: errors.New("connection refused")}
	q := newQuotas(Quotas{Replays: Limit{PerMinute: 6}, Shared: f, SharedTimeout: 50 * time.Millisecond}, clock) // bursts of 3
	addr := netip.MustParseAddr("203.0.113.8")
	ctx := context.Background()
	granted := 0
	for range 5 {
		if _, ok := q.spend(ctx, addr, qReplays); ok {
			granted++
		}
	}
	if granted != 3 || f.count() != 1 {
		t.Fatalf("shared limiter down: %d of 5 granted (want this node's 3), %d calls to it (want 1)", granted, f.count())
	}
	if wait, spent := q.exhausted(ctx, addr, qReplays); !spent || wait <= 0 {
		t.Fatalf("this node's bucket is spent, exhausted = %v, %v", wait, spent)
	}
	// Past sharedRetry one request asks again: the limiter hangs now, and
	// the request waits SharedTimeout, no more, then counts here.
	advance(sharedRetry)
	f.set(func(f *fakeShared) { f.fail, f.hang = nil, true })
	start := time.Now()
	if _, ok := q.spend(ctx, addr, qReplays); ok {
		t.Fatal("granted from this node's empty bucket")
	}
	if took := time.Since(start); took < 50*time.Millisecond || took > time.Second {
		t.Fatalf("a hanging shared limiter held the request %v (timeout 50ms)", took)
	}
	if f.count() != 2 {
		t.Fatalf("%d calls to the shared limiter, want 2", f.count())
	}
	// It answers again: after the next rest, the first request brings it
	// back, and it decides again.
	f.set(func(f *fakeShared) { f.hang = false })
	q.spend(ctx, addr, qReplays)
	if f.count() != 2 {
		t.Fatal("the shared limiter was asked during its rest")
	}
	advance(sharedRetry)
	for range 3 {
		if _, ok := q.spend(ctx, addr, qReplays); !ok {
			t.Fatal("refused while the shared limiter is back and grants")
		}
	}
	if f.count() != 5 {
		t.Fatalf("%d calls to the shared limiter, want 5", f.count())
	}
}

// TestSharedQuotasOff: with the quotas off the shared limiter is never
// asked.
func TestSharedQuotasOff(t *testing.T) {
	t.Parallel()
	f := &fakeShared{}
	q := newQuotas(Quotas{Off: true, Shared: f}, time.Now)
	addr := netip.MustParseAddr("203.0.113.9")
	if _, ok := q.spend(context.Background(), addr, qRooms); !ok {
		t.Fatal("refused with the quotas off")
	}
	if _, spent := q.exhausted(context.Background(), addr, qLookups); spent {
		t.Fatal("exhausted with the quotas off")
	}
	if f.count() != 0 {
		t.Fatalf("%d calls to the shared limiter with the quotas off", f.count())
	}
}
