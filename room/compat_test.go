package room

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/internal/testredis"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/boltstore"
	"github.com/roomd/roomd/store/redisstore"
)

// The stored-format fixtures (testdata/fixtures/README.md): rooms as main at
// 0f4e0bf stored them, in a bbolt file and a Redis dump, with the snapshot
// frame each seat and a spectator received from the live room.

const fixtureDir = "../testdata/fixtures/v1"

type fixtureRoom struct {
	Code   string                     `json:"code"`
	What   string                     `json:"what"`
	Tokens map[string]string          `json:"tokens"`
	Frames map[string]json.RawMessage `json:"frames"`
}

type fixtureFile struct {
	Rooms  []fixtureRoom `json:"rooms"`
	Closed []string      `json:"closed"`
	Scores []struct {
		Name string  `json:"name"`
		Time float64 `json:"time"`
	} `json:"scores"`
}

func loadFixture(t *testing.T, name string) fixtureFile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtureDir, name))
	if err != nil {
		t.Fatal(err)
	}
	var fx fixtureFile
	if err := json.Unmarshal(data, &fx); err != nil {
		t.Fatal(err)
	}
	if len(fx.Rooms) < 9 {
		t.Fatalf("%s has %d rooms", name, len(fx.Rooms))
	}
	return fx
}

// openFixtureStores returns each fixture's store, opened on a copy.
func openFixtureStores(t *testing.T) map[string]func(t *testing.T) store.Backend {
	return map[string]func(t *testing.T) store.Backend{
		"bolt": func(t *testing.T) store.Backend {
			data, err := os.ReadFile(filepath.Join(fixtureDir, "bolt", boltstore.BoltFile))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, boltstore.BoltFile), data, 0o600); err != nil {
				t.Fatal(err)
			}
			return func() store.Backend {
				b, err := boltstore.Open(dir, boltstore.BoltOptions{SweepInterval: -1})
				if err != nil {
					t.Fatal(err)
				}
				return b
			}()
		},
		"redis": func(t *testing.T) store.Backend {
			srv := testredis.Start(t, testredis.FromRDB(filepath.Join(fixtureDir, "redis.rdb")))
			r, err := redisstore.Open(context.Background(), srv.URL(), redisstore.RedisOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return r
		},
	}
}

// TestStoredV1RoomsLoad: every room of both fixtures comes back with this
// build, and each seat and a spectator see exactly what they saw from the
// version that stored it; the rooms take new moves; after a graceful
// shutdown (which stores them in this build's format, their old log kept in
// the snapshot) they come back again the same; the closed room stays gone;
// the leaderboard entry is there.
func TestStoredV1RoomsLoad(t *testing.T) {
	for kind, open := range openFixtureStores(t) {
		t.Run(kind, func(t *testing.T) {
			fx := loadFixture(t, kind+".json")
			st := open(t)
			defer st.Close()
			for pass := range 2 {
				m, err := NewManager(Config{Games: testGames, Store: st, Leaderboards: st, AIDelay: time.Hour})
				if err != nil {
					t.Fatal(err)
				}
				for _, fr := range fx.Rooms {
					checkFixtureRoom(t, m, fr, pass)
				}
				// The lists of earlier versions mixed modes and held
				// AI-assisted matches ("Cat & AI 2"): they are retired, and
				// no list this version serves shows them.
				for _, mode := range []string{"solo", "coop", "race"} {
					b, err := m.Leaderboard(context.Background(), "minesweeper", "beginner", mode, PeriodAll, 100)
					if err != nil || len(b.Scores) != 0 {
						t.Fatalf("%s list after loading old rooms: %+v, %v", mode, b.Scores, err)
					}
				}
				for _, code := range fx.Closed {
					if _, err := m.Get(context.Background(), code); err != ErrNoRoom {
						t.Fatalf("closed room %s: %v, want ErrNoRoom", code, err)
					}
				}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				if err := m.Shutdown(ctx); err != nil {
					t.Fatal(err)
				}
				cancel()
			}
		})
	}
}

