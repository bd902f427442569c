package storetest

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/roomd/roomd/store"
)

// pool returns the subject's store as a store.Pool, or skips the test: a
// store one process alone opens (bbolt) leaves the pool to memstore.Pool.
func pool(t *testing.T, sub *Subject) store.Pool {
	p, ok := sub.S.(store.Pool)
	if !ok {
		t.Skipf("%T is not a store.Pool", sub.S)
	}
	return p
}

// poolT0 is the tests' now (Unix ms): the pool runs on the times it is
// given, not on the store's clock.
const poolT0 = int64(1_765_000_000_000)

func ticket(id, pool, player string, rating float64, joined int64) store.Ticket {
	return store.Ticket{ID: id, Pool: pool, Player: player, Name: "name " + player, Node: "node-a",
		Settings: `{"mode":"duel"}`, Rating: rating, Joined: joined, Expires: joined + 10_000}
}

func mustEnter(t *testing.T, p store.Pool, tk store.Ticket, now int64) {
	t.Helper()
	if err := p.PoolEnter(Ctx(t), tk, now, 100); err != nil {
		t.Fatalf("PoolEnter %s: %v", tk.ID, err)
	}
}

func waitingIDs(t *testing.T, p store.Pool, pool string, now int64, limit int) []string {
	t.Helper()
	list, err := p.PoolWaiting(Ctx(t), pool, now, limit)
	if err != nil {
		t.Fatalf("PoolWaiting %s: %v", pool, err)
	}
	var ids []string
	for _, tk := range list {
		if tk.State != store.TicketWaiting {
			t.Fatalf("PoolWaiting listed %s in state %q", tk.ID, tk.State)
		}
		ids = append(ids, tk.ID)
	}
	return ids
}

// testPoolEnter: tickets come back as entered, oldest first, per pool; one
// waiting ticket a player; a pool holds max; a ticket out of bounds is
// refused whole.
func testPoolEnter(t *testing.T, sub *Subject) {
	p := pool(t, sub)
	ctx := Ctx(t)
	a := ticket("ta", "tictactoe/duel/none", "ann", 1510.5, poolT0+30)
	mustEnter(t, p, a, poolT0+30)
	mustEnter(t, p, ticket("tb", "tictactoe/duel/none", "bob", 1400, poolT0+10), poolT0+30)
	mustEnter(t, p, ticket("tc", "tictactoe/duel/none", "cat", 1700, poolT0+10), poolT0+30)
	mustEnter(t, p, ticket("td", "nim/duel/none", "dan", 1500, poolT0), poolT0+30)
	if got, want := waitingIDs(t, p, "tictactoe/duel/none", poolT0+40, 0), []string{"tb", "tc", "ta"}; !slices.Equal(got, want) {
		t.Fatalf("waiting = %v, want %v (by joined, then id)", got, want)
	}
	if got := waitingIDs(t, p, "tictactoe/duel/none", poolT0+40, 2); !slices.Equal(got, []string{"tb", "tc"}) {
		t.Fatalf("waiting with limit 2 = %v", got)
	}
	if got := waitingIDs(t, p, "nim/duel/none", poolT0+40, 0); !slices.Equal(got, []string{"td"}) {
		t.Fatalf("the other pool = %v", got)
	}
	got, err := p.PoolTicket(ctx, "ta", poolT0+40, 0)
	a.State = store.TicketWaiting
	if err != nil || fmt.Sprint(got) != fmt.Sprint(a) {
		t.Fatalf("PoolTicket = %+v, %v; want %+v", got, err, a)
	}
	// One waiting ticket a player, in whichever pool.
	if err := p.PoolEnter(ctx, ticket("ta2", "nim/duel/none", "ann", 1500, poolT0+50), poolT0+50, 100); !errors.Is(err, store.ErrQueued) {
		t.Fatalf("a second ticket of ann = %v, want ErrQueued", err)
	}
	if err := p.PoolEnter(ctx, ticket("ta", "nim/duel/none", "eve", 1500, poolT0+50), poolT0+50, 100); !errors.Is(err, store.ErrBadTicket) {
		t.Fatalf("a ticket id taken = %v, want ErrBadTicket", err)
	}
	// max counts the pool's live waiting tickets.
	if err := p.PoolEnter(ctx, ticket("te", "tictactoe/duel/none", "eve", 1500, poolT0+50), poolT0+50, 3); !errors.Is(err, store.ErrPoolFull) {
		t.Fatalf("a fourth ticket in a pool of 3 = %v, want ErrPoolFull", err)
	}
	if err := p.PoolEnter(ctx, ticket("te", "tictactoe/duel/none", "eve", 1500, poolT0+50), poolT0+50, 4); err != nil {
		t.Fatalf("a fourth ticket in a pool of 4 = %v", err)
	}
	for _, bad := range []store.Ticket{
		{Pool: "p", Player: "x", Expires: poolT0 + 1},
		{ID: "x1", Player: "x", Expires: poolT0 + 1},
		{ID: "x2", Pool: "p", Expires: poolT0 + 1},
		{ID: "x3", Pool: "p", Player: string(make([]byte, store.MaxTicketPlayer+1)), Expires: poolT0 + 1},
		{ID: "x4", Pool: "p", Player: "x", State: store.TicketPaired, Expires: poolT0 + 1},
		{ID: "x5", Pool: "p", Player: "x", Partner: "y", Expires: poolT0 + 1},
	} {
		if err := p.PoolEnter(ctx, bad, poolT0, 100); !errors.Is(err, store.ErrBadTicket) {
			t.Fatalf("PoolEnter %+v = %v, want ErrBadTicket", bad, err)
		}
	}
	if got := waitingIDs(t, p, "p", poolT0, 0); len(got) != 0 {
		t.Fatalf("refused tickets are waiting: %v", got)
	}
}

