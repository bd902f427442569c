package room

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/session/sessiontest"
	"github.com/roomd/roomd/core/tictactoe"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/memstore"
)

// clockedMatch is a two-seat tic-tac-toe room whose match has just started
// under settings: Ann (seat 0, the host, X) and Bob (seat 1).
type clockedMatch struct {
	r        *Room
	ann, bob *fakeClient
	code     string
	tokens   [2]string
	started  time.Time
}

func startClocked(t *testing.T, m *Manager, settings string) *clockedMatch {
	t.Helper()
	created, err := m.Create(t.Context(), CreateRequest{Game: "tictactoe", Settings: json.RawMessage(settings), Name: "Ann"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Get(t.Context(), created.Room)
	if err != nil {
		t.Fatal(err)
	}
	joined, err := r.Join(t.Context(), "Bob", "", "")
	if err != nil {
		t.Fatal(err)
	}
	cm := &clockedMatch{r: r, ann: newFake("ann"), bob: newFake("bob"), code: created.Room, tokens: [2]string{created.Token, joined.Token}}
	r.Hello(cm.ann, &protocol.Hello{Room: r.Code(), Token: created.Token})
	r.Hello(cm.bob, &protocol.Hello{Room: r.Code(), Token: joined.Token})
	synctest.Wait()
	sendAct(t, r, cm.bob, "ready", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlReady, Ready: true})
	sendAct(t, r, cm.ann, "start", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlStart})
	cm.started = time.Now()
	if ph := r.Info().Phase; ph != phaseRunning {
		t.Fatalf("the match did not start: phase %s", ph)
	}
	return cm
}

// mark plays seat c's mark at (row, col).
func (cm *clockedMatch) mark(t *testing.T, c *fakeClient, id string, row, col int) {
	t.Helper()
	sendAct(t, cm.r, c, id, protocol.TypeCommand, json.RawMessage(`{"type":"mark","r":`+itoa(row)+`,"c":`+itoa(col)+`}`), nil)
	if rc := c.receipt(t, id); !rc.OK {
		t.Fatalf("%s refused: %+v", id, rc.Notice)
	}
}

func itoa(n int) string { return string(rune('0' + n)) }

// results returns the results the client was sent by updates, in order.
func results(t *testing.T, c *fakeClient) []*protocol.Result {
	var out []*protocol.Result
	for _, m := range c.messages(t) {
		if m.Update != nil && m.Update.Result != nil {
			out = append(out, m.Update.Result)
		}
	}
	return out
}

// TestTurnClockMoveLimit: a 5 s limit per move, nobody moves: the match ends
// at 5 s exactly, once, lost on time by the seat whose turn it was.
func TestTurnClockMoveLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := bubbleManager(t, Config{Games: session.NewRegistry(tictactoe.Game)})
		cm := startClocked(t, m, `{"clock":{"moveMs":5000}}`)
		tc := cm.r.Info().TurnClock
		if tc == nil || !slices.Equal(tc.Running, []int{0}) || !slices.Equal(tc.RemainingMs, []int64{5000, 5000}) ||
			tc.Deadline != cm.started.Add(5*time.Second).UnixMilli() {
			t.Fatalf("at the start: turnClock %+v, want seat 0 running, 5000 ms each, deadline at 5 s", tc)
		}
		time.Sleep(4999 * time.Millisecond)
		synctest.Wait()
		if got := results(t, cm.ann); len(got) != 0 {
			t.Fatalf("the match ended before its 5 s: %+v", got[0])
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		got := results(t, cm.ann)
		if len(got) != 1 {
			t.Fatalf("at 5 s: %d results, want 1", len(got))
		}
		res := got[0]
		if res.Status != statusTimeout || !slices.Equal(res.Winners, []int{1}) || !slices.Equal(res.TimedOut, []int{0}) ||
			!slices.Equal(res.RemainingMs, []int64{0, 5000}) {
			t.Fatalf("result %+v; want timeout, seat 1 winning, seat 0 timed out with 0 ms left", res)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if n := len(results(t, cm.bob)); n != 1 {
			t.Fatalf("bob was sent %d results, want exactly 1", n)
		}
	})
}

