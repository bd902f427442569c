package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/roomd/roomd/store"
)

// pool.go: the rated quick-play pool (store.Pool). Every key of it shares
// one hash tag, {P:pool}, so that each script below reads and writes all
// it needs atomically on one slot (on a Redis Cluster, one node: the pool
// is small and short-lived). Its keys:
//   - P:{P:pool}:tickets, a hash: ticket id → the ticket as JSON;
//   - P:{P:pool}:players, a hash: player → the id of its waiting ticket
//     (the one-ticket-a-player check);
//   - P:{P:pool}:exp, a sorted set: ticket id by Expires, which the
//     scripts sweep 32 at a time for tickets lapsed a minute ago;
//   - P:{P:pool}:q:<pool>, a sorted set per pool: its waiting tickets by
//     Joined (then id), expiring an hour after the last PoolEnter.
//
// The scripts take the caller's now (store.Pool's times are the nodes'),
// and decode and encode tickets with Redis's cjson, whose numbers keep 14
// digits: a time in Unix ms (13) passes unchanged.

// Errors the pool's scripts return.
const (
	replyQueued    = "ROOMD_QUEUED"
	replyPoolFull  = "ROOMD_POOLFULL"
	replyNoTicket  = "ROOMD_NOTICKET"
	replyPaired    = "ROOMD_PAIRED"
	replyNotPaired = "ROOMD_NOTPAIRED"
	replyTaken     = "ROOMD_TICKETEXISTS"
)

// poolLua is what the pool's scripts share: gc drops up to 32 tickets
// lapsed a minute before now, live returns a ticket not expired before
// now, forget drops one, and prune drops from a pool's queue the tickets
// that lapsed or do not wait any more.
const poolLua = `
local T, W, E = KEYS[1], KEYS[2], KEYS[3]
local function forget(id, t)
  redis.call('HDEL', T, id)
  redis.call('ZREM', E, id)
  if t and redis.call('HGET', W, t.player) == id then redis.call('HDEL', W, t.player) end
end
local function gc(now)
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', E, '-inf', now - 60000, 'LIMIT', 0, 32)) do
    local j = redis.call('HGET', T, id)
    forget(id, j and cjson.decode(j))
  end
end
local function live(id, now)
  local j = redis.call('HGET', T, id)
  if not j then return nil end
  local t = cjson.decode(j)
  if t.expires < now then return nil end
  return t
end
local function put(t)
  redis.call('HSET', T, t.id, cjson.encode(t))
  redis.call('ZADD', E, t.expires, t.id)
end
-- waiting returns a pool's live waiting tickets (at most limit), oldest
-- first, dropping from its queue KEYS[4] those that are not. It reads at
-- most 2·limit+64 of the queue (a script holds Redis): lapsed tickets
-- beyond are dropped by later calls.
local function waiting(now, limit)
  local out = {}
  for _, id in ipairs(redis.call('ZRANGE', KEYS[4], 0, 2 * limit + 63)) do
    local j = redis.call('HGET', T, id)
    local t = j and cjson.decode(j)
    if not t or t.state ~= 'waiting' then
      redis.call('ZREM', KEYS[4], id)
    elseif t.expires < now then
      redis.call('ZREM', KEYS[4], id)
      forget(id, t)
    elseif #out < limit then
      out[#out + 1] = j
    end
  end
  return out
end
`

