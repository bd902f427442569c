// Package redisstore keeps rooms and leaderboards in Redis: every write to a
// room is a Lua script fenced by the room's token, and appends of all rooms
// are sent in one pipeline by one committer goroutine (group commit). The
// same code runs on one Redis server and on a Redis Cluster
// (RedisOptions.Cluster): every script touches the keys of one hash slot.
package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/roomd/roomd/internal/queue"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/internal/fence"
	"github.com/roomd/roomd/store/internal/sortable"
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

// redisAppend is an append (scriptAppend) or an append with events
// (scriptAppendWith; scriptAppendHold on a cluster) waiting for the
// committer.
type redisAppend struct {
	ctx    context.Context
	script *redis.Script
	keys   []string
	args   []any
	done   chan error
	// reply is the script's reply, set before done is sent nil.
	reply any
	// err is the script's error, before the committer answers.
	err error
	// room is the room's code when the script holds events (a cluster's
	// AppendWith), empty otherwise; indexed says that the append carries
	// events, so the committer indexes the room (outbox.go).
	room    string
	indexed bool
}

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

// Errors the scripts return; mapErr turns them into the sentinels.
const (
	replyNotFound = "ROOMD_NOTFOUND"
	replyExists   = "ROOMD_EXISTS"
	replyFenced   = "ROOMD_FENCED"
	replyGap      = "ROOMD_GAP"
)

