package room

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/session/sessiontest"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/memstore"
)

// tick.go's tests run in synctest bubbles: the room's timer and clock are
// the bubble's, so ticks come exactly on schedule and nothing sleeps.

const tickStep = time.Second / sessiontest.TickerHz

func tickerManager(t *testing.T, st store.Store) *Manager {
	if st == nil {
		st = memstore.New()
	}
	return bubbleManager(t, Config{Games: session.NewRegistry(sessiontest.Ticker), Store: st, PresenceInterval: time.Millisecond,
		CheckpointInterval: 10 * tickStep})
}

// snapshotSpy keeps every snapshot written, and its match's ticks.
type snapshotSpy struct {
	*memstore.Memory
	mu    sync.Mutex
	ticks []uint64
	data  [][]byte
}

func (s *snapshotSpy) WriteSnapshot(ctx context.Context, l store.Lease, snap store.Snapshot) error {
	var v struct {
		Session *struct {
			Ticks uint64 `json:"ticks"`
		} `json:"session"`
	}
	if json.Unmarshal(snap.Data, &v) == nil && v.Session != nil {
		s.mu.Lock()
		s.ticks = append(s.ticks, v.Session.Ticks)
		s.data = append(s.data, snap.Data)
		s.mu.Unlock()
	}
	return s.Memory.WriteSnapshot(ctx, l, snap)
}

// tickerRoom creates a Ticker room of ticks ticks, seats its host as a fake
// client and starts the match.
func tickerRoom(t *testing.T, m *Manager, settings string, ai int) (*Room, *fakeClient, string) {
	t.Helper()
	created, err := m.Create(context.Background(), CreateRequest{Game: "ticker", Settings: json.RawMessage(settings), Name: "Ann"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Get(context.Background(), created.Room)
	if err != nil {
		t.Fatal(err)
	}
	host := newFake("host")
	if err := r.Hello(host, &protocol.Hello{Room: r.Code(), Token: created.Token}); err != nil {
		t.Fatal(err)
	}
	synctest.Wait()
	for range ai {
		sendAct(t, r, host, "fill", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlFillWithAI})
	}
	sendAct(t, r, host, "start", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlStart})
	if rc := host.receipt(t, "start"); !rc.OK {
		t.Fatalf("start refused: %+v", rc.Notice)
	}
	return r, host, created.Token
}

// ticksOf returns the ticks c received, checking that each message's from
// is the revision the one before it reached (snapshots and updates count).
func ticksOf(t *testing.T, c *fakeClient) []protocol.Tick {
	t.Helper()
	var (
		out []protocol.Tick
		rev uint64
	)
	for _, m := range c.messages(t) {
		switch {
		case m.Snapshot != nil:
			rev = m.Snapshot.Rev
		case m.Update != nil:
			if m.Update.From != rev {
				t.Fatalf("update %d→%d after revision %d", m.Update.From, m.Update.To, rev)
			}
			rev = m.Update.To
		case m.Tick != nil:
			if m.Tick.From != rev || m.Tick.To < m.Tick.From {
				t.Fatalf("tick %d: %d→%d after revision %d", m.Tick.Tick, m.Tick.From, m.Tick.To, rev)
			}
			rev = m.Tick.To
			out = append(out, *m.Tick)
		}
	}
	return out
}

// TestTickingMatch: a real-time match ticks on its rate from the room's
// timer, one tick message per tick numbered without gaps; an input is
// accepted with the tick it takes effect at, shows in that tick's beats,
// and the world's end is stored and published with the match's ticks.
func TestTickingMatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := tickerManager(t, nil)
		r, host, _ := tickerRoom(t, m, `{"ticks":40}`, 0)
		if info := r.Info(); info.Hz != sessiontest.TickerHz || info.Paused {
			t.Fatalf("room info hz %d paused %v", info.Hz, info.Paused)
		}
		time.Sleep(10*tickStep + tickStep/2)
		synctest.Wait()
		if n := len(ticksOf(t, host)); n != 10 {
			t.Fatalf("%d ticks after 10.5 steps, want 10", n)
		}
		sendAct(t, r, host, "add", protocol.TypeCommand, json.RawMessage(`{"add":3}`), nil)
		rc := host.receipt(t, "add")
		if !rc.OK || rc.Tick != 11 {
			t.Fatalf("input receipt %+v, want ok at tick 11", rc)
		}
		time.Sleep(40 * tickStep)
		synctest.Wait()
		ticks := ticksOf(t, host)
		for i, tk := range ticks {
			if tk.Tick != uint64(i+1) {
				t.Fatalf("tick message %d is tick %d", i, tk.Tick)
			}
		}
		if len(ticks) != 40 {
			t.Fatalf("%d ticks, want 40", len(ticks))
		}
		if got := string(ticks[10].Beats.(json.RawMessage)); got != "[3]" {
			t.Fatalf("tick 11 beats %s, want [3]", got)
		}
		if ticks[10].To != rc.Rev {
			t.Fatalf("tick 11 reaches revision %d, the input's is %d", ticks[10].To, rc.Rev)
		}
		end := host.last(t, protocol.TypeUpdate).Update
		if end.Result == nil || end.Result.Ticks != 40 || end.Room.Phase != protocol.PhaseEnded {
			t.Fatalf("last update %+v, want the end at tick 40", end)
		}
		var log []session.Entry
		if err := json.Unmarshal(end.Result.Log, &log); err != nil || len(log) != 1 || log[0].Tick != 11 {
			t.Fatalf("result log %s (%v), want the input at tick 11", end.Result.Log, err)
		}
		rp, err := r.Replay(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		body, _ := json.Marshal(rp)
		if v, err := Verify(m.cfg.Games, body); err != nil || !v.Fair || !v.Replay.Valid || v.Replay.Status != "over" {
			t.Fatalf("the match does not verify: %+v %v", v, err)
		}
	})
}

