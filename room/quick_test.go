package room

import (
	"context"
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"

	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/tictactoe"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/store/memstore"
)

// Quick-play rooms start by themselves (quick.go), on the bubble's fake
// clock: the countdown is exact, a seat that leaves or loses its
// connection cancels it, and it runs again once the seats are back.

// quickSeed is every match's seed in these tests (Config.Seeds).
var quickSeed = session.IntSeed(4343)

func quickManager(t *testing.T) *Manager {
	t.Helper()
	return bubbleManager(t, Config{Games: session.NewRegistry(tictactoe.Game, nim.Game), AIDelay: -1,
		PresenceInterval: time.Millisecond, Seeds: func() session.Seed { return quickSeed }})
}

// quickSeat quick-plays name into game's room with settings and returns the
// room and the seat's token.
func quickSeat(t *testing.T, m *Manager, game, settings, name string) (*Room, QuickPlayResult) {
	t.Helper()
	res, err := m.QuickPlay(t.Context(), QuickPlayRequest{Game: game, Settings: json.RawMessage(settings), Name: name})
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Get(t.Context(), res.Room)
	if err != nil {
		t.Fatal(err)
	}
	synctest.Wait()
	return r, res
}

// connect opens seat token's connection as c and waits for the room.
func connect(t *testing.T, r *Room, c *fakeClient, token string) {
	t.Helper()
	if err := r.Hello(c, &protocol.Hello{Room: r.Code(), Token: token}); err != nil {
		t.Fatal(err)
	}
	synctest.Wait()
}

// lastStartsAt is the last room.startsAt the client was told (snapshot,
// update or presence).
func lastStartsAt(t *testing.T, c *fakeClient) int64 {
	t.Helper()
	var at int64
	for _, m := range c.messages(t) {
		switch {
		case m.Snapshot != nil:
			at = m.Snapshot.Room.StartsAt
		case m.Update != nil && m.Update.Room != nil:
			at = m.Update.Room.StartsAt
		case m.Presence != nil:
			at = m.Presence.StartsAt
		}
	}
	return at
}

// TestQuickPlayCountsDownAndStarts: two quick plays share a tic-tac-toe
// room; it counts down from the second seat's connection, exactly
// QuickStart, told to both players, then starts its match itself with an
// ordinary start entry and the configured seed.
func TestQuickPlayCountsDownAndStarts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := quickManager(t)
		r, ann := quickSeat(t, m, "tictactoe", `{}`, "Ann")
		_, bob := quickSeat(t, m, "tictactoe", `{}`, "Bob")
		if bob.Room != ann.Room || bob.Seat != 1 || !ann.Created || bob.Created {
			t.Fatalf("quick plays: %+v then %+v", ann, bob)
		}
		if info := r.Info(); !info.Quick || info.StartsAt != 0 || info.Access != protocol.AccessPublic {
			t.Fatalf("the quick-play room: quick %v startsAt %d access %s", info.Quick, info.StartsAt, info.Access)
		}
		a, b := newFake("ann"), newFake("bob")
		connect(t, r, a, ann.Token)
		time.Sleep(10 * time.Second) // one seat connected: no countdown
		synctest.Wait()
		if info := r.Info(); info.Phase != phaseLobby || info.StartsAt != 0 {
			t.Fatalf("one seat connected: phase %s startsAt %d", info.Phase, info.StartsAt)
		}
		connect(t, r, b, bob.Token)
		t0 := time.Now()
		want := t0.Add(DefaultQuickStart).UnixMilli()
		if got := r.Info().StartsAt; got != want {
			t.Fatalf("startsAt %d, want %d (5 s after both connected): %+v", got, want, r.Info())
		}
		time.Sleep(time.Millisecond) // the presence message's coalescing
		synctest.Wait()
		for _, c := range []*fakeClient{a, b} {
			if got := lastStartsAt(t, c); got != want {
				t.Errorf("%s was told startsAt %d, want %d", c.id, got, want)
			}
		}
		time.Sleep(time.Until(t0.Add(DefaultQuickStart)) - time.Millisecond)
		synctest.Wait()
		if ph := r.Info().Phase; ph != phaseLobby {
			t.Fatalf("phase %s 1 ms before the countdown's end", ph)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		info := r.Info()
		if info.Phase != phaseRunning || info.Match != 1 || info.StartsAt != 0 || info.Commitment != quickSeed.Commitment() {
			t.Fatalf("at the countdown's end: phase %s match %d startsAt %d commitment %s", info.Phase, info.Match, info.StartsAt, info.Commitment)
		}
		u := a.last(t, protocol.TypeUpdate).Update
		if u.View == nil || u.By != nil || u.Room == nil || u.Room.StartsAt != 0 {
			t.Fatalf("the start's update: %+v", u)
		}
		// The match is an ordinary one: X moves.
		sendAct(t, r, a, "x", protocol.TypeCommand, mark(1, 1), nil)
		if rc := a.receipt(t, "x"); !rc.OK {
			t.Fatalf("X's move: %+v", rc.Notice)
		}
	})
}