// The scripts. KEYS are always the room's fence, snap, log and meta keys
// (append needs only fence, log and meta, in that order). A script that
// refuses changes nothing.
var (
	// ARGV: first token, snapshot rev, snapshot data, create nonce.
	scriptCreate = redis.NewScript(`
local meta = KEYS[4]
if redis.call('EXISTS', meta) == 1 then
  local ct = redis.call('HGET', meta, 'ctoken')
  if ct and redis.call('HGET', meta, 'nonce') == ARGV[4] and redis.call('GET', KEYS[1]) == ct then
    return ct -- a retry of this very create, and nobody opened the room since
  end
  return redis.error_reply('ROOMD_EXISTS')
end
local token = ARGV[1]
local cur = redis.call('GET', KEYS[1])
if cur and tonumber(cur) >= tonumber(token) then
  redis.call('INCR', KEYS[1])
  token = redis.call('GET', KEYS[1])
else
  redis.call('SET', KEYS[1], token)
end
redis.call('PERSIST', KEYS[1])
redis.call('DEL', KEYS[2], KEYS[3])
redis.call('HSET', KEYS[2], 'rev', ARGV[2], 'data', ARGV[3])
redis.call('HSET', meta, 'last', ARGV[2], 'nonce', ARGV[4], 'ctoken', token)
return token
`)
	scriptOpen = redis.NewScript(`
if redis.call('EXISTS', KEYS[4]) == 0 then return redis.error_reply('ROOMD_NOTFOUND') end
redis.call('INCR', KEYS[1])
local snap = redis.call('HMGET', KEYS[2], 'rev', 'data')
local out = {redis.call('GET', KEYS[1]), snap[1] or '0', snap[2] or '', redis.call('HGET', KEYS[4], 'ended') or '0'}
local log = redis.call('LRANGE', KEYS[3], 0, -1)
for i = 1, #log do out[#out + 1] = log[i] end
return out
`)
	// KEYS: fence, log, meta. ARGV: token, first rev, entries (8-byte
	// big-endian rev + data each).
	scriptAppend = redis.NewScript(luaAppendLog + `
return appendLog(tonumber(ARGV[2]), #ARGV - 2, 2)
`)
	// ARGV: token, snapshot rev, snapshot data, first revision kept
	// (Snapshot.FirstKept).
	scriptSnapshot = redis.NewScript(`
if redis.call('EXISTS', KEYS[4]) == 0 then return redis.error_reply('ROOMD_NOTFOUND') end
local cur = redis.call('GET', KEYS[1])
if cur ~= ARGV[1] then return redis.error_reply('ROOMD_FENCED token ' .. ARGV[1] .. ', current ' .. tostring(cur)) end
local rev = tonumber(ARGV[2])
if rev < tonumber(redis.call('HGET', KEYS[2], 'rev') or '0') then return 'OLD' end
redis.call('HSET', KEYS[2], 'rev', ARGV[2], 'data', ARGV[3])
local last = tonumber(redis.call('HGET', KEYS[4], 'last'))
if rev > last then
  -- ahead of the log: nothing stored can lead up to it
  redis.call('DEL', KEYS[3])
  redis.call('HSET', KEYS[4], 'last', ARGV[2])
else
  local len = redis.call('LLEN', KEYS[3])
  local drop = tonumber(ARGV[4]) - (last - len + 1) -- the log holds last-len+1 .. last
  if drop >= len then
    redis.call('DEL', KEYS[3])
  elseif drop > 0 then
    redis.call('LTRIM', KEYS[3], drop, -1)
  end
end
local ttl = redis.call('PTTL', KEYS[4])
if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return 'OK'
`)
	// ARGV: token, ttl in ms.
	scriptEnd = redis.NewScript(`
if redis.call('EXISTS', KEYS[4]) == 0 then return redis.error_reply('ROOMD_NOTFOUND') end
local cur = redis.call('GET', KEYS[1])
if cur ~= ARGV[1] then return redis.error_reply('ROOMD_FENCED token ' .. ARGV[1] .. ', current ' .. tostring(cur)) end
redis.call('HSET', KEYS[4], 'ended', '1')
for i = 1, 4 do redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
return 'OK'
`)
	// KEYS: the board's sorted set, names hash and players hash
	// (Redis.boardKeys). ARGV: sorted-set score, member, name,
	// LeaderboardSize, expiry in ms since the epoch (0: leave it), player
	// id (empty: none). A score with a player id is indexed by it in the
	// players hash, one without by its name in the names hash. A member's
	// first 16 characters are its At, in hex; from the 25th it is the JSON
	// score. Returns 1 when the score was kept, 0 when the player's or
	// name's older score is as good.
	scriptRecord = redis.NewScript(`
local score = tonumber(ARGV[1])
local member = ARGV[2]
local function at(m) -- a member's At, as two numbers: 64 bits do not fit in one
  return tonumber(string.sub(m, 1, 8), 16), tonumber(string.sub(m, 9, 16), 16)
end
local index, who = KEYS[2], ARGV[3]
if ARGV[6] ~= '' then index, who = KEYS[3], ARGV[6] end
local keep = true
local old = redis.call('HGET', index, who)
local oldScore = old and redis.call('ZSCORE', KEYS[1], old)
if oldScore then
  oldScore = tonumber(oldScore)
  if score == oldScore then
    local a1, a2 = at(member)
    local b1, b2 = at(old)
    keep = a1 < b1 or (a1 == b1 and a2 < b2)
  else
    keep = score < oldScore
  end
  if keep then redis.call('ZREM', KEYS[1], old) end
end
if keep then
  redis.call('ZADD', KEYS[1], ARGV[1], member)
  redis.call('HSET', index, who, member)
  -- A hash created now (one without an expiry) takes the board's; one
  -- that has its own keeps it, to the millisecond (PTTL is relative).
  if ARGV[5] == '0' and redis.call('PTTL', index) == -1 then
    local ttl = redis.call('PTTL', KEYS[1])
    if ttl > 0 then redis.call('PEXPIRE', index, ttl) end
  end
  local size = tonumber(ARGV[4])
  local gone = redis.call('ZRANGE', KEYS[1], size, -1)
  for i = 1, #gone do
    local ok, s = pcall(cjson.decode, string.sub(gone[i], 25))
    if ok and type(s) == 'table' then
      local h, f = KEYS[2], s.name
      if type(s.player) == 'string' and s.player ~= '' then h, f = KEYS[3], s.player end
      if type(f) == 'string' and redis.call('HGET', h, f) == gone[i] then
        redis.call('HDEL', h, f)
      end
    end
  end
  if #gone > 0 then redis.call('ZREMRANGEBYRANK', KEYS[1], size, -1) end
end
if ARGV[5] ~= '0' then
  for i = 1, 3 do redis.call('PEXPIREAT', KEYS[i], ARGV[5]) end
end
if keep then return 1 end
return 0
`)
	// KEYS: the claim's key (Redis.claimKey). ARGV: value, ttl in ms (0:
	// never expires). Returns {1, value} when it stored the value, {0, the
	// value held} when the key was held: one atomic round trip, where SET
	// NX followed by GET could find the key expired in between.
	scriptClaim = redis.NewScript(`
local held = redis.call('GET', KEYS[1])
if held then return {0, held} end
if ARGV[2] == '0' then
  redis.call('SET', KEYS[1], ARGV[1])
else
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
return {1, ARGV[1]}
`)
	allScripts = []*redis.Script{scriptCreate, scriptOpen, scriptAppend, scriptSnapshot, scriptEnd, scriptRecord, scriptClaim,
		scriptAppendWith, scriptEnqueue, scriptDue, scriptRetry, scriptAppendHold, scriptMove}
)

