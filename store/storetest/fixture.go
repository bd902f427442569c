package storetest

import (
	"encoding/json"
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/roomd/roomd/store"
)

// Fixture is what a stored-format fixture's JSON file says about the store
// an earlier version wrote (testdata/fixtures/v1/bolt.json and redis.json,
// see testdata/fixtures/README.md).
type Fixture struct {
	Commit string `json:"commit"`
	// Rooms are the live rooms.
	Rooms []struct {
		Code string `json:"code"`
		What string `json:"what"`
	} `json:"rooms"`
	// Closed are rooms that were closed (ended): gone or ended now.
	Closed []string `json:"closed"`
	// Scores are the minesweeper/beginner host board, best first, in the
	// format of that version (the time in "time").
	Scores []struct {
		Name  string  `json:"name"`
		Time  float64 `json:"time"`
		Room  string  `json:"room"`
		Match int     `json:"match"`
		At    int64   `json:"at"`
	} `json:"scores"`
}

// StoredScores are the fixture's scores as they read now: the stored time
// in Value.
func (fx *Fixture) StoredScores() []store.Score {
	var out []store.Score
	for _, sc := range fx.Scores {
		out = append(out, store.Score{Name: sc.Name, Value: sc.Time, Room: sc.Room, Match: sc.Match, At: sc.At})
	}
	return out
}

// LoadFixture reads a fixture's JSON file.
func LoadFixture(t testing.TB, path string) *Fixture {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var fx Fixture
	if err := json.Unmarshal(data, &fx); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(fx.Rooms) == 0 || len(fx.Closed) == 0 || len(fx.Scores) == 0 {
		t.Fatalf("%s: %d rooms, %d closed, %d scores: not a fixture", path, len(fx.Rooms), len(fx.Closed), len(fx.Scores))
	}
	return &fx
}

// CheckFixture checks that s, opened on a copy of the stored data fx
// describes, loads it: List returns exactly the live rooms; each opens with
// a snapshot and its entries in revision order after the snapshot's
// revision, and takes the next entry; the closed rooms are ended or gone.
//
// oldBoards says whether s still reads the leaderboards that version
// stored. If so, the minesweeper/beginner host board lists the recorded
// scores with Value equal to the stored time, keeps them as the best of
// their names, and ranks new scores with them. If not (the store keeps
// boards under new keys), that board starts empty and takes new scores.
func CheckFixture(t *testing.T, s store.Backend, fx *Fixture, oldBoards bool) {
	t.Helper()
	ctx := Ctx(t)
	var live []string
	for _, r := range fx.Rooms {
		live = append(live, r.Code)
	}
	slices.Sort(live)
	got, err := s.List(ctx)
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	if !slices.Equal(got, live) {
		t.Fatalf("list = %v, want the live rooms %v", got, live)
	}

	for _, r := range fx.Rooms {
		l, rec := MustOpen(t, s, r.Code)
		if rec.Ended {
			t.Errorf("%s (%s): ended", r.Code, r.What)
		}
		if len(rec.Snapshot.Data) == 0 || !json.Valid(rec.Snapshot.Data) {
			t.Errorf("%s (%s): snapshot at rev %d is %q", r.Code, r.What, rec.Snapshot.Rev, trunc(rec.Snapshot.Data))
		}
		next := rec.Snapshot.Rev + 1
		for _, e := range rec.Entries {
			if e.Rev != next {
				t.Fatalf("%s (%s): entries %v after snapshot rev %d, want contiguous revisions after it",
					r.Code, r.What, Revs(rec.Entries), rec.Snapshot.Rev)
			}
			// The room layer's entries carry their revision: the store
			// must have returned each one's own bytes.
			var body struct {
				Rev uint64 `json:"rev"`
			}
			if err := json.Unmarshal(e.Data, &body); err != nil || body.Rev != e.Rev {
				t.Fatalf("%s: entry at rev %d holds %q", r.Code, e.Rev, trunc(e.Data))
			}
			next++
		}
		t.Logf("%s: snapshot rev %d, %d entries (%s)", r.Code, rec.Snapshot.Rev, len(rec.Entries), r.What)
		MustAppend(t, s, l, []store.Entry{{Rev: next, Data: []byte(`{"rev":0}`)}})
	}

	for _, code := range fx.Closed {
		_, rec, err := s.Open(ctx, code)
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			t.Errorf("open the closed room %s: %v", code, err)
		case !rec.Ended:
			t.Errorf("the closed room %s is not ended", code)
		}
	}

	board := store.Board{Game: "minesweeper", Board: "beginner", Kind: store.KindHost}
	var want []store.Score
	if oldBoards {
		want = fx.StoredScores()
	}
	top, err := s.Top(ctx, board, 10)
	if err != nil || !slices.Equal(top, want) {
		t.Fatalf("top = %+v, %v; want %+v", top, err, want)
	}
	for _, old := range want { // the stored score stays the best of its name
		worse := store.Score{Name: old.Name, Value: old.Value + 1, At: old.At + 1}
		if err := s.Record(ctx, board, worse); err != nil {
			t.Fatal(err)
		}
	}
	if top, err := s.Top(ctx, board, 10); err != nil || !slices.Equal(top, want) {
		t.Fatalf("top after worse scores under the stored names = %+v, %v; want %+v", top, err, want)
	}
	best := store.Score{Name: "Faster", Value: 1, At: 1}
	if len(want) > 0 {
		best = store.Score{Name: "Faster", Value: want[0].Value - 1, At: want[0].At + 1}
	}
	if err := s.Record(ctx, board, best); err != nil {
		t.Fatal(err)
	}
	top, err = s.Top(ctx, board, 10)
	if err != nil || !slices.Equal(top, append([]store.Score{best}, want...)) {
		t.Fatalf("top after a better score = %+v, %v", top, err)
	}
}