// checkFixtureRoom restores one room and compares what each seat's token
// and a spectator get with the stored frames. On the first pass it also
// plays one more move where a human may.
func checkFixtureRoom(t *testing.T, m *Manager, fr fixtureRoom, pass int) {
	t.Helper()
	r, err := m.Get(context.Background(), fr.Code)
	if err != nil {
		t.Fatalf("%s (%s): %v", fr.Code, fr.What, err)
	}
	seats := make([]string, 0, len(fr.Frames))
	for seat := range fr.Frames {
		seats = append(seats, seat)
	}
	sort.Strings(seats)
	for _, seat := range seats {
		c := newFake(fr.Code + "/" + seat)
		h := &protocol.Hello{Room: fr.Code, Token: fr.Tokens[seat], Watch: seat == "spectator"}
		if err := r.Hello(c, h); err != nil {
			t.Fatal(err)
		}
		got := c.last(t, protocol.TypeSnapshot).Snapshot
		var want protocol.ServerMessage
		if want, err = protocol.DecodeServer(fr.Frames[seat]); err != nil || want.Snapshot == nil {
			t.Fatalf("%s: fixture frame %s: %v", fr.Code, seat, err)
		}
		compareSnapshots(t, fr, seat, want.Snapshot, got, pass)
		r.Drop(c)
	}
	if want, _ := protocol.DecodeServer(fr.Frames["spectator"]); want.Snapshot != nil && want.Snapshot.Result != nil {
		rp, err := r.Replay(context.Background())
		w := want.Snapshot.Result
		if err != nil || !bytes.Equal(compactJSON(rp.Log), compactJSON(w.Log)) || !bytes.Equal(rp.Seed, w.Seed) || rp.Result.Status != w.Status {
			t.Fatalf("%s: replay %v, %s seed %s log %s\nwant %s seed %s log %s", fr.Code, err, rp.Result.Status, rp.Seed, rp.Log, w.Status, w.Seed, w.Log)
		}
	}
	if pass == 0 && fr.Frames["0"] != nil {
		// A move where the host may play one: the room takes new entries
		// after its old ones.
		var probe struct {
			Room protocol.Room `json:"room"`
		}
		json.Unmarshal(fr.Frames["0"], &probe)
		if probe.Room.Phase == protocol.PhaseRunning && probe.Room.Game.ID == "minesweeper" && probe.Room.Mode == "solo" {
			c := newFake("mover")
			r.Hello(c, &protocol.Hello{Room: fr.Code, Token: fr.Tokens["0"]})
			snap := c.last(t, protocol.TypeSnapshot).Snapshot
			rc := act(t, r, c, "compat-move", protocol.TypeCommand, hiddenFlag(t, snap.View), nil)
			if !rc.OK {
				t.Fatalf("%s: a new move after restore: %+v", fr.Code, rc.Notice)
			}
			r.Drop(c)
		}
	}
}

