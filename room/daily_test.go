package room

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/store/memstore"
)

// TestDailyRoomSurvivesRestart: a daily room created before a restart is
// still the day's daily after it — its match, started on the new process,
// takes the day's secret (room.commitment is the day's) — and a second
// manager on the same store (another node, or the next process) draws the
// same daily key rather than a new one.
func TestDailyRoomSurvivesRestart(t *testing.T) {
	st := memstore.New()
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	start := func() *Manager {
		m, err := NewManager(Config{Games: session.NewRegistry(minesweeper.Game), Store: st, Leaderboards: st, Claims: st,
			Now: func() time.Time { return now }, AIDelay: -1, PresenceInterval: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	stop := func(m *Manager) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := m.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	m1 := start()
	created, err := m1.Create(ctx, CreateRequest{Game: "minesweeper", Settings: json.RawMessage(`{"mode":"solo","level":"expert"}`), Name: "Ann", Daily: true, Client: "10.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	d1, err := m1.Daily(ctx, Daily{Game: "minesweeper", Board: "expert"}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m1.Create(ctx, CreateRequest{Game: "minesweeper", Settings: json.RawMessage(`{"mode":"coop","level":"expert"}`), Name: "Bob", Daily: true}); !errors.Is(err, ErrBadSettings) {
		t.Fatalf("a co-op daily: %v", err)
	}
	stop(m1)

	m2 := start()
	defer stop(m2)
	d2, err := m2.Daily(ctx, Daily{Game: "minesweeper", Board: "expert"}, 10)
	if err != nil || d2.Commitment != d1.Commitment || d2.Mode != "solo" || d2.Day != "2026-12-01" {
		t.Fatalf("after a restart the daily is %+v (%v); before it %+v", d2, err, d1)
	}
	r, err := m2.Get(ctx, created.Room)
	if err != nil {
		t.Fatal(err)
	}
	if info := r.Info(); info.Daily != "2026-12-01" || info.Access != protocol.AccessLocked || !info.WatchLocked {
		t.Fatalf("the restored daily room: daily %q access %q watchLocked %v", info.Daily, info.Access, info.WatchLocked)
	}
	ann := newFake("ann")
	if err := r.Hello(ann, &protocol.Hello{Room: r.Code(), Token: created.Token}); err != nil {
		t.Fatal(err)
	}
	ann.last(t, protocol.TypeSnapshot)
	if rc := act(t, r, ann, "start", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlStart}); !rc.OK {
		t.Fatalf("start: %+v", rc.Notice)
	}
	waitFor(t, "the day's commitment", func() bool { return r.Info().Commitment == d1.Commitment })
}
