package storetest

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/roomd/roomd/store"
)

// step is a RatingUpdate for the tests: the first player gains one
// point, the second loses one, each with the RD it is given.
func step(rdA, rdB float64) store.RatingUpdate {
	return func(a, b store.Rating) (store.Rating, store.Rating) {
		return store.Rating{Rating: a.Rating + 1, RD: rdA, Volatility: 0.06},
			store.Rating{Rating: b.Rating - 1, RD: rdB, Volatility: 0.05}
	}
}

// set is a RatingUpdate that gives both players the ratings given.
func set(a, b store.Rating) store.RatingUpdate {
	return func(store.Rating, store.Rating) (store.Rating, store.Rating) { return a, b }
}

func mustApply(t *testing.T, s store.Ratings, m store.RatedMatch, up store.RatingUpdate) bool {
	t.Helper()
	applied, err := s.ApplyRating(Ctx(t), m, up)
	if err != nil {
		t.Fatalf("apply %s: %v", m.ID, err)
	}
	return applied
}

var tictactoe = store.RatingPool{Game: "tictactoe", Mode: "duel"}

// testRatingsApply: a match changes both players' ratings, counts the
// match, keeps the names and the time, and puts one change in each
// history; a player with no match has no rating.
func testRatingsApply(t *testing.T, sub *Subject) {
	s, ctx := sub.S, Ctx(t)
	if _, found, err := s.Rating(ctx, tictactoe, "alice"); err != nil || found {
		t.Fatalf("rating of a player never rated: found %v, %v", found, err)
	}
	if h, err := s.RatingHistory(ctx, tictactoe, "alice", 10); err != nil || len(h) != 0 {
		t.Fatalf("history of a player never rated = %+v, %v", h, err)
	}
	m := store.RatedMatch{ID: "K7QXMP/1/abc", Pool: tictactoe, Players: [2]string{"alice", "bob"},
		Names: [2]string{"Alice", "Bob"}, Score: 1, At: 1_700_000_000_123}
	var seen [2]store.Rating
	up := func(a, b store.Rating) (store.Rating, store.Rating) {
		seen = [2]store.Rating{a, b}
		return store.Rating{Rating: 1662.3, RD: 290.3, Volatility: 0.06}, store.Rating{Rating: 1337.7, RD: 290.3, Volatility: 0.06}
	}
	if !mustApply(t, s, m, up) {
		t.Fatal("the first apply of a match says it was applied before")
	}
	if seen != [2]store.Rating{} {
		t.Fatalf("the update saw %+v for players with no rating, want zero ratings", seen)
	}
	wantA := store.Rating{Rating: 1662.3, RD: 290.3, Volatility: 0.06, Matches: 1, Name: "Alice", At: m.At}
	wantB := store.Rating{Rating: 1337.7, RD: 290.3, Volatility: 0.06, Matches: 1, Name: "Bob", At: m.At}
	for _, c := range []struct {
		player string
		want   store.Rating
		change store.RatingChange
	}{
		{"alice", wantA, store.RatingChange{Match: m.ID, At: m.At, Opponent: "bob", OpponentName: "Bob", Score: 1, After: wantA}},
		{"bob", wantB, store.RatingChange{Match: m.ID, At: m.At, Opponent: "alice", OpponentName: "Alice", Score: 0, After: wantB}},
	} {
		got, found, err := s.Rating(ctx, tictactoe, c.player)
		if err != nil || !found || got != c.want {
			t.Fatalf("rating of %s = %+v, %v, %v; want %+v", c.player, got, found, err, c.want)
		}
		h, err := s.RatingHistory(ctx, tictactoe, c.player, 0)
		if err != nil || len(h) != 1 || h[0] != c.change {
			t.Fatalf("history of %s = %+v, %v; want [%+v]", c.player, h, err, c.change)
		}
	}
	// A second match sees the stored ratings and is the newest change.
	m2 := store.RatedMatch{ID: "K7QXMP/2/def", Pool: tictactoe, Players: [2]string{"bob", "alice"},
		Names: [2]string{"Bobby", "Alice"}, Score: 0.5, At: m.At + 60_000}
	if !mustApply(t, s, m2, up) {
		t.Fatal("a second match was not applied")
	}
	if seen != [2]store.Rating{wantB, wantA} {
		t.Fatalf("the update saw %+v, want the stored ratings %+v", seen, [2]store.Rating{wantB, wantA})
	}
	h, err := s.RatingHistory(ctx, tictactoe, "bob", 10)
	if err != nil || len(h) != 2 || h[0].Match != m2.ID || h[0].Score != 0.5 || h[0].Before != wantB || h[0].After.Name != "Bobby" || h[0].After.Matches != 2 {
		t.Fatalf("bob's history after a draw = %+v, %v", h, err)
	}
	// Other pools are apart.
	other := store.RatingPool{Game: "tictactoe", Mode: "other"}
	if _, found, err := s.Rating(ctx, other, "alice"); err != nil || found {
		t.Fatalf("rating in another mode: found %v, %v", found, err)
	}
}

