package room

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/store/memstore"
)

// The room's timers — the idle close, the AI's thinking time, presence
// coalescing, the storage retry — run on fake time: each test is a
// testing/synctest bubble, where time moves only when every goroutine in it
// is blocked, so the tests assert exact durations and never sleep for real.

// bubbleManager is a manager inside the current bubble; it is shut down
// (and its store closed) before the bubble ends.
func bubbleManager(t *testing.T, cfg Config) *Manager {
	t.Helper()
	if cfg.Games == nil {
		cfg.Games = session.NewRegistry(nim.Game)
	}
	if cfg.Store == nil {
		cfg.Store = memstore.New()
	}
	m, err := NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := m.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
		cfg.Store.Close()
	})
	return m
}

func bubbleRoom(t *testing.T, m *Manager, settings string) (*Room, string) {
	t.Helper()
	created, err := m.Create(context.Background(), CreateRequest{Game: "nim", Settings: json.RawMessage(settings), Name: "Ann"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Get(context.Background(), created.Room)
	if err != nil {
		t.Fatal(err)
	}
	return r, created.Token
}

// sendAct pushes an action and waits, on fake time, until the room is idle.
func sendAct(t *testing.T, r *Room, c *fakeClient, id, typ string, cmd json.RawMessage, ctl *protocol.Control) {
	t.Helper()
	if err := r.Act(c, &protocol.Action{Type: typ, ID: id, Rev: currentRev(t, c), Command: cmd, Control: ctl}); err != nil {
		t.Fatal(err)
	}
	synctest.Wait()
}

func TestIdleRoomCloses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := bubbleManager(t, Config{IdleTimeout: 30 * time.Minute})
		r, token := bubbleRoom(t, m, `{}`)
		c := newFake("ann")
		r.Hello(c, &protocol.Hello{Room: r.Code(), Token: token})
		synctest.Wait()
		sendAct(t, r, c, "fill", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlFillWithAI})
		sendAct(t, r, c, "start", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlStart})
		start := time.Now()
		r.Drop(c)
		synctest.Wait()
		time.Sleep(30*time.Minute - time.Millisecond)
		synctest.Wait()
		if _, ok := m.Lookup(r.Code()); !ok {
			t.Fatal("closed before its idle timeout")
		}
		<-r.Done()
		if d := time.Since(start); d != 30*time.Minute {
			t.Fatalf("closed after %v idle, want 30m", d)
		}
		if _, err := m.Get(context.Background(), r.Code()); err != ErrNoRoom {
			t.Fatalf("an idle-closed room answers %v, want ErrNoRoom", err)
		}
	})
}

// TestConnectionKeepsRoomOpen: a connected member counts as activity only
// when it joins or leaves: the idle clock runs from the last change of
// either kind.
func TestConnectionKeepsRoomOpen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := bubbleManager(t, Config{IdleTimeout: time.Minute, LobbyTimeout: time.Hour, SeatGrace: time.Hour})
		r, token := bubbleRoom(t, m, `{}`)
		time.Sleep(50 * time.Second)
		c := newFake("ann")
		r.Hello(c, &protocol.Hello{Room: r.Code(), Token: token})
		synctest.Wait()
		time.Sleep(50 * time.Second)
		synctest.Wait()
		if _, ok := m.Lookup(r.Code()); !ok {
			t.Fatal("closed 50 s after a connection arrived")
		}
		start := time.Now()
		<-r.Done()
		if d := time.Since(start); d != 10*time.Second || c.closeCode() != protocol.CloseRoomClosed {
			t.Fatalf("closed %v later with %d, want 10s and 4004", d, c.closeCode())
		}
	})
}

func TestAIThinksForItsDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := bubbleManager(t, Config{AIDelay: 400 * time.Millisecond})
		r, token := bubbleRoom(t, m, `{"pile":21}`)
		c := newFake("ann")
		r.Hello(c, &protocol.Hello{Room: r.Code(), Token: token})
		synctest.Wait()
		sendAct(t, r, c, "fill", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlFillWithAI})
		sendAct(t, r, c, "start", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlStart})
		sendAct(t, r, c, "take", protocol.TypeCommand, json.RawMessage(`{"type":"take","n":1}`), nil)
		moved := currentRev(t, c)
		time.Sleep(399 * time.Millisecond)
		synctest.Wait()
		if currentRev(t, c) != moved {
			t.Fatal("the AI moved before its delay")
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		last := c.last(t, protocol.TypeUpdate).Update
		if last.To != moved+1 || last.By == nil || *last.By != 1 {
			t.Fatalf("after 400 ms: update %+v, want the AI's move at %d", last, moved+1)
		}
	})
}

