package roomd

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/roomd/roomd/internal/testredis"
	"github.com/roomd/roomd/transport"
)

// The shared quotas on a real redis-server and a real Redis Cluster: the
// same buckets as a node's own (bursts, waits), keys under roomd's prefix
// that expire, and Left spending nothing.

func TestRedisQuotas(t *testing.T) {
	t.Parallel()
	t.Run("server", func(t *testing.T) {
		t.Parallel()
		rs := testredis.Start(t, testredis.NoPersistence())
		checkRedisQuotas(t, rs.URL(), false)
	})
	t.Run("cluster", func(t *testing.T) {
		t.Parallel()
		rc := testredis.StartCluster(t, testredis.NoPersistence())
		checkRedisQuotas(t, rc.URL(), true)
	})
}

func checkRedisQuotas(t *testing.T, url string, cluster bool) {
	q, err := openRedisQuotas(url, cluster, "quotatest", transport.DefaultSharedTimeout)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rooms := transport.Limit{PerMinute: 10} // bursts of 5, one back every 6 s
	addrs := []string{"203.0.113.1", "203.0.113.2", "203.0.113.3", "2001:db8:1:2::"}
	for _, a := range addrs {
		key := "rooms:" + a
		if _, ok, err := q.Left(ctx, key, rooms); err != nil || !ok {
			t.Fatalf("%s: Left on a fresh key = %v, %v", key, ok, err)
		}
		for i := range rooms.Burst() {
			if _, ok, err := q.Take(ctx, key, rooms); err != nil || !ok {
				t.Fatalf("%s: take %d of a burst of 5 = %v, %v", key, i, ok, err)
			}
		}
		wait, ok, err := q.Take(ctx, key, rooms)
		if err != nil || ok || wait <= 5*time.Second || wait > 6*time.Second {
			t.Fatalf("%s: the 6th take = %v, %v, wait %v; want refused, about 6 s", key, ok, err, wait)
		}
		lwait, ok, err := q.Left(ctx, key, rooms)
		if err != nil || ok || lwait <= 5*time.Second || lwait > wait {
			t.Fatalf("%s: Left after the burst = %v, %v, wait %v; want none left, about 6 s", key, ok, err, lwait)
		}
	}
	// Left spends nothing: a fresh key looked at 10 times still has its
	// burst of 1.
	once := transport.Limit{PerMinute: 1.5} // bursts of 1, one back every 40 s
	for range 10 {
		if _, ok, err := q.Left(ctx, "joins:198.51.100.1", once); err != nil || !ok {
			t.Fatalf("Left = %v, %v", ok, err)
		}
	}
	if _, ok, err := q.Take(ctx, "joins:198.51.100.1", once); err != nil || !ok {
		t.Fatalf("the first take after looking = %v, %v", ok, err)
	}
	if wait, ok, err := q.Take(ctx, "joins:198.51.100.1", once); err != nil || ok || wait <= 39*time.Second || wait > 40*time.Second {
		t.Fatalf("the second take of 1.5 a minute = %v, %v, wait %v; want refused, about 40 s", ok, err, wait)
	}
	// Every key is roomd's, and expires once its bucket is full again.
	var c redis.UniversalClient = q.client
	for _, a := range addrs {
		key := "quotatest:quota:rooms:" + a
		ttl, err := c.TTL(ctx, key).Result()
		if err != nil || ttl <= 0 || ttl > 31*time.Second {
			t.Fatalf("TTL %s = %v, %v; want at most the 30 s a burst of 5 takes to come back", key, ttl, err)
		}
	}
	for _, key := range []string{"rate:rooms:203.0.113.1", "rate:quotatest:quota:rooms:203.0.113.1"} {
		if n, err := c.Exists(ctx, key).Result(); err != nil || n != 0 {
			t.Fatalf("EXISTS %s (redis_rate's own prefix) = %d, %v", key, n, err)
		}
	}
}

// BenchmarkRedisQuotasTake: one quota check on a local redis-server (one
// round trip: the GCRA script), and the Redis memory of one address's key.
func BenchmarkRedisQuotasTake(b *testing.B) {
	rs := testredis.Start(b, testredis.NoPersistence())
	q, err := openRedisQuotas(rs.URL(), false, "bench", transport.DefaultSharedTimeout)
	if err != nil {
		b.Fatal(err)
	}
	defer q.Close()
	ctx := context.Background()
	lim := transport.Limit{PerMinute: 60_000_000} // never refuses: the same work each time
	if _, _, err := q.Take(ctx, "rooms:203.0.113.1", lim); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, _, err := q.Take(ctx, "rooms:203.0.113.1", lim); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if _, _, err := q.Take(ctx, "rooms:203.0.113.2", transport.Limit{PerMinute: 10}); err != nil {
		b.Fatal(err)
	}
	n, err := q.client.MemoryUsage(ctx, "bench:quota:rooms:203.0.113.2").Result()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(n), "key-bytes")
}
