// Package redisstore keeps rooms and leaderboards in Redis: every write to a
// room is a Lua script fenced by the room's token, and appends of all rooms
// are sent in one pipeline by one committer goroutine (group commit). The
// same code runs on one Redis server and on a Redis Cluster
// (RedisOptions.Cluster): every script touches the keys of one hash slot.
package redisstore

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/roomd/roomd/internal/queue"
	"github.com/roomd/roomd/store"
)

// RedisOptions configures a Redis store. The zero value works.
type RedisOptions struct {
	// Prefix starts every key. Empty means "roomd".
	Prefix string
	// Cluster connects to a Redis Cluster instead of one server. The URL
	// then names one or more of its nodes (seeds: the client learns the
	// others from them), in the form redis.ParseClusterURL reads:
	//
	//	redis://[user:pass@]host1:port1?addr=host2:port2&addr=host3:port3
	//
	// with no database number (a cluster has only database 0). False means
	// one server (redis://[user:pass@]host:port/db, redis.ParseURL); Open
	// refuses a server that has cluster mode on, whose slots it could not
	// follow.
	Cluster bool
	// DialTimeout bounds connecting. Zero means the URL's dial_timeout, or
	// 500 ms.
	DialTimeout time.Duration
	// ReadTimeout and WriteTimeout bound one socket read or write. Zero
	// means the URL's read_timeout/write_timeout, or 500 ms. With one retry,
	// a frozen server surfaces as an error after about a second.
	ReadTimeout  time.Duration
	WriteTimeout time.Duration
	// MaxRetries is how many times a command failing on the network is
	// retried. Zero means the URL's max_retries, or 1; negative means none.
	// A cluster does not use it: its client tries a command up to
	// max_redirects (a URL parameter, 3 by default) more times, following
	// MOVED and ASK redirects and retrying network errors.
	MaxRetries int
	// ClusterReload is how often a cluster's client reads the slots' map
	// again (CLUSTER SLOTS) while it is used, the only way it learns that
	// a replica took a dead master's place (cluster.go). Zero means 1 s.
	ClusterReload time.Duration
	// MaxBatch bounds how many appends one pipeline carries. Zero means 1000.
	MaxBatch int
	// LeaderboardSize is how many scores each board keeps. Zero means 1000.
	LeaderboardSize int
	// MaxOutbox is how many events the outbox holds. Zero means
	// store.MaxOutbox.
	MaxOutbox int
}

// Redis stores rooms in Redis. Every key of a room shares the hash tag
// {code}, so a room lives on one Redis Cluster slot and one Lua script can
// check its fencing token and write it atomically. Appends of all rooms go
// through one committer goroutine that sends everything waiting in one
// pipeline (group commit); on a cluster the client splits the pipeline by
// node and sends the parts at once.
//
// Where each kind of key lives on a cluster:
//   - a room: P:{code}:fence, snap, log, meta (and held, the events its
//     appends hold on a cluster, outbox.go): the slot of its code, so rooms
//     spread over the nodes;
//   - the set of live rooms, P:rooms (no hash tag: its own slot, kept as
//     it was stored before clusters), written apart from any room's script;
//   - a leaderboard: P:lb:{game:board:kind}, its names and players: one
//     slot per board, so boards spread and one script keeps the three in
//     step;
//   - a claim: P:claim:{key}, one key;
//   - the ratings of a game and mode: P:{rt:game/mode}:r:player,
//     h:player, top and m:match (rating.go): one slot per pool, so that
//     one transaction (WATCH/MULTI) applies a match to both players;
//   - the webhook outbox: P:{P:outbox}:due, ev and held (the index of rooms
//     holding events): one slot, one node;
//   - the ping key, P:ping.
type Redis struct {
	c       redis.UniversalClient
	cluster bool
	prefix  string
	opts    RedisOptions
	// timeout bounds one pipeline of appends.
	timeout time.Duration

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc

	queue  *queue.Queue[*redisAppend]
	closed atomic.Bool
	quit   chan struct{}
	wg     sync.WaitGroup

	batches    atomic.Uint64
	appends    atomic.Uint64
	accepted   atomic.Uint64
	roundTrips atomic.Uint64

	// held is the committer's work left on a cluster after it moved the
	// events a batch's appends held into the outbox (outbox.go): only the
	// committer goroutine touches it.
	held heldWork
	// lastSweep is when Due last swept the rooms holding events (Unix ms).
	lastSweep atomic.Int64
}