func TestPresenceIsCoalesced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := bubbleManager(t, Config{PresenceInterval: 100 * time.Millisecond})
		r, token := bubbleRoom(t, m, `{}`)
		host := newFake("host")
		r.Hello(host, &protocol.Hello{Room: r.Code(), Token: token})
		synctest.Wait()
		time.Sleep(time.Second) // past the first presence
		synctest.Wait()
		count := func() int {
			n := 0
			for _, msg := range host.messages(t) {
				if msg.Presence != nil {
					n++
				}
			}
			return n
		}
		before := count()
		for i := range 5 {
			r.Hello(newFake("spec"+string(rune('0'+i))), &protocol.Hello{Room: r.Code(), Watch: true})
			time.Sleep(10 * time.Millisecond)
		}
		synctest.Wait()
		if n := count(); n != before+1 {
			t.Fatalf("5 spectators within 50 ms: %d presence messages, want 1", n-before)
		}
		time.Sleep(100 * time.Millisecond)
		synctest.Wait()
		if n := count(); n != before+2 {
			t.Fatalf("after the interval: %d presence messages, want 2", n-before)
		}
		if p := host.last(t, protocol.TypePresence).Presence; p.Spectators != 5 {
			t.Fatalf("presence %+v, want 5 spectators", p)
		}
	})
}

// TestShutdownStopsTheLeaderboardWriter: a shutdown whose time runs out
// before every room has stopped still stops the leaderboard writer (rooms
// still running drop their results, logged) instead of leaving it behind.
func TestShutdownStopsTheLeaderboardWriter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := memstore.New()
		defer st.Close()
		m, err := NewManager(Config{Games: session.NewRegistry(nim.Game), Store: st, Leaderboards: st})
		if err != nil {
			t.Fatal(err)
		}
		r, _ := bubbleRoom(t, m, `{}`)
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // no time at all: the room cannot have stopped yet
		if err := m.Shutdown(ctx); err == nil {
			t.Fatal("a shutdown out of time reported success")
		}
		synctest.Wait()
		select {
		case <-m.scoresDone:
		default:
			t.Fatal("the leaderboard writer still runs after the shutdown")
		}
		m.record(finished{}) // a late result is dropped, not sent to a stopped writer
		<-r.Done()
	})
}

// TestAbsentSeatsAreGivenUp: seats taken over HTTP that never come online,
// and seats whose player went away, are given up after SeatGrace in the
// lobby, so that nobody can keep a room full; a player who comes back in
// time keeps the seat.
func TestAbsentSeatsAreGivenUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := bubbleManager(t, Config{SeatGrace: 30 * time.Second, LobbyTimeout: time.Hour})
		r, token := bubbleRoom(t, m, `{"pile":9}`)
		host := newFake("host")
		r.Hello(host, &protocol.Hello{Room: r.Code(), Token: token})
		synctest.Wait()
		for _, name := range []string{"squat1", "squat2"} {
			if _, err := r.Join(t.Context(), name, "", ""); err != nil {
				t.Fatal(err)
			}
		}
		back := newFake("back")
		r.Hello(back, &protocol.Hello{Room: r.Code(), Name: "Bob"})
		synctest.Wait()
		bobToken := back.last(t, protocol.TypeWelcome).Welcome.Token
		r.Drop(back)
		synctest.Wait()
		if n := len(r.Info().Seats); n != 4 {
			t.Fatalf("%d seats, want 4", n)
		}
		time.Sleep(20 * time.Second)
		again := newFake("again")
		r.Hello(again, &protocol.Hello{Room: r.Code(), Token: bobToken}) // Bob comes back in time
		synctest.Wait()
		time.Sleep(15 * time.Second) // 35 s after the joins
		synctest.Wait()
		var names []string
		for _, s := range r.Info().Seats {
			names = append(names, s.Name)
		}
		if strings.Join(names, ",") != "Ann,Bob" {
			t.Fatalf("seats after the grace: %v, want Ann and Bob", names)
		}
	})
}

// TestEmptyLobbyCloses: a lobby nobody is in closes after LobbyTimeout.
func TestEmptyLobbyCloses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := bubbleManager(t, Config{LobbyTimeout: 2 * time.Minute})
		r, _ := bubbleRoom(t, m, `{}`)
		start := time.Now()
		<-r.Done()
		// The host never came: its seat is given up after the grace (30 s),
		// and the lobby closes 2 minutes after that last change.
		if d := time.Since(start); d != 30*time.Second+2*time.Minute {
			t.Fatalf("an empty lobby closed after %v", d)
		}
	})
}
