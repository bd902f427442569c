package room

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/store"
)

// longMatch plays a solo expert Minesweeper match of n moves (a reveal, then
// flag toggles) on the pure reducer, calling each after every entry with its
// stored form.
func longMatch(t testing.TB, game, settings string, seats int, n int, move func(i int) (string, int), each func(s *state, e store.Entry)) *state {
	s, err := newState(testGames, "LONG", "E0", game, json.RawMessage(settings), 1000)
	if err != nil {
		t.Fatal(err)
	}
	s.Players, s.Host = []*player{{ID: "p0", Name: "Ann"}}, "p0"
	for i := 1; i < seats; i++ {
		s.Players = append(s.Players, &player{ID: fmt.Sprintf("p%d", i), Name: fmt.Sprint("P", i), Ready: true})
	}
	apply := func(e *entry) {
		e.Rev, e.T = s.Rev+1, 2000+int64(s.Rev)
		if _, err := s.apply(e); err != nil {
			t.Fatalf("rev %d: %v", e.Rev, err)
		}
		data, err := e.encode()
		if err != nil {
			t.Fatal(err)
		}
		each(s, store.Entry{Rev: e.Rev, Data: data})
	}
	apply(&entry{Kind: kindStart, By: "p0", Seed: session.IntSeed(5)})
	for i := range n {
		mv, seat := move(i)
		apply(&entry{Kind: kindCommand, By: fmt.Sprintf("p%d", seat), Aid: fmt.Sprint("a", i), Move: json.RawMessage(mv)})
	}
	return s
}

func flagToggles(i int) (string, int) {
	if i == 0 {
		return `{"type":"reveal","r":8,"c":15}`, 0
	}
	return fmt.Sprintf(`{"type":"flag","r":0,"c":%d}`, i%2), 0
}

func nimTakes(i int) (string, int) { return `{"type":"take","n":1}`, i % 2 }

// TestSnapshotDoesNotGrow: a snapshot holds the room and the match's
// checkpoint, never its log, so it is as large after 4,000 moves as after
// 100; rebuilt from the snapshot and the entries the store keeps, the room
// is the same room. For a game without checkpoints (Nim) the snapshot holds
// no log either: the moves come from the store.
func TestSnapshotDoesNotGrow(t *testing.T) {
	for _, tc := range []struct {
		name, game, settings string
		seats, moves         int
		move                 func(int) (string, int)
	}{
		{"minesweeper (checkpoints)", "minesweeper", `{"mode":"solo","level":"expert"}`, 1, 4000, flagToggles},
		{"nim (no checkpoints)", "nim", `{"pile":60}`, 2, 59, nimTakes},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var kept []store.Entry
			var early, late []byte
			s := longMatch(t, tc.game, tc.settings, tc.seats, tc.moves, tc.move, func(s *state, e store.Entry) {
				kept = append(kept, e)
				if s.Rev == uint64(tc.moves/10) {
					early, _, _ = s.encode()
				}
			})
			late, keep, err := s.encode()
			if err != nil {
				t.Fatal(err)
			}
			if keep != 2 {
				t.Fatalf("the store is asked to keep entries from %d, want 2 (the first move)", keep)
			}
			// Dedup windows fill up to 256 ids per player, then stay.
			if tc.game == "minesweeper" && len(late) > len(early)+256*40 {
				t.Fatalf("snapshot grew from %d bytes at %d moves to %d at %d", len(early), tc.moves/10, len(late), tc.moves)
			}
			var sm snapshot
			json.Unmarshal(late, &sm)
			if sm.Session == nil || len(sm.Session.Prefix) != 0 || (tc.game == "minesweeper") != (sm.Session.Checkpoint != nil) {
				t.Fatalf("stored match %+v", sm.Session)
			}
			back, err := rebuild(testGames, late, kept)
			if err != nil {
				t.Fatal(err)
			}
			for _, viewer := range []int{-1, 0} {
				a, _ := json.Marshal(s.sess.Match().View(viewer))
				b, _ := json.Marshal(back.sess.Match().View(viewer))
				if string(a) != string(b) {
					t.Fatalf("viewer %d: rebuilt %s, want %s", viewer, b, a)
				}
			}
			if len(back.sess.Log()) != len(s.sess.Log()) || back.Rev != s.Rev {
				t.Fatalf("rebuilt log %d rev %d, want %d %d", len(back.sess.Log()), back.Rev, len(s.sess.Log()), s.Rev)
			}
			// The store must keep the match's entries: without them the
			// room refuses to rebuild rather than losing moves.
			if _, err := rebuild(testGames, late, kept[len(kept)/2:]); err == nil {
				t.Fatal("rebuilt with half of the match's entries missing")
			}
		})
	}
}

// BenchmarkLongMatch stores a match of b.N-independent length the way a
// room does — every entry appended, a snapshot every 256 entries — and
// reports the cost per entry and the last snapshot's size: both flat in the
// match's length (100 to 100,000 moves).
func BenchmarkLongMatch(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var size int
			for b.Loop() {
				since := 0
				longMatch(b, "minesweeper", `{"mode":"solo","level":"expert"}`, 1, n, flagToggles, func(s *state, e store.Entry) {
					if since++; since == 256 {
						data, _, err := s.encode()
						if err != nil {
							b.Fatal(err)
						}
						size, since = len(data), 0
					}
				})
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/entry")
			b.ReportMetric(float64(size), "snapshot-bytes")
		})
	}
}

// BenchmarkRestoreBaba10k rebuilds a Baba room whose match holds 10,000
// steps (the most a level takes) as a restart does: from its last
// snapshot — the room and the game's checkpoint, which replays the steps
// from the level's start — and the entries stored since.
func BenchmarkRestoreBaba10k(b *testing.B) {
	var kept []store.Entry
	var snap []byte
	since := 0
	dirs := []string{"up", "down", "down", "up"}
	longMatch(b, "baba", `{"level":"baba-is-you"}`, 1, 10_000, func(i int) (string, int) {
		return fmt.Sprintf(`{"type":"step","dir":%q}`, dirs[i%4]), 0
	}, func(s *state, e store.Entry) {
		kept = append(kept, e)
		if since++; since == 256 {
			data, _, err := s.encode()
			if err != nil {
				b.Fatal(err)
			}
			snap, since = data, 0
		}
	})
	b.ReportAllocs()
	for b.Loop() {
		back, err := rebuild(testGames, snap, kept)
		if err != nil {
			b.Fatal(err)
		}
		if n := len(back.sess.Log()); n != 10_000 {
			b.Fatalf("rebuilt a match of %d steps", n)
		}
	}
	b.ReportMetric(float64(len(snap)), "snapshot-bytes")
}