var (
	// KEYS: tickets, players, exp, queue. ARGV: ticket JSON, id, player,
	// joined, now, max.
	scriptPoolEnter = redis.NewScript(poolLua + `
local now = tonumber(ARGV[5])
gc(now)
local old = redis.call('HGET', W, ARGV[3])
if old then
  local o = live(old, now)
  if o and o.state == 'waiting' then return redis.error_reply('ROOMD_QUEUED') end
end
if redis.call('HEXISTS', T, ARGV[2]) == 1 then return redis.error_reply('ROOMD_TICKETEXISTS') end
if redis.call('ZCARD', KEYS[4]) >= tonumber(ARGV[6]) and #waiting(now, tonumber(ARGV[6])) >= tonumber(ARGV[6]) then
  return redis.error_reply('ROOMD_POOLFULL')
end
put(cjson.decode(ARGV[1]))
redis.call('HSET', W, ARGV[3], ARGV[2])
redis.call('ZADD', KEYS[4], ARGV[4], ARGV[2])
redis.call('PEXPIRE', KEYS[4], 3600000)
return 1
`)
	// KEYS: tickets, players, exp. ARGV: id, now, expires (0, or a ticket
	// not waiting: as it is).
	scriptPoolTicket = redis.NewScript(poolLua + `
local t = live(ARGV[1], tonumber(ARGV[2]))
if not t then return redis.error_reply('ROOMD_NOTICKET') end
if tonumber(ARGV[3]) ~= 0 and t.state == 'waiting' then
  t.expires = tonumber(ARGV[3])
  put(t)
end
return cjson.encode(t)
`)
	// KEYS: tickets, players, exp, queue. ARGV: id, now, pool.
	scriptPoolLeave = redis.NewScript(poolLua + `
local j = redis.call('HGET', T, ARGV[1])
if not j then return 0 end
local t = cjson.decode(j)
if t.pool ~= ARGV[3] then return 0 end
if t.state ~= 'waiting' and t.expires >= tonumber(ARGV[2]) then return redis.error_reply('ROOMD_PAIRED') end
forget(ARGV[1], t)
redis.call('ZREM', KEYS[4], ARGV[1])
return 1
`)
	// KEYS: tickets, players, exp, queue. ARGV: now, limit.
	scriptPoolWaiting = redis.NewScript(poolLua + `
local now = tonumber(ARGV[1])
gc(now)
return waiting(now, tonumber(ARGV[2]))
`)
	// KEYS: tickets, players, exp, queue. ARGV: a, b, now, expires, pool.
	scriptPoolPair = redis.NewScript(poolLua + `
local now = tonumber(ARGV[3])
if ARGV[1] == ARGV[2] then return 0 end
local a, b = live(ARGV[1], now), live(ARGV[2], now)
if not a or not b or a.pool ~= ARGV[5] or b.pool ~= ARGV[5] or a.state ~= 'waiting' or b.state ~= 'waiting' then
  return 0
end
for _, p in ipairs({{a, b}, {b, a}}) do
  local t, o = p[1], p[2]
  t.state, t.partner, t.expires = 'paired', o.id, tonumber(ARGV[4])
  put(t)
  redis.call('ZREM', KEYS[4], t.id)
  if redis.call('HGET', W, t.player) == t.id then redis.call('HDEL', W, t.player) end
end
return 1
`)
	// KEYS: tickets, players, exp. ARGV: id, outcome, now, expires.
	scriptPoolSettle = redis.NewScript(poolLua + `
local t = live(ARGV[1], tonumber(ARGV[3]))
if not t then return redis.error_reply('ROOMD_NOTICKET') end
if t.state ~= 'paired' then return redis.error_reply('ROOMD_NOTPAIRED') end
t.state, t.outcome, t.expires = 'settled', ARGV[2], tonumber(ARGV[4])
put(t)
return 1
`)
)

// poolTicket is a ticket as the scripts keep it: the outcome a string, so
// that Lua can set it.
type poolTicket struct {
	store.Ticket
	Outcome string `json:"outcome,omitempty"`
}

func (r *Redis) poolKeys(pool string) []string {
	tag := r.prefix + ":{" + r.prefix + ":pool}:"
	keys := []string{tag + "tickets", tag + "players", tag + "exp"}
	if pool != "" {
		keys = append(keys, tag+"q:"+pool)
	}
	return keys
}

