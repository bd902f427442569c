package redisstore

import (
	"context"
	"fmt"
	"time"

	"github.com/roomd/roomd/store"
)

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