// testPoolPair: a pair leaves the pool paired, each the other's partner,
// once; the players may queue again; a settled ticket carries its
// outcome; leave removes a waiting ticket but not a paired one.
func testPoolPair(t *testing.T, sub *Subject) {
	p := pool(t, sub)
	ctx := Ctx(t)
	const pl = "cards/duel/300000+2000"
	for i, name := range []string{"ann", "bob", "cat", "dan"} {
		mustEnter(t, p, ticket("t"+name, pl, name, 1500, poolT0+int64(i)), poolT0+10)
	}
	if ok, err := p.PoolPair(ctx, pl, "tann", "tbob", poolT0+20, poolT0+30_000); err != nil || !ok {
		t.Fatalf("PoolPair = %v, %v", ok, err)
	}
	for _, pair := range [][2]string{{"tann", "tcat"}, {"tcat", "tbob"}, {"tann", "tbob"}, {"tcat", "tcat"}, {"tcat", "tnone"}} {
		if ok, err := p.PoolPair(ctx, pl, pair[0], pair[1], poolT0+20, poolT0+30_000); err != nil || ok {
			t.Fatalf("PoolPair %v = %v, %v; want false", pair, ok, err)
		}
	}
	if ok, err := p.PoolPair(ctx, "other/pool", "tcat", "tdan", poolT0+20, poolT0+30_000); err != nil || ok {
		t.Fatalf("PoolPair in another pool = %v, %v; want false", ok, err)
	}
	if got := waitingIDs(t, p, pl, poolT0+20, 0); !slices.Equal(got, []string{"tcat", "tdan"}) {
		t.Fatalf("waiting after a pair = %v", got)
	}
	for _, x := range [][2]string{{"tann", "tbob"}, {"tbob", "tann"}} {
		got, err := p.PoolTicket(ctx, x[0], poolT0+20, 0)
		if err != nil || got.State != store.TicketPaired || got.Partner != x[1] || got.Expires != poolT0+30_000 {
			t.Fatalf("PoolTicket %s = %+v, %v; want paired with %s", x[0], got, err, x[1])
		}
	}
	// A paired ticket keeps its Expires whatever a poll asks.
	if got, err := p.PoolTicket(ctx, "tann", poolT0+20, poolT0+5_000); err != nil || got.Expires != poolT0+30_000 {
		t.Fatalf("refreshing a paired ticket = %+v, %v; want its Expires kept", got, err)
	}
	if err := p.PoolLeave(ctx, pl, "tann", poolT0+20); !errors.Is(err, store.ErrPaired) {
		t.Fatalf("PoolLeave of a paired ticket = %v, want ErrPaired", err)
	}
	if err := p.PoolSettle(ctx, "tcat", []byte(`{}`), poolT0+20, poolT0+40_000); !errors.Is(err, store.ErrNotPaired) {
		t.Fatalf("PoolSettle of a waiting ticket = %v, want ErrNotPaired", err)
	}
	if err := p.PoolSettle(ctx, "tnone", []byte(`{}`), poolT0+20, poolT0+40_000); !errors.Is(err, store.ErrNoTicket) {
		t.Fatalf("PoolSettle of no ticket = %v, want ErrNoTicket", err)
	}
	outcome := []byte(`{"room":"K7QXMP","token":"tok","seat":1,"note":"ü \"q\" /"}`)
	if err := p.PoolSettle(ctx, "tbob", outcome, poolT0+20, poolT0+40_000); err != nil {
		t.Fatal(err)
	}
	got, err := p.PoolTicket(ctx, "tbob", poolT0+20, 0)
	if err != nil || got.State != store.TicketSettled || string(got.Outcome) != string(outcome) || got.Expires != poolT0+40_000 {
		t.Fatalf("settled ticket = %+v (outcome %s), %v", got, got.Outcome, err)
	}
	if err := p.PoolSettle(ctx, "tbob", outcome, poolT0+20, poolT0+40_000); !errors.Is(err, store.ErrNotPaired) {
		t.Fatalf("PoolSettle twice = %v, want ErrNotPaired", err)
	}
	// Paired players may queue again; a waiting ticket leaves.
	mustEnter(t, p, ticket("tann2", pl, "ann", 1500, poolT0+30), poolT0+30)
	if err := p.PoolLeave(ctx, pl, "tcat", poolT0+30); err != nil {
		t.Fatal(err)
	}
	if err := p.PoolLeave(ctx, pl, "tcat", poolT0+30); err != nil {
		t.Fatalf("PoolLeave of a ticket gone = %v, want nil", err)
	}
	if _, err := p.PoolTicket(ctx, "tcat", poolT0+30, 0); !errors.Is(err, store.ErrNoTicket) {
		t.Fatalf("PoolTicket after leave = %v, want ErrNoTicket", err)
	}
	mustEnter(t, p, ticket("tcat2", pl, "cat", 1500, poolT0+40), poolT0+40)
	if got := waitingIDs(t, p, pl, poolT0+40, 0); !slices.Equal(got, []string{"tdan", "tann2", "tcat2"}) {
		t.Fatalf("waiting = %v", got)
	}
}

