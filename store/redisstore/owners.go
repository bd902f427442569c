package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/roomd/roomd/store"
)

// Ownership (store.Cluster): a room's owner is a key next to the room's
// others, {code}:owner, holding the node id with a TTL in ms; the node
// registry is a sorted set of node ids by expiry (Redis server time, ms)
// and a hash of their JSON, both under the hash tag {nodes} so that one
// script reads them on Redis Cluster.

var _ store.Cluster = (*Redis)(nil)

func (r *Redis) ownerKey(code string) string { return r.prefix + ":{" + code + "}:owner" }

func (r *Redis) nodeKeys() []string {
	k := r.prefix + ":{nodes}"
	return []string{k, k + ":info"}
}

const replyOwned = "ROOMD_OWNED"

var (
	// KEYS: the room's meta, its owner. ARGV: node, ttl in ms. Takes the
	// lease when nobody (or node) holds it; refuses with the holder and
	// the time it has left otherwise.
	scriptAcquire = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return redis.error_reply('ROOMD_NOTFOUND') end
local owner = redis.call('GET', KEYS[2])
if owner and owner ~= ARGV[1] then
  return redis.error_reply('ROOMD_OWNED ' .. redis.call('PTTL', KEYS[2]) .. ' ' .. owner)
end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
return 'OK'
`)
	// KEYS: the room's owner. ARGV: node, ttl in ms. 1 when renewed (or
	// taken again: nobody held it), 0 when another node holds the lease.
	scriptRenew = redis.NewScript(`
local owner = redis.call('GET', KEYS[1])
if owner and owner ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`)
	// KEYS: the room's owner. ARGV: node, next node ('' for none), ttl
	// in ms.
	scriptRelease = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 'OK' end
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
return 'OK'
`)
	// KEYS: the registry's set and hash. ARGV: node id, JSON, ttl in ms.
	scriptRegister = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 'OK'
`)
	// KEYS: the registry's set and hash. Drops the expired nodes and
	// returns the JSON of the others.
	scriptNodes = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local dead = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)
for i = 1, #dead do
  redis.call('ZREM', KEYS[1], dead[i])
  redis.call('HDEL', KEYS[2], dead[i])
end
local live = redis.call('ZRANGE', KEYS[1], 0, -1)
if #live == 0 then return {} end
return redis.call('HMGET', KEYS[2], unpack(live))
`)
)

// ms is a TTL in whole milliseconds, at least 1.
func ms(d time.Duration) int64 { return max(d.Milliseconds(), 1) }

// ownedErr turns a ROOMD_OWNED refusal into a *store.OwnedError.
func ownedErr(room string, err error) error {
	msg := err.Error()
	i := strings.Index(msg, replyOwned)
	if i < 0 {
		return nil
	}
	left, node, _ := strings.Cut(strings.TrimSpace(msg[i+len(replyOwned):]), " ")
	n, _ := strconv.ParseInt(left, 10, 64)
	return &store.OwnedError{Room: room, Node: node, Left: time.Duration(max(n, 0)) * time.Millisecond}
}

func (r *Redis) CreateOwned(ctx context.Context, room, node string, ttl time.Duration, snap store.Snapshot) (store.Lease, error) {
	if err := store.CheckLease(node, ttl); err != nil {
		return store.Lease{}, fmt.Errorf("create %s: %w", room, err)
	}
	lease, err := r.Create(ctx, room, snap)
	if err != nil {
		return lease, err
	}
	// A new code: nobody else can know it yet, so the lease is simply set.
	if err := r.c.Set(ctx, r.ownerKey(room), node, ttl).Err(); err != nil {
		return store.Lease{}, fmt.Errorf("create %s: lease: %w", room, mapErr(err))
	}
	return lease, nil
}

func (r *Redis) OpenOwned(ctx context.Context, room, node string, ttl time.Duration) (store.Lease, store.Record, error) {
	op := "open " + room
	if err := store.CheckLease(node, ttl); err != nil {
		return store.Lease{}, store.Record{}, fmt.Errorf("%s: %w", op, err)
	}
	if err := r.check(op); err != nil {
		return store.Lease{}, store.Record{}, err
	}
	// The lease first, then Open's fencing token: whoever opens after this
	// holds the lease, and a writer before it (the owner that lost it) is
	// fenced by the token Open bumps.
	err := scriptAcquire.Run(ctx, r.c, []string{r.keys(room)[3], r.ownerKey(room)}, node, ms(ttl)).Err()
	if err != nil {
		if oe := ownedErr(room, err); oe != nil {
			return store.Lease{}, store.Record{}, oe
		}
		return store.Lease{}, store.Record{}, fmt.Errorf("%s: %w", op, mapErr(err))
	}
	return r.Open(ctx, room)
}