var (
	_ store.Store        = (*Redis)(nil)
	_ store.Leaderboards = (*Redis)(nil)
	_ store.Claims       = (*Redis)(nil)
	_ store.Outbox       = (*Redis)(nil)
	_ store.Backend      = (*Redis)(nil)
)

// RedisStats counts the append committer's work.
type RedisStats struct {
	// Batches is the number of pipelines of appends sent.
	Batches uint64
	// Appends is the number of Append calls they carried.
	Appends uint64
	// Accepted is the number of those that succeeded.
	Accepted uint64
	// RoundTrips is the number of round trips the committer made
	// (a pipeline, and a script reload after NOSCRIPT). On a cluster a
	// pipeline's parts go to their nodes at once and count as one; a batch
	// whose appends carry events takes one more (the move of the events
	// into the outbox), and the committer's cleanup after it one more when
	// no next batch carries it (outbox.go).
	RoundTrips uint64
}

// Open connects to the Redis server at url (redis://[user:pass@]host:port/db,
// see redis.ParseURL), or to the Redis Cluster whose nodes it names when
// opts.Cluster is set, checks that it answers and loads the scripts (on
// every node of a cluster).
func Open(ctx context.Context, url string, opts RedisOptions) (*Redis, error) {
	if opts.Prefix == "" {
		opts.Prefix = "roomd"
	}
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = 1000
	}
	if opts.LeaderboardSize <= 0 {
		opts.LeaderboardSize = 1000
	}
	if opts.MaxOutbox <= 0 {
		opts.MaxOutbox = store.MaxOutbox
	}
	r := &Redis{cluster: opts.Cluster, prefix: opts.Prefix, opts: opts,
		queue: queue.New[*redisAppend](0), quit: make(chan struct{})}
	var addr string
	if opts.Cluster {
		o, err := clusterOptions(url, opts)
		if err != nil {
			return nil, err
		}
		r.c, addr = redis.NewClusterClient(o), strings.Join(o.Addrs, ",")
		r.timeout = o.DialTimeout + o.ReadTimeout + o.WriteTimeout
	} else {
		o, err := redis.ParseURL(url)
		if err != nil {
			return nil, fmt.Errorf("redisstore: open: %w", err)
		}
		setDuration(&o.DialTimeout, opts.DialTimeout, 500*time.Millisecond)
		setDuration(&o.ReadTimeout, opts.ReadTimeout, 500*time.Millisecond)
		setDuration(&o.WriteTimeout, opts.WriteTimeout, 500*time.Millisecond)
		switch {
		case opts.MaxRetries != 0:
			o.MaxRetries = opts.MaxRetries
		case o.MaxRetries == 0:
			o.MaxRetries = 1
		}
		o.MinRetryBackoff, o.MaxRetryBackoff = 10*time.Millisecond, 100*time.Millisecond
		o.DialerRetries, o.DialerRetryTimeout = 1, 50*time.Millisecond
		o.PoolTimeout = o.ReadTimeout + o.WriteTimeout
		o.ContextTimeoutEnabled = true
		r.c, addr = redis.NewClient(o), o.Addr
		r.timeout = o.DialTimeout + o.ReadTimeout + o.WriteTimeout
	}
	if err := r.c.Ping(ctx).Err(); err != nil {
		r.c.Close()
		return nil, fmt.Errorf("redisstore: open %s: %w", addr, err)
	}
	if !opts.Cluster {
		// A cluster node would take a room's keys only for its own slots
		// and refuse the outbox's script that crosses slots: say so now.
		// A server that hides INFO is let through.
		if info, err := r.c.Info(ctx, "cluster").Result(); err == nil && strings.Contains(info, "cluster_enabled:1") {
			r.c.Close()
			return nil, fmt.Errorf("redisstore: open %s: the server is a Redis Cluster node: open it as a cluster (RedisOptions.Cluster)", addr)
		}
	}
	for _, s := range allScripts {
		// On a cluster, SCRIPT LOAD goes to every node.
		if err := s.Load(ctx, r.c).Err(); err != nil {
			r.c.Close()
			return nil, fmt.Errorf("redisstore: open %s: load scripts: %w", addr, err)
		}
	}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	r.wg.Add(1)
	go r.commitLoop()
	return r, nil
}