// testPoolExpiry: a ticket not refreshed lapses at its Expires: it is
// never paired, not listed, gone to PoolTicket, and frees its player; a
// refresh keeps it.
func testPoolExpiry(t *testing.T, sub *Subject) {
	p := pool(t, sub)
	ctx := Ctx(t)
	const pl = "nim/duel/move5000"
	mustEnter(t, p, ticket("ta", pl, "ann", 1500, poolT0), poolT0)
	mustEnter(t, p, ticket("tb", pl, "bob", 1500, poolT0), poolT0)
	// ta is refreshed to +20 s; tb lapses at +10 s.
	if got, err := p.PoolTicket(ctx, "ta", poolT0+5_000, poolT0+20_000); err != nil || got.Expires != poolT0+20_000 {
		t.Fatalf("refresh = %+v, %v", got, err)
	}
	now := poolT0 + 10_001
	if _, err := p.PoolTicket(ctx, "tb", now, 0); !errors.Is(err, store.ErrNoTicket) {
		t.Fatalf("a lapsed ticket = %v, want ErrNoTicket", err)
	}
	if ok, err := p.PoolPair(ctx, pl, "ta", "tb", now, now+30_000); err != nil || ok {
		t.Fatalf("PoolPair with a lapsed ticket = %v, %v", ok, err)
	}
	if got := waitingIDs(t, p, pl, now, 0); !slices.Equal(got, []string{"ta"}) {
		t.Fatalf("waiting = %v, want [ta]", got)
	}
	mustEnter(t, p, ticket("tb2", pl, "bob", 1500, now), now)
	if err := p.PoolEnter(ctx, ticket("tb3", pl, "bob", 1500, now), now, 2); !errors.Is(err, store.ErrQueued) {
		t.Fatalf("bob again = %v", err)
	}
	// A pool of 2 with one lapsed ticket takes another.
	later := poolT0 + 20_002 // ta and tb2 lapsed
	mustEnter(t, p, ticket("tc", pl, "cat", 1500, later), later)
	if err := p.PoolEnter(ctx, ticket("td", pl, "dan", 1500, later), later, 2); err != nil {
		t.Fatalf("a pool of 2 holding one live ticket: %v", err)
	}
}

