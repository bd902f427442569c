package storetest

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/roomd/roomd/store"
)

// testLeaderboards: a lower-is-better board (times) lists the lowest value
// first, equal values earliest first; a result recorded twice is kept once;
// kinds and boards are apart.
func testLeaderboards(t *testing.T, sub *Subject) {
	s, ctx := sub.S, Ctx(t)
	expert := store.Board{Game: "mines", Board: "expert", Kind: store.KindHost}
	top, err := s.Top(ctx, expert, 10)
	if err != nil || len(top) != 0 {
		t.Fatalf("top of an empty board = %v, %v", top, err)
	}
	scores := []store.Score{
		{Name: "a", Value: 300, At: 5},
		{Name: "b", Value: 100, At: 9, Room: "K7QXMP", Match: 2},
		{Name: "c", Value: 200.5, At: 1},
		{Name: "d", Value: 100, At: 3},
		{Name: "e", Value: 400, At: 2},
		{Name: "b", Value: 100, At: 9, Room: "K7QXMP", Match: 2}, // the same result twice is kept once
	}
	for _, sc := range scores {
		if err := s.Record(ctx, expert, sc); err != nil {
			t.Fatal(err)
		}
	}
	client := store.Board{Game: "mines", Board: "expert", Kind: store.KindClient}
	if err := s.Record(ctx, client, store.Score{Name: "z", Value: 1, At: 1}); err != nil {
		t.Fatal(err)
	}
	beginner := store.Board{Game: "mines", Board: "beginner", Kind: store.KindHost}
	if err := s.Record(ctx, beginner, store.Score{Name: "y", Value: 1, At: 1}); err != nil {
		t.Fatal(err)
	}
	top, err = s.Top(ctx, expert, 4)
	if err != nil {
		t.Fatal(err)
	}
	want := []store.Score{scores[3], scores[1], scores[2], scores[0]}
	if !slices.Equal(top, want) {
		t.Fatalf("top 4 = %+v, want %+v", top, want)
	}
	all, err := s.Top(ctx, expert, 0)
	if err != nil || len(all) != len(scores)-1 {
		t.Fatalf("top without limit = %d scores, %v; want %d", len(all), err, len(scores)-1)
	}
	if all[len(all)-1] != scores[4] {
		t.Fatalf("last = %+v, want %+v", all[len(all)-1], scores[4])
	}
	other, err := s.Top(ctx, client, 10)
	if err != nil || len(other) != 1 || other[0].Name != "z" {
		t.Fatalf("client board = %+v, %v", other, err)
	}
}

// testLeaderboardsHigher: a higher-is-better board (points) lists the
// highest value first, equal values earliest first, negative values and
// zero included.
func testLeaderboardsHigher(t *testing.T, sub *Subject) {
	s, ctx := sub.S, Ctx(t)
	b := store.Board{Game: "nim", Board: "points", Kind: store.KindHost, Higher: true}
	scores := []store.Score{
		{Name: "a", Value: 300, At: 5},
		{Name: "b", Value: 100, At: 9, Room: "K7QXMP", Match: 2},
		{Name: "c", Value: 0, At: 4},
		{Name: "d", Value: 300, At: 3},
		{Name: "e", Value: -2.5, At: 1},
		{Name: "f", Value: 1e9, At: 8},
		{Name: "g", Value: math.Copysign(0, -1), At: 2}, // -0 ranks as 0
		{Name: "h", Value: 0.25, At: 7},
	}
	for _, sc := range scores {
		if err := s.Record(ctx, b, sc); err != nil {
			t.Fatal(err)
		}
	}
	top, err := s.Top(ctx, b, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(top), "f d a b h g c e"; got != want {
		t.Fatalf("top = %s, want %s (%+v)", got, want, top)
	}
	top, err = s.Top(ctx, b, 3)
	if err != nil || names(top) != "f d a" {
		t.Fatalf("top 3 = %+v, %v", top, err)
	}
	if top[2] != scores[0] {
		t.Fatalf("top[2] = %+v, want %+v", top[2], scores[0])
	}
	// Values that are not finite numbers are refused.
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if err := s.Record(ctx, b, store.Score{Name: "x", Value: v}); err == nil {
			t.Fatalf("record of value %v succeeded", v)
		}
	}
	if top, err := s.Top(ctx, b, 0); err != nil || len(top) != len(scores) {
		t.Fatalf("after refused records: %d scores, %v", len(top), err)
	}
}