// poolRun runs a pool script and maps its refusals.
func (r *Redis) poolRun(ctx context.Context, op string, s *redis.Script, keys []string, args ...any) (any, error) {
	v, err := r.run(ctx, op, s, keys, args...)
	if err == nil {
		return v, nil
	}
	for _, m := range []struct {
		reply string
		err   error
	}{{replyQueued, store.ErrQueued}, {replyPoolFull, store.ErrPoolFull}, {replyNoTicket, store.ErrNoTicket},
		{replyPaired, store.ErrPaired}, {replyNotPaired, store.ErrNotPaired}, {replyTaken, store.ErrBadTicket}} {
		if strings.Contains(err.Error(), m.reply) {
			return nil, fmt.Errorf("%s: %w", op, m.err)
		}
	}
	return nil, err
}

func decodeTicket(op string, v any) (store.Ticket, error) {
	s, ok := v.(string)
	if !ok {
		return store.Ticket{}, fmt.Errorf("%s: unexpected reply %T", op, v)
	}
	var t poolTicket
	if err := json.Unmarshal([]byte(s), &t); err != nil {
		return store.Ticket{}, fmt.Errorf("%s: %w", op, err)
	}
	out := t.Ticket
	out.Outcome = nil
	if t.Outcome != "" {
		out.Outcome = []byte(t.Outcome)
	}
	return out, nil
}

// PoolEnter implements store.Pool.
func (r *Redis) PoolEnter(ctx context.Context, t store.Ticket, now int64, max int) error {
	const op = "pool enter"
	if err := store.CheckTicket(t); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	t.State = store.TicketWaiting
	data, err := json.Marshal(poolTicket{Ticket: t})
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	_, err = r.poolRun(ctx, op, scriptPoolEnter, r.poolKeys(t.Pool), data, t.ID, t.Player, t.Joined, now, max)
	return err
}

// PoolTicket implements store.Pool.
func (r *Redis) PoolTicket(ctx context.Context, id string, now, expires int64) (store.Ticket, error) {
	const op = "pool ticket"
	v, err := r.poolRun(ctx, op, scriptPoolTicket, r.poolKeys(""), id, now, expires)
	if err != nil {
		return store.Ticket{}, err
	}
	return decodeTicket(op, v)
}

// PoolLeave implements store.Pool.
func (r *Redis) PoolLeave(ctx context.Context, pool, id string, now int64) error {
	_, err := r.poolRun(ctx, "pool leave", scriptPoolLeave, r.poolKeys(pool), id, now, pool)
	return err
}

// PoolWaiting implements store.Pool.
func (r *Redis) PoolWaiting(ctx context.Context, pool string, now int64, limit int) ([]store.Ticket, error) {
	const op = "pool waiting"
	v, err := r.poolRun(ctx, op, scriptPoolWaiting, r.poolKeys(pool), now, store.PoolReadLimit(limit))
	if err != nil {
		return nil, err
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: unexpected reply %T", op, v)
	}
	out := make([]store.Ticket, 0, len(list))
	for _, item := range list {
		t, err := decodeTicket(op, item)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// PoolPair implements store.Pool.
func (r *Redis) PoolPair(ctx context.Context, pool, a, b string, now, expires int64) (bool, error) {
	v, err := r.poolRun(ctx, "pool pair", scriptPoolPair, r.poolKeys(pool), a, b, now, expires, pool)
	if err != nil {
		return false, err
	}
	n, ok := v.(int64)
	if !ok {
		return false, errors.New("pool pair: unexpected reply")
	}
	return n == 1, nil
}

// PoolSettle implements store.Pool.
func (r *Redis) PoolSettle(ctx context.Context, id string, outcome []byte, now, expires int64) error {
	const op = "pool settle"
	if len(outcome) > store.MaxOutcome {
		return fmt.Errorf("%s: %w: outcome of %d bytes", op, store.ErrBadTicket, len(outcome))
	}
	_, err := r.poolRun(ctx, op, scriptPoolSettle, r.poolKeys(""), id, outcome, now, expires)
	return err
}

var _ store.Pool = (*Redis)(nil)
