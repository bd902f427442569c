package redisstore

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/roomd/roomd/store"
)

// The outbox is two keys sharing the hash tag {P:outbox}, so that one
// script can keep them in step on Redis Cluster:
//
//	P:{P:outbox}:due  sorted set: member = event ID, score = Due (ms)
//	P:{P:outbox}:ev   hash: event ID → attempts (decimal), '|', data
//
// Equal scores are ordered by member, so ZRANGEBYSCORE lists events by
// (Due, ID). The sorted set's ZCARD is the count the bound checks.
//
// Redis Cluster: AppendWith's script writes the room's keys (slot {code})
// and the outbox's keys (slot {P:outbox}) in one script, for the atomicity
// the Outbox contract asks for. That is the one script crossing slots: it
// works on a single Redis server (what Open connects to) but a cluster
// refuses it (CROSSSLOT). Every other script, the outbox's own included,
// stays on one slot.
func (r *Redis) outboxKeys() []string {
	k := r.prefix + ":{" + r.prefix + ":outbox}:"
	return []string{k + "due", k + "ev"}
}

// luaEnqueue defines enqueue(dueKey, evKey, max, from): it adds the events
// in ARGV from index from on (triplets: id, due, attempts|data) and returns
// how many it dropped because the outbox held max. An event whose ID is
// queued replaces it.
const luaEnqueue = `
local function enqueue(zk, hk, max, from)
  local dropped = 0
  local n = redis.call('ZCARD', zk)
  for i = from, #ARGV - 2, 3 do
    local id = ARGV[i]
    local add = true
    if redis.call('HEXISTS', hk, id) == 0 then
      if n >= max then add = false; dropped = dropped + 1 else n = n + 1 end
    end
    if add then
      redis.call('ZADD', zk, ARGV[i + 1], id)
      redis.call('HSET', hk, id, ARGV[i + 2])
    end
  end
  return dropped
end
`

var (
	// KEYS: outbox due, outbox ev. ARGV: max, then the events.
	scriptEnqueue = redis.NewScript(luaEnqueue + `
return enqueue(KEYS[1], KEYS[2], tonumber(ARGV[1]), 2)
`)
	// scriptAppend and enqueue in one script. KEYS: fence, log, meta,
	// outbox due, outbox ev. ARGV: token, first rev, number of entries n,
	// max, n entries (as for scriptAppend), then the events. Returns how
	// many events were dropped, or -1 for a retry of an append that landed
	// (nothing written, no event enqueued: the first attempt did).
	scriptAppendWith = redis.NewScript(luaEnqueue + luaAppendLog + `
local r = appendLog(tonumber(ARGV[2]), tonumber(ARGV[3]), 4)
if r == 'DUP' then return -1 end
if r ~= 'OK' then return r end
return enqueue(KEYS[4], KEYS[5], tonumber(ARGV[4]), 5 + tonumber(ARGV[3]))
`)
	// KEYS: outbox due, outbox ev. ARGV: now, limit. Returns id, due,
	// attempts|data for each event, oldest first.
	scriptDue = redis.NewScript(`
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for i = 1, #ids, 2 do
  local v = redis.call('HGET', KEYS[2], ids[i])
  if v then
    out[#out + 1] = ids[i]; out[#out + 1] = ids[i + 1]; out[#out + 1] = v
  end
end
return out
`)
	// KEYS: outbox due, outbox ev. ARGV: id, attempts, due.
	scriptRetry = redis.NewScript(`
local v = redis.call('HGET', KEYS[2], ARGV[1])
if not v then return 0 end
local bar = string.find(v, '|', 1, true)
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2] .. string.sub(v, bar))
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return 1
`)
)

// eventArgs appends the script arguments of events to args.
func eventArgs(args []any, events []store.Event) []any {
	for _, e := range events {
		v := make([]byte, 0, 24+len(e.Data))
		v = strconv.AppendInt(v, int64(e.Attempts), 10)
		v = append(append(v, '|'), e.Data...)
		args = append(args, e.ID, strconv.FormatInt(e.Due, 10), v)
	}
	return args
}

// checkDue refuses Due times a sorted-set score (a double) cannot hold
// exactly.
func checkDue(op string, due int64) error {
	if due > 1<<53 || due < -(1<<53) {
		return fmt.Errorf("%s: due %d is out of range", op, due)
	}
	return nil
}

