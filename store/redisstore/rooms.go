package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/internal/fence"
)

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