// testLeaderboardSize: a board keeps the 1,000 best scores (the default
// LeaderboardSize), in either direction: the worst are dropped.
func testLeaderboardSize(t *testing.T, sub *Subject) {
	const size, extra = 1000, 10
	s := sub.S
	for _, higher := range []bool{false, true} {
		b := store.Board{Game: "size", Board: fmt.Sprint(higher), Kind: store.KindHost, Higher: higher}
		var wg sync.WaitGroup
		errs := make(chan error, size+extra)
		for i := range size + extra { // at once: group commit
			wg.Go(func() {
				errs <- s.Record(Ctx(t), b, store.Score{Name: fmt.Sprint(i), Value: float64(i), At: int64(i)})
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		top, err := s.Top(Ctx(t), b, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(top) != size {
			t.Fatalf("higher=%v: %d scores kept, want %d", higher, len(top), size)
		}
		best, worst := 0.0, float64(size-1) // lower is better: 0..999 kept
		if higher {
			best, worst = size+extra-1, extra // 1009..10 kept
		}
		if top[0].Value != best || top[size-1].Value != worst {
			t.Fatalf("higher=%v: best %v, worst %v; want %v, %v", higher, top[0].Value, top[size-1].Value, best, worst)
		}
		for i := 1; i < len(top); i++ {
			if b.Before(top[i], top[i-1]) {
				t.Fatalf("higher=%v: %+v listed after %+v", higher, top[i], top[i-1])
			}
		}
	}
}

// testOnePerName: a board keeps one score per name: a new score replaces
// the name's score only when it ranks before it (Board.Before), in either
// direction; other names stay as they are.
func testOnePerName(t *testing.T, sub *Subject) {
	s := sub.S
	old := store.Score{Name: "x", Value: 10, At: 2, Room: "OLDOLD", Match: 1}
	with := func(v float64, at int64) store.Score {
		return store.Score{Name: "x", Value: v, At: at, Room: "NEWNEW", Match: 2}
	}
	for _, tc := range []struct {
		name    string
		higher  bool
		next    store.Score
		replace bool
	}{
		{"better replaces", false, with(9.5, 3), true},
		{"worse is ignored", false, with(10.5, 1), false},
		{"equal keeps the older", false, with(10, 3), false},
		{"equal at the same time keeps the first", false, with(10, 2), false},
		{"equal and earlier replaces", false, with(10, 1), true},
		{"higher: better replaces", true, with(10.5, 3), true},
		{"higher: worse is ignored", true, with(9.5, 1), false},
		{"higher: equal keeps the older", true, with(10, 3), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := Ctx(t)
			b := store.Board{Game: "name", Board: tc.name, Kind: store.KindHost, Higher: tc.higher}
			other := store.Score{Name: "y", Value: 10.25, At: 1}
			for _, sc := range []store.Score{old, other, tc.next} {
				if err := s.Record(ctx, b, sc); err != nil {
					t.Fatalf("record %+v: %v", sc, err)
				}
			}
			kept := old
			if tc.replace {
				kept = tc.next
			}
			want := []store.Score{kept, other}
			if b.Before(other, kept) {
				want = []store.Score{other, kept}
			}
			top, err := s.Top(ctx, b, 0)
			if err != nil || !slices.Equal(top, want) {
				t.Fatalf("after %+v then %+v: top = %+v, %v; want %+v", old, tc.next, top, err, want)
			}
		})
	}
}

// testOneNameFloods: 1,000 results under one name leave one entry, the
// best, and push no other name off the board.
func testOneNameFloods(t *testing.T, sub *Subject) {
	const floods, others = 1000, 5
	s := sub.S
	b := store.Board{Game: "flood", Board: "b", Kind: store.KindHost}
	var want []store.Score
	for i := range others { // worse than every flood
		sc := store.Score{Name: fmt.Sprint("other", i), Value: float64(5000 + i), At: int64(i)}
		if err := s.Record(Ctx(t), b, sc); err != nil {
			t.Fatal(err)
		}
		want = append(want, sc)
	}
	recordAll(t, s, b, floods, func(i int) store.Score {
		return store.Score{Name: "flood", Value: float64(floods - i), At: int64(i)}
	})
	want = append([]store.Score{{Name: "flood", Value: 1, At: floods - 1}}, want...)
	top, err := s.Top(Ctx(t), b, 0)
	if err != nil || !slices.Equal(top, want) {
		t.Fatalf("top = %d scores %s, %v; want %+v", len(top), trimmed(top), err, want)
	}
}

// testTrimFreesName: a score dropped off a full board frees its name: the
// name enters again, and the board still holds its size. With a small
// board when the store can make one, else the default 1,000.
func testTrimFreesName(t *testing.T, sub *Subject) {
	size := 3
	var s store.Leaderboards
	if sub.Boards != nil {
		s = sub.Boards(t, size)
	} else {
		s, size = sub.S, 1000
	}
	ctx := Ctx(t)
	b := store.Board{Game: "trim", Board: "b", Kind: store.KindHost}
	if err := s.Record(ctx, b, store.Score{Name: "x", Value: 100, At: 1}); err != nil {
		t.Fatal(err)
	}
	recordAll(t, s, b, size, func(i int) store.Score { // each better than x
		return store.Score{Name: fmt.Sprint("p", i), Value: float64(i), At: int64(i)}
	})
	top, err := s.Top(ctx, b, 0)
	if err != nil || len(top) != size || slices.ContainsFunc(top, func(sc store.Score) bool { return sc.Name == "x" }) {
		t.Fatalf("after %d better scores: %d scores %s, %v; want %d without x", size, len(top), trimmed(top), err, size)
	}
	back := store.Score{Name: "x", Value: 0.5, At: 9}
	if err := s.Record(ctx, b, back); err != nil {
		t.Fatal(err)
	}
	top, err = s.Top(ctx, b, 0)
	if err != nil || len(top) != size || len(top) < 2 || top[1] != back {
		t.Fatalf("after x came back: %d scores %s, %v; want %d with x second", len(top), trimmed(top), err, size)
	}
	// The board keeps its size as names come and go.
	for i, sc := range []store.Score{{Name: "x", Value: 0.25, At: 10}, {Name: "q", Value: -1, At: 11}, {Name: "x", Value: 50, At: 12}} {
		if err := s.Record(ctx, b, sc); err != nil {
			t.Fatal(err)
		}
		top, err := s.Top(ctx, b, 0)
		if err != nil || len(top) != size {
			t.Fatalf("record %d (%+v): %d scores %s, %v; want %d", i, sc, len(top), trimmed(top), err, size)
		}
	}
	if top, _ := s.Top(ctx, b, 3); names(top) != "q p0 x" || top[2].Value != 0.25 {
		t.Fatalf("top 3 = %+v, want q, p0, then x at 0.25", top)
	}
}

// testOnePerPlayer: a board keeps one score per player id, whatever names
// it comes under: the player's best, with the name it was recorded under (a
// worse score under a new name changes nothing; a better one replaces the
// entry, name included). Player ids of several winners are ids like any
// other.
func testOnePerPlayer(t *testing.T, sub *Subject) {
	s := sub.S
	for _, higher := range []bool{false, true} {
		ctx := Ctx(t)
		b := store.Board{Game: "player", Board: fmt.Sprint(higher), Kind: store.KindHost, Higher: higher}
		v := func(x float64) float64 { // x, ranked as lower is better
			if higher {
				return -x
			}
			return x
		}
		first := store.Score{Name: "Ann", Player: "u1", Value: v(10), At: 1, Room: "K7QXMP", Match: 1}
		worse := store.Score{Name: "Annie", Player: "u1", Value: v(12), At: 2}
		better := store.Score{Name: "Anna", Player: "u1", Value: v(8), At: 3, Room: "K7QXMP", Match: 3}
		equal := store.Score{Name: "A.", Player: "u1", Value: v(8), At: 4}
		other := store.Score{Name: "Bob", Player: "u2", Value: v(9), At: 1}
		team := store.Score{Name: "Anna & Bob", Player: "u1 & u2", Value: v(20), At: 5}
		for _, sc := range []store.Score{first, other, team, worse} {
			if err := s.Record(ctx, b, sc); err != nil {
				t.Fatalf("record %+v: %v", sc, err)
			}
		}
		top, err := s.Top(ctx, b, 0)
		if want := []store.Score{other, first, team}; err != nil || !slices.Equal(top, want) {
			t.Fatalf("higher=%v: after a worse score under another name: top = %+v, %v; want %+v", higher, top, err, want)
		}
		for _, sc := range []store.Score{better, equal} {
			if err := s.Record(ctx, b, sc); err != nil {
				t.Fatalf("record %+v: %v", sc, err)
			}
		}
		top, err = s.Top(ctx, b, 0)
		if want := []store.Score{better, other, team}; err != nil || !slices.Equal(top, want) {
			t.Fatalf("higher=%v: after a better score under another name: top = %+v, %v; want %+v", higher, top, err, want)
		}
	}
}

// testPlayersApartFromNames: a score with a player id and one without are
// two entries even under one name, and a name never passes for a player id
// (nor the other way round), whatever it looks like: a player key as
// Score.Who spells it, or as a store could. Each still keeps one score.
func testPlayersApartFromNames(t *testing.T, sub *Subject) {
	s, ctx := sub.S, Ctx(t)
	b := store.Board{Game: "apart", Board: "b", Kind: store.KindHost}
	signed := store.Score{Name: "Ann", Player: "u1", Value: 20, At: 1}
	var want []store.Score
	for i, sc := range []store.Score{
		signed,
		{Name: "Ann", Value: 10, At: 2},                    // the same name, signed out
		{Name: signed.Who(), Value: 11, At: 3},             // "\x00u1"
		{Name: "u1", Value: 12, At: 4},                     // the bare id
		{Name: "pu1", Value: 13, At: 5},                    // "p" + id
		{Name: "p:u1", Value: 14, At: 6},                   // "p:" + id
		{Name: "X", Player: "Ann", Value: 15, At: 7},       // an id that is another's name
		{Name: "Y", Player: "nAnn", Value: 16, At: 8},      // "n" + that name
		{Name: "Z", Player: "\x00u1", Value: 17, At: 9},    // an id that is Who's key
		{Name: "u1", Player: "Ann", Value: 30, At: 10},     // X's player: not kept
		{Name: "\x00u1", Player: "u1", Value: 31, At: 11},  // Ann's player: not kept
		{Name: signed.Who(), Value: 32, At: 12},            // not kept
		{Name: "Ann", Value: 33, At: 13},                   // not kept
		{Name: "Ann", Player: "\x00u1", Value: 34, At: 14}, // Z's player: not kept
	} {
		if err := s.Record(ctx, b, sc); err != nil {
			t.Fatalf("record %d (%+v): %v", i, sc, err)
		}
		if sc.Value < 30 {
			want = append(want, sc)
		}
	}
	slices.SortFunc(want, func(x, y store.Score) int { return cmp.Compare(x.Value, y.Value) })
	top, err := s.Top(ctx, b, 0)
	if err != nil || !slices.Equal(top, want) {
		t.Fatalf("top = %+v, %v; want %+v", top, err, want)
	}
}

// testTrimFreesPlayer: a player's score dropped off a full board frees its
// player id, and only it: the player enters again (under any name) once, a
// score under the same name without the player id stays one entry, and so
// does a player whose name was that of an anonymous score trimmed off.
// With a small board when the store can make one, else the default 1,000.
func testTrimFreesPlayer(t *testing.T, sub *Subject) {
	size := 5
	var s store.Leaderboards
	if sub.Boards != nil {
		s = sub.Boards(t, size)
	} else {
		s, size = sub.S, 1000
	}
	ctx := Ctx(t)
	b := store.Board{Game: "trimp", Board: "b", Kind: store.KindHost}
	anon := store.Score{Name: "x", Value: 50, At: 1}
	signed := store.Score{Name: "y", Player: "py", Value: 55, At: 2}
	last := store.Score{Name: "f", Value: 70, At: 3} // what a second score of x or py would push off
	for _, sc := range []store.Score{
		anon, signed, last,
		{Name: "x", Player: "px", Value: 100, At: 4}, // trimmed off
		{Name: "y", Value: 101, At: 5},               // trimmed off
	} {
		if err := s.Record(ctx, b, sc); err != nil {
			t.Fatal(err)
		}
	}
	recordAll(t, s, b, size-3, func(i int) store.Score { // each better than anon
		return store.Score{Name: fmt.Sprint("q", i), Player: fmt.Sprint("pq", i), Value: float64(i), At: int64(i)}
	})
	top, err := s.Top(ctx, b, 0)
	if err != nil || len(top) != size || !slices.Equal(top[size-3:], []store.Score{anon, signed, last}) {
		t.Fatalf("after %d better scores: %d scores %s, %v; want %d ending with x, y, f", size-3, len(top), trimmed(top), err, size)
	}
	// Worse scores of the entries still listed change nothing: the trims
	// left their index as it was.
	for _, sc := range []store.Score{{Name: "x", Value: 52, At: 6}, {Name: "z", Player: "py", Value: 58, At: 7}} {
		if err := s.Record(ctx, b, sc); err != nil {
			t.Fatal(err)
		}
		if again, err := s.Top(ctx, b, 0); err != nil || !slices.Equal(again, top) {
			t.Fatalf("after %+v: %s, %v; want %s", sc, trimmed(again), err, trimmed(top))
		}
	}
	// The player trimmed off enters again, under another name, once.
	back := store.Score{Name: "x2", Player: "px", Value: 0.5, At: 9}
	for _, sc := range []store.Score{back, {Name: "x3", Player: "px", Value: 0.75, At: 10}} {
		if err := s.Record(ctx, b, sc); err != nil {
			t.Fatal(err)
		}
	}
	top, err = s.Top(ctx, b, 0)
	if err != nil || len(top) != size || top[1] != back || !slices.Equal(top[size-2:], []store.Score{anon, signed}) {
		t.Fatalf("after px came back: %d scores %s, %v; want %d with x2 second, ending with x, y", len(top), trimmed(top), err, size)
	}
}

// testConcurrentNames: many results under a few names recorded at once
// (bolt and redis group or pipeline them) leave exactly one score per
// name, its best, in either direction.
func testConcurrentNames(t *testing.T, sub *Subject) {
	const players, each = 5, 100
	s := sub.S
	for _, higher := range []bool{false, true} {
		b := store.Board{Game: "crowd", Board: fmt.Sprint(higher), Kind: store.KindHost, Higher: higher}
		score := func(i int) store.Score {
			p, n := i%players, i/players
			// Per player a permutation of 0..each-1: the best comes at a
			// different time for each.
			return store.Score{Name: fmt.Sprint("p", p), Value: float64((n*37 + p*11) % each), At: int64(n), Match: i}
		}
		best := map[string]store.Score{}
		for i := range players * each {
			sc := score(i)
			if cur, ok := best[sc.Name]; !ok || b.Before(sc, cur) {
				best[sc.Name] = sc
			}
		}
		var want []store.Score
		for _, sc := range best {
			want = append(want, sc)
		}
		slices.SortFunc(want, func(x, y store.Score) int {
			if b.Before(x, y) {
				return -1
			}
			return 1
		})
		recordAll(t, s, b, players*each, score)
		top, err := s.Top(Ctx(t), b, 0)
		if err != nil || !slices.Equal(top, want) {
			t.Fatalf("higher=%v: top = %+v, %v; want %+v", higher, top, err, want)
		}
	}
}

// testBoardExpires: a board with Expires lists its scores until then and
// none after, whatever later Records without Expires say; a Record with a
// later Expires extends a board; boards without Expires stay; a Record
// after the expiry starts the board afresh.
func testBoardExpires(t *testing.T, sub *Subject) {
	s, ctx := sub.S, Ctx(t)
	soon := sub.now().Add(300 * time.Millisecond).UnixMilli()
	daily := store.Board{Game: "mines", Board: "expert", Kind: "solo/day/2026-12-01", Expires: soon}
	weekly := store.Board{Game: "mines", Board: "expert", Kind: "solo/week/2026-49", Expires: soon}
	always := store.Board{Game: "mines", Board: "expert", Kind: "solo"}
	a := store.Score{Name: "a", Value: 10, At: 1}
	b := store.Score{Name: "b", Value: 20, At: 2}
	later := weekly
	later.Expires = sub.now().Add(time.Hour).UnixMilli()
	unset := daily
	unset.Expires = 0 // leaves the expiry as it is
	for _, r := range []struct {
		board store.Board
		score store.Score
	}{{daily, a}, {unset, b}, {weekly, a}, {later, b}, {always, a}} {
		if err := s.Record(ctx, r.board, r.score); err != nil {
			t.Fatal(err)
		}
	}
	top := func(b store.Board) string {
		t.Helper()
		b.Expires = 0 // not part of the board's name
		top, err := s.Top(ctx, b, 0)
		if err != nil {
			t.Fatalf("top of %s: %v", b.Kind, err)
		}
		return names(top)
	}
	before := []string{top(daily), top(weekly)}
	if sub.Advance == nil && time.Now().UnixMilli() >= soon {
		t.Skip("the boards expired before they were read: the machine is too slow for this test")
	}
	for i, b := range []store.Board{daily, weekly} {
		if before[i] != "a b" {
			t.Fatalf("%s before it expires: %q, want %q", b.Kind, before[i], "a b")
		}
	}
	if sub.Advance != nil {
		sub.Advance(time.Second)
	}
	deadline := time.Now().Add(5 * time.Second)
	for top(daily) != "" {
		if time.Now().After(deadline) {
			t.Fatalf("%s still lists %q 5s after it expired", daily.Kind, top(daily))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := top(weekly); got != "a b" {
		t.Fatalf("the extended board lists %q after its first expiry, want %q", got, "a b")
	}
	if got := top(always); got != "a" {
		t.Fatalf("the board without expiry lists %q, want %q", got, "a")
	}
	again := daily
	again.Expires = sub.now().Add(time.Hour).UnixMilli()
	c := store.Score{Name: "c", Value: 30, At: 3}
	if err := s.Record(ctx, again, c); err != nil {
		t.Fatal(err)
	}
	if got := top(daily); got != "c" {
		t.Fatalf("a Record after the expiry: %q, want a fresh board %q", got, "c")
	}
	if err := s.Record(ctx, store.Board{Game: "mines", Board: "x", Kind: "k", Expires: -1}, a); err == nil {
		t.Fatal("a Record with a negative Expires succeeded")
	}
}

// recordAll records score(0..n-1) on b all at once and fails on an error.
func recordAll(t *testing.T, s store.Leaderboards, b store.Board, n int, score func(i int) store.Score) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() { errs <- s.Record(Ctx(t), b, score(i)) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// trimmed is names(scores), cut to its first 20.
func trimmed(scores []store.Score) string {
	if len(scores) > 20 {
		return names(scores[:20]) + " ..."
	}
	return names(scores)
}

// names lists the scores' names, space-separated.
func names(scores []store.Score) string {
	out := make([]string, len(scores))
	for i, s := range scores {
		out[i] = s.Name
	}
	return strings.Join(out, " ")
}
