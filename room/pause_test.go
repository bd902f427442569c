package room

import (
	"context"
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/session/sessiontest"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/store/memstore"
)

// TestGracefulRestartLeavesOutDowntime: a match running when the server is
// stopped gracefully is not timed while no server runs it — its clock, its
// moves' times and its result leave the minute of downtime out — and the
// credit is an entry, so a restore from the store replays it the same.
// (A crash leaves no stop time; its downtime counts.)
func TestGracefulRestartLeavesOutDowntime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := memstore.New()
		cfg := Config{Games: session.NewRegistry(sessiontest.Tap), Store: st, Leaderboards: st, PresenceInterval: time.Millisecond}
		m1, created, r, ann := startSoloTap(t, cfg)
		(&tapMatch{t: t, r: r, clients: []*fakeClient{ann}}).tap(0) // the clock starts
		time.Sleep(time.Second)
		if err := m1.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Minute) // no server

		m2, err := NewManager(cfg)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := m2.Get(t.Context(), created.Room)
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if c := r2.Info().Clocks; !c.Running || c.ElapsedMs < 900 || c.ElapsedMs > 1100 {
			t.Fatalf("after the restart the match clock reads %+v; want about 1 s, the minute of downtime left out", c)
		}
		ann2 := newFake("ann")
		r2.Hello(ann2, &protocol.Hello{Room: r2.Code(), Token: created.Token})
		synctest.Wait()
		(&tapMatch{t: t, r: r2, clients: []*fakeClient{ann2}}).tap(0) // 2 s of match time
		// A second graceful restart, half a minute down: the next process
		// rebuilds the match from the log, whose moves keep their match
		// times (the first credit is an entry between them).
		if err := m2.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(30 * time.Second)
		m3 := bubbleManager(t, cfg)
		r3, err := m3.Get(t.Context(), created.Room)
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if c := r3.Info().Clocks; !c.Running || c.ElapsedMs < 1900 || c.ElapsedMs > 2100 {
			t.Fatalf("after the second restart the clock reads %+v; want about 2 s", c)
		}
		ann3 := newFake("ann")
		r3.Hello(ann3, &protocol.Hello{Room: r3.Code(), Token: created.Token})
		synctest.Wait()
		(&tapMatch{t: t, r: r3, clients: []*fakeClient{ann3}}).tap(0)
		if got := list(t, m3, "short", "solo", PeriodAll); got != "Ann 3000" {
			t.Fatalf("the result: %q, want Ann 3000 (the 90 s of downtime left out)", got)
		}
		if err := m3.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		m4 := bubbleManager(t, cfg)
		r4, err := m4.Get(t.Context(), created.Room)
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if c := r4.Info().Clocks; c.Running || c.ElapsedMs != 3000 {
			t.Fatalf("restored after the end: clocks %+v, want the result's 3000 ms", c)
		}
	})
}

// TestCrashLeavesOutDowntime: a process that dies without stopping (its
// heartbeat stops, its rooms write nothing more) leaves a running match
// that the next process credits with the time since the last heartbeat:
// the clock reads the match's time until the crash, to the second.
func TestCrashLeavesOutDowntime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := memstore.New()
		cfg := Config{Games: session.NewRegistry(sessiontest.Tap), Store: st, Claims: st, AliveEvery: time.Second, PresenceInterval: time.Millisecond}
		m1, created, r, ann := startSoloTap(t, cfg)
		(&tapMatch{t: t, r: r, clients: []*fakeClient{ann}}).tap(0) // the clock starts at 1 s
		time.Sleep(2500 * time.Millisecond)                         // heartbeats at 0, 1, 2 and 3 s
		m1.stopAlive()                                              // the process dies at 3.5 s: no more heartbeats, no final snapshot
		time.Sleep(time.Minute)

		m2 := bubbleManager(t, cfg)
		r2, err := m2.Get(t.Context(), created.Room)
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if c := r2.Info().Clocks; !c.Running || c.ElapsedMs < 1500 || c.ElapsedMs > 2500 {
			t.Fatalf("after the crash the match clock reads %+v; want about 2 s (from 1 s to the last heartbeat at 3 s)", c)
		}
		m1.Shutdown(context.Background()) // its room's writes are fenced now: m2 holds the room
	})
}

// startSoloTap starts a manager on cfg with a solo Tap room whose match
// has started, Ann connected: the match's clock starts at her first tap.
func startSoloTap(t *testing.T, cfg Config) (*Manager, JoinResult, *Room, *fakeClient) {
	t.Helper()
	m, err := NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	created, err := m.Create(t.Context(), CreateRequest{Game: "tap", Settings: json.RawMessage(`{"board":"short"}`), Name: "Ann"})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := m.Get(t.Context(), created.Room)
	ann := newFake("ann")
	r.Hello(ann, &protocol.Hello{Room: r.Code(), Token: created.Token})
	synctest.Wait()
	sendAct(t, r, ann, "start", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlStart})
	return m, created, r, ann
}
