package storetest

import (
	"slices"
	"testing"

	"github.com/roomd/roomd/store"
)

func testLeaderboards(t *testing.T, sub *Subject) {
	s, ctx := sub.S, Ctx(t)
	top, err := s.Top(ctx, "mines", "expert", store.KindHost, 10)
	if err != nil || len(top) != 0 {
		t.Fatalf("top of an empty board = %v, %v", top, err)
	}
	scores := []store.Score{
		{Name: "a", TimeMs: 300, At: 5},
		{Name: "b", TimeMs: 100, At: 9, Room: "K7QXMP", Match: 2},
		{Name: "c", TimeMs: 200.5, At: 1},
		{Name: "d", TimeMs: 100, At: 3},
		{Name: "e", TimeMs: 400, At: 2},
		{Name: "b", TimeMs: 100, At: 9, Room: "K7QXMP", Match: 2}, // the same result twice is kept twice
	}
	for _, sc := range scores {
		if err := s.Record(ctx, "mines", "expert", store.KindHost, sc); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Record(ctx, "mines", "expert", store.KindClient, store.Score{Name: "z", TimeMs: 1, At: 1}); err != nil {
		t.Fatal(err)
	}
	if err := s.Record(ctx, "mines", "beginner", store.KindHost, store.Score{Name: "y", TimeMs: 1, At: 1}); err != nil {
		t.Fatal(err)
	}
	top, err = s.Top(ctx, "mines", "expert", store.KindHost, 4)
	if err != nil {
		t.Fatal(err)
	}
	want := []store.Score{scores[3], scores[1], scores[1], scores[2]}
	if !slices.Equal(top, want) {
		t.Fatalf("top 4 = %+v, want %+v", top, want)
	}
	all, err := s.Top(ctx, "mines", "expert", store.KindHost, 0)
	if err != nil || len(all) != len(scores) {
		t.Fatalf("top without limit = %d scores, %v; want %d", len(all), err, len(scores))
	}
	if all[len(all)-1] != scores[4] {
		t.Fatalf("last = %+v, want %+v", all[len(all)-1], scores[4])
	}
	other, err := s.Top(ctx, "mines", "expert", store.KindClient, 10)
	if err != nil || len(other) != 1 || other[0].Name != "z" {
		t.Fatalf("client board = %+v, %v", other, err)
	}
}