func (r *Redis) Renew(ctx context.Context, node string, rooms []string, ttl time.Duration) ([]string, error) {
	if err := store.CheckLease(node, ttl); err != nil {
		return nil, fmt.Errorf("renew: %w", err)
	}
	if err := r.check("renew"); err != nil {
		return nil, err
	}
	var lost []string
	for chunk := range slices.Chunk(rooms, r.opts.MaxBatch) {
		base := len(lost)
		for attempt := 0; ; attempt++ {
			pipe := r.c.Pipeline()
			cmds := make([]*redis.Cmd, len(chunk))
			for i, room := range chunk {
				cmds[i] = scriptRenew.EvalSha(ctx, pipe, []string{r.ownerKey(room)}, node, ms(ttl))
			}
			_, _ = pipe.Exec(ctx)
			noScript := false
			var errs []error
			for i, cmd := range cmds {
				switch n, err := cmd.Int(); {
				case isNoScript(err):
					noScript = true
				case err != nil:
					errs = append(errs, err)
				case n == 0:
					lost = append(lost, chunk[i])
				}
			}
			if noScript {
				if attempt > 0 {
					return lost, errors.New("renew: the server lost its scripts again")
				}
				// A server lost its scripts (a restart): load it (on every
				// master of a cluster), then the whole chunk again
				// (renewing twice is harmless).
				if err := scriptRenew.Load(ctx, r.c).Err(); err != nil {
					return lost, fmt.Errorf("renew: %w", mapErr(err))
				}
				lost = lost[:base]
				continue
			}
			if len(errs) > 0 {
				return lost, fmt.Errorf("renew: %d of %d leases: %w", len(errs), len(chunk), mapErr(errs[0]))
			}
			break
		}
	}
	return lost, nil
}

func (r *Redis) Release(ctx context.Context, room, node, next string, ttl time.Duration) error {
	if next != "" {
		if err := store.CheckLease(next, ttl); err != nil {
			return fmt.Errorf("release %s: %w", room, err)
		}
	}
	_, err := r.run(ctx, "release "+room, scriptRelease, []string{r.ownerKey(room)}, node, next, ms(ttl))
	return err
}

func (r *Redis) Owner(ctx context.Context, room string) (string, time.Duration, error) {
	if err := r.check("owner"); err != nil {
		return "", 0, err
	}
	k := r.ownerKey(room)
	pipe := r.c.Pipeline()
	get, pttl := pipe.Get(ctx, k), pipe.PTTL(ctx, k)
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return "", 0, fmt.Errorf("owner %s: %w", room, mapErr(err))
	}
	node := get.Val()
	if node == "" {
		return "", 0, nil
	}
	return node, max(pttl.Val(), 0), nil
}

func (r *Redis) Register(ctx context.Context, n store.Node, ttl time.Duration) error {
	if err := store.CheckLease(n.ID, ttl); err != nil {
		return fmt.Errorf("register: %w", err)
	}
	data, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("register %s: %w", n.ID, err)
	}
	_, err = r.run(ctx, "register "+n.ID, scriptRegister, r.nodeKeys(), n.ID, data, ms(ttl))
	return err
}

func (r *Redis) Deregister(ctx context.Context, id string) error {
	if err := r.check("deregister"); err != nil {
		return err
	}
	k := r.nodeKeys()
	pipe := r.c.Pipeline()
	pipe.ZRem(ctx, k[0], id)
	pipe.HDel(ctx, k[1], id)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("deregister %s: %w", id, mapErr(err))
	}
	return nil
}

func (r *Redis) Nodes(ctx context.Context) ([]store.Node, error) {
	v, err := r.run(ctx, "nodes", scriptNodes, r.nodeKeys())
	if err != nil {
		return nil, err
	}
	list, _ := v.([]any)
	out := make([]store.Node, 0, len(list))
	for _, x := range list {
		s, ok := x.(string)
		if !ok {
			continue // registered and removed between the two reads
		}
		var n store.Node
		if err := json.Unmarshal([]byte(s), &n); err != nil {
			return nil, fmt.Errorf("nodes: %w", err)
		}
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b store.Node) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}
