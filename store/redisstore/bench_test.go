package redisstore

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/roomd/roomd/internal/testredis"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/storetest"
)

// BenchmarkAppend: see storetest.BenchAppend. roundtrips/append is the
// number of round trips to Redis per append.
func BenchmarkAppend(b *testing.B) {
	srv := testredis.Start(b)
	open := func(b *testing.B) store.Store { return openRedis(b, srv.URL(), RedisOptions{}) }
	storetest.BenchAppend(b, open, func(s store.Store) storetest.Meter {
		r := s.(*Redis)
		return storetest.Meter{Unit: "roundtrips/append", Read: func() (uint64, uint64) {
			st := r.Stats()
			return st.RoundTrips, st.Accepted
		}}
	})
}

// BenchmarkRenew1000 renews the leases of 1,000 rooms, as a node does every
// third of the lease's TTL: one pipeline of 1,000 single-key scripts. It
// reports the Redis memory of a room's keys too (a small room: a snapshot
// of 300 bytes, 20 entries of 100).
func BenchmarkRenew1000(b *testing.B) {
	srv := testredis.Start(b)
	r := openRedis(b, srv.URL(), RedisOptions{})
	ctx := storetest.Ctx(b)
	rooms := make([]string, 1000)
	before := usedMemory(b, srv)
	for i := range rooms {
		rooms[i] = fmt.Sprintf("R%05d", i)
		l, err := r.CreateOwned(ctx, rooms[i], "node-a", time.Minute, store.Snapshot{Data: bytes.Repeat([]byte("s"), 300)})
		if err != nil {
			b.Fatal(err)
		}
		es := make([]store.Entry, 20)
		for k := range es {
			es[k] = store.Entry{Rev: uint64(k + 1), Data: bytes.Repeat([]byte("e"), 100)}
		}
		if err := r.Append(ctx, l, es); err != nil {
			b.Fatal(err)
		}
	}
	perRoom := float64(usedMemory(b, srv)-before) / 1000
	for b.Loop() {
		lost, err := r.Renew(ctx, "node-a", rooms, time.Minute)
		if err != nil || len(lost) > 0 {
			b.Fatalf("renew: lost %d, %v", len(lost), err)
		}
	}
	b.ReportMetric(perRoom, "redis-bytes/room")
}

// usedMemory reads the server's used_memory.
func usedMemory(b *testing.B, srv *testredis.Server) int64 {
	c := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer c.Close()
	info, err := c.Info(context.Background(), "memory").Result()
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(l, "used_memory:"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	b.Fatal("no used_memory")
	return 0
}