// countdown is the room's countdown as it publishes it: the time left, or
// -1 when none runs.
func countdown(r *Room) time.Duration {
	at := r.Info().StartsAt
	if at == 0 {
		return -1
	}
	return time.UnixMilli(at).Sub(time.Now())
}

// TestQuickPlayCountdownCancelled: a seat that loses its connection
// during the countdown cancels it, and so does one that leaves; it starts
// again, from the whole delay, once the seats are taken and connected
// again, and the match then starts at its end.
func TestQuickPlayCountdownCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := quickManager(t)
		r, ann := quickSeat(t, m, "tictactoe", `{}`, "Ann")
		_, bob := quickSeat(t, m, "tictactoe", `{}`, "Bob")
		a, b := newFake("ann"), newFake("bob")
		connect(t, r, a, ann.Token)
		connect(t, r, b, bob.Token)
		time.Sleep(3 * time.Second)
		synctest.Wait()
		if left := countdown(r); left != 2*time.Second {
			t.Fatalf("3 s in: %v left, want 2 s", left)
		}
		// Bob's connection drops: no countdown, no match, however long.
		r.Drop(b)
		synctest.Wait()
		if left := countdown(r); left != -1 {
			t.Fatalf("after Bob's drop: %v left, want no countdown", left)
		}
		time.Sleep(20 * time.Second)
		synctest.Wait()
		if ph := r.Info().Phase; ph != phaseLobby {
			t.Fatalf("phase %s with Bob away", ph)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if got := lastStartsAt(t, a); got != 0 {
			t.Fatalf("Ann was last told startsAt %d, want none", got)
		}
		// Bob comes back: the whole countdown again.
		b2 := newFake("bob2")
		connect(t, r, b2, bob.Token)
		if left := countdown(r); left != DefaultQuickStart {
			t.Fatalf("Bob back: %v left, want %v", left, DefaultQuickStart)
		}
		// Bob leaves for good (his seat goes): cancelled again.
		time.Sleep(time.Second)
		sendAct(t, r, b2, "bye", protocol.TypeLeave, nil, nil)
		if left, seats := countdown(r), len(r.Info().Seats); left != -1 || seats != 1 {
			t.Fatalf("Bob left: %v left with %d seats, want no countdown and one seat", left, seats)
		}
		// Cid's quick play takes the free seat: once he is connected the
		// countdown runs, and the match starts at its end.
		_, cid := quickSeat(t, m, "tictactoe", `{}`, "Cid")
		if cid.Room != ann.Room {
			t.Fatalf("Cid's quick play: %+v, want Ann's room %s", cid, ann.Room)
		}
		if left := countdown(r); left != -1 {
			t.Fatalf("Cid seated, not connected: %v left, want no countdown", left)
		}
		c := newFake("cid")
		connect(t, r, c, cid.Token)
		start := time.Now().Add(DefaultQuickStart)
		time.Sleep(DefaultQuickStart - time.Millisecond)
		synctest.Wait()
		if ph := r.Info().Phase; ph != phaseLobby {
			t.Fatalf("phase %s before the second countdown's end", ph)
		}
		time.Sleep(time.Until(start))
		synctest.Wait()
		if info := r.Info(); info.Phase != phaseRunning || info.Seats[1].Name != "Cid" {
			t.Fatalf("after the second countdown: phase %s seats %+v", info.Phase, info.Seats)
		}
	})
}

// TestQuickPlayMoreJoinDuringCountdown: Hidden Nim takes two to four
// seats. A third player quick-plays into the room during the countdown:
// the countdown goes on, and the match waits, past its end, for the new
// seat's connection, then starts with three seats.
func TestQuickPlayMoreJoinDuringCountdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := quickManager(t)
		pile := `{"pile":12}`
		r, ann := quickSeat(t, m, "nim", pile, "Ann")
		_, bob := quickSeat(t, m, "nim", pile, "Bob")
		connect(t, r, newFake("ann"), ann.Token)
		connect(t, r, newFake("bob"), bob.Token)
		end := r.Info().StartsAt
		time.Sleep(2 * time.Second)
		synctest.Wait()
		_, cid := quickSeat(t, m, "nim", pile, "Cid")
		if cid.Room != ann.Room || r.Info().StartsAt != end {
			t.Fatalf("Cid joined: room %s (want %s), startsAt %d (want %d)", cid.Room, ann.Room, r.Info().StartsAt, end)
		}
		time.Sleep(4 * time.Second) // past the end: Cid is not connected yet
		synctest.Wait()
		if ph := r.Info().Phase; ph != phaseLobby {
			t.Fatalf("phase %s while a seat is not connected", ph)
		}
		connect(t, r, newFake("cid"), cid.Token)
		if info := r.Info(); info.Phase != phaseRunning || len(info.Seats) != 3 {
			t.Fatalf("Cid connected: phase %s, %d seats", info.Phase, len(info.Seats))
		}
	})
}

