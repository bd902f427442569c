package memstore

import (
	"slices"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/storetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) *storetest.Subject {
		clock := storetest.NewClock()
		m := New()
		m.Now = clock.Now
		t.Cleanup(func() { m.Close() })
		return &storetest.Subject{S: m, Advance: clock.Advance, Now: clock.Now,
			Boards: func(t *testing.T, size int) store.Leaderboards {
				m := New()
				m.Now, m.LeaderboardSize = clock.Now, size
				return m
			},
			Outboxes: func(t *testing.T, size int) store.Backend {
				m := New()
				m.Now, m.MaxOutbox = clock.Now, size
				return m
			},
			ClaimsKept: func(t *testing.T) int {
				m.mu.Lock()
				defer m.mu.Unlock()
				return len(m.claims)
			}}
	})
}

// TestBoardsDropped: a board past its expiry is deleted by the next Record
// into any board; boards without expiry or not yet expired stay.
func TestBoardsDropped(t *testing.T) {
	clock := storetest.NewClock()
	m := New()
	m.Now = clock.Now
	ctx := storetest.Ctx(t)
	at := func(d time.Duration) int64 { return clock.Now().Add(d).UnixMilli() }
	day1 := store.Board{Game: "g", Board: "b", Kind: "day/1", Expires: at(time.Hour)}
	day2 := store.Board{Game: "g", Board: "b", Kind: "day/2", Expires: at(2 * time.Hour)}
	always := store.Board{Game: "g", Board: "b", Kind: "all"}
	for _, b := range []store.Board{day1, day2, always} {
		if err := m.Record(ctx, b, store.Score{Name: "a", Value: 1}); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(90 * time.Minute)
	if err := m.Record(ctx, always, store.Score{Name: "b", Value: 2}); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for k := range m.boards {
		kinds = append(kinds, k.kind)
	}
	slices.Sort(kinds)
	if !slices.Equal(kinds, []string{"all", "day/2"}) || len(m.expiry) != 1 {
		t.Fatalf("boards %v, %d expiring; want all and day/2, 1 expiring", kinds, len(m.expiry))
	}
}

func BenchmarkAppend(b *testing.B) {
	storetest.BenchAppend(b, func(b *testing.B) store.Store { return New() }, nil)
}

// TestPoolAlone runs the pool's conformance tests on a Pool of its own:
// what a node on another store (bbolt) pairs with.
func TestPoolAlone(t *testing.T) {
	storetest.RunPool(t, func(t *testing.T) *storetest.Subject {
		m := New()
		t.Cleanup(func() { m.Close() })
		return &storetest.Subject{S: poolOnly{Backend: m, Pool: NewPool()}}
	})
}

// poolOnly is a store whose pool is a Pool alone.
type poolOnly struct {
	store.Backend
	*Pool
}
