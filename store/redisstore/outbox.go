package redisstore

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

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
// AppendWith stores a room's entries and its events in one atomic write.
// On one server that is one script over the room's keys and the outbox's
// (scriptAppendWith). A cluster refuses a script whose keys lie on two
// slots (CROSSSLOT), so there the events go through the room's own slot:
//
//	P:{code}:held         hash: event ID → Due (ms), '|', attempts, '|', data
//	P:{P:outbox}:held     sorted set: member = room code, score = when the
//	                      committer indexed it (Unix ms, its clock)
//
// An AppendWith with events is then three writes:
//
//  1. One script on the room's slot (scriptAppendHold) appends the entries
//     and puts the events in the room's held hash: both stored or neither,
//     fenced as Append is. In the same pipeline (another node, at once) the
//     committer adds the room to the index.
//  2. One script on the outbox's slot (scriptMove) adds the events to the
//     outbox, keeping any already queued (with their attempts), and takes
//     the room out of the index. Only then is the append answered, so Due
//     finds the events as on one server.
//  3. The moved events are deleted from the room's held hash: in the next
//     batch's first pipeline (before that room's next script, on the same
//     node in order), or alone when the committer is idle.
//
// If the process dies (or the outbox's node fails) after 1 and before 2,
// the events are stored in the held hash and its room is in the index:
// Due sweeps the index (every sweepEvery, rooms indexed more than
// heldGrace ago: no committer is still working on those) and moves what
// each holds, as step 2 and 3 do. The room's next AppendWith moves them too
// (the held script returns everything the room holds). If the index was
// not written either (its node failed with the move's), the committer
// indexes the room again in its next pipeline; only a process that dies
// while the outbox's node is failing leaves events held with no index, to
// be moved by that room's next AppendWith. A death after 2 and before 3
// leaves moved events held: moved again by the room's next AppendWith, and
// so maybe delivered twice, which at-least-once delivery allows (receivers
// deduplicate by ID).
func (r *Redis) outboxKeys() []string {
	k := r.prefix + ":{" + r.prefix + ":outbox}:"
	return []string{k + "due", k + "ev"}
}

// heldIndexKey is the index of the rooms that may hold events on a
// cluster, on the outbox's slot.
func (r *Redis) heldIndexKey() string { return r.prefix + ":{" + r.prefix + ":outbox}:held" }

// heldKey is the hash of the events a room's appends hold on a cluster
// until they are in the outbox.
func (r *Redis) heldKey(code string) string { return r.prefix + ":{" + code + "}:held" }

const (
	// heldGrace is how long after a room was indexed a sweep takes it:
	// longer than a committer takes from step 1 to 2 (a few timeouts of
	// r.timeout), so that a sweep moves only what a committer left. A
	// sweep that comes early (a paused process, clocks apart) makes at
	// worst a duplicate delivery.
	heldGrace = 10 * time.Second
	// sweepEvery is how often Due sweeps.
	sweepEvery = 5 * time.Second
	// sweepRooms bounds the rooms one sweep takes.
	sweepRooms = 100
	// maxHeld bounds the events a room holds (when the outbox's node is
	// failing, say): beyond it, or the outbox's bound when smaller, its
	// events are dropped and counted.
	maxHeld = 1000
)