// TestTickPauseRule: with no human player connected the match stops
// ticking, and says so; when one comes back it gets a snapshot at the tick
// it stopped at and the ticks go on from there. An AI-only match ticks
// while someone watches.
func TestTickPauseRule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := tickerManager(t, nil)
		r, host, token := tickerRoom(t, m, `{"ticks":100}`, 1)
		time.Sleep(5*tickStep + tickStep/2)
		synctest.Wait()
		r.Drop(host)
		synctest.Wait()
		at := len(ticksOf(t, host))
		time.Sleep(time.Second)
		synctest.Wait()
		if !r.Info().Paused {
			t.Fatal("room info does not say paused with nobody there")
		}
		back := newFake("back")
		if err := r.Hello(back, &protocol.Hello{Room: r.Code(), Token: token}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		snap := back.last(t, protocol.TypeSnapshot).Snapshot
		if snap.Tick != uint64(at) {
			t.Fatalf("snapshot at tick %d after a pause at %d: time passed for the match", snap.Tick, at)
		}
		if snap.Room.Paused {
			t.Fatal("the snapshot to the returning player says paused")
		}
		time.Sleep(3*tickStep + tickStep/2)
		synctest.Wait()
		ticks := ticksOf(t, back)
		if len(ticks) != 3 || ticks[0].Tick != snap.Tick+1 {
			t.Fatalf("ticks after coming back: %+v, want 3 from %d", ticks, snap.Tick+1)
		}
		// An AI-only match: the host leaves, the AI plays its seat; it ticks
		// while a spectator watches, not when nobody does.
		sendAct(t, r, back, "leave", protocol.TypeLeave, nil, nil)
		synctest.Wait()
		watcher := newFake("watcher")
		if err := r.Hello(watcher, &protocol.Hello{Room: r.Code(), Watch: true}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(4 * tickStep)
		synctest.Wait()
		if n := len(ticksOf(t, watcher)); n < 3 {
			t.Fatalf("an AI-only match watched by a spectator ran %d ticks in 4 steps", n)
		}
	})
}

