package roomd

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"github.com/roomd/roomd/transport"
)

// The rate quotas of the nodes on one Redis, counted there: transport's
// SharedQuotas on github.com/go-redis/redis_rate (GCRA in one Lua script,
// by the go-redis authors). GCRA with an emission interval of a minute
// over PerMinute and a tolerance of Burst intervals admits exactly what
// transport's token buckets admit (golang.org/x/time/rate, Burst tokens
// refilled at PerMinute a minute), and its retry-after is their wait, so a
// quota means the same shared or not.
//
// Keys: P:quota:KIND:ADDRESS (P is the store's prefix, "roomd"), one per
// address and quota, so that on a Redis Cluster each lives on its own slot
// and the script touches one key. Each expires once its bucket is full
// again (a minute at most for the defaults).

// redisKeyPrefix starts every key roomd writes in Redis: the store's
// (redisstore.RedisOptions.Prefix) and the quotas'.
const redisKeyPrefix = "roomd"

// rateLibPrefix is what redis_rate v10.0.1 puts before every key, with no
// option to change it (upstream pull requests #69, #70, #109 were closed,
// #111 is open); prefixedClient puts roomd's prefix there instead.
const rateLibPrefix = "rate:"

// redisQuotas is transport.SharedQuotas on Redis.
type redisQuotas struct {
	client redis.UniversalClient
	lim    *redis_rate.Limiter
}

var _ transport.SharedQuotas = (*redisQuotas)(nil)

// openRedisQuotas connects to the Redis server (or, with cluster, the
// Redis Cluster) at url with a client of its own: timeouts of timeout, no
// retries, so that a Redis that is down or frozen costs a request at most
// timeout (transport then counts on this node alone). It dials lazily: an
// unreachable Redis is not an error here.
func openRedisQuotas(url string, cluster bool, prefix string, timeout time.Duration) (*redisQuotas, error) {
	var c redis.UniversalClient
	if cluster {
		o, err := redis.ParseClusterURL(url)
		if err != nil {
			return nil, fmt.Errorf("shared quotas: %w", err)
		}
		o.DialTimeout, o.ReadTimeout, o.WriteTimeout, o.PoolTimeout = timeout, timeout, timeout, timeout
		o.DialerRetries, o.DialerRetryTimeout = 1, 10*time.Millisecond
		o.ContextTimeoutEnabled = true
		c = redis.NewClusterClient(o)
	} else {
		o, err := redis.ParseURL(url)
		if err != nil {
			return nil, fmt.Errorf("shared quotas: %w", err)
		}
		o.DialTimeout, o.ReadTimeout, o.WriteTimeout, o.PoolTimeout = timeout, timeout, timeout, timeout
		o.DialerRetries, o.DialerRetryTimeout = 1, 10*time.Millisecond
		o.MaxRetries = -1
		o.ContextTimeoutEnabled = true
		c = redis.NewClient(o)
	}
	return newRedisQuotas(c, prefix), nil
}

// newRedisQuotas keeps quotas in c under prefix + ":quota:".
func newRedisQuotas(c redis.UniversalClient, prefix string) *redisQuotas {
	return &redisQuotas{client: c, lim: redis_rate.NewLimiter(prefixedClient{c, prefix + ":quota:"})}
}

// Close closes the client.
func (q *redisQuotas) Close() error { return q.client.Close() }

// gcra is l as redis_rate's limit: PerMinute events a minute (a whole
// number, else one event per interval), bursts of l.Burst().
func gcra(l transport.Limit) redis_rate.Limit {
	if n := l.PerMinute; n >= 1 && n == math.Trunc(n) {
		return redis_rate.Limit{Rate: int(n), Period: time.Minute, Burst: l.Burst()}
	}
	return redis_rate.Limit{Rate: 1, Period: time.Duration(float64(time.Minute) / l.PerMinute), Burst: l.Burst()}
}

func (q *redisQuotas) Take(ctx context.Context, key string, l transport.Limit) (time.Duration, bool, error) {
	res, err := q.lim.Allow(ctx, key, gcra(l))
	if err != nil {
		return 0, false, err
	}
	if res.Allowed > 0 {
		return 0, true, nil
	}
	return res.RetryAfter, false, nil
}

// Left asks for at most none of key's tokens: redis_rate's answer then
// says, without spending, whether one is left, and else when one is back.
func (q *redisQuotas) Left(ctx context.Context, key string, l transport.Limit) (time.Duration, bool, error) {
	res, err := q.lim.AllowAtMost(ctx, key, gcra(l), 0)
	if err != nil {
		return 0, false, err
	}
	if res.Remaining >= 1 {
		return 0, true, nil
	}
	return res.RetryAfter, false, nil
}

// prefixedClient is the client redis_rate gets: its keys, "rate:" + key,
// become prefix + key, with roomd's other keys.
type prefixedClient struct {
	redis.UniversalClient
	prefix string
}

func (p prefixedClient) keys(keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = p.prefix + strings.TrimPrefix(k, rateLibPrefix)
	}
	return out
}

func (p prefixedClient) Eval(ctx context.Context, script string, keys []string, args ...any) *redis.Cmd {
	return p.UniversalClient.Eval(ctx, script, p.keys(keys), args...)
}

func (p prefixedClient) EvalSha(ctx context.Context, sha1 string, keys []string, args ...any) *redis.Cmd {
	return p.UniversalClient.EvalSha(ctx, sha1, p.keys(keys), args...)
}

func (p prefixedClient) EvalRO(ctx context.Context, script string, keys []string, args ...any) *redis.Cmd {
	return p.UniversalClient.EvalRO(ctx, script, p.keys(keys), args...)
}

func (p prefixedClient) EvalShaRO(ctx context.Context, sha1 string, keys []string, args ...any) *redis.Cmd {
	return p.UniversalClient.EvalShaRO(ctx, sha1, p.keys(keys), args...)
}

func (p prefixedClient) Del(ctx context.Context, keys ...string) *redis.IntCmd {
	return p.UniversalClient.Del(ctx, p.keys(keys)...)
}