// testPoolConcurrentPair: many pairings of overlapping tickets at once (two
// nodes' loops): each ticket is paired once, with a partner that is paired
// with it.
func testPoolConcurrentPair(t *testing.T, sub *Subject) {
	p := pool(t, sub)
	ctx := Ctx(t)
	const pl, n = "tictactoe/duel/none", 24
	for i := range n {
		mustEnter(t, p, ticket(fmt.Sprintf("t%02d", i), pl, fmt.Sprintf("p%02d", i), 1500, poolT0), poolT0)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := map[string]int{}
	for w := range 4 {
		wg.Go(func() {
			for i := range n {
				for d := 1; d <= 3; d++ {
					a, b := fmt.Sprintf("t%02d", (i+w)%n), fmt.Sprintf("t%02d", (i+w+d)%n)
					ok, err := p.PoolPair(ctx, pl, a, b, poolT0+1, poolT0+60_000)
					if err != nil {
						t.Error(err)
						return
					}
					if ok {
						mu.Lock()
						wins[a]++
						wins[b]++
						mu.Unlock()
					}
				}
			}
		})
	}
	wg.Wait()
	for id, k := range wins {
		if k != 1 {
			t.Fatalf("ticket %s paired %d times", id, k)
		}
		got, err := p.PoolTicket(ctx, id, poolT0+1, 0)
		if err != nil {
			t.Fatal(err)
		}
		back, err := p.PoolTicket(ctx, got.Partner, poolT0+1, 0)
		if err != nil || back.Partner != id || got.State != store.TicketPaired {
			t.Fatalf("%s paired with %s, which is paired with %s (%v)", id, got.Partner, back.Partner, err)
		}
	}
	if len(wins)+len(waitingIDs(t, p, pl, poolT0+1, 0)) != n {
		t.Fatalf("%d paired and the rest waiting do not add up to %d", len(wins), n)
	}
}

// RunPool runs the pool's tests alone, for a store.Pool that is not a
// whole store (memstore.Pool beside bbolt): the subject's S is a store
// that is also the pool.
func RunPool(t *testing.T, newSubject Factory) {
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, sub *Subject)
	}{
		{"PoolEnter", testPoolEnter},
		{"PoolPair", testPoolPair},
		{"PoolExpiry", testPoolExpiry},
		{"PoolConcurrentPair", testPoolConcurrentPair},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newSubject(t))
		})
	}
}