// testRatingsOnce: a match applied again (a retry after a crash) changes
// nothing and says so, across a reopen of the store too.
func testRatingsOnce(t *testing.T, sub *Subject) {
	ctx := Ctx(t)
	m := store.RatedMatch{ID: "ROOM01/1/c0ffee", Pool: tictactoe, Players: [2]string{"p1", "p2"}, Score: 1, At: 5}
	if !mustApply(t, sub.S, m, step(200, 200)) {
		t.Fatal("first apply not applied")
	}
	for i := range 2 {
		if mustApply(t, sub.S, m, step(100, 100)) {
			t.Fatalf("apply %d of the same match applied it again", i+2)
		}
	}
	if sub.Reopen != nil {
		sub.Reopen(t)
		if mustApply(t, sub.S, m, step(100, 100)) {
			t.Fatal("the same match applied again after a reopen")
		}
	}
	r, _, err := sub.S.Rating(ctx, tictactoe, "p1")
	if err != nil || r.Rating != 1 || r.RD != 200 || r.Matches != 1 {
		t.Fatalf("rating after repeated applies = %+v, %v; want the first apply's", r, err)
	}
	if h, err := sub.S.RatingHistory(ctx, tictactoe, "p2", 0); err != nil || len(h) != 1 {
		t.Fatalf("history after repeated applies = %d changes, %v; want 1", len(h), err)
	}
	// The same id in another pool is another match.
	m.Pool = store.RatingPool{Game: "nim", Mode: "duel"}
	if !mustApply(t, sub.S, m, step(200, 200)) {
		t.Fatal("the same id in another pool was not applied")
	}
}

// testRatingsHistory: a history keeps the newest MaxRatingHistory
// changes, newest first; limit bounds what is returned.
func testRatingsHistory(t *testing.T, sub *Subject) {
	s, ctx := sub.S, Ctx(t)
	n := store.MaxRatingHistory + 5
	for i := range n {
		m := store.RatedMatch{ID: fmt.Sprintf("m%d", i), Pool: tictactoe, Players: [2]string{"busy", fmt.Sprintf("o%d", i)}, Score: 1, At: int64(i)}
		mustApply(t, s, m, step(100, 300))
	}
	h, err := s.RatingHistory(ctx, tictactoe, "busy", 0)
	if err != nil || len(h) != store.MaxRatingHistory {
		t.Fatalf("history = %d changes, %v; want %d", len(h), err, store.MaxRatingHistory)
	}
	for i, c := range h {
		want := n - 1 - i
		if c.Match != fmt.Sprintf("m%d", want) || c.After.Rating != float64(want+1) || c.Before.Rating != float64(want) {
			t.Fatalf("change %d = %+v, want match m%d from %d to %d", i, c, want, want, want+1)
		}
	}
	if h, err := s.RatingHistory(ctx, tictactoe, "busy", 3); err != nil || len(h) != 3 || h[0].Match != fmt.Sprintf("m%d", n-1) {
		t.Fatalf("history limited to 3 = %+v, %v", h, err)
	}
	if r, _, err := s.Rating(ctx, tictactoe, "busy"); err != nil || r.Matches != n {
		t.Fatalf("rating = %+v, %v; want %d matches", r, err, n)
	}
}