// mapErr turns the scripts' refusals and a closed client into the
// sentinels; other errors (network, timeouts) stay as they are.
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, redis.ErrClosed) {
		return store.ErrClosed
	}
	msg := err.Error()
	for _, m := range []struct {
		reply string
		err   error
	}{{replyFenced, store.ErrFenced}, {replyGap, store.ErrGap}, {replyNotFound, store.ErrNotFound}, {replyExists, store.ErrExists}} {
		if i := strings.Index(msg, m.reply); i >= 0 {
			if detail := strings.TrimSpace(msg[i+len(m.reply):]); detail != "" {
				return fmt.Errorf("%s: %w", detail, m.err)
			}
			return m.err
		}
	}
	return err
}

func isNoScript(err error) bool { return err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") }

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

func newNonce() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (r *Redis) Create(ctx context.Context, room string, snap store.Snapshot) (store.Lease, error) {
	op := "create " + room
	if err := r.check(op); err != nil {
		return store.Lease{}, err
	}
	keys := r.keys(room)
	args := []any{strconv.FormatUint(fence.First(time.Now()), 10), strconv.FormatUint(snap.Rev, 10), snap.Data, newNonce()}
	// One round trip: list the code as live (List skips codes whose room
	// does not exist or has ended, so a refused create leaves no trace),
	// then create the room.
	// On a cluster the two go to their nodes at once, in no set order:
	// List copes with either.
	pipe := r.c.Pipeline()
	live := pipe.SAdd(ctx, r.liveKey(), room)
	cmd := scriptCreate.EvalSha(ctx, pipe, keys, args...)
	_, _ = pipe.Exec(ctx)
	v, err := cmd.Result()
	if isNoScript(err) {
		v, err = scriptCreate.Run(ctx, r.c, keys, args...).Result()
	}
	if err != nil {
		return store.Lease{}, fmt.Errorf("%s: %w", op, mapErr(err))
	}
	if live.Err() != nil {
		// The room exists but is not listed (on a cluster the set is on
		// another node, which may have failed alone): a room List does not
		// name is not restored after a restart, so list it or fail.
		if err := r.c.SAdd(ctx, r.liveKey(), room).Err(); err != nil {
			return store.Lease{}, fmt.Errorf("%s: list the room: %w", op, mapErr(err))
		}
	}
	token, err := parseToken(v)
	if err != nil {
		return store.Lease{}, fmt.Errorf("%s: %w", op, err)
	}
	return store.Lease{Room: room, Token: token}, nil
}

func parseToken(v any) (uint64, error) {
	switch t := v.(type) {
	case string:
		return strconv.ParseUint(t, 10, 64)
	case int64:
		return uint64(t), nil
	}
	return 0, fmt.Errorf("unexpected token reply %T", v)
}

func (r *Redis) Open(ctx context.Context, room string) (store.Lease, store.Record, error) {
	op := "open " + room
	v, err := r.run(ctx, op, scriptOpen, r.keys(room))
	if err != nil {
		return store.Lease{}, store.Record{}, err
	}
	out, ok := v.([]any)
	if !ok || len(out) < 4 {
		return store.Lease{}, store.Record{}, fmt.Errorf("%s: unexpected reply %T", op, v)
	}
	token, err := parseToken(out[0])
	if err != nil {
		return store.Lease{}, store.Record{}, fmt.Errorf("%s: %w", op, err)
	}
	str := func(x any) string { s, _ := x.(string); return s }
	rev, err := strconv.ParseUint(str(out[1]), 10, 64)
	if err != nil {
		return store.Lease{}, store.Record{}, fmt.Errorf("%s: snapshot rev: %w", op, err)
	}
	rec := store.Record{Snapshot: store.Snapshot{Rev: rev, Data: []byte(str(out[2]))}, Ended: str(out[3]) == "1"}
	for _, x := range out[4:] {
		e := str(x)
		if len(e) < 8 {
			return store.Lease{}, store.Record{}, fmt.Errorf("%s: short log element", op)
		}
		rec.Entries = append(rec.Entries, store.Entry{Rev: binary.BigEndian.Uint64([]byte(e[:8])), Data: []byte(e[8:])})
	}
	return store.Lease{Room: room, Token: token}, rec, nil
}

// Append queues the entries for the committer and waits for the result.
func (r *Redis) Append(ctx context.Context, lease store.Lease, entries []store.Entry) error {
	op := "append " + lease.Room
	if len(entries) == 0 {
		return r.check(op)
	}
	args := make([]any, 0, 2+len(entries))
	args = append(args, strconv.FormatUint(lease.Token, 10), strconv.FormatUint(entries[0].Rev, 10))
	args, err := appendEntries(op, args, entries)
	if err != nil {
		return err
	}
	k := r.keys(lease.Room)
	_, err = r.commit(ctx, op, &redisAppend{script: scriptAppend, keys: []string{k[0], k[2], k[3]}, args: args})
	return err
}

// appendEntries appends the script arguments of entries (8-byte big-endian
// rev + data each) to args, checking that their revisions are contiguous.
func appendEntries(op string, args []any, entries []store.Entry) ([]any, error) {
	for i, e := range entries {
		if i > 0 && e.Rev != entries[i-1].Rev+1 {
			return nil, fmt.Errorf("%s: rev %d after %d in one batch: %w", op, e.Rev, entries[i-1].Rev, store.ErrGap)
		}
		el := make([]byte, 8, 8+len(e.Data))
		binary.BigEndian.PutUint64(el, e.Rev)
		args = append(args, append(el, e.Data...))
	}
	return args, nil
}

// commit queues a for the committer, waits for the result and returns the
// script's reply.
func (r *Redis) commit(ctx context.Context, op string, a *redisAppend) (any, error) {
	a.ctx, a.done = ctx, make(chan error, 1)
	if err := r.queue.Push(a); err != nil {
		return nil, fmt.Errorf("%s: %w", op, store.ErrClosed) // the only refusal of an unbounded queue
	}
	select {
	case err := <-a.done:
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		return a.reply, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: %w", op, ctx.Err())
	}
}

// commitLoop is the committer: on each signal it sends what waits, in
// pipelines of up to MaxBatch appends, until the queue is empty; then, on a
// cluster, the cleanup no batch carried (outbox.go).
func (r *Redis) commitLoop() {
	defer r.wg.Done()
	for {
		select {
		case <-r.queue.Signal():
		case <-r.quit:
			return
		}
		for {
			batch := r.queue.Take(r.opts.MaxBatch)
			if len(batch) == 0 {
				break
			}
			r.send(batch)
		}
		if r.cluster {
			r.flushHeld()
		}
	}
}

// send carries a batch of appends in one pipeline and answers each. On a
// cluster, the appends that hold events are answered once their events are
// in the outbox (moveHeld): one more round trip.
func (r *Redis) send(batch []*redisAppend) {
	todo := batch[:0]
	for _, a := range batch {
		if err := a.ctx.Err(); err != nil {
			a.done <- err // its caller has gone: do not write behind its back
			continue
		}
		todo = append(todo, a)
	}
	if len(todo) == 0 {
		return
	}
	r.batches.Add(1)
	r.appends.Add(uint64(len(todo)))
	ctx, cancel := context.WithTimeout(r.ctx, r.timeout)
	defer cancel()
	r.runScripts(ctx, todo)
	if r.cluster {
		r.moveHeld(ctx, todo)
	}
	for _, a := range todo {
		err := a.err
		if err == nil {
			r.accepted.Add(1)
		} else if r.ctx.Err() != nil {
			err = store.ErrClosed // Close cut the pipeline short
		}
		a.done <- mapErr(err)
	}
}

// runScripts runs the scripts of todo in one pipeline, then once more those
// that found the server without their script (a restart; on a cluster, of
// one node) after loading it again; it sets each one's reply or err. On a
// cluster the first pipeline also carries the cleanup of the batch before
// and the index of this batch's held events (heldWork.stage).
func (r *Redis) runScripts(ctx context.Context, todo []*redisAppend) {
	for attempt := 0; len(todo) > 0; attempt++ {
		pipe := r.c.Pipeline()
		var staged func()
		if attempt == 0 && r.cluster {
			staged = r.stageHeld(ctx, pipe, todo)
		}
		cmds := make([]*redis.Cmd, len(todo))
		for i, a := range todo {
			cmds[i] = a.script.EvalSha(ctx, pipe, a.keys, a.args...)
		}
		_, _ = pipe.Exec(ctx)
		r.roundTrips.Add(1)
		if staged != nil {
			staged()
		}
		var again []*redisAppend
		var missing []*redis.Script
		for i, cmd := range cmds {
			a := todo[i]
			if err := cmd.Err(); isNoScript(err) && attempt == 0 {
				again = append(again, a)
				if !slices.Contains(missing, a.script) {
					missing = append(missing, a.script)
				}
				continue
			}
			a.reply, a.err = cmd.Val(), cmd.Err()
		}
		for _, s := range missing {
			// SCRIPT LOAD: on a cluster, to every node.
			err := s.Load(ctx, r.c).Err()
			r.roundTrips.Add(1)
			if err != nil {
				for _, a := range again {
					a.err = err
				}
				again = nil
				break
			}
		}
		todo = again
	}
}

func (r *Redis) WriteSnapshot(ctx context.Context, lease store.Lease, snap store.Snapshot) error {
	_, err := r.run(ctx, "snapshot "+lease.Room, scriptSnapshot, r.keys(lease.Room),
		strconv.FormatUint(lease.Token, 10), strconv.FormatUint(snap.Rev, 10), snap.Data,
		strconv.FormatUint(snap.FirstKept(), 10))
	return err
}

// End marks the room ended, sets the TTL on all its keys and takes it out
// of the set of live rooms.
func (r *Redis) End(ctx context.Context, lease store.Lease, ttl time.Duration) error {
	op := "end " + lease.Room
	ms := ttl.Milliseconds()
	if ttl > 0 && ms == 0 {
		ms = 1
	}
	if _, err := r.run(ctx, op, scriptEnd, r.keys(lease.Room), strconv.FormatUint(lease.Token, 10), ms); err != nil {
		return err
	}
	// Best effort: List skips ended rooms anyway and removes them then.
	_ = r.c.SRem(ctx, r.liveKey(), lease.Room).Err()
	return nil
}

// List reads the set of live rooms and checks each room (one pipelined
// round trip), skipping codes whose room is gone or ended.
func (r *Redis) List(ctx context.Context) ([]string, error) {
	if err := r.check("list"); err != nil {
		return nil, err
	}
	codes, err := r.c.SMembers(ctx, r.liveKey()).Result()
	if err != nil {
		return nil, fmt.Errorf("list: %w", mapErr(err))
	}
	pipe := r.c.Pipeline()
	cmds := make([]*redis.SliceCmd, len(codes))
	for i, code := range codes {
		cmds[i] = pipe.HMGet(ctx, r.keys(code)[3], "last", "ended")
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("list: %w", mapErr(err))
	}
	var out, ended []string
	for i, code := range codes {
		v := cmds[i].Val()
		switch {
		case len(v) < 2 || v[0] == nil:
			// Gone, or a create in flight: skip, keep in the set.
		case v[1] != nil:
			ended = append(ended, code)
		default:
			out = append(out, code)
		}
	}
	if len(ended) > 0 {
		_ = r.c.SRem(ctx, r.liveKey(), ended).Err()
	}
	slices.Sort(out)
	return out, nil
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

// Claim runs scriptClaim. The expiry is Redis's own (PX), on the server's
// clock.
func (r *Redis) Claim(ctx context.Context, key string, value []byte, ttl time.Duration) ([]byte, bool, error) {
	const op = "claim"
	if err := store.CheckClaim(key, value, ttl); err != nil {
		return nil, false, err
	}
	ms := ttl.Milliseconds()
	if ttl > 0 && ms == 0 {
		ms = 1
	}
	v, err := r.run(ctx, op, scriptClaim, []string{r.claimKey(key)}, value, ms)
	if err != nil {
		return nil, false, err
	}
	out, ok := v.([]any)
	if !ok || len(out) != 2 {
		return nil, false, fmt.Errorf("%s: unexpected reply %T", op, v)
	}
	flag, ok1 := out[0].(int64)
	held, ok2 := out[1].(string)
	if !ok1 || !ok2 {
		return nil, false, fmt.Errorf("%s: unexpected reply %T, %T", op, out[0], out[1])
	}
	return []byte(held), flag == 1, nil
}

// Mark stores value under key for good, whatever is held there.
func (r *Redis) Mark(ctx context.Context, key string, value []byte) error {
	const op = "mark"
	if err := store.CheckClaim(key, value, 0); err != nil {
		return err
	}
	if err := r.check(op); err != nil {
		return err
	}
	if err := r.c.Set(ctx, r.claimKey(key), value, 0).Err(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// A leaderboard member is the score's At (16 hex digits, sortable), 8
// random hex digits and the JSON score: members are unique, and equal
// values (equal sorted-set scores, ordered by member) come out earliest
// first. The sorted-set score is the value, negated on a board where
// higher ranks first, so that ZRANGE always lists the best first.
const memberHead = 24

// Record runs scriptRecord: one script keeps the sorted set and the hashes
// of names and players in step, and sets the expiry of the three keys.
func (r *Redis) Record(ctx context.Context, b store.Board, s store.Score) error {
	const op = "record score"
	if err := r.check(op); err != nil {
		return err
	}
	if math.IsNaN(s.Value) || math.IsInf(s.Value, 0) {
		return fmt.Errorf("%s: value %v is not a finite number", op, s.Value)
	}
	if b.Expires < 0 {
		return fmt.Errorf("%s: expiry %d is before the epoch", op, b.Expires)
	}
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	var back store.Score // the name and player as the script reads them from a member
	if err := json.Unmarshal(data, &back); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	var suffix [4]byte
	_, _ = rand.Read(suffix[:])
	member := fmt.Sprintf("%016x%s%s", sortable.Int(s.At), hex.EncodeToString(suffix[:]), data)
	score := strconv.FormatFloat(sortable.Ranked(s.Value, b.Higher), 'g', -1, 64)
	_, err = r.run(ctx, op, scriptRecord, r.boardKeys(b), score, member, back.Name, r.opts.LeaderboardSize, b.Expires, back.Player)
	return err
}

func (r *Redis) Top(ctx context.Context, b store.Board, limit int) ([]store.Score, error) {
	const op = "top scores"
	if err := r.check(op); err != nil {
		return nil, err
	}
	stop := int64(limit) - 1
	if limit <= 0 {
		stop = -1
	}
	members, err := r.c.ZRange(ctx, r.boardKeys(b)[0], 0, stop).Result()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, mapErr(err))
	}
	out := make([]store.Score, 0, len(members))
	for _, m := range members {
		var s store.Score
		if len(m) < memberHead {
			return nil, fmt.Errorf("%s: short member", op)
		}
		if err := json.Unmarshal([]byte(m[memberHead:]), &s); err != nil {
			return nil, fmt.Errorf("%s: %w", op, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// luaAppendLog is the Lua function that appends a room's entries, shared by
// scriptAppend and scriptAppendWith: fenced (KEYS[1], the lease's fence,
// against ARGV[1], its token), n entries ARGV[off+1 .. off+n] (8-byte
// big-endian rev + data each) after the meta's last revision (KEYS[3]) onto
// the log (KEYS[2]), which takes the meta's expiry. It returns 'OK',
// 'DUP' for a retry of an append that landed (nothing written), or an
// error reply (ROOMD_NOTFOUND, ROOMD_FENCED, ROOMD_GAP).
const luaAppendLog = `
local function appendLog(first, n, off)
  if redis.call('EXISTS', KEYS[3]) == 0 then return redis.error_reply('ROOMD_NOTFOUND') end
  local cur = redis.call('GET', KEYS[1])
  if cur ~= ARGV[1] then return redis.error_reply('ROOMD_FENCED token ' .. ARGV[1] .. ', current ' .. tostring(cur)) end
  if n == 0 then return 'OK' end
  local last = tonumber(redis.call('HGET', KEYS[3], 'last'))
  if first <= last then
    local len = redis.call('LLEN', KEYS[2])
    local start = len - 1 - (last - first)
    if first + n - 1 <= last and start >= 0 then
      local got = redis.call('LRANGE', KEYS[2], start, start + n - 1)
      local same = #got == n
      for i = 1, n do
        if got[i] ~= ARGV[off + i] then same = false; break end
      end
      if same then return 'DUP' end -- a retry of an append that landed
    end
  end
  if first ~= last + 1 then return redis.error_reply('ROOMD_GAP rev ' .. string.format('%d', first) .. ' after ' .. tostring(last)) end
  local i = off + 1
  while i <= off + n do
    local j = math.min(i + 999, off + n)
    redis.call('RPUSH', KEYS[2], unpack(ARGV, i, j))
    i = j + 1
  end
  redis.call('HSET', KEYS[3], 'last', string.format('%d', first + n - 1))
  local ttl = redis.call('PTTL', KEYS[3])
  if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
  return 'OK'
end
`
