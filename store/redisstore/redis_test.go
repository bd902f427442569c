package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/roomd/roomd/internal/testredis"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/internal/sortable"
	"github.com/roomd/roomd/store/storetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// uniquePrefix gives each test its own keys on a shared server.
func uniquePrefix() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "roomdtest-" + hex.EncodeToString(b[:])
}

func openRedis(t testing.TB, url string, opts RedisOptions) *Redis {
	t.Helper()
	if opts.Prefix == "" {
		opts.Prefix = uniquePrefix()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := Open(ctx, url, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// inspect returns a plain client to look at the server's keys.
func inspect(t *testing.T, srv *testredis.Server) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	t.Cleanup(func() { c.Close() })
	return c
}

func TestRedisConformance(t *testing.T) {
	srv := testredis.Start(t)
	storetest.Run(t, func(t *testing.T) *storetest.Subject {
		prefix := uniquePrefix()
		sub := &storetest.Subject{S: openRedis(t, srv.URL(), RedisOptions{Prefix: prefix}),
			Boards: func(t *testing.T, size int) store.Leaderboards {
				return openRedis(t, srv.URL(), RedisOptions{LeaderboardSize: size})
			},
			Outboxes: func(t *testing.T, size int) store.Backend {
				return openRedis(t, srv.URL(), RedisOptions{MaxOutbox: size})
			}}
		sub.Reopen = func(t *testing.T) store.Backend {
			if err := sub.S.Close(); err != nil {
				t.Fatal(err)
			}
			sub.S = openRedis(t, srv.URL(), RedisOptions{Prefix: prefix})
			return sub.S
		}
		return sub
	})
}

func TestRedisKeyLayout(t *testing.T) {
	srv := testredis.Start(t)
	r := openRedis(t, srv.URL(), RedisOptions{Prefix: "lay"})
	c := inspect(t, srv)
	ctx := storetest.Ctx(t)
	l := storetest.MustCreate(t, r, "K7QXMP", store.Snapshot{Data: []byte("s")})
	storetest.MustAppend(t, r, l, storetest.Entries("K7QXMP", 1, 2))
	for _, k := range []string{"lay:{K7QXMP}:fence", "lay:{K7QXMP}:snap", "lay:{K7QXMP}:log", "lay:{K7QXMP}:meta"} {
		if n := c.Exists(ctx, k).Val(); n != 1 {
			t.Errorf("key %s missing", k)
		}
	}
	if !c.SIsMember(ctx, "lay:rooms", "K7QXMP").Val() {
		t.Error("the room is not in lay:rooms")
	}
	if n := c.LLen(ctx, "lay:{K7QXMP}:log").Val(); n != 2 {
		t.Errorf("log length %d, want 2", n)
	}
	if err := r.End(ctx, l, time.Hour); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"lay:{K7QXMP}:fence", "lay:{K7QXMP}:snap", "lay:{K7QXMP}:log", "lay:{K7QXMP}:meta"} {
		if ttl := c.PTTL(ctx, k).Val(); ttl <= 0 || ttl > time.Hour {
			t.Errorf("TTL of %s = %v after End", k, ttl)
		}
	}
	if c.SIsMember(ctx, "lay:rooms", "K7QXMP").Val() {
		t.Error("an ended room is still in lay:rooms")
	}
	// A board is a sorted set and a hash of names, with one hash tag.
	expert := store.Board{Game: "mines", Board: "expert", Kind: store.KindHost}
	if err := r.Record(ctx, expert, store.Score{Name: "a", Value: 5}); err != nil {
		t.Fatal(err)
	}
	if n := c.ZCard(ctx, "lay:lb:{mines:expert:host}").Val(); n != 1 {
		t.Errorf("leaderboard has %d members, want 1", n)
	}
	if m := c.HGetAll(ctx, "lay:lb:{mines:expert:host}:names").Val(); len(m) != 1 || len(m["a"]) <= memberHead {
		t.Errorf("names = %v, want a → its member", m)
	}
	// A score with a player id is indexed by it in a hash of players.
	if err := r.Record(ctx, expert, store.Score{Name: "a", Player: "u1", Value: 6}); err != nil {
		t.Fatal(err)
	}
	if m := c.HGetAll(ctx, "lay:lb:{mines:expert:host}:players").Val(); len(m) != 1 || len(m["u1"]) <= memberHead {
		t.Errorf("players = %v, want u1 → its member", m)
	}
	if n := c.HLen(ctx, "lay:lb:{mines:expert:host}:names").Val(); n != 1 {
		t.Errorf("names has %d fields after a player's score, want 1", n)
	}
	if ttl := c.PTTL(ctx, "lay:lb:{mines:expert:host}").Val(); ttl != -1 {
		t.Errorf("a board without Expires has TTL %v", ttl)
	}
	// A higher-is-better board has the same key shape; its sorted-set
	// scores are the values negated.
	if err := r.Record(ctx, store.Board{Game: "nim", Board: "points", Kind: store.KindClient, Higher: true}, store.Score{Name: "a", Value: 7}); err != nil {
		t.Fatal(err)
	}
	if zs := c.ZRangeWithScores(ctx, "lay:lb:{nim:points:client}", 0, -1).Val(); len(zs) != 1 || zs[0].Score != -7 {
		t.Errorf("higher-is-better board = %+v, want one member with score -7", zs)
	}
	// Expires is the expiry of the three keys, set by each Record that has
	// it (kept or not), left by one without it; a hash that one without it
	// creates takes the board's expiry.
	daily := store.Board{Game: "mines", Board: "expert", Kind: "solo/day/2026-12-01", Expires: time.Now().Add(time.Hour).UnixMilli()}
	keys := []string{"lay:lb:{mines:expert:solo/day/2026-12-01}", "lay:lb:{mines:expert:solo/day/2026-12-01}:names", "lay:lb:{mines:expert:solo/day/2026-12-01}:players"}
	wantExpiry := func(what string, at int64) {
		t.Helper()
		for _, k := range keys {
			if got := c.PExpireTime(ctx, k).Val(); got != time.Duration(at)*time.Millisecond {
				t.Errorf("%s: %s expires at %v, want %d ms", what, k, got, at)
			}
		}
	}
	if err := r.Record(ctx, daily, store.Score{Name: "a", Value: 5}); err != nil {
		t.Fatal(err)
	}
	if err := r.Record(ctx, daily, store.Score{Name: "a", Player: "u1", Value: 5}); err != nil {
		t.Fatal(err)
	}
	wantExpiry("first records", daily.Expires)
	daily.Expires += 1000
	if err := r.Record(ctx, daily, store.Score{Name: "a", Value: 6}); err != nil { // not kept
		t.Fatal(err)
	}
	wantExpiry("a later Expires", daily.Expires)
	// A record without Expires leaves each key's expiry exactly as it is:
	// the names hash's, set apart from the board's here, is not copied
	// over from the board (nor drifts a millisecond by it).
	apart := time.UnixMilli(daily.Expires + 7)
	c.PExpireAt(ctx, keys[1], apart)
	if err := r.Record(ctx, store.Board{Game: "mines", Board: "expert", Kind: "solo/day/2026-12-01"}, store.Score{Name: "b", Value: 6}); err != nil {
		t.Fatal(err)
	}
	if got := c.PExpireTime(ctx, keys[1]).Val(); got != time.Duration(apart.UnixMilli())*time.Millisecond {
		t.Errorf("a record without Expires: %s expires at %v, want it left at %d ms", keys[1], got, apart.UnixMilli())
	}
	c.PExpireAt(ctx, keys[1], time.UnixMilli(daily.Expires))
	wantExpiry("a record without Expires", daily.Expires)
	// A players hash that a Record without Expires creates.
	c.Del(ctx, keys[2])
	if err := r.Record(ctx, store.Board{Game: "mines", Board: "expert", Kind: "solo/day/2026-12-01"}, store.Score{Name: "c", Player: "u2", Value: 7}); err != nil {
		t.Fatal(err)
	}
	if ttl := c.PTTL(ctx, keys[2]).Val(); ttl <= 0 || ttl > time.Hour+2*time.Second {
		t.Errorf("a players hash created by a record without Expires has TTL %v, want the board's", ttl)
	}
	daily.Expires = time.Now().Add(-time.Second).UnixMilli()
	if err := r.Record(ctx, daily, store.Score{Name: "a", Value: 4}); err != nil {
		t.Fatal(err)
	}
	if n := c.Exists(ctx, keys...).Val(); n != 0 {
		t.Errorf("%d keys of a board past its expiry are still stored", n)
	}
}

// TestRedisNamesIndex: after scores are replaced, ignored and trimmed, the
// hash of players holds exactly the player id of each member that has one,
// and the hash of names the name of each other member, pointing at it.
// Half the scores have a player id, some equal to another score's name.
func TestRedisNamesIndex(t *testing.T) {
	srv := testredis.Start(t)
	r := openRedis(t, srv.URL(), RedisOptions{Prefix: "idx", LeaderboardSize: 5})
	c := inspect(t, srv)
	ctx := storetest.Ctx(t)
	b := store.Board{Game: "g", Board: "b", Kind: "k"}
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Go(func() {
			s := store.Score{Name: fmt.Sprint("p", i%9), Value: float64((i * 37) % 100), At: int64(i)}
			if i%2 == 0 {
				s.Player = fmt.Sprint("p", i%7)
			}
			if err := r.Record(ctx, b, s); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	members := c.ZRange(ctx, "idx:lb:{g:b:k}", 0, -1).Val()
	names := c.HGetAll(ctx, "idx:lb:{g:b:k}:names").Val()
	players := c.HGetAll(ctx, "idx:lb:{g:b:k}:players").Val()
	if len(members) != 5 || len(names)+len(players) != 5 {
		t.Fatalf("%d members, %d names and %d players; want 5 of each", len(members), len(names), len(players))
	}
	for _, m := range members {
		var s store.Score
		if err := json.Unmarshal([]byte(m[memberHead:]), &s); err != nil {
			t.Fatal(err)
		}
		index, who := names, s.Name
		if s.Player != "" {
			index, who = players, s.Player
		}
		if index[who] != m {
			t.Errorf("%q (player %q) → %q, want its member %q", who, s.Player, index[who], m)
		}
	}
}

// TestRedisOldBoardKeys: a board stored by an earlier version under the
// key without a hash tag is neither read nor changed.
func TestRedisOldBoardKeys(t *testing.T) {
	srv := testredis.Start(t)
	r := openRedis(t, srv.URL(), RedisOptions{Prefix: "old"})
	c := inspect(t, srv)
	ctx := storetest.Ctx(t)
	b := store.Board{Game: "minesweeper", Board: "beginner", Kind: store.KindHost}
	old := fmt.Sprintf("%016x%s%s", sortable.Int(3), "0badc0de", `{"name":"Old","time":12.5,"room":"K7QXMP","match":1,"at":3}`)
	if err := c.ZAdd(ctx, "old:lb:minesweeper:beginner:host", redis.Z{Score: 12.5, Member: old}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := r.Record(ctx, b, store.Score{Name: "New", Value: 20, At: 4}); err != nil {
		t.Fatal(err)
	}
	top, err := r.Top(ctx, b, 10)
	want := []store.Score{{Name: "New", Value: 20, At: 4}}
	if err != nil || !slices.Equal(top, want) {
		t.Fatalf("top = %+v, %v; want %+v", top, err, want)
	}
	if got := c.ZRange(ctx, "old:lb:minesweeper:beginner:host", 0, -1).Val(); !slices.Equal(got, []string{old}) {
		t.Fatalf("the old key holds %q", got)
	}
}

// TestRedisRoundTrips checks group commit: with 200 rooms appending at once,
// one round trip carries many appends.
func TestRedisRoundTrips(t *testing.T) {
	srv := testredis.Start(t)
	r := openRedis(t, srv.URL(), RedisOptions{})
	const rooms, appends = 200, 20
	leases := make([]store.Lease, rooms)
	for i := range rooms {
		leases[i] = storetest.MustCreate(t, r, fmt.Sprintf("RT%04d", i), store.Snapshot{})
	}
	before := r.Stats()
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range rooms {
		wg.Go(func() {
			<-start
			for rev := uint64(1); rev <= appends; rev++ {
				if err := r.Append(storetest.Ctx(t), leases[i], []store.Entry{storetest.Entry(leases[i].Room, rev)}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	close(start)
	wg.Wait()
	st := r.Stats()
	accepted := st.Accepted - before.Accepted
	trips := st.RoundTrips - before.RoundTrips
	perAppend := float64(trips) / float64(accepted)
	t.Logf("%d appends accepted in %d batches, %d round trips: %.3f round trips per append",
		accepted, st.Batches-before.Batches, trips, perAppend)
	if accepted != rooms*appends {
		t.Fatalf("%d appends accepted, want %d", accepted, rooms*appends)
	}
	if perAppend >= 0.5 {
		t.Fatalf("%.3f round trips per append, want < 0.5", perAppend)
	}
}

// TestRedisOutage stops the server: calls fail fast instead of hanging, and
// the same client works again once the server is back.
func TestRedisOutage(t *testing.T) {
	srv := testredis.Start(t)
	r := openRedis(t, srv.URL(), RedisOptions{})
	l := storetest.MustCreate(t, r, "OUTAGE", store.Snapshot{})
	storetest.MustAppend(t, r, l, storetest.Entries("OUTAGE", 1, 1))
	srv.Stop()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	err := r.Append(ctx, l, storetest.Entries("OUTAGE", 2, 2))
	took := time.Since(start)
	t.Logf("append during the outage: %v after %v", err, took)
	if err == nil {
		t.Fatal("append succeeded with the server stopped")
	}
	if took > 2*time.Second {
		t.Fatalf("append took %v to fail, want ≤ 2s", took)
	}
	start = time.Now()
	if err := r.Ping(ctx); err == nil {
		t.Fatal("ping succeeded with the server stopped")
	} else if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("ping took %v to fail", took)
	}

	srv.Start()
	deadline := time.Now().Add(10 * time.Second)
	for r.Ping(ctx) != nil {
		if time.Now().After(deadline) {
			t.Fatal("ping still fails 10s after the server came back")
		}
		time.Sleep(50 * time.Millisecond)
	}
	storetest.MustAppend(t, r, l, storetest.Entries("OUTAGE", 2, 3))
	_, rec := storetest.MustOpen(t, r, "OUTAGE")
	storetest.CheckRecord(t, rec, store.Snapshot{}, storetest.Entries("OUTAGE", 1, 3))
}

// TestRedisPause freezes the server: an append fails on its timeouts within
// about a second; retried once the server goes on, it succeeds exactly
// once whether or not the first attempt landed late.
func TestRedisPause(t *testing.T) {
	srv := testredis.Start(t)
	r := openRedis(t, srv.URL(), RedisOptions{})
	l := storetest.MustCreate(t, r, "PAUSED", store.Snapshot{})
	srv.Pause(time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	err := r.Append(ctx, l, storetest.Entries("PAUSED", 1, 2))
	took := time.Since(start)
	t.Logf("append to a frozen server: %v after %v", err, took)
	if err == nil {
		t.Fatal("append succeeded on a frozen server")
	}
	if took > 2*time.Second {
		t.Fatalf("append took %v to fail, want ≤ 2s", took)
	}
	srv.Resume()
	storetest.MustAppend(t, r, l, storetest.Entries("PAUSED", 1, 2))
	_, rec := storetest.MustOpen(t, r, "PAUSED")
	storetest.CheckRecord(t, rec, store.Snapshot{}, storetest.Entries("PAUSED", 1, 2))
}

// waitSending waits until the committer has taken a batch after before
// (Stats().Batches) and is sending it: appends queued now wait for it.
func waitSending(t *testing.T, r *Redis, before uint64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for r.Stats().Batches <= before {
		if time.Now().After(deadline) {
			t.Fatal("the committer took no batch")
		}
		time.Sleep(time.Millisecond)
	}
}

// waitQueued waits until n writes wait for the committer.
func waitQueued(t *testing.T, r *Redis, n int) { t.Helper(); storetest.WaitQueued(t, r.queue, n) }

// TestRedisCancelledNotSent: an append whose caller's context ends while it
// waits for the committer (here behind a pipeline to a frozen server) is
// not sent.
func TestRedisCancelledNotSent(t *testing.T) {
	srv := testredis.Start(t)
	r := openRedis(t, srv.URL(), RedisOptions{})
	held := storetest.MustCreate(t, r, "HELD01", store.Snapshot{})
	l := storetest.MustCreate(t, r, "CANCEL", store.Snapshot{})
	srv.Pause(time.Minute)
	inFlight := make(chan error, 1)
	go func() { inFlight <- r.Append(context.Background(), held, storetest.Entries("HELD01", 1, 1)) }()
	waitQueued(t, r, 0)               // taken by the committer...
	time.Sleep(50 * time.Millisecond) // ...and sent
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- r.Append(ctx, l, storetest.Entries("CANCEL", 1, 1)) }()
	waitQueued(t, r, 1)
	cancel()
	storetest.WantErr(t, "append whose context ended", <-errc, context.Canceled)
	srv.Resume()
	<-inFlight // either way: the server may run it when it wakes up
	storetest.MustAppend(t, r, l, []store.Entry{{Rev: 1, Data: []byte("other")}})
	_, rec := storetest.MustOpen(t, r, "CANCEL")
	storetest.CheckRecord(t, rec, store.Snapshot{}, []store.Entry{{Rev: 1, Data: []byte("other")}})
}

// TestRedisCloseFailsQueued: appends waiting for the committer when the
// store is closed fail with ErrClosed, and so does the one in flight.
func TestRedisCloseFailsQueued(t *testing.T) {
	srv := testredis.Start(t)
	r := openRedis(t, srv.URL(), RedisOptions{})
	a := storetest.MustCreate(t, r, "CLOSEA", store.Snapshot{})
	b := storetest.MustCreate(t, r, "CLOSEB", store.Snapshot{})
	srv.Pause(time.Minute)
	defer srv.Resume()
	before := r.Stats().Batches
	inFlight := make(chan error, 1)
	go func() { inFlight <- r.Append(context.Background(), a, storetest.Entries("CLOSEA", 1, 1)) }()
	waitSending(t, r, before)
	queued := make(chan error, 1)
	go func() { queued <- r.Append(context.Background(), b, storetest.Entries("CLOSEB", 1, 1)) }()
	waitQueued(t, r, 1)
	if err := r.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	storetest.WantErr(t, "append queued at Close", <-queued, store.ErrClosed)
	storetest.WantErr(t, "append in flight at Close", <-inFlight, store.ErrClosed)
	storetest.WantErr(t, "append after Close", r.Append(context.Background(), b, storetest.Entries("CLOSEB", 1, 1)), store.ErrClosed)
}

// TestRedisKill9 kills the server (appendfsync always) while rooms append:
// every acknowledged append is there after the restart.
func TestRedisKill9(t *testing.T) {
	srv := testredis.Start(t, testredis.Args("--appendfsync", "always"))
	prefix := uniquePrefix()
	r := openRedis(t, srv.URL(), RedisOptions{Prefix: prefix})
	const rooms = 50
	acked := make([]atomic.Uint64, rooms)
	var total atomic.Int64
	var wg sync.WaitGroup
	for i := range rooms {
		l := storetest.MustCreate(t, r, fmt.Sprintf("KILL%02d", i), store.Snapshot{})
		wg.Go(func() {
			for rev := uint64(1); ; rev++ {
				if err := r.Append(storetest.Ctx(t), l, []store.Entry{storetest.Entry(l.Room, rev)}); err != nil {
					return // the server is gone
				}
				acked[i].Store(rev)
				total.Add(1)
			}
		})
	}
	deadline := time.Now().Add(10 * time.Second)
	for total.Load() < 2000 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	srv.Kill()
	wg.Wait()
	t.Logf("%d appends acknowledged before the kill", total.Load())
	srv.Start()
	r2 := openRedis(t, srv.URL(), RedisOptions{Prefix: prefix})
	for i := range rooms {
		code := fmt.Sprintf("KILL%02d", i)
		last := acked[i].Load()
		_, rec := storetest.MustOpen(t, r2, code)
		if uint64(len(rec.Entries)) < last {
			t.Fatalf("%s: %d entries after restart, %d acknowledged", code, len(rec.Entries), last)
		}
		storetest.CheckRecord(t, store.Record{Entries: rec.Entries[:last]}, store.Snapshot{}, storetest.Entries(code, 1, last))
	}
}

// TestRedisScriptFlush: a server that lost its scripts (a restart) gets
// them again: EVALSHA falls back.
func TestRedisScriptFlush(t *testing.T) {
	srv := testredis.Start(t)
	r := openRedis(t, srv.URL(), RedisOptions{})
	ctx := storetest.Ctx(t)
	flush := func() {
		if got := srv.Do("SCRIPT FLUSH"); got != "+OK" {
			t.Fatalf("SCRIPT FLUSH: %q", got)
		}
	}
	flush()
	l := storetest.MustCreate(t, r, "FLUSH1", store.Snapshot{})
	flush()
	l, _ = storetest.MustOpen(t, r, "FLUSH1")
	flush()
	storetest.MustAppend(t, r, l, storetest.Entries("FLUSH1", 1, 3))
	flush()
	if err := r.WriteSnapshot(ctx, l, store.Snapshot{Rev: 2, Data: []byte("s2")}); err != nil {
		t.Fatal(err)
	}
	flush()
	if err := r.End(ctx, l, time.Hour); err != nil {
		t.Fatal(err)
	}
	_, rec := storetest.MustOpen(t, r, "FLUSH1")
	storetest.CheckRecord(t, rec, store.Snapshot{Rev: 2, Data: []byte("s2")}, storetest.Entries("FLUSH1", 3, 3))
}

// TestRedisLostData: a server that comes back empty answers store.ErrNotFound,
// not a hang or a write into nothing.
func TestRedisLostData(t *testing.T) {
	srv := testredis.Start(t, testredis.NoPersistence())
	r := openRedis(t, srv.URL(), RedisOptions{})
	ctx := storetest.Ctx(t)
	l := storetest.MustCreate(t, r, "LOSTIT", store.Snapshot{})
	storetest.MustAppend(t, r, l, storetest.Entries("LOSTIT", 1, 1))
	srv.RestartEmpty()
	deadline := time.Now().Add(10 * time.Second)
	for r.Ping(ctx) != nil {
		if time.Now().After(deadline) {
			t.Fatal("ping still fails 10s after the restart")
		}
		time.Sleep(50 * time.Millisecond)
	}
	storetest.WantErr(t, "append after the data was lost", r.Append(ctx, l, storetest.Entries("LOSTIT", 2, 2)), store.ErrNotFound)
	_, _, err := r.Open(ctx, "LOSTIT")
	storetest.WantErr(t, "open after the data was lost", err, store.ErrNotFound)
	if got, err := r.List(ctx); err != nil || len(got) != 0 {
		t.Fatalf("list = %v, %v", got, err)
	}
}