func setDuration(dst *time.Duration, opt, def time.Duration) {
	switch {
	case opt != 0:
		*dst = opt
	case *dst == 0:
		*dst = def
	}
}

// Stats returns the append committer's counters.
func (r *Redis) Stats() RedisStats {
	return RedisStats{Batches: r.batches.Load(), Appends: r.appends.Load(),
		Accepted: r.accepted.Load(), RoundTrips: r.roundTrips.Load()}
}

// keys returns the room's keys: fence, snap, log, meta.
func (r *Redis) keys(code string) []string {
	p := r.prefix + ":{" + code + "}:"
	return []string{p + "fence", p + "snap", p + "log", p + "meta"}
}

// liveKey is the set of live room codes. It has no hash tag, and no script
// touches it together with a room's keys.
func (r *Redis) liveKey() string { return r.prefix + ":rooms" }

// boardKeys are a board's sorted set of scores, its hash of names (name →
// member, for the scores without a player id) and its hash of players
// (player id → member, for the scores with one): a board keeps one score
// per key of either hash (store.Score.Who), and two hashes keep a name
// from ever passing for a player id. They share the hash tag
// {game:board:kind}, so that one script can write all three on Redis
// Cluster. Neither Higher nor Expires is part of them.
func (r *Redis) boardKeys(b store.Board) []string {
	k := r.prefix + ":lb:{" + b.Game + ":" + b.Board + ":" + b.Kind + "}"
	return []string{k, k + ":names", k + ":players"}
}

// claimKey is where a claim is kept. A claim is one key: its hash tag (the
// claim's key, or its start up to a '}') only places it on a slot.
func (r *Redis) claimKey(key string) string { return r.prefix + ":claim:{" + key + "}" }

func (r *Redis) check(op string) error {
	if r.closed.Load() {
		return fmt.Errorf("%s: %w", op, store.ErrClosed)
	}
	return nil
}

// run runs a script (EVALSHA, then EVAL when the server lost its scripts).
func (r *Redis) run(ctx context.Context, op string, s *redis.Script, keys []string, args ...any) (any, error) {
	if err := r.check(op); err != nil {
		return nil, err
	}
	v, err := s.Run(ctx, r.c, keys, args...).Result()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, mapErr(err))
	}
	return v, nil
}

// Ping writes a small key: PING alone would pass on a server that refuses
// writes (a replica, a full disk with persistence errors).
func (r *Redis) Ping(ctx context.Context) error {
	if err := r.check("ping"); err != nil {
		return err
	}
	if err := r.c.Set(ctx, r.prefix+":ping", time.Now().UnixMilli(), time.Minute).Err(); err != nil {
		return fmt.Errorf("ping: %w", mapErr(err))
	}
	return nil
}

// Close stops the committer (appends not yet sent fail with
// store.ErrClosed) and closes the connections.
func (r *Redis) Close() error {
	if !r.closed.CompareAndSwap(false, true) {
		return nil
	}
	for _, a := range r.queue.Close() {
		a.done <- store.ErrClosed
	}
	close(r.quit)
	r.cancel()
	r.wg.Wait()
	return r.c.Close()
}