// testRatingsTop: the leaderboard lists the pool's players whose RD is at
// most ProvisionalRD, highest rating first (equal ratings by id), within
// the limit; a player who becomes provisional again leaves it, and one
// who falls moves down.
func testRatingsTop(t *testing.T, sub *Subject) {
	s, ctx := sub.S, Ctx(t)
	if top, err := s.TopRatings(ctx, tictactoe, 10); err != nil || len(top) != 0 {
		t.Fatalf("top of an empty pool = %+v, %v", top, err)
	}
	r := func(rating, rd float64) store.Rating { return store.Rating{Rating: rating, RD: rd, Volatility: 0.06} }
	apply := func(id, a, b string, ra, rb store.Rating) {
		t.Helper()
		mustApply(t, s, store.RatedMatch{ID: id, Pool: tictactoe, Players: [2]string{a, b}, Names: [2]string{strings.ToUpper(a), strings.ToUpper(b)}, Score: 1, At: 1}, set(ra, rb))
	}
	apply("1", "ann", "ben", r(1700, 100), r(1600, store.ProvisionalRD))
	apply("2", "cat", "dan", r(1800, 111), r(1600, 60)) // cat is provisional
	apply("3", "eve", "fay", r(1650, 50), r(1300, 90))
	other := store.RatingPool{Game: "nim", Mode: "duel"}
	mustApply(t, s, store.RatedMatch{ID: "4", Pool: other, Players: [2]string{"zed", "yan"}, Score: 1, At: 1}, set(r(2500, 50), r(2400, 50)))

	names := func(top []store.RatingEntry) string {
		var out []string
		for _, p := range top {
			out = append(out, fmt.Sprintf("%s:%g", p.Player, p.Rating.Rating))
		}
		return strings.Join(out, " ")
	}
	top, err := s.TopRatings(ctx, tictactoe, 0)
	if want := "ann:1700 eve:1650 ben:1600 dan:1600 fay:1300"; err != nil || names(top) != want {
		t.Fatalf("top = %s, %v; want %s", names(top), err, want)
	}
	if top[0].Name != "ANN" || top[0].Matches != 1 || top[0].RD != 100 {
		t.Fatalf("first line = %+v, want ann's whole rating", top[0])
	}
	if top, err := s.TopRatings(ctx, tictactoe, 2); err != nil || names(top) != "ann:1700 eve:1650" {
		t.Fatalf("top 2 = %s, %v", names(top), err)
	}
	// ann falls below fay; eve turns provisional; cat settles.
	apply("5", "ann", "eve", r(1200, 80), r(1650, 150))
	apply("6", "cat", "fay", r(1810, 100), r(1300, 90))
	if top, err := s.TopRatings(ctx, tictactoe, 0); err != nil || names(top) != "cat:1810 ben:1600 dan:1600 fay:1300 ann:1200" {
		t.Fatalf("top after changes = %s, %v", names(top), err)
	}
	if top, err := s.TopRatings(ctx, other, 0); err != nil || names(top) != "zed:2500 yan:2400" {
		t.Fatalf("top of another pool = %s, %v", names(top), err)
	}
}

// testRatingsConcurrent: many matches of one player applied at once lose
// no update (on Redis each goroutine's transaction has a connection of its
// own, as two nodes' would).
func testRatingsConcurrent(t *testing.T, sub *Subject) {
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			m := store.RatedMatch{ID: fmt.Sprintf("c%d", i), Pool: tictactoe, Players: [2]string{"hub", fmt.Sprintf("spoke%d", i%4)}, Score: 1, At: int64(i)}
			if _, err := sub.S.ApplyRating(Ctx(t), m, step(100, 100)); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	r, _, err := sub.S.Rating(Ctx(t), tictactoe, "hub")
	if err != nil || r.Rating != n || r.Matches != n {
		t.Fatalf("hub after %d concurrent matches = %+v, %v; want rating %d, %d matches", n, r, err, n, n)
	}
	total := 0.0
	for i := range 4 {
		r, _, err := sub.S.Rating(Ctx(t), tictactoe, fmt.Sprintf("spoke%d", i))
		if err != nil || r.Matches != n/4 {
			t.Fatalf("spoke%d = %+v, %v; want %d matches", i, r, err, n/4)
		}
		total += r.Rating
	}
	if total != -n {
		t.Fatalf("the spokes' ratings sum to %v, want %d", total, -n)
	}
	if h, err := sub.S.RatingHistory(Ctx(t), tictactoe, "hub", 0); err != nil || len(h) != n {
		t.Fatalf("hub's history = %d changes, %v; want %d", len(h), err, n)
	}
}