func checkEvents(op string, events []store.Event) error {
	if err := store.CheckEvents(events); err != nil {
		return err
	}
	for _, e := range events {
		if err := checkDue(op, e.Due); err != nil {
			return err
		}
	}
	return nil
}

func (r *Redis) Enqueue(ctx context.Context, events []store.Event) (int, error) {
	const op = "enqueue"
	if err := checkEvents(op, events); err != nil {
		return 0, err
	}
	if len(events) == 0 {
		return 0, r.check(op)
	}
	v, err := r.run(ctx, op, scriptEnqueue, r.outboxKeys(), eventArgs([]any{r.opts.MaxOutbox}, events)...)
	if err != nil {
		return 0, err
	}
	n, _ := v.(int64)
	return int(n), nil
}

// AppendWith goes through the append committer, as Append does, as one
// script (scriptAppendWith): the entries and the events are both written
// or neither is. See outboxKeys about Redis Cluster.
func (r *Redis) AppendWith(ctx context.Context, lease store.Lease, entries []store.Entry, events []store.Event) (int, error) {
	op := "append " + lease.Room
	if err := checkEvents(op, events); err != nil {
		return 0, err
	}
	if len(entries) == 0 && len(events) == 0 {
		return 0, r.check(op)
	}
	var first uint64
	if len(entries) > 0 {
		first = entries[0].Rev
	}
	args := make([]any, 0, 4+len(entries)+3*len(events))
	args = append(args, strconv.FormatUint(lease.Token, 10), strconv.FormatUint(first, 10), len(entries), r.opts.MaxOutbox)
	args, err := appendEntries(op, args, entries)
	if err != nil {
		return 0, err
	}
	args = eventArgs(args, events)
	k, ob := r.keys(lease.Room), r.outboxKeys()
	v, err := r.commit(ctx, op, &redisAppend{script: scriptAppendWith, keys: []string{k[0], k[2], k[3], ob[0], ob[1]}, args: args})
	if err != nil {
		return 0, err
	}
	n, _ := v.(int64)
	return int(max(n, 0)), nil
}

func (r *Redis) Due(ctx context.Context, now int64, limit int) ([]store.Event, error) {
	const op = "due events"
	now = min(max(now, -(1<<53)), 1<<53)
	v, err := r.run(ctx, op, scriptDue, r.outboxKeys(), now, store.DueLimit(limit))
	if err != nil {
		return nil, err
	}
	flat, ok := v.([]any)
	if !ok || len(flat)%3 != 0 {
		return nil, fmt.Errorf("%s: unexpected reply %T", op, v)
	}
	out := make([]store.Event, 0, len(flat)/3)
	for i := 0; i < len(flat); i += 3 {
		id, _ := flat[i].(string)
		score, _ := flat[i+1].(string)
		val, _ := flat[i+2].(string)
		due, err := strconv.ParseFloat(score, 64)
		if err != nil || math.IsNaN(due) {
			return nil, fmt.Errorf("%s: event %q: due %q", op, id, score)
		}
		attempts, data, ok := strings.Cut(val, "|")
		n, err := strconv.Atoi(attempts)
		if !ok || err != nil {
			return nil, fmt.Errorf("%s: event %q: bad value", op, id)
		}
		out = append(out, store.Event{ID: id, Data: []byte(data), Attempts: n, Due: int64(due)})
	}
	return out, nil
}

func (r *Redis) Retry(ctx context.Context, id string, attempts int, due int64) error {
	const op = "retry event"
	if err := checkDue(op, due); err != nil {
		return err
	}
	_, err := r.run(ctx, op, scriptRetry, r.outboxKeys(), id, attempts, due)
	return err
}

// Ack deletes the events from both keys in one MULTI/EXEC.
func (r *Redis) Ack(ctx context.Context, ids []string) error {
	const op = "ack events"
	if err := r.check(op); err != nil || len(ids) == 0 {
		return err
	}
	members := make([]any, len(ids))
	for i, id := range ids {
		members[i] = id
	}
	k := r.outboxKeys()
	_, err := r.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.ZRem(ctx, k[0], members...)
		p.HDel(ctx, k[1], ids...)
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", op, mapErr(err))
	}
	return nil
}