// luaEnqueue defines enqueue(dueKey, evKey, max, from, to, keep): it adds
// the events in ARGV[from..to] (triplets: id, due, attempts|data) and
// returns how many it dropped because the outbox held max. An event whose
// ID is queued replaces it, unless keep.
const luaEnqueue = `
local function enqueue(zk, hk, max, from, to, keep)
  local dropped = 0
  local n = redis.call('ZCARD', zk)
  for i = from, to - 2, 3 do
    local id = ARGV[i]
    local add = true
    if redis.call('HEXISTS', hk, id) == 0 then
      if n >= max then add = false; dropped = dropped + 1 else n = n + 1 end
    elseif keep then
      add = false
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
return enqueue(KEYS[1], KEYS[2], tonumber(ARGV[1]), 2, #ARGV, false)
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
return enqueue(KEYS[4], KEYS[5], tonumber(ARGV[4]), 5 + tonumber(ARGV[3]), #ARGV, false)
`)
	// A cluster's AppendWith, step 1: scriptAppend that also holds the
	// events in the room's held hash. KEYS: fence, log, meta, held. ARGV:
	// token, first rev, number of entries n, max, n entries, then the
	// events (id, due, attempts|data). A retry of an append that landed
	// holds nothing more (the first attempt did). Returns how many events
	// were dropped (the room held max), then every event the room holds,
	// those of earlier appends not yet moved included, as triplets (id,
	// due, attempts|data).
	scriptAppendHold = redis.NewScript(luaAppendLog + `
local n = tonumber(ARGV[3])
local r = appendLog(tonumber(ARGV[2]), n, 4)
if r ~= 'OK' and r ~= 'DUP' then return r end
local dropped = 0
if r == 'OK' then
  local max = tonumber(ARGV[4])
  local held = redis.call('HLEN', KEYS[4])
  for i = 5 + n, #ARGV - 2, 3 do
    local add = true
    if redis.call('HEXISTS', KEYS[4], ARGV[i]) == 0 then
      if held >= max then add = false; dropped = dropped + 1 else held = held + 1 end
    end
    if add then redis.call('HSET', KEYS[4], ARGV[i], ARGV[i + 1] .. '|' .. ARGV[i + 2]) end
  end
end
local out = {dropped}
local all = redis.call('HGETALL', KEYS[4])
for i = 1, #all, 2 do
  local v = all[i + 1]
  local bar = string.find(v, '|', 1, true)
  if bar then
    out[#out + 1] = all[i]; out[#out + 1] = string.sub(v, 1, bar - 1); out[#out + 1] = string.sub(v, bar + 1)
  end
end
return out
`)
	// A cluster's AppendWith, step 2, and the sweep. KEYS: outbox due,
	// outbox ev, held index. ARGV: max; u, then u pairs (room, score): each
	// room leaves the index if its score is still that one; then groups of
	// events, each its count n and n events (id, due, attempts|data),
	// added as enqueue adds them but keeping an event already queued.
	// Returns how many events of each group were dropped.
	scriptMove = redis.NewScript(luaEnqueue + `
local u = tonumber(ARGV[2])
for i = 3, 2 + 2 * u, 2 do
  local s = redis.call('ZSCORE', KEYS[3], ARGV[i])
  if s and tonumber(s) == tonumber(ARGV[i + 1]) then redis.call('ZREM', KEYS[3], ARGV[i]) end
end
local out = {}
local i = 3 + 2 * u
while i <= #ARGV do
  local n = tonumber(ARGV[i])
  out[#out + 1] = enqueue(KEYS[1], KEYS[2], tonumber(ARGV[1]), i + 1, i + 3 * n, true)
  i = i + 1 + 3 * n
end
return out
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
// or neither is. On a cluster, the script (scriptAppendHold) holds the
// events on the room's slot and the committer moves them into the outbox
// before it answers: see outboxKeys.
func (r *Redis) AppendWith(ctx context.Context, lease store.Lease, entries []store.Entry, events []store.Event) (int, error) {
	op := "append " + lease.Room
	if err := checkEvents(op, events); err != nil {
		return 0, err
	}
	if len(entries) == 0 && len(events) == 0 {
		return 0, r.check(op)
	}
	a, err := r.appendWith(op, lease, entries, events)
	if err != nil {
		return 0, err
	}
	v, err := r.commit(ctx, op, a)
	if err != nil {
		return 0, err
	}
	n, _ := v.(int64)
	return int(max(n, 0)), nil
}

// appendWith is the committer's write for AppendWith: scriptAppendWith, or
// scriptAppendHold on a cluster.
func (r *Redis) appendWith(op string, lease store.Lease, entries []store.Entry, events []store.Event) (*redisAppend, error) {
	var first uint64
	if len(entries) > 0 {
		first = entries[0].Rev
	}
	limit := r.opts.MaxOutbox
	if r.cluster {
		limit = min(limit, maxHeld)
	}
	args := make([]any, 0, 4+len(entries)+3*len(events))
	args = append(args, strconv.FormatUint(lease.Token, 10), strconv.FormatUint(first, 10), len(entries), limit)
	args, err := appendEntries(op, args, entries)
	if err != nil {
		return nil, err
	}
	args = eventArgs(args, events)
	k := r.keys(lease.Room)
	if r.cluster {
		return &redisAppend{script: scriptAppendHold, keys: []string{k[0], k[2], k[3], r.heldKey(lease.Room)}, args: args,
			room: lease.Room, indexed: len(events) > 0}, nil
	}
	ob := r.outboxKeys()
	return &redisAppend{script: scriptAppendWith, keys: []string{k[0], k[2], k[3], ob[0], ob[1]}, args: args}, nil
}

func (r *Redis) Due(ctx context.Context, now int64, limit int) ([]store.Event, error) {
	const op = "due events"
	if r.cluster {
		// Best effort: a sweep that fails is tried again sweepEvery later.
		_ = r.maybeSweep(ctx, time.Now())
	}
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

// heldWork is what the committer still has to write on a cluster after it
// moved events held by a batch's appends into the outbox (step 3 of
// outboxKeys), and the rooms it failed to index.
type heldWork struct {
	clears  []heldClear
	reindex []string
	// score is the index score of the batch in flight.
	score int64
}

// heldClear is a room's events moved into the outbox, to delete from its
// held hash.
type heldClear struct {
	room string
	ids  []string
}

// stageHeld adds to the committer's first pipeline of a batch (cluster
// only) the deletion of the events the batch before moved (each before its
// room's next script: same node, in order) and the index entry of every
// room of todo whose append holds events, and of the rooms to index again.
// The function it returns, called after the pipeline, reads the outcome.
func (r *Redis) stageHeld(ctx context.Context, pipe redis.Pipeliner, todo []*redisAppend) func() {
	h := &r.held
	clears := h.clears
	h.clears = nil
	for _, c := range clears {
		pipe.HDel(ctx, r.heldKey(c.room), c.ids...)
	}
	h.score = time.Now().UnixMilli()
	rooms := h.reindex
	for _, a := range todo {
		if a.indexed {
			rooms = append(rooms, a.room)
		}
	}
	if len(rooms) == 0 {
		h.reindex = nil
		return nil
	}
	members := make([]redis.Z, len(rooms))
	for i, room := range rooms {
		members[i] = redis.Z{Score: float64(h.score), Member: room}
	}
	index := pipe.ZAdd(ctx, r.heldIndexKey(), members...)
	return func() {
		// A failed deletion leaves moved events held: moved again (a
		// duplicate) by the room's next AppendWith. A failed index entry
		// is written again with the next pipeline: until then only this
		// process knows the room holds events.
		h.reindex = nil
		if index.Err() != nil {
			h.reindex = rooms
		}
	}
}

// flushHeld sends the work stageHeld would carry when no batch comes to
// carry it: the committer is idle.
func (r *Redis) flushHeld() {
	h := &r.held
	if len(h.clears) == 0 && len(h.reindex) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(r.ctx, r.timeout)
	defer cancel()
	pipe := r.c.Pipeline()
	if staged := r.stageHeld(ctx, pipe, nil); staged != nil {
		defer staged()
	}
	_, _ = pipe.Exec(ctx)
	r.roundTrips.Add(1)
}

// heldReply reads scriptAppendHold's reply: the events dropped, then the
// events the room holds as triplets (id, due, attempts|data).
func heldReply(v any) (dropped int64, held []any) {
	out, _ := v.([]any)
	if len(out) == 0 {
		return 0, nil
	}
	dropped, _ = out[0].(int64)
	held = out[1:]
	return dropped, held[:len(held)/3*3]
}

// moveHeld is step 2 (outboxKeys): one script on the outbox's slot moves
// the events every append of todo holds (its own and any an earlier append
// left) and takes the rooms this batch indexed out of the index; each
// append's reply becomes its number of events dropped. When the move fails
// the appends still succeed: their events are stored, held and indexed,
// and a sweep or the room's next AppendWith moves them.
func (r *Redis) moveHeld(ctx context.Context, todo []*redisAppend) {
	var moved []*redisAppend
	var groups [][]any
	unindex := []any{}
	for _, a := range todo {
		if a.room == "" || a.err != nil {
			continue
		}
		dropped, held := heldReply(a.reply)
		a.reply = dropped
		if a.indexed {
			unindex = append(unindex, a.room, r.held.score)
		}
		if len(held) > 0 {
			moved, groups = append(moved, a), append(groups, held)
		}
	}
	if len(moved) == 0 && len(unindex) == 0 {
		return
	}
	args := append([]any{r.opts.MaxOutbox, len(unindex) / 2}, unindex...)
	for _, g := range groups {
		args = append(append(args, len(g)/3), g...)
	}
	v, err := scriptMove.Run(ctx, r.c, append(r.outboxKeys(), r.heldIndexKey()), args...).Result()
	r.roundTrips.Add(1)
	if err != nil {
		return
	}
	counts, _ := v.([]any)
	for i, a := range moved {
		if i < len(counts) {
			n, _ := counts[i].(int64)
			a.reply = a.reply.(int64) + n
		}
		ids := make([]string, 0, len(groups[i])/3)
		for j := 0; j < len(groups[i]); j += 3 {
			id, _ := groups[i][j].(string)
			ids = append(ids, id)
		}
		r.held.clears = append(r.held.clears, heldClear{room: a.room, ids: ids})
	}
}

// maybeSweep sweeps when sweepEvery has passed since this store's last
// sweep.
func (r *Redis) maybeSweep(ctx context.Context, now time.Time) error {
	last := r.lastSweep.Load()
	if now.UnixMilli()-last < sweepEvery.Milliseconds() || !r.lastSweep.CompareAndSwap(last, now.UnixMilli()) {
		return nil
	}
	return r.sweepHeld(ctx, now)
}

// sweepHeld moves the events held by rooms indexed before now - heldGrace
// (up to sweepRooms of them) into the outbox, takes the rooms out of the
// index and deletes what it moved from their held hashes: steps 2 and 3
// of outboxKeys for an append whose committer did not finish.
func (r *Redis) sweepHeld(ctx context.Context, now time.Time) error {
	const op = "sweep held events"
	if err := r.check(op); err != nil {
		return err
	}
	stale, err := r.c.ZRangeByScoreWithScores(ctx, r.heldIndexKey(), &redis.ZRangeBy{
		Min: "-inf", Max: strconv.FormatInt(now.Add(-heldGrace).UnixMilli(), 10), Count: sweepRooms}).Result()
	if err != nil {
		return fmt.Errorf("%s: %w", op, mapErr(err))
	}
	if len(stale) == 0 {
		return nil
	}
	rooms := make([]string, len(stale))
	pipe := r.c.Pipeline()
	cmds := make([]*redis.MapStringStringCmd, len(stale))
	for i, z := range stale {
		rooms[i], _ = z.Member.(string)
		cmds[i] = pipe.HGetAll(ctx, r.heldKey(rooms[i]))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("%s: %w", op, mapErr(err))
	}
	args := []any{r.opts.MaxOutbox, len(stale)}
	for i, z := range stale {
		args = append(args, rooms[i], strconv.FormatFloat(z.Score, 'f', -1, 64))
	}
	ids := make([][]string, len(stale))
	for i, cmd := range cmds {
		var g []any
		for id, v := range cmd.Val() {
			due, rest, ok := strings.Cut(v, "|")
			if !ok {
				continue // not written by scriptAppendHold: leave it
			}
			g = append(g, id, due, rest)
			ids[i] = append(ids[i], id)
		}
		args = append(append(args, len(g)/3), g...)
	}
	if err := scriptMove.Run(ctx, r.c, append(r.outboxKeys(), r.heldIndexKey()), args...).Err(); err != nil {
		return fmt.Errorf("%s: %w", op, mapErr(err))
	}
	pipe = r.c.Pipeline()
	for i, room := range rooms {
		if len(ids[i]) > 0 {
			pipe.HDel(ctx, r.heldKey(room), ids[i]...)
		}
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("%s: %w", op, mapErr(err))
	}
	return nil
}