// TestTickRestore: what the store holds of a real-time match is its inputs
// and, now and then, a snapshot with the game's checkpoint; rebuilt from
// it, the match stands at its last input's tick with that input queued,
// and runs on to the same world.
func TestTickRestore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := &snapshotSpy{Memory: memstore.New()}
		m := tickerManager(t, st)
		r, host, _ := tickerRoom(t, m, `{"ticks":60}`, 1)
		time.Sleep(12*tickStep + tickStep/2)
		synctest.Wait()
		// Checkpoints while it ticks: every 10 ticks here.
		st.mu.Lock()
		written := slices.Clone(st.ticks)
		at10 := slices.Index(written, 10)
		if at10 < 0 {
			t.Fatalf("snapshots at ticks %v, want one at tick 10", written)
		}
		checkpoint := st.data[at10]
		st.mu.Unlock()
		sendAct(t, r, host, "a", protocol.TypeCommand, json.RawMessage(`{"add":5}`), nil)
		rc := host.receipt(t, "a")
		time.Sleep(60 * tickStep)
		synctest.Wait()
		final := host.last(t, protocol.TypeUpdate).Update
		if final.Result == nil {
			t.Fatal("the match did not end")
		}
		// What a process that takes the room over (after a kill -9) loads:
		_, rec, err := st.Open(context.Background(), r.Code())
		if err != nil {
			t.Fatal(err)
		}
		entries := rec.Entries
		cut := slices.IndexFunc(entries, func(e store.Entry) bool { return e.Rev == rc.Rev })
		if cut < 0 {
			t.Fatalf("the input's entry %d is not stored", rc.Rev)
		}
		// From the checkpoint at tick 10 and the entries up to the input:
		mid, err := rebuild(m.cfg.Games, checkpoint, entries[:cut+1])
		if err != nil {
			t.Fatal(err)
		}
		if mid.Phase != phaseRunning || mid.sess.Tick() != rc.Tick-1 {
			t.Fatalf("rebuilt up to the input: phase %s tick %d, want running at %d", mid.Phase, mid.sess.Tick(), rc.Tick-1)
		}
		whole, err := rebuild(m.cfg.Games, rec.Snapshot.Data, entries)
		if err != nil {
			t.Fatal(err)
		}
		if whole.Phase != phaseEnded || whole.sess.Tick() != 60 || whole.Result.Ticks != 60 {
			t.Fatalf("rebuilt whole: phase %s tick %d", whole.Phase, whole.sess.Tick())
		}
		got, _ := json.Marshal(whole.sess.Match().View(0))
		var want sessiontest.TickerView
		if err := json.Unmarshal(final.View.(json.RawMessage), &want); err != nil {
			t.Fatal(err)
		}
		if w, _ := json.Marshal(want); string(got) != string(w) {
			t.Fatalf("rebuilt world %s, the room's was %s", got, w)
		}
	})
}

// TestTickCatchUpBound: after a stall (here the host's clock jumps a
// second) the room runs at most a tenth of a second's ticks at once and
// drops the rest; the dropped ticks never happen (tick numbers stay
// contiguous) and are counted in roomd_ticks_skipped_total.
func TestTickCatchUpBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var jump atomic.Int64
		reg := prometheus.NewRegistry()
		m := bubbleManager(t, Config{Games: session.NewRegistry(sessiontest.Ticker), PresenceInterval: time.Millisecond,
			Metrics: NewMetrics(reg), Now: func() time.Time { return time.Now().Add(time.Duration(jump.Load())) }})
		_, host, _ := tickerRoom(t, m, `{"ticks":1000}`, 0)
		time.Sleep(3*tickStep + tickStep/2)
		synctest.Wait()
		jump.Store(int64(time.Second)) // 50 ticks due at once
		time.Sleep(tickStep)
		synctest.Wait()
		ticks := ticksOf(t, host)
		for i, tk := range ticks {
			if tk.Tick != uint64(i+1) {
				t.Fatalf("tick message %d is tick %d", i, tk.Tick)
			}
		}
		bound := sessiontest.TickerHz / 10
		if len(ticks) != 3+bound {
			t.Fatalf("%d ticks after the jump, want 3 + %d (the catch-up bound)", len(ticks), bound)
		}
		skipped := testutil.ToFloat64(m.cfg.Metrics.tickSkipped.WithLabelValues("ticker"))
		if want := float64(sessiontest.TickerHz + 1 - bound); skipped != want {
			t.Fatalf("roomd_ticks_skipped_total = %v, want %v", skipped, want)
		}
	})
}

// TestTickRematch: a rematch of a real-time match ticks again from tick 1,
// after the update that starts it; a spectator gets the same ticks.
func TestTickRematch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := tickerManager(t, nil)
		r, host, _ := tickerRoom(t, m, `{"ticks":20}`, 0)
		watcher := newFake("watcher")
		if err := r.Hello(watcher, &protocol.Hello{Room: r.Code(), Watch: true}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(25 * tickStep)
		synctest.Wait()
		sendAct(t, r, host, "again", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlRematch})
		if rc := host.receipt(t, "again"); !rc.OK {
			t.Fatalf("rematch refused: %+v", rc.Notice)
		}
		time.Sleep(25 * tickStep)
		synctest.Wait()
		for _, c := range []*fakeClient{host, watcher} {
			var numbers []uint64
			for _, tk := range ticksOf(t, c) {
				numbers = append(numbers, tk.Tick)
			}
			if len(numbers) < 40 || numbers[len(numbers)-20] != 1 || numbers[len(numbers)-1] != 20 {
				t.Fatalf("%s got ticks %v, want the second match's 1..20 after the first's", c.id, numbers)
			}
		}
		if n := len(r.Info().Seats); n != 1 || r.Info().Match != 2 {
			t.Fatalf("room after the rematch: %+v", r.Info())
		}
	})
}