// TestTurnClockAcrossRestart: the deadline after a restart is the one
// before plus the downtime the restart credits: exact after a graceful
// stop, to the last heartbeat after a crash.
func TestTurnClockAcrossRestart(t *testing.T) {
	for _, crash := range []bool{false, true} {
		name := "graceful"
		if crash {
			name = "crash"
		}
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				st := memstore.New()
				cfg := Config{Games: session.NewRegistry(tictactoe.Game), Store: st, Claims: st, AliveEvery: time.Second}
				// The first process writes through dead: once it "dies", none
				// of its writes lands (its room goes on running in this test,
				// as a crashed process's would not).
				dead := &deadStore{Memory: st}
				cfg1 := cfg
				cfg1.Store = dead
				m1, err := NewManager(cfg1)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { m1.Shutdown(context.Background()) })
				cm := startClocked(t, m1, `{"clock":{"moveMs":5000}}`)
				before := cm.r.Info().TurnClock.Deadline
				time.Sleep(2500 * time.Millisecond)
				var credit int64
				if crash {
					dead.dead.Store(true)
					m1.stopAlive() // heartbeats at 0, 1 and 2 s; the process dies at 2.5 s
					credit = 60_500
				} else {
					if err := m1.Shutdown(context.Background()); err != nil {
						t.Fatal(err)
					}
					credit = 60_000
				}
				time.Sleep(time.Minute)
				m2 := bubbleManager(t, cfg)
				r2, err := m2.Get(t.Context(), cm.code)
				if err != nil {
					t.Fatal(err)
				}
				synctest.Wait()
				tc := r2.Info().TurnClock
				if tc == nil || tc.Deadline != before+credit {
					t.Fatalf("after the restart: turnClock %+v, want the deadline %d + %d ms credited", tc, before, credit)
				}
				left := time.Duration(tc.Deadline-time.Now().UnixMilli()) * time.Millisecond
				ann := newFake("ann")
				r2.Hello(ann, &protocol.Hello{Room: cm.code, Token: cm.tokens[0]})
				time.Sleep(left - time.Millisecond)
				synctest.Wait()
				if n := len(results(t, ann)); n != 0 {
					t.Fatal("the match ended before its credited deadline")
				}
				time.Sleep(time.Millisecond)
				synctest.Wait()
				if info := r2.Info(); info.Phase != phaseEnded || info.TurnClock == nil || len(info.TurnClock.Running) != 0 {
					t.Fatalf("at the credited deadline: %s, turnClock %+v; want ended", info.Phase, info.TurnClock)
				}
				if got := results(t, ann); len(got) != 1 || got[0].Status != statusTimeout {
					t.Fatalf("results %+v, want one timeout", got)
				}
			})
		})
	}
}

// deadStore is a store whose writes fail once dead is set.
type deadStore struct {
	*memstore.Memory
	dead atomic.Bool
}

func (s *deadStore) Append(ctx context.Context, l store.Lease, e []store.Entry) error {
	if s.dead.Load() {
		return errors.New("the process is dead")
	}
	return s.Memory.Append(ctx, l, e)
}

func (s *deadStore) WriteSnapshot(ctx context.Context, l store.Lease, snap store.Snapshot) error {
	if s.dead.Load() {
		return errors.New("the process is dead")
	}
	return s.Memory.WriteSnapshot(ctx, l, snap)
}

// TestTurnClockChess: a chess clock adds the increment to each turn that
// ends while the match goes on; the result has each seat's exact time.
func TestTurnClockChess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := bubbleManager(t, Config{Games: session.NewRegistry(tictactoe.Game)})
		cm := startClocked(t, m, `{"clock":{"baseMs":10000,"incrementMs":2000}}`)
		if s := string(cm.r.Info().Settings); !strings.Contains(s, `"clock":{"baseMs":10000,"incrementMs":2000}`) {
			t.Fatalf("settings %s do not echo the clock", s)
		}
		steps := []struct {
			after    time.Duration
			seat     int
			row, col int
			left     []int64 // after the move
		}{
			{time.Second, 0, 0, 0, []int64{11000, 10000}},
			{3 * time.Second, 1, 1, 0, []int64{11000, 9000}},
			{2 * time.Second, 0, 0, 1, []int64{11000, 9000}},
			{time.Second, 1, 1, 1, []int64{11000, 10000}},
			{4 * time.Second, 0, 0, 2, []int64{7000, 10000}}, // X wins: no increment at the end
		}
		for i, s := range steps {
			time.Sleep(s.after)
			c := []*fakeClient{cm.ann, cm.bob}[s.seat]
			cm.mark(t, c, "m"+itoa(i), s.row, s.col)
			u := cm.bob.last(t, protocol.TypeUpdate).Update
			if u.TurnClock == nil || !slices.Equal(u.TurnClock.RemainingMs, s.left) {
				t.Fatalf("move %d: update's turnClock %+v, want remaining %v", i, u.TurnClock, s.left)
			}
		}
		res := results(t, cm.ann)
		if len(res) != 1 || !slices.Equal(res[0].RemainingMs, []int64{7000, 10000}) || len(res[0].TimedOut) != 0 ||
			!slices.Equal(res[0].Winners, []int{0}) {
			t.Fatalf("result %+v; want X winning with 7000 and 10000 ms left", res)
		}
	})
}

