package room

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/tictactoe"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/memstore"
)

// fakeRater rates the players it knows, and 1500 the others.
type fakeRater map[string]float64

func (f fakeRater) PoolRating(_ context.Context, game, mode, player string) (float64, error) {
	if r, ok := f[player]; ok {
		return r, nil
	}
	return DefaultRating().Rating, nil
}

func TestWindow(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		waited time.Duration
		want   float64
	}{
		{0, 100}, {-time.Second, 100}, {4999 * time.Millisecond, 100}, {5 * time.Second, 150},
		{20 * time.Second, 300}, {39 * time.Second, 450}, {40 * time.Second, 500}, {59 * time.Second, 500},
		{60 * time.Second, math.Inf(1)}, {time.Hour, math.Inf(1)},
	} {
		if got := Window(tc.waited); got != tc.want {
			t.Errorf("Window(%v) = %v, want %v", tc.waited, got, tc.want)
		}
	}
}

func TestPairs(t *testing.T) {
	t.Parallel()
	const now = 1_000_000
	tk := func(id string, rating float64, waited int64) store.Ticket {
		return store.Ticket{ID: id, Player: "p-" + id, Rating: rating, Joined: now - waited, Settings: "{}"}
	}
	for _, tc := range []struct {
		name    string
		waiting []store.Ticket
		want    string
	}{
		{"within the start window", []store.Ticket{tk("a", 1500, 0), tk("b", 1600, 0)}, "[a-b]"},
		{"just outside it", []store.Ticket{tk("a", 1500, 0), tk("b", 1601, 0)}, "[]"},
		{"both windows must hold", []store.Ticket{tk("a", 1500, 30_000), tk("b", 1800, 0)}, "[]"},
		{"both wide", []store.Ticket{tk("a", 1500, 30_000), tk("b", 1800, 20_000)}, "[a-b]"},
		{"nearest rating first", []store.Ticket{tk("a", 1500, 9_000), tk("b", 1620, 8_000), tk("c", 1510, 1)}, "[a-c]"},
		{"the oldest chooses first", []store.Ticket{tk("a", 1500, 9_000), tk("b", 1450, 9_000), tk("c", 1460, 1)}, "[a-c]"},
		{"unbounded after a minute", []store.Ticket{tk("a", 1000, 61_000), tk("b", 2900, 60_000)}, "[a-b]"},
		{"one player never meets itself", []store.Ticket{tk("a", 1500, 0), {ID: "a2", Player: "p-a", Rating: 1500, Joined: now, Settings: "{}"}}, "[]"},
		{"settings must match", []store.Ticket{tk("a", 1500, 0), {ID: "b", Player: "p-b", Rating: 1500, Joined: now, Settings: `{"pile":21}`}}, "[]"},
		{"several pairs", []store.Ticket{tk("a", 1500, 5), tk("b", 1900, 4), tk("c", 1520, 3), tk("d", 1950, 2), tk("e", 1700, 1)}, "[a-c b-d]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, p := range Pairs(tc.waiting, now) {
				got = append(got, p[0].ID+"-"+p[1].ID)
			}
			if s := fmt.Sprint(got); s != tc.want && !(tc.want == "[]" && len(got) == 0) {
				t.Fatalf("Pairs = %s, want %s", s, tc.want)
			}
		})
	}
}

// poolManager is a manager in a synctest bubble with a pool and a rater.
func poolManager(t *testing.T, pool store.Pool, st *memstore.Memory, ratings fakeRater) *Manager {
	t.Helper()
	if st == nil {
		st = memstore.New()
	}
	var rater PoolRater // the store's ratings, or the test's
	if ratings != nil {
		rater = ratings
	}
	return bubbleManager(t, Config{Games: session.NewRegistry(nim.Game, tictactoe.Game, minesweeper.Game), Store: st, Pool: pool,
		Ratings: st, Rater: rater, AIDelay: -1})
}

func enter(t *testing.T, m *Manager, player string, settings string) PoolStatus {
	t.Helper()
	st, err := m.EnterPool(t.Context(), PoolRequest{Game: "tictactoe", Settings: json.RawMessage(settings), Player: player, Name: player})
	if err != nil {
		t.Fatalf("EnterPool %s: %v", player, err)
	}
	return st
}

// keepPolling polls ticket id every second as a waiter does, until stop.
func keepPolling(m *Manager, id, player string, stop <-chan struct{}) {
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Second):
				m.PoolStatus(context.Background(), id, player, PoolKeep)
			}
		}
	}()
}