// testRatingsRefused: what is out of bounds is refused with ErrBadRating
// and stores nothing.
func testRatingsRefused(t *testing.T, sub *Subject) {
	s, ctx := sub.S, Ctx(t)
	good := store.RatedMatch{ID: "ok", Pool: tictactoe, Players: [2]string{"a", "b"}, Score: 1, At: 1}
	long := strings.Repeat("x", store.MaxPlayerID+1)
	for name, mod := range map[string]func(m *store.RatedMatch){
		"no id":           func(m *store.RatedMatch) { m.ID = "" },
		"long id":         func(m *store.RatedMatch) { m.ID = strings.Repeat("i", store.MaxClaimKey+1) },
		"no game":         func(m *store.RatedMatch) { m.Pool.Game = "" },
		"slash in mode":   func(m *store.RatedMatch) { m.Pool.Mode = "a/b" },
		"no player":       func(m *store.RatedMatch) { m.Players[1] = "" },
		"long player":     func(m *store.RatedMatch) { m.Players[0] = long },
		"long name":       func(m *store.RatedMatch) { m.Names[0] = long },
		"against himself": func(m *store.RatedMatch) { m.Players[1] = "a" },
		"score 2":         func(m *store.RatedMatch) { m.Score = 2 },
		"negative time":   func(m *store.RatedMatch) { m.At = -1 },
	} {
		m := good
		mod(&m)
		if _, err := s.ApplyRating(ctx, m, step(100, 100)); !errors.Is(err, store.ErrBadRating) {
			t.Errorf("%s: err = %v, want ErrBadRating", name, err)
		}
	}
	nan := func(a, b store.Rating) (store.Rating, store.Rating) {
		return store.Rating{Rating: a.Rating / 0 * 0, RD: 1, Volatility: 1}, b
	}
	if _, err := s.ApplyRating(ctx, good, nan); !errors.Is(err, store.ErrBadRating) {
		t.Errorf("an update giving NaN: err = %v, want ErrBadRating", err)
	}
	if _, found, err := s.Rating(ctx, tictactoe, "a"); err != nil || found {
		t.Fatalf("a refused match stored a rating: found %v, %v", found, err)
	}
	if !mustApply(t, s, good, step(100, 100)) {
		t.Fatal("the good match, refused before with a bad update, was not applied")
	}
	if _, _, err := s.Rating(ctx, tictactoe, long); !errors.Is(err, store.ErrBadRating) {
		t.Errorf("rating of a long id: err = %v", err)
	}
	if _, err := s.RatingHistory(ctx, store.RatingPool{Game: "x"}, "a", 1); !errors.Is(err, store.ErrBadRating) {
		t.Errorf("history in a pool without a mode: err = %v", err)
	}
	if _, err := s.TopRatings(ctx, store.RatingPool{Game: "x", Mode: "\x00"}, 1); !errors.Is(err, store.ErrBadRating) {
		t.Errorf("top of a pool with a control character: err = %v", err)
	}
}

// testRatingsReopen: ratings, histories and leaderboards survive a reopen.
func testRatingsReopen(t *testing.T, sub *Subject) {
	if sub.Reopen == nil {
		t.Skip("the store keeps nothing across a reopen")
	}
	mustApply(t, sub.S, store.RatedMatch{ID: "r1", Pool: tictactoe, Players: [2]string{"a", "b"}, Names: [2]string{"A", "B"}, Score: 0, At: 9},
		set(store.Rating{Rating: 1400, RD: 100, Volatility: 0.06}, store.Rating{Rating: 1600, RD: 100, Volatility: 0.06}))
	s := sub.Reopen(t)
	ctx := Ctx(t)
	if r, found, err := s.Rating(ctx, tictactoe, "b"); err != nil || !found || r.Rating != 1600 || r.Name != "B" {
		t.Fatalf("rating after a reopen = %+v, %v, %v", r, found, err)
	}
	if h, err := s.RatingHistory(ctx, tictactoe, "a", 0); err != nil || len(h) != 1 || h[0].Opponent != "b" {
		t.Fatalf("history after a reopen = %+v, %v", h, err)
	}
	if top, err := s.TopRatings(ctx, tictactoe, 0); err != nil || len(top) != 2 || top[0].Player != "b" {
		t.Fatalf("top after a reopen = %+v, %v", top, err)
	}
}