// compareSnapshots compares what a seat sees now with what it saw: the
// revision and epoch (plus the one move of the first pass), the view byte
// for byte, the seats, settings and phase, and the result with its log.
func compareSnapshots(t *testing.T, fr fixtureRoom, seat string, want, got *protocol.Snapshot, pass int) {
	t.Helper()
	where := fr.Code + " (" + fr.What + ") seat " + seat
	moved := pass == 1 && want.Room.Phase == protocol.PhaseRunning && want.Room.Game.ID == "minesweeper" && want.Room.Mode == "solo"
	wantRev := want.Rev
	if moved {
		wantRev++
	}
	if pass == 1 && want.Room.Phase == protocol.PhaseRunning && want.Room.Hz == 0 && got.Rev == wantRev+1 && got.Room.Clocks.Running {
		wantRev++ // the graceful shutdown between the passes is credited to a running match's clock (kindResume)
	}
	if got.Rev != wantRev || got.Epoch != want.Epoch {
		t.Fatalf("%s: rev %d epoch %s, want %d %s", where, got.Rev, got.Epoch, wantRev, want.Epoch)
	}
	if (got.Seat == nil) != (want.Seat == nil) || (got.Seat != nil && *got.Seat != *want.Seat) {
		t.Fatalf("%s: seat %v, want %v", where, got.Seat, want.Seat)
	}
	if !moved {
		wv, _ := json.Marshal(want.View)
		gv, _ := json.Marshal(got.View)
		if !bytes.Equal(wv, gv) && !sameRace(t, wv, gv) {
			t.Fatalf("%s: view\n%s\nwant\n%s", where, gv, wv)
		}
	}
	if got.Room.Phase != want.Room.Phase || got.Room.Match != want.Room.Match || got.Room.Mode != want.Room.Mode ||
		!bytes.Equal(compactJSON(got.Room.Settings), compactJSON(want.Room.Settings)) || got.Room.Game != want.Room.Game {
		t.Fatalf("%s: room %+v, want %+v", where, got.Room, want.Room)
	}
	if len(got.Room.Seats) != len(want.Room.Seats) {
		t.Fatalf("%s: seats %+v, want %+v", where, got.Room.Seats, want.Room.Seats)
	}
	for i, s := range want.Room.Seats {
		g := got.Room.Seats[i]
		if g.Name != s.Name || g.AI != s.AI || g.Ready != s.Ready {
			t.Fatalf("%s: seat %d is %+v, want %+v", where, i, g, s)
		}
	}
	if (got.Result == nil) != (want.Result == nil) {
		t.Fatalf("%s: result %+v, want %+v", where, got.Result, want.Result)
	}
	if w, g := want.Result, got.Result; w != nil {
		// The result's log is no longer in snapshots: the room's replay
		// serves it (checked in checkFixtureRoom).
		if g.Status != w.Status || g.TimeMs != w.TimeMs || !bytes.Equal(g.Seed, w.Seed) || g.Match != w.Match || len(g.Log) != 0 ||
			!bytes.Equal(compactJSON(g.Config), compactJSON(w.Config)) {
			t.Fatalf("%s: result %s %v %s match %d log %d bytes, config %s\nwant %s %v %s match %d, config %s", where,
				g.Status, g.TimeMs, g.Seed, g.Match, len(g.Log), g.Config, w.Status, w.TimeMs, w.Seed, w.Match, w.Config)
		}
	}
}

// sameRace reports whether two Minesweeper race views show the same match,
// where got is projected as this build does: every board's progress is the
// same, a board whose cells got shows has the same cells in want, and its
// flags count is want's flags. Earlier versions showed a spectator every
// board during a race, and sent no flags count.
func sameRace(t *testing.T, want, got []byte) bool {
	t.Helper()
	var w, g minesweeper.View
	if json.Unmarshal(want, &w) != nil || json.Unmarshal(got, &g) != nil || !w.Race || !g.Race || len(w.Boards) != len(g.Boards) || w.Phase != g.Phase {
		return false
	}
	for i, gb := range g.Boards {
		wb := w.Boards[i]
		if gb.Seat != wb.Seat || gb.Phase != wb.Phase || gb.Revealed != wb.Revealed || gb.Safe != wb.Safe {
			return false
		}
		if !gb.Visible {
			continue
		}
		wc, _ := json.Marshal(wb.Cells)
		gc, _ := json.Marshal(gb.Cells)
		flags := 0
		for _, c := range wb.Cells {
			if c.Status == minesweeper.Flagged {
				flags++
			}
		}
		if !wb.Visible || !bytes.Equal(wc, gc) || gb.Flags != flags {
			return false
		}
	}
	return true
}

// hiddenFlag is a flag on the first cell a Minesweeper view shows nothing
// of.
func hiddenFlag(t *testing.T, view any) json.RawMessage {
	t.Helper()
	raw, _ := json.Marshal(view)
	var v minesweeper.View
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	shown := map[[2]int]bool{}
	for _, c := range v.Cells {
		shown[[2]int{c.R, c.C}] = true
	}
	for k := range v.Rows * v.Cols {
		if !shown[[2]int{k / v.Cols, k % v.Cols}] {
			return json.RawMessage(fmt.Sprintf(`{"type":"flag","r":%d,"c":%d}`, k/v.Cols, k%v.Cols))
		}
	}
	t.Fatal("no hidden cell")
	return nil
}

func compactJSON(b []byte) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return b
	}
	return buf.Bytes()
}
