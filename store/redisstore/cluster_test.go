package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/roomd/roomd/internal/testredis"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/storetest"
)

// TestCluster runs the store on a real Redis Cluster of three masters: one
// cluster for the whole test, each subtest (and each conformance test) on
// keys of its own prefix.
func TestCluster(t *testing.T) {
	start := time.Now()
	cl := testredis.StartCluster(t)
	t.Logf("a cluster of %d masters formed in %v", testredis.ClusterMasters, time.Since(start).Round(time.Millisecond))
	url := cl.URL()
	open := func(t testing.TB, opts RedisOptions) *Redis {
		opts.Cluster = true
		return openRedis(t, url, opts)
	}
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: cl.Addrs()})
	t.Cleanup(func() { c.Close() })

	t.Run("Conformance", func(t *testing.T) {
		storetest.Run(t, func(t *testing.T) *storetest.Subject {
			prefix := uniquePrefix()
			sub := &storetest.Subject{S: open(t, RedisOptions{Prefix: prefix}),
				Boards: func(t *testing.T, size int) store.Leaderboards {
					return open(t, RedisOptions{LeaderboardSize: size})
				},
				Outboxes: func(t *testing.T, size int) store.Backend {
					return open(t, RedisOptions{MaxOutbox: size})
				}}
			sub.Reopen = func(t *testing.T) store.Backend {
				if err := sub.S.Close(); err != nil {
					t.Fatal(err)
				}
				sub.S = open(t, RedisOptions{Prefix: prefix})
				return sub.S
			}
			return sub
		})
	})

	// Spread: rooms and boards land on every master, so the tests above
	// crossed nodes.
	t.Run("Spread", func(t *testing.T) {
		prefix := uniquePrefix()
		r := open(t, RedisOptions{Prefix: prefix})
		ctx := storetest.Ctx(t)
		for i := range 30 {
			code := fmt.Sprintf("SPRD%02d", i)
			l := storetest.MustCreate(t, r, code, store.Snapshot{})
			storetest.MustAppend(t, r, l, storetest.Entries(code, 1, 1))
			if err := r.Record(ctx, store.Board{Game: "g", Board: code, Kind: "k"}, store.Score{Name: "a", Value: 1}); err != nil {
				t.Fatal(err)
			}
		}
		var mu sync.Mutex
		perNode := map[string]int{}
		err := c.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error {
			keys, err := n.Keys(ctx, prefix+":*").Result()
			mu.Lock()
			perNode[n.Options().Addr] = len(keys)
			mu.Unlock()
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("keys per master: %v", perNode)
		for _, a := range cl.Addrs() {
			if perNode[a] == 0 {
				t.Errorf("master %s holds none of the keys", a)
			}
		}
	})

	// NoScript: a node that lost its scripts (a restart) gets them again,
	// whichever node it is and whatever reaches it first: the committer's
	// pipeline, a script run alone, the move of held events.
	t.Run("NoScript", func(t *testing.T) {
		r := open(t, RedisOptions{})
		ctx := storetest.Ctx(t)
		const rooms = 12
		leases := make([]store.Lease, rooms)
		for i := range rooms {
			leases[i] = storetest.MustCreate(t, r, fmt.Sprintf("NOSC%02d", i), store.Snapshot{})
		}
		for n := range cl.Nodes {
			cl.Nodes[n].Do("SCRIPT FLUSH")
			before := r.Stats().RoundTrips
			var wg sync.WaitGroup
			for i, l := range leases {
				rev := uint64(n + 1)
				wg.Go(func() {
					e := storetest.Entries(l.Room, rev, rev)
					var err error
					if i%2 == 0 {
						err = r.Append(ctx, l, e)
					} else {
						_, err = r.AppendWith(ctx, l, e, []store.Event{{ID: fmt.Sprintf("%s-%d", l.Room, rev), Data: []byte("{}")}})
					}
					if err != nil {
						t.Errorf("after SCRIPT FLUSH on node %d: %v", n, err)
					}
				})
			}
			wg.Wait()
			t.Logf("SCRIPT FLUSH on node %d: %d round trips for %d appends", n, r.Stats().RoundTrips-before, rooms)
			cl.Nodes[n].Do("SCRIPT FLUSH")
			for i, l := range leases {
				var err error
				if leases[i], _, err = r.Open(ctx, l.Room); err != nil {
					t.Fatalf("open after SCRIPT FLUSH on node %d: %v", n, err)
				}
			}
			cl.Nodes[n].Do("SCRIPT FLUSH")
			if _, _, err := r.Claim(ctx, fmt.Sprint("k", n), []byte("v"), 0); err != nil {
				t.Fatalf("claim after SCRIPT FLUSH on node %d: %v", n, err)
			}
			if t.Failed() {
				return
			}
		}
		for _, l := range leases {
			_, rec := storetest.MustOpen(t, r, l.Room)
			storetest.CheckRecord(t, rec, store.Snapshot{}, storetest.Entries(l.Room, 1, uint64(len(cl.Nodes))))
		}
		got, err := r.Due(ctx, 0, store.MaxDue)
		if err != nil || len(got) != rooms/2*len(cl.Nodes) {
			t.Fatalf("%d events due (%v), want %d", len(got), err, rooms/2*len(cl.Nodes))
		}
	})

	// HeldSweep: a process that died after holding a room's events (step
	// 1) and before moving them: another process's Due moves them once
	// heldGrace has passed, and clears what they held.
	t.Run("HeldSweep", func(t *testing.T) {
		prefix := uniquePrefix()
		r := open(t, RedisOptions{Prefix: prefix})
		ctx := storetest.Ctx(t)
		const room = "SWEEP1"
		l := storetest.MustCreate(t, r, room, store.Snapshot{})
		e1, e2 := store.Event{ID: "e1", Data: []byte(`{"a":1}`), Due: 5}, store.Event{ID: "e2", Data: []byte(`{}`), Due: 6, Attempts: 2}
		holdOnly(t, r, l, storetest.Entries(room, 1, 2), []store.Event{e1, e2}, true)
		if err := r.Close(); err != nil { // the process dies
			t.Fatal(err)
		}
		r2 := open(t, RedisOptions{Prefix: prefix})
		if got, err := r2.Due(ctx, 100, 10); err != nil || len(got) != 0 {
			t.Fatalf("due before the grace: %v, %v; want none (a committer may still be moving them)", got, err)
		}
		if err := r2.sweepHeld(ctx, time.Now().Add(heldGrace+time.Second)); err != nil {
			t.Fatal(err)
		}
		wantDue(t, r2, e1, e2)
		wantNoHeld(t, c, r2, room)
		_, rec := storetest.MustOpen(t, r2, room)
		storetest.CheckRecord(t, rec, store.Snapshot{}, storetest.Entries(room, 1, 2))

		// An event both held and queued (moved, its held copy not yet
		// cleared) keeps its queued attempts and due time when moved again.
		if err := r2.Retry(ctx, "e2", 3, 9); err != nil {
			t.Fatal(err)
		}
		l, _ = storetest.MustOpen(t, r2, room)
		holdOnly(t, r2, l, nil, []store.Event{e2}, true)
		if err := r2.sweepHeld(ctx, time.Now().Add(heldGrace+time.Second)); err != nil {
			t.Fatal(err)
		}
		e2.Attempts, e2.Due = 3, 9
		wantDue(t, r2, e1, e2)
		wantNoHeld(t, c, r2, room)
	})

	// HeldNextAppend: events held with no index entry (the process died
	// while the outbox's node was failing) are moved by the room's next
	// AppendWith.
	t.Run("HeldNextAppend", func(t *testing.T) {
		prefix := uniquePrefix()
		r := open(t, RedisOptions{Prefix: prefix})
		ctx := storetest.Ctx(t)
		const room = "NEXT01"
		l := storetest.MustCreate(t, r, room, store.Snapshot{})
		e1, e2 := store.Event{ID: "e1", Data: []byte("{}"), Due: 1}, store.Event{ID: "e2", Data: []byte("{}"), Due: 2}
		holdOnly(t, r, l, storetest.Entries(room, 1, 1), []store.Event{e1}, false)
		if err := r.sweepHeld(ctx, time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		wantDue(t, r)
		if dropped, err := r.AppendWith(ctx, l, storetest.Entries(room, 2, 2), []store.Event{e2}); err != nil || dropped != 0 {
			t.Fatalf("append with events: dropped %d, %v", dropped, err)
		}
		wantDue(t, r, e1, e2)
		wantNoHeld(t, c, r, room)
	})

	// HeldCleared: after appends with events the rooms hold nothing and
	// the index is empty: nothing is left for a sweep.
	t.Run("HeldCleared", func(t *testing.T) {
		r := open(t, RedisOptions{})
		ctx := storetest.Ctx(t)
		var wg sync.WaitGroup
		var rooms []string
		for i := range 20 {
			room := fmt.Sprintf("CLR%03d", i)
			rooms = append(rooms, room)
			l := storetest.MustCreate(t, r, room, store.Snapshot{})
			wg.Go(func() {
				for rev := uint64(1); rev <= 5; rev++ {
					if _, err := r.AppendWith(ctx, l, storetest.Entries(room, rev, rev), []store.Event{{ID: fmt.Sprint(room, rev), Data: []byte("{}")}}); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		wantNoHeld(t, c, r, rooms...)
		if got, err := r.Due(ctx, 0, store.MaxDue); err != nil || len(got) != 100 {
			t.Fatalf("%d events due, %v; want 100", len(got), err)
		}
	})

	// NotACluster: a cluster node opened as one server is refused with a
	// message that says so; a cluster URL without Cluster fails to parse.
	t.Run("NotACluster", func(t *testing.T) {
		ctx := storetest.Ctx(t)
		if r, err := Open(ctx, cl.Nodes[0].URL(), RedisOptions{}); err == nil || !strings.Contains(err.Error(), "Cluster") {
			if r != nil {
				r.Close()
			}
			t.Fatalf("open a cluster node as one server: %v", err)
		}
		if r, err := Open(ctx, url, RedisOptions{}); err == nil {
			r.Close()
			t.Fatal("a cluster URL opened as one server")
		}
		if r, err := Open(ctx, "redis://127.0.0.1:1?addr=nohostport", RedisOptions{Cluster: true}); err == nil {
			r.Close()
			t.Fatal("a bad addr= opened")
		}
	})

	t.Run("RoundTrips", func(t *testing.T) {
		for _, events := range []bool{false, true} {
			r := open(t, RedisOptions{})
			st := measureAppends(t, r, "CRT", events)
			if perAppend := float64(st.RoundTrips) / float64(st.Accepted); perAppend >= 0.5 {
				t.Fatalf("%.3f round trips per append, want < 0.5", perAppend)
			}
		}
	})
}

// TestRedisRoundTripsEvents measures the same on one server, for the
// comparison with a cluster (TestCluster/RoundTrips).
func TestRedisRoundTripsEvents(t *testing.T) {
	srv := testredis.Start(t)
	for _, events := range []bool{false, true} {
		r := openRedis(t, srv.URL(), RedisOptions{})
		st := measureAppends(t, r, "SRT", events)
		if perAppend := float64(st.RoundTrips) / float64(st.Accepted); perAppend >= 0.5 {
			t.Fatalf("%.3f round trips per append, want < 0.5", perAppend)
		}
	}
}

// measureAppends has 200 rooms append 20 times each at once, each append
// with one event when events, and logs and returns the committer's work.
func measureAppends(t *testing.T, r *Redis, prefix string, events bool) RedisStats {
	t.Helper()
	const rooms, appends = 200, 20
	leases := make([]store.Lease, rooms)
	for i := range rooms {
		leases[i] = storetest.MustCreate(t, r, fmt.Sprintf("%s%04d", prefix, i), store.Snapshot{})
	}
	before := r.Stats()
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range rooms {
		wg.Go(func() {
			<-start
			l := leases[i]
			for rev := uint64(1); rev <= appends; rev++ {
				e := []store.Entry{storetest.Entry(l.Room, rev)}
				var err error
				if events {
					_, err = r.AppendWith(storetest.Ctx(t), l, e, []store.Event{{ID: fmt.Sprint(l.Room, "/", rev), Data: []byte("{}")}})
				} else {
					err = r.Append(storetest.Ctx(t), l, e)
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	began := time.Now()
	close(start)
	wg.Wait()
	took := time.Since(began)
	after := r.Stats()
	st := RedisStats{Batches: after.Batches - before.Batches, Appends: after.Appends - before.Appends,
		Accepted: after.Accepted - before.Accepted, RoundTrips: after.RoundTrips - before.RoundTrips}
	kind := "appends"
	if events {
		kind = "appends with an event"
	}
	t.Logf("%d %s in %v: %d batches (%.1f appends each), %d round trips: %.2f per batch, %.3f per append",
		st.Accepted, kind, took.Round(time.Millisecond), st.Batches, float64(st.Appends)/float64(st.Batches),
		st.RoundTrips, float64(st.RoundTrips)/float64(st.Batches), float64(st.RoundTrips)/float64(st.Accepted))
	if st.Accepted != rooms*appends {
		t.Fatalf("%d appends accepted, want %d", st.Accepted, rooms*appends)
	}
	return st
}

// holdOnly writes what a cluster's AppendWith writes before its process
// dies: the room's script (step 1 of outboxKeys), and, when indexed, the
// room's index entry, as the committer writes them.
func holdOnly(t *testing.T, r *Redis, l store.Lease, entries []store.Entry, events []store.Event, indexed bool) {
	t.Helper()
	ctx := storetest.Ctx(t)
	a, err := r.appendWith("hold", l, entries, events)
	if err != nil {
		t.Fatal(err)
	}
	if indexed {
		if err := r.c.ZAdd(ctx, r.heldIndexKey(), redis.Z{Score: float64(time.Now().UnixMilli()), Member: l.Room}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.script.Run(ctx, r.c, a.keys, a.args...).Err(); err != nil {
		t.Fatal(err)
	}
}

// wantDue checks that exactly want are due (by Due, then ID), with their
// data, attempts and due times.
func wantDue(t *testing.T, r *Redis, want ...store.Event) {
	t.Helper()
	got, err := r.Due(storetest.Ctx(t), 1<<40, store.MaxDue)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("due = %v, want %v", got, want)
	}
	for i, e := range got {
		w := want[i]
		if e.ID != w.ID || string(e.Data) != string(w.Data) || e.Attempts != w.Attempts || e.Due != w.Due {
			t.Fatalf("due[%d] = %+v, want %+v", i, e, w)
		}
	}
}

// wantNoHeld waits until the rooms hold no events and the index of rooms
// holding events is empty (the committer clears after it answers).
func wantNoHeld(t *testing.T, c *redis.ClusterClient, r *Redis, rooms ...string) {
	t.Helper()
	ctx := storetest.Ctx(t)
	deadline := time.Now().Add(5 * time.Second)
	for {
		var left []string
		for _, room := range rooms {
			if n, err := c.Exists(ctx, r.heldKey(room)).Result(); err != nil || n != 0 {
				left = append(left, fmt.Sprint(room, " ", n, err))
			}
		}
		n, err := c.ZCard(ctx, r.heldIndexKey()).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			t.Fatal(err)
		}
		if len(left) == 0 && n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still held: %v; %d rooms indexed", left, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// BenchmarkAppendCluster is BenchmarkAppend on a cluster of three masters.
func BenchmarkAppendCluster(b *testing.B) {
	cl := testredis.StartCluster(b)
	open := func(b *testing.B) store.Store { return openRedis(b, cl.URL(), RedisOptions{Cluster: true}) }
	storetest.BenchAppend(b, open, func(s store.Store) storetest.Meter {
		r := s.(*Redis)
		return storetest.Meter{Unit: "roundtrips/append", Read: func() (uint64, uint64) {
			st := r.Stats()
			return st.RoundTrips, st.Accepted
		}}
	})
}
