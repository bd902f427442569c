package room

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/store/memstore"
)

// TestListCursor: a cursor names a key and reads back as it; anything else
// is refused.
func TestListCursor(t *testing.T) {
	for _, k := range []listKey{{0, -1767225600000, 0, "K7QXMP"}, {1, -3, -1767225600000, "ABCDEF"}, {2, 0, 0, ""}} {
		got, err := parseCursor(k.cursor())
		if err != nil || got != k {
			t.Errorf("%+v: read back %+v, %v", k, got, err)
		}
	}
	for _, bad := range []string{"!!", "YWJj", "MS4yLjM", "eC4xLjIuQQ"} { // not base64, "abc", "1.2.3", "x.1.2.A"
		if _, err := parseCursor(bad); !errors.Is(err, ErrBadCursor) {
			t.Errorf("%q: %v, want ErrBadCursor", bad, err)
		}
	}
	// Keys order by class, then a, b and code.
	keys := []listKey{{1, -5, 0, "B"}, {0, -2, 0, "Z"}, {2, -9, 0, "A"}, {0, -2, 0, "A"}, {1, -5, -7, "C"}}
	slices.SortFunc(keys, func(x, y listKey) int { return x.compare(y) })
	want := []listKey{{0, -2, 0, "A"}, {0, -2, 0, "Z"}, {1, -5, -7, "C"}, {1, -5, 0, "B"}, {2, -9, 0, "A"}}
	if !slices.Equal(keys, want) {
		t.Errorf("sorted %+v, want %+v", keys, want)
	}
}

// TestResolvePublic: "public": true is access public, and conflicts with
// another access.
func TestResolvePublic(t *testing.T) {
	for _, c := range []struct {
		req  CreateRequest
		want string
		err  bool
	}{
		{CreateRequest{Public: true}, protocol.AccessPublic, false},
		{CreateRequest{Public: true, Access: protocol.AccessPublic}, protocol.AccessPublic, false},
		{CreateRequest{Public: true, Access: protocol.AccessLocked}, "", true},
		{CreateRequest{Public: true, Access: protocol.AccessUnlisted}, "", true},
		{CreateRequest{Access: protocol.AccessLocked}, protocol.AccessLocked, false},
		{CreateRequest{}, "", false},
	} {
		req := c.req
		err := req.resolvePublic()
		if (err != nil) != c.err || (err == nil && req.Access != c.want) || (err != nil && !errors.Is(err, ErrBadSettings)) {
			t.Errorf("%+v: access %q, %v", c.req, req.Access, err)
		}
	}
}

// TestListBuiltOncePerTTL: the list is rebuilt at most once per listTTL of
// the host clock; a page query out of range is refused.
func TestListBuiltOncePerTTL(t *testing.T) {
	var offset atomic.Int64
	now := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	m, err := NewManager(Config{Games: session.NewRegistry(nim.Game), Store: memstore.New(), AIDelay: -1, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := m.Shutdown(ctx); err != nil {
			t.Error(err)
		}
	})
	ctx := context.Background()
	list := func() []string {
		t.Helper()
		p, err := m.ListRooms(ListQuery{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range p.Rooms {
			out = append(out, r.Code)
		}
		return out
	}
	a, err := m.Create(ctx, CreateRequest{Game: "nim", Name: "A", Public: true, Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := list(); !slices.Equal(got, []string{a.Room}) {
		t.Fatalf("listed %v, want %v", got, a.Room)
	}
	offset.Add(int64(time.Millisecond)) // B is newer than A
	b, err := m.Create(ctx, CreateRequest{Game: "nim", Name: "B", Public: true, Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := list(); !slices.Equal(got, []string{a.Room}) {
		t.Errorf("within the TTL: listed %v, want the list built before (%v)", got, a.Room)
	}
	offset.Add(int64(listTTL))
	if got := list(); !slices.Equal(got, []string{b.Room, a.Room}) {
		t.Errorf("after the TTL: listed %v, want %v", got, []string{b.Room, a.Room})
	}
	// Quick play reads the live rooms, not the list: it finds a room made
	// after the list was built (quick-play rooms: it fills no other).
	d, err := m.Create(ctx, CreateRequest{Game: "nim", Settings: []byte(`{"pile":15}`), Name: "D", Public: true, Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := list(); slices.Contains(got, d.Room) {
		t.Fatalf("D listed within the TTL: %v", got)
	}
	res, err := m.QuickPlay(ctx, QuickPlayRequest{Game: "nim", Settings: []byte(`{ "pile": 15 }`), Name: "E"})
	if err != nil || res.Created || res.Room != d.Room || res.Seat != 1 {
		t.Errorf("quick play: %+v, %v, want seat 1 in %s", res, err, d.Room)
	}
	// Of two as full, the older first.
	res, err = m.QuickPlay(ctx, QuickPlayRequest{Game: "nim", Name: "C"})
	if err != nil || res.Created || res.Room != a.Room {
		t.Errorf("quick play: %+v, %v, want a seat in %s", res, err, a.Room)
	}
	for _, q := range []ListQuery{{Limit: -1}, {Limit: MaxListLimit + 1}, {Phase: "ended"}} {
		if _, err := m.ListRooms(q); !errors.Is(err, ErrBadSettings) {
			t.Errorf("%+v: %v, want ErrBadSettings", q, err)
		}
	}
	if _, err := m.ListRooms(ListQuery{Cursor: "??"}); !errors.Is(err, ErrBadCursor) {
		t.Errorf("bad cursor: %v", err)
	}
}
