package main

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/internal/testredis"
	"github.com/roomd/roomd/protocol"
)

// winSolo plays Minesweeper solo beginner rooms on base as name, with the
// solver on the client's view, until one is won; it returns that room. The
// final reveal's receipt is in when it returns: the match's end is stored.
func winSolo(t *testing.T, base, name string) string {
	t.Helper()
	src := rand.New(rand.NewPCG(uint64(len(name)), 7))
	for try := range 20 {
		code, token := createGame(t, base, "minesweeper", name, `{"mode":"solo","level":"beginner"}`)
		b := dialFollow(t, base, code, token, msPin, func(view, beats json.RawMessage) (json.RawMessage, error) {
			var v minesweeper.View
			var evs []minesweeper.Event
			if err := json.Unmarshal(view, &v); err != nil {
				return nil, err
			}
			if err := json.Unmarshal(beats, &evs); err != nil {
				return nil, err
			}
			if err := v.Apply(evs); err != nil {
				return nil, err
			}
			return json.Marshal(v)
		})
		b.until("the snapshot", 10*time.Second, func() bool { return b.snapshot != nil })
		if id := b.send(protocol.Action{Type: protocol.TypeControl, Control: &protocol.Control{Op: protocol.ControlStart}}); id == "" {
			t.Fatal("start: offline")
		} else if ok, code, _ := b.waitReceipt(id, 10*time.Second); !ok {
			t.Fatalf("start: %s", code)
		}
		for n := 0; ; n++ {
			b.mu.Lock()
			raw := b.view
			b.mu.Unlock()
			var v minesweeper.View
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatal(err)
			}
			if v.Phase == minesweeper.PhaseWon {
				b.close()
				return code
			}
			mv, ok := minesweeper.Rules{}.Choose(v, 0, src)
			if !ok || v.Phase == minesweeper.PhaseLost || n > 200 {
				break // lost: another room
			}
			cmd, _ := json.Marshal(mv)
			id := b.send(protocol.Action{Type: protocol.TypeCommand, Command: cmd})
			if ok, code, _ := b.waitReceipt(id, 10*time.Second); !ok {
				t.Fatalf("try %d, move %s: %s", try, cmd, code)
			}
			b.until("the move's update", 10*time.Second, func() bool { return b.rev >= b.acked[id] })
		}
		b.close()
	}
	t.Fatal("no win in 20 beginner boards")
	return ""
}

// boardNames reads the names on a list.
func boardNames(t *testing.T, base, period string) map[string]bool {
	t.Helper()
	resp, err := http.Get(base + "/api/leaderboards/minesweeper/beginner?mode=solo&period=" + period)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b struct {
		Scores []struct{ Name string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&b); err != nil {
		return nil // a store still down answers an error
	}
	out := map[string]bool{}
	for _, s := range b.Scores {
		out[s.Name] = true
	}
	return out
}

// waitScores waits until every name is on every list.
func waitScores(t *testing.T, base string, names []string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		missing := []string{}
		for _, period := range []string{"all", "day", "week"} {
			have := boardNames(t, base, period)
			for _, n := range names {
				if !have[n] {
					missing = append(missing, period+":"+n)
				}
			}
		}
		if len(missing) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("scores missing from their lists %v after the store came back: %v", within, missing)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestScoresSurviveAStoreOutage: a finished match's scores reach their
// leaderboards however the store fails as the match ends. The real binary
// on a real Redis:
//
//   - the leaderboards cannot be written (their key holds another type, so
//     every write of a score fails with WRONGTYPE) while two matches end,
//     for 5 s: once they can, both scores are on every list (the build
//     before dropped them: one attempt, a warning, gone);
//   - two more matches end with their scores still waiting, and Redis stops
//     for 30 s: once it is back, every score is on every list.
func TestScoresSurviveAStoreOutage(t *testing.T) {
	t.Parallel()
	rs := testredis.Start(t, testredis.Args("--appendfsync", "always"))
	p := startRoomd(t, freeAddr(t), "--redis", rs.URL(), "--quotas=off")
	rdb := redis.NewClient(&redis.Options{Addr: rs.Addr()})
	defer rdb.Close()
	ctx := context.Background()

	// The all-time list's sorted set made a string: Record fails.
	key := "roomd:lb:{minesweeper:beginner:solo}"
	if err := rdb.Set(ctx, key, "not a leaderboard", 0).Err(); err != nil {
		t.Fatal(err)
	}
	first := []string{"Ann", "Bob"}
	for _, n := range first {
		winSolo(t, p.URL, n)
	}
	time.Sleep(5 * time.Second) // several attempts fail meanwhile
	if have := boardNames(t, p.URL, "day"); len(have) != 0 {
		t.Fatalf("the day's list was written before the all-time one could be: %v", have)
	}
	if logs := p.logUntil("handling an event failed; will retry"); !strings.Contains(logs, "handling an event failed; will retry") {
		t.Fatalf("no retry logged while the list could not be written:\n%s", logs)
	}
	if err := rdb.Del(ctx, key).Err(); err != nil {
		t.Fatal(err)
	}
	waitScores(t, p.URL, first, 20*time.Second)

	// Redis stops for 30 s as two more matches end, their scores still
	// waiting (the list unwritable again: set aside, a string in its
	// place): they wait in the outbox, in Redis's append-only file, and
	// reach the lists once it is back.
	aside := key + ":aside" // the same hash tag: the same slot
	if err := rdb.Rename(ctx, key, aside).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.Set(ctx, key, "not a leaderboard", 0).Err(); err != nil {
		t.Fatal(err)
	}
	second := []string{"Cleo", "Dan"}
	for _, n := range second {
		winSolo(t, p.URL, n)
	}
	rs.Stop()
	time.Sleep(30 * time.Second)
	rs.Start()
	if err := rdb.Del(ctx, key).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.Rename(ctx, aside, key).Err(); err != nil {
		t.Fatal(err)
	}
	waitScores(t, p.URL, append(first, second...), 30*time.Second)
	p.term()
}