// TestPoolWindowWidens: 1500 and 1800 pair once both windows reach ±300
// (20 s), on the first round from then; 1500 and 2300 once unbounded (60
// s). Time is synctest's.
func TestPoolWindowWidens(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		b     float64
		after time.Duration
		clock string
	}{{1800, 20 * time.Second, ""}, {2300, 60 * time.Second, ""}, {1600, 0, `,"clock":{"moveMs":5000}`}} {
		t.Run(fmt.Sprint(tc.b), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				m := poolManager(t, memstore.NewPool(), nil, fakeRater{"ann": 1500, "bob": tc.b})
				a, b := enter(t, m, "ann", `{"mode":"classic"`+tc.clock+`}`), enter(t, m, "bob", `{"mode":"classic"`+tc.clock+`}`)
				if a.Pool != b.Pool || !strings.HasPrefix(a.Pool, "tictactoe/classic/") || a.Rating != 1500 || b.Rating != tc.b || a.Window != 100 || a.State != store.TicketWaiting {
					t.Fatalf("entered %+v and %+v", a, b)
				}
				stop := make(chan struct{})
				defer close(stop)
				keepPolling(m, a.Ticket, "ann", stop)
				keepPolling(m, b.Ticket, "bob", stop)
				if tc.after > 0 {
					time.Sleep(tc.after - time.Millisecond)
					synctest.Wait()
					if st, err := m.PoolStatus(t.Context(), a.Ticket, "ann", 0); err != nil || st.State != store.TicketWaiting {
						t.Fatalf("just before %v: %+v, %v; want waiting", tc.after, st, err)
					}
				}
				time.Sleep(DefaultPoolEvery + time.Millisecond)
				synctest.Wait()
				sa, err := m.PoolStatus(t.Context(), a.Ticket, "ann", 0)
				if err != nil || sa.State != store.TicketSettled || sa.Outcome == nil || sa.Outcome.Error != "" {
					t.Fatalf("one round after %v: %+v, %v; want settled", tc.after, sa, err)
				}
				sb, _ := m.PoolStatus(t.Context(), b.Ticket, "bob", 0)
				oa, ob := sa.Outcome, sb.Outcome
				if oa.Room == "" || ob == nil || oa.Room != ob.Room || oa.Seat == ob.Seat || oa.Token == ob.Token || oa.Opponent != "bob" || ob.Rating != 1500 {
					t.Fatalf("seats %+v and %+v", oa, ob)
				}
				r, ok := m.Lookup(oa.Room)
				if !ok {
					t.Fatalf("room %s not here", oa.Room)
				}
				info := r.Info()
				if len(info.Seats) != 2 || info.Seats[oa.Seat].Player != "ann" || info.Seats[ob.Seat].Player != "bob" {
					t.Fatalf("room seats %+v", info.Seats)
				}
			})
		})
	}
}

// TestPoolLapses: a ticket nobody polls leaves the pool PoolKeep after its
// last poll (PoolGone after a poll whose client went away), and is never
// paired.
func TestPoolLapses(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		m := poolManager(t, memstore.NewPool(), nil, fakeRater{"ann": 1500, "bob": 2000, "cat": 1500})
		a := enter(t, m, "ann", `{"mode":"classic"}`)
		enter(t, m, "bob", `{"mode":"classic"}`) // 500 away: not paired with ann within PoolKeep
		time.Sleep(5 * time.Second)
		if _, err := m.PoolStatus(t.Context(), a.Ticket, "ann", PoolGone); err != nil {
			t.Fatal(err)
		}
		time.Sleep(PoolGone + time.Millisecond)
		if _, err := m.PoolStatus(t.Context(), a.Ticket, "ann", 0); !errors.Is(err, ErrNoTicket) {
			t.Fatalf("after PoolGone unpolled: %v, want ErrNoTicket", err)
		}
		time.Sleep(PoolKeep)
		if n, err := m.PoolTickets(t.Context(), "tictactoe/classic/none"); err != nil || n != 0 {
			t.Fatalf("%d tickets wait, %v; want none", n, err)
		}
		// A newcomer rated as ann meets nobody.
		c := enter(t, m, "cat", `{"mode":"classic"}`)
		time.Sleep(2 * DefaultPoolEvery)
		synctest.Wait()
		if st, err := m.PoolStatus(t.Context(), c.Ticket, "cat", 0); err != nil || st.State != store.TicketWaiting {
			t.Fatalf("cat: %+v, %v; want waiting alone", st, err)
		}
	})
}

// TestPoolCancel: a waiting ticket leaves at once; another player cannot
// see or cancel it; one waiting ticket a player; a paired one stays.
func TestPoolCancel(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		m := poolManager(t, memstore.NewPool(), nil, nil)
		a := enter(t, m, "ann", `{"mode":"classic"}`)
		if _, err := m.EnterPool(t.Context(), PoolRequest{Game: "nim", Player: "ann"}); !errors.Is(err, ErrQueued) {
			t.Fatalf("a second ticket: %v, want ErrQueued", err)
		}
		if _, err := m.PoolStatus(t.Context(), a.Ticket, "eve", 0); !errors.Is(err, ErrNoTicket) {
			t.Fatalf("another's ticket: %v", err)
		}
		if err := m.LeavePool(t.Context(), a.Ticket, "eve"); !errors.Is(err, ErrNoTicket) {
			t.Fatalf("cancelling another's ticket: %v", err)
		}
		if err := m.LeavePool(t.Context(), a.Ticket, "ann"); err != nil {
			t.Fatal(err)
		}
		if _, err := m.PoolStatus(t.Context(), a.Ticket, "ann", 0); !errors.Is(err, ErrNoTicket) {
			t.Fatalf("after cancel: %v", err)
		}
		a = enter(t, m, "ann", `{"mode":"classic"}`)
		enter(t, m, "bob", `{"mode":"classic"}`)
		time.Sleep(DefaultPoolEvery + time.Millisecond)
		synctest.Wait()
		if err := m.LeavePool(t.Context(), a.Ticket, "ann"); !errors.Is(err, ErrPaired) {
			t.Fatalf("cancelling a paired ticket: %v, want ErrPaired", err)
		}
	})
}