// aiOnTimeout is tic-tac-toe declaring that the AI plays a seat's turn when
// its clock runs out.
type aiOnTimeout struct{ session.Game }

func (g aiOnTimeout) Info() session.Info {
	i := g.Game.Info()
	i.OnTimeout = session.TimeoutAI
	return i
}

// TestTurnClockAIRule: a game that declares session.TimeoutAI has the AI
// play a timed-out seat's turn; the match goes on, and the seat has its
// next turn back.
func TestTurnClockAIRule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := bubbleManager(t, Config{Games: session.NewRegistry(aiOnTimeout{tictactoe.Game}), AIDelay: 100 * time.Millisecond})
		cm := startClocked(t, m, `{"clock":{"moveMs":3000}}`)
		time.Sleep(3100 * time.Millisecond)
		synctest.Wait()
		info := cm.r.Info()
		if info.Phase != phaseRunning || info.TurnClock == nil || !slices.Equal(info.TurnClock.Running, []int{1}) {
			t.Fatalf("after X's time ran out: %s, turnClock %+v; want running, O's turn (the AI played X's)", info.Phase, info.TurnClock)
		}
		cm.mark(t, cm.bob, "o1", 2, 2)
		free := [][2]int{{0, 0}, {0, 1}, {1, 1}}
		var marked bool
		for i, sq := range free {
			id := "x" + itoa(i)
			sendAct(t, cm.r, cm.ann, id, protocol.TypeCommand, json.RawMessage(`{"type":"mark","r":`+itoa(sq[0])+`,"c":`+itoa(sq[1])+`}`), nil)
			if cm.ann.receipt(t, id).OK {
				marked = true
				break
			}
		}
		if !marked {
			t.Fatal("Ann could not play her next turn herself after the AI played the one she ran out on")
		}
	})
}

// TestTurnClockSettings: the room takes the clock out of the settings, in
// its canonical form, and refuses one it cannot run, naming the problem.
func TestTurnClockSettings(t *testing.T) {
	t.Parallel()
	m, err := NewManager(Config{Games: session.NewRegistry(tictactoe.Game, sessiontest.Tap), Store: memstore.New()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Shutdown(context.Background()) })
	created, err := m.Create(t.Context(), CreateRequest{Game: "tictactoe", Settings: json.RawMessage(`{ "clock" : { "moveMs" : 30000 } }`), Name: "Ann"})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := m.Get(t.Context(), created.Room)
	if s := string(r.Info().Settings); !strings.HasSuffix(s, `"clock":{"moveMs":30000}}`) {
		t.Fatalf("settings %s: want the clock in canonical form", s)
	}
	for _, c := range []struct{ game, settings, want string }{
		{"tap", `{"board":"short","clock":{"moveMs":5000}}`, "has no turn clock"},
		{"tictactoe", `{"clock":{"moveMs":500}}`, "moveMs must be 1000 to"},
		{"tictactoe", `{"clock":{"moveMs":5000,"baseMs":60000}}`, "does not go with"},
		{"tictactoe", `{"clock":{"baseMs":60000,"incrementMs":-1}}`, "incrementMs must be 0 to"},
		{"tictactoe", `{"clock":{"seconds":5}}`, "unknown field"},
		{"tictactoe", `{"clock":5}`, "clock must be"},
		{"tictactoe", `{"clock":{}}`, "baseMs must be"},
	} {
		_, err := m.Create(t.Context(), CreateRequest{Game: c.game, Settings: json.RawMessage(c.settings), Name: "Ann"})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: err %v, want one saying %q", c.game, c.settings, err, c.want)
		}
	}
}
