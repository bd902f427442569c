package storetest

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/roomd/roomd/store"
)

// testLeaderboards: a lower-is-better board (times) lists the lowest value
// first, equal values earliest first; kinds and boards are apart.
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
		{Name: "b", Value: 100, At: 9, Room: "K7QXMP", Match: 2}, // the same result twice is kept twice
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
	want := []store.Score{scores[3], scores[1], scores[1], scores[2]}
	if !slices.Equal(top, want) {
		t.Fatalf("top 4 = %+v, want %+v", top, want)
	}
	all, err := s.Top(ctx, expert, 0)
	if err != nil || len(all) != len(scores) {
		t.Fatalf("top without limit = %d scores, %v; want %d", len(all), err, len(scores))
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

// names lists the scores' names, space-separated.
func names(scores []store.Score) string {
	out := make([]string, len(scores))
	for i, s := range scores {
		out[i] = s.Name
	}
	return strings.Join(out, " ")
}