// TestPoolSettings: pools are per game, mode and clock; a mode that does
// not seat two, a bad clock and anonymous players are refused.
func TestPoolSettings(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		m := poolManager(t, memstore.NewPool(), nil, nil)
		for i, tc := range []struct{ settings, pool, err string }{
			{`{}`, "tictactoe/classic/none", ""},
			{`{"mode":"classic","clock":{"moveMs":5000}}`, "tictactoe/classic/move5000", ""},
			{`{"clock":{"incrementMs":2000,"baseMs":300000}}`, "tictactoe/classic/300000+2000", ""},
			{`{"clock":{"baseMs":60000}}`, "tictactoe/classic/60000+0", ""},
			{`{"clock":null}`, "tictactoe/classic/none", ""},
			{`{"clock":{"moveMs":999}}`, "", "moveMs must be 1000 to"},
			{`{"clock":{"moveMs":5000,"baseMs":5000}}`, "", "does not go with"},
			{`{"clock":{"minutes":5}}`, "", "unknown field"},
			{`{"clock":{}}`, "", "baseMs must be 1000 to"},
			{`{"mode":"duel"}`, "", "invalid settings"},
			{`{"mode":"solo"}`, "", "for the rated modes"},
			{`{"mode":"race"}`, "", ""},
		} {
			game := "tictactoe"
			if strings.Contains(tc.settings, "solo") || strings.Contains(tc.settings, "race") {
				game, tc.pool = "minesweeper", "minesweeper/race/none"
			}
			st, err := m.EnterPool(t.Context(), PoolRequest{Game: game, Settings: json.RawMessage(tc.settings), Player: fmt.Sprint("p", i)})
			switch {
			case tc.err == "" && (err != nil || st.Pool != tc.pool):
				t.Errorf("%s: %+v, %v; want pool %s", tc.settings, st, err, tc.pool)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("%s: %v; want an error with %q", tc.settings, err, tc.err)
			}
		}
		if _, err := m.EnterPool(t.Context(), PoolRequest{Game: "tictactoe"}); err == nil {
			t.Error("an anonymous player entered")
		}
		if _, err := m.EnterPool(t.Context(), PoolRequest{Game: "chess", Player: "x"}); !errors.Is(err, ErrUnknownGame) {
			t.Errorf("unknown game: %v", err)
		}
	})
}

// TestPoolTwoManagers: players who entered on two managers sharing a store
// and its pool meet; each ticket is paired once and both get the room.
func TestPoolTwoManagers(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		shared := memstore.New()
		m1 := poolManager(t, shared, shared, nil)
		m2 := poolManager(t, shared, shared, nil)
		var tickets []PoolStatus
		var managers []*Manager
		for i := range 10 {
			m := []*Manager{m1, m2}[i%2]
			managers = append(managers, m)
			tickets = append(tickets, enter(t, m, fmt.Sprint("p", i), `{"mode":"classic"}`))
		}
		time.Sleep(DefaultPoolEvery + time.Millisecond)
		synctest.Wait()
		rooms := map[string]int{}
		for i, tk := range tickets {
			st, err := managers[(i+1)%2].PoolStatus(t.Context(), tk.Ticket, fmt.Sprint("p", i), 0)
			if err != nil || st.Outcome == nil || st.Outcome.Room == "" {
				t.Fatalf("p%d: %+v, %v", i, st, err)
			}
			rooms[st.Outcome.Room]++
		}
		if len(rooms) != 5 {
			t.Fatalf("rooms %v, want 5 of two", rooms)
		}
		for code, n := range rooms {
			if n != 2 {
				t.Fatalf("room %s has %d players", code, n)
			}
		}
	})
}

// TestPoolNeedsRatings: a manager that keeps no ratings has no rated
// quick play.
func TestPoolNeedsRatings(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		m := bubbleManager(t, Config{Games: session.NewRegistry(tictactoe.Game), Pool: memstore.NewPool()})
		if _, err := m.EnterPool(t.Context(), PoolRequest{Game: "tictactoe", Player: "ann"}); !errors.Is(err, ErrNoPool) {
			t.Fatalf("EnterPool without ratings: %v, want ErrNoPool", err)
		}
	})
}