// TestHostRoomKeepsReadyAndStart: a room a host made (public or not) never
// counts down; quick play does not fill it; the host's start stays as it
// was, and a quick-play room refuses it, and new settings.
func TestHostRoomKeepsReadyAndStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := quickManager(t)
		made, err := m.Create(t.Context(), CreateRequest{Game: "tictactoe", Name: "Hal", Public: true})
		if err != nil {
			t.Fatal(err)
		}
		r, _ := m.Get(t.Context(), made.Room)
		hal, ivy := newFake("hal"), newFake("ivy")
		connect(t, r, hal, made.Token)
		if err := r.Hello(ivy, &protocol.Hello{Room: r.Code(), Name: "Ivy"}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		time.Sleep(time.Minute)
		synctest.Wait()
		if info := r.Info(); info.Phase != phaseLobby || info.Quick || info.StartsAt != 0 || len(info.Seats) != 2 {
			t.Fatalf("the host's room a minute on: phase %s quick %v startsAt %d seats %d", info.Phase, info.Quick, info.StartsAt, len(info.Seats))
		}
		sendAct(t, r, hal, "early", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlStart})
		if rc := hal.receipt(t, "early"); rc.OK || rc.Notice.Code != protocol.CodeNotReady {
			t.Fatalf("start before Ivy is ready: %+v", rc)
		}
		sendAct(t, r, ivy, "ready", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlReady, Ready: true})
		sendAct(t, r, hal, "start", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlStart})
		if ph := r.Info().Phase; ph != phaseRunning {
			t.Fatalf("the host's start: phase %s", ph)
		}

		// A public lobby the host made is not a quick-play room.
		other, err := m.Create(t.Context(), CreateRequest{Game: "nim", Settings: json.RawMessage(`{"pile":9}`), Name: "Hal", Public: true})
		if err != nil {
			t.Fatal(err)
		}
		q, res := quickSeat(t, m, "nim", `{"pile":9}`, "Ann")
		if res.Room == other.Room || !res.Created {
			t.Fatalf("quick play joined the host's public room %s: %+v", other.Room, res)
		}
		a := newFake("ann")
		connect(t, q, a, res.Token)
		sendAct(t, q, a, "start", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlStart})
		if rc := a.receipt(t, "start"); rc.OK || rc.Notice.Code != protocol.CodeInvalidControl {
			t.Fatalf("the host's start in a quick-play room: %+v", rc)
		}
		sendAct(t, q, a, "pile", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlSettings, Settings: json.RawMessage(`{"pile":20}`)})
		if rc := a.receipt(t, "pile"); rc.OK || rc.Notice.Code != protocol.CodeInvalidControl {
			t.Fatalf("new settings in a quick-play room: %+v", rc)
		}
	})
}

// TestQuickPlayRoomSurvivesRestart: the quick-play mark is stored: a
// server that loads the room counts down once the players are back, and
// starts the match.
func TestQuickPlayRoomSurvivesRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := memstore.New()
		cfg := Config{Games: session.NewRegistry(tictactoe.Game), Store: st, AIDelay: -1, PresenceInterval: time.Millisecond}
		first, err := NewManager(cfg)
		if err != nil {
			t.Fatal(err)
		}
		r, ann := quickSeat(t, first, "tictactoe", `{}`, "Ann")
		_, bob := quickSeat(t, first, "tictactoe", `{}`, "Bob")
		connect(t, r, newFake("ann"), ann.Token)
		if err := first.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		second := bubbleManager(t, cfg)
		r, err = second.Get(t.Context(), ann.Room)
		if err != nil {
			t.Fatal(err)
		}
		if info := r.Info(); !info.Quick || info.StartsAt != 0 {
			t.Fatalf("loaded: quick %v startsAt %d", info.Quick, info.StartsAt)
		}
		connect(t, r, newFake("ann"), ann.Token)
		connect(t, r, newFake("bob"), bob.Token)
		if left := countdown(r); left != DefaultQuickStart {
			t.Fatalf("both back: %v left", left)
		}
		time.Sleep(DefaultQuickStart)
		synctest.Wait()
		if ph := r.Info().Phase; ph != phaseRunning {
			t.Fatalf("after the countdown: phase %s", ph)
		}
	})
}
