package redisstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/internal/sortable"
)

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
