package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// subject is one store under test, fresh for each test.
type subject struct {
	s Backend
	// advance moves the store's clock forward; nil when the store runs on
	// real time (then TTL tests poll).
	advance func(time.Duration)
	// reopen closes s and returns a new store on the same data (a new
	// process, a new client); nil when nothing persists.
	reopen func(t *testing.T) Backend
}

// factory makes a fresh subject; it registers the store's Close with
// t.Cleanup.
type factory func(t *testing.T) *subject

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Unix(1_700_000_000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func entry(room string, rev uint64) Entry {
	return Entry{Rev: rev, Data: fmt.Appendf(nil, `{"room":%q,"rev":%d}`, room, rev)}
}

func entries(room string, from, to uint64) []Entry {
	var out []Entry
	for rev := from; rev <= to; rev++ {
		out = append(out, entry(room, rev))
	}
	return out
}

func mustCreate(t *testing.T, s Store, room string, snap Snapshot) Lease {
	t.Helper()
	l, err := s.Create(testCtx(t), room, snap)
	if err != nil {
		t.Fatalf("create %s: %v", room, err)
	}
	return l
}

func mustOpen(t *testing.T, s Store, room string) (Lease, Record) {
	t.Helper()
	l, rec, err := s.Open(testCtx(t), room)
	if err != nil {
		t.Fatalf("open %s: %v", room, err)
	}
	return l, rec
}

func mustAppend(t *testing.T, s Store, l Lease, es []Entry) {
	t.Helper()
	if err := s.Append(testCtx(t), l, es); err != nil {
		t.Fatalf("append %s %d..: %v", l.Room, es[0].Rev, err)
	}
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: err = %v, want %v", what, err, want)
	}
}

// checkRecord compares a loaded record with the snapshot and entries
// expected.
func checkRecord(t *testing.T, rec Record, snap Snapshot, want []Entry) {
	t.Helper()
	if rec.Snapshot.Rev != snap.Rev || !bytes.Equal(rec.Snapshot.Data, snap.Data) {
		t.Fatalf("snapshot = rev %d %q, want rev %d %q", rec.Snapshot.Rev, trunc(rec.Snapshot.Data), snap.Rev, trunc(snap.Data))
	}
	if len(rec.Entries) != len(want) {
		t.Fatalf("%d entries %v, want %d", len(rec.Entries), revs(rec.Entries), len(want))
	}
	for i, e := range rec.Entries {
		if e.Rev != want[i].Rev || !bytes.Equal(e.Data, want[i].Data) {
			t.Fatalf("entry %d = rev %d %q, want rev %d %q", i, e.Rev, trunc(e.Data), want[i].Rev, trunc(want[i].Data))
		}
	}
}

func trunc(b []byte) []byte {
	if len(b) > 40 {
		return b[:40]
	}
	return b
}

func revs(es []Entry) []uint64 {
	out := make([]uint64, len(es))
	for i, e := range es {
		out[i] = e.Rev
	}
	return out
}

// waitExpired waits until the room is gone: the fake clock jumps past ttl,
// a real one is polled with a deadline.
func waitExpired(t *testing.T, sub *subject, room string, ttl time.Duration) {
	t.Helper()
	if sub.advance != nil {
		sub.advance(ttl + time.Millisecond)
	}
	deadline := time.Now().Add(ttl + 10*time.Second)
	for {
		_, _, err := sub.s.Open(testCtx(t), room)
		if errors.Is(err, ErrNotFound) {
			return
		}
		if err != nil {
			t.Fatalf("open %s while waiting for expiry: %v", room, err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("room %s did not expire within %v", room, ttl+10*time.Second)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func runConformance(t *testing.T, newSubject factory) {
	tests := []struct {
		name string
		fn   func(t *testing.T, sub *subject)
	}{
		{"CreateOpen", testCreateOpen},
		{"AppendInOrder", testAppendInOrder},
		{"Gap", testGap},
		{"Fencing", testFencing},
		{"Snapshot", testSnapshot},
		{"List", testList},
		{"EndTTL", testEndTTL},
		{"Reopen", testReopen},
		{"ConcurrentRooms", testConcurrentRooms},
		{"Leaderboards", testLeaderboards},
		{"DataRoundTrip", testDataRoundTrip},
		{"Closed", testClosed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newSubject(t))
		})
	}
}

func testCreateOpen(t *testing.T, sub *subject) {
	s, ctx := sub.s, testCtx(t)
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("ping: %v", err)
	}
	snap := Snapshot{Rev: 0, Data: []byte(`{"v":1}`)}
	l1 := mustCreate(t, s, "K7QXMP", snap)
	if l1.Room != "K7QXMP" || l1.Token == 0 {
		t.Fatalf("create lease = %+v", l1)
	}
	l2, rec := mustOpen(t, s, "K7QXMP")
	if l2.Token <= l1.Token {
		t.Fatalf("open token %d, not above create's %d", l2.Token, l1.Token)
	}
	if rec.Ended {
		t.Fatal("a new room is ended")
	}
	checkRecord(t, rec, snap, nil)
	l3, _ := mustOpen(t, s, "K7QXMP")
	if l3.Token <= l2.Token {
		t.Fatalf("second open token %d, not above %d", l3.Token, l2.Token)
	}
	_, err := s.Create(ctx, "K7QXMP", snap)
	wantErr(t, "create a taken code", err, ErrExists)
	_, _, err = s.Open(ctx, "NOSUCH")
	wantErr(t, "open unknown", err, ErrNotFound)
	err = s.Append(ctx, Lease{Room: "NOSUCH", Token: l3.Token}, entries("NOSUCH", 1, 1))
	wantErr(t, "append to unknown", err, ErrNotFound)
}

func testAppendInOrder(t *testing.T, sub *subject) {
	s := sub.s
	snap := Snapshot{Rev: 0, Data: []byte("s0")}
	l := mustCreate(t, s, "ROOM01", snap)
	mustAppend(t, s, l, entries("ROOM01", 1, 1))
	mustAppend(t, s, l, entries("ROOM01", 2, 3))
	mustAppend(t, s, l, entries("ROOM01", 4, 10))
	_, rec := mustOpen(t, s, "ROOM01")
	checkRecord(t, rec, snap, entries("ROOM01", 1, 10))
}

func testGap(t *testing.T, sub *subject) {
	s, ctx := sub.s, testCtx(t)
	snap := Snapshot{Rev: 0, Data: []byte("s0")}
	l := mustCreate(t, s, "GAPGAP", snap)
	wantErr(t, "append rev 2 first", s.Append(ctx, l, entries("GAPGAP", 2, 2)), ErrGap)
	wantErr(t, "append 1,3", s.Append(ctx, l, []Entry{entry("GAPGAP", 1), entry("GAPGAP", 3)}), ErrGap)
	mustAppend(t, s, l, entries("GAPGAP", 1, 2))
	// A retry of an append that landed succeeds; other bytes at a stored
	// revision are a gap.
	mustAppend(t, s, l, entries("GAPGAP", 1, 2))
	mustAppend(t, s, l, entries("GAPGAP", 2, 2))
	wantErr(t, "append other bytes at rev 2", s.Append(ctx, l, []Entry{{Rev: 2, Data: []byte("other")}}), ErrGap)
	wantErr(t, "append 2,3 over the end", s.Append(ctx, l, entries("GAPGAP", 2, 3)), ErrGap)
	wantErr(t, "append rev 0", s.Append(ctx, l, []Entry{{Rev: 0, Data: []byte("x")}}), ErrGap)
	wantErr(t, "append rev 4", s.Append(ctx, l, entries("GAPGAP", 4, 4)), ErrGap)
	mustAppend(t, s, l, entries("GAPGAP", 3, 3))
	_, rec := mustOpen(t, s, "GAPGAP")
	checkRecord(t, rec, snap, entries("GAPGAP", 1, 3))
}

func testFencing(t *testing.T, sub *subject) {
	s, ctx := sub.s, testCtx(t)
	snap := Snapshot{Rev: 0, Data: []byte("s0")}
	first := mustCreate(t, s, "FENCE1", snap)
	mustAppend(t, s, first, entries("FENCE1", 1, 1))
	second, _ := mustOpen(t, s, "FENCE1")
	wantErr(t, "stale append", s.Append(ctx, first, entries("FENCE1", 2, 2)), ErrFenced)
	wantErr(t, "stale snapshot", s.WriteSnapshot(ctx, first, Snapshot{Rev: 1, Data: []byte("stale")}), ErrFenced)
	wantErr(t, "stale end", s.End(ctx, first, time.Hour), ErrFenced)
	mustAppend(t, s, second, entries("FENCE1", 2, 3))
	if err := s.WriteSnapshot(ctx, second, Snapshot{Rev: 2, Data: []byte("s2")}); err != nil {
		t.Fatalf("snapshot by the holder: %v", err)
	}
	third, rec := mustOpen(t, s, "FENCE1")
	if rec.Ended {
		t.Fatal("a stale End ended the room")
	}
	checkRecord(t, rec, Snapshot{Rev: 2, Data: []byte("s2")}, entries("FENCE1", 3, 3))
	wantErr(t, "append by the second after a third open", s.Append(ctx, second, entries("FENCE1", 4, 4)), ErrFenced)
	if err := s.End(ctx, third, time.Hour); err != nil {
		t.Fatalf("end by the holder: %v", err)
	}
}

func testSnapshot(t *testing.T, sub *subject) {
	s, ctx := sub.s, testCtx(t)
	l := mustCreate(t, s, "SNAPPY", Snapshot{Rev: 0, Data: []byte("s0")})
	mustAppend(t, s, l, entries("SNAPPY", 1, 10))
	s6 := Snapshot{Rev: 6, Data: []byte("s6")}
	if err := s.WriteSnapshot(ctx, l, s6); err != nil {
		t.Fatal(err)
	}
	l, rec := mustOpen(t, s, "SNAPPY")
	checkRecord(t, rec, s6, entries("SNAPPY", 7, 10))
	// An older snapshot is accepted but changes nothing.
	if err := s.WriteSnapshot(ctx, l, Snapshot{Rev: 3, Data: []byte("s3")}); err != nil {
		t.Fatalf("older snapshot: %v", err)
	}
	l, rec = mustOpen(t, s, "SNAPPY")
	checkRecord(t, rec, s6, entries("SNAPPY", 7, 10))
	s10 := Snapshot{Rev: 10, Data: []byte("s10")}
	if err := s.WriteSnapshot(ctx, l, s10); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, l, entries("SNAPPY", 11, 12))
	l, rec = mustOpen(t, s, "SNAPPY")
	checkRecord(t, rec, s10, entries("SNAPPY", 11, 12))
	// A snapshot ahead of the log: the next entry follows it.
	s15 := Snapshot{Rev: 15, Data: []byte("s15")}
	if err := s.WriteSnapshot(ctx, l, s15); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "append 13 behind the snapshot", s.Append(ctx, l, entries("SNAPPY", 13, 13)), ErrGap)
	mustAppend(t, s, l, entries("SNAPPY", 16, 16))
	_, rec = mustOpen(t, s, "SNAPPY")
	checkRecord(t, rec, s15, entries("SNAPPY", 16, 16))
}

func testList(t *testing.T, sub *subject) {
	s, ctx := sub.s, testCtx(t)
	got, err := s.List(ctx)
	if err != nil || len(got) != 0 {
		t.Fatalf("list of an empty store = %v, %v", got, err)
	}
	snap := Snapshot{Data: []byte("s")}
	mustCreate(t, s, "LISTAA", snap)
	b := mustCreate(t, s, "LISTBB", snap)
	mustCreate(t, s, "LISTCC", snap)
	if err := s.End(ctx, b, time.Hour); err != nil {
		t.Fatal(err)
	}
	got, err = s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"LISTAA", "LISTCC"}; !slices.Equal(got, want) {
		t.Fatalf("list = %v, want %v", got, want)
	}
}

func testEndTTL(t *testing.T, sub *subject) {
	s, ctx := sub.s, testCtx(t)
	ttl := time.Hour
	if sub.advance == nil {
		ttl = time.Second
	}
	snap := Snapshot{Rev: 0, Data: []byte("s0")}
	l := mustCreate(t, s, "ENDED1", snap)
	mustAppend(t, s, l, entries("ENDED1", 1, 3))
	if err := s.WriteSnapshot(ctx, l, Snapshot{Rev: 2, Data: []byte("s2")}); err != nil {
		t.Fatal(err)
	}
	if err := s.End(ctx, l, ttl); err != nil {
		t.Fatal(err)
	}
	old, rec := mustOpen(t, s, "ENDED1")
	if !rec.Ended {
		t.Fatal("open after End: Ended = false")
	}
	checkRecord(t, rec, Snapshot{Rev: 2, Data: []byte("s2")}, entries("ENDED1", 3, 3))
	if got, _ := s.List(ctx); slices.Contains(got, "ENDED1") {
		t.Fatalf("list = %v, has the ended room", got)
	}
	_, err := s.Create(ctx, "ENDED1", snap)
	wantErr(t, "create over an ended room", err, ErrExists)
	waitExpired(t, sub, "ENDED1", ttl)
	// The code is free again, and no lease of the old room writes the new.
	fresh := mustCreate(t, s, "ENDED1", snap)
	if fresh.Token == old.Token {
		t.Fatalf("the new room has the old room's token %d", old.Token)
	}
	wantErr(t, "append with the old room's lease", s.Append(ctx, old, entries("ENDED1", 1, 1)), ErrFenced)
	mustAppend(t, s, fresh, entries("ENDED1", 1, 1))
	_, rec = mustOpen(t, s, "ENDED1")
	if rec.Ended {
		t.Fatal("the new room is ended")
	}
	checkRecord(t, rec, snap, entries("ENDED1", 1, 1))
}

func testReopen(t *testing.T, sub *subject) {
	if sub.reopen == nil {
		t.Skip("nothing persists")
	}
	s, ctx := sub.s, testCtx(t)
	l := mustCreate(t, s, "DURA01", Snapshot{Rev: 0, Data: []byte("s0")})
	mustAppend(t, s, l, entries("DURA01", 1, 5))
	s3 := Snapshot{Rev: 3, Data: []byte("s3")}
	if err := s.WriteSnapshot(ctx, l, s3); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, l, entries("DURA01", 6, 6))
	e := mustCreate(t, s, "DURA02", Snapshot{Data: []byte("e")})
	if err := s.End(ctx, e, time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := s.Record(ctx, "g", "b", KindHost, Score{Name: "ann", TimeMs: 1234.5, At: 1}); err != nil {
		t.Fatal(err)
	}

	s = sub.reopen(t)
	l2, rec := mustOpen(t, s, "DURA01")
	if l2.Token <= l.Token {
		t.Fatalf("token after reopen %d, not above %d", l2.Token, l.Token)
	}
	checkRecord(t, rec, s3, entries("DURA01", 4, 6))
	wantErr(t, "append with the lease from before", s.Append(ctx, l, entries("DURA01", 7, 7)), ErrFenced)
	mustAppend(t, s, l2, entries("DURA01", 7, 7))
	if got, err := s.List(ctx); err != nil || !slices.Equal(got, []string{"DURA01"}) {
		t.Fatalf("list after reopen = %v, %v", got, err)
	}
	if _, rec := mustOpen(t, s, "DURA02"); !rec.Ended {
		t.Fatal("an ended room is not ended after reopen")
	}
	if top, err := s.Top(ctx, "g", "b", KindHost, 10); err != nil || len(top) != 1 || top[0].Name != "ann" {
		t.Fatalf("top after reopen = %v, %v", top, err)
	}
}

func testConcurrentRooms(t *testing.T, sub *subject) {
	const rooms, appends = 200, 50
	s := sub.s
	var wg sync.WaitGroup
	errs := make(chan error, rooms)
	for i := range rooms {
		wg.Go(func() {
			ctx := testCtx(t)
			code := fmt.Sprintf("C%05d", i)
			l, err := s.Create(ctx, code, Snapshot{Data: []byte(code)})
			if err != nil {
				errs <- err
				return
			}
			for rev := uint64(1); rev <= appends; rev++ {
				if err := s.Append(ctx, l, []Entry{entry(code, rev)}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i := range rooms {
		code := fmt.Sprintf("C%05d", i)
		_, rec := mustOpen(t, s, code)
		checkRecord(t, rec, Snapshot{Data: []byte(code)}, entries(code, 1, appends))
	}
	got, err := s.List(testCtx(t))
	if err != nil || len(got) != rooms {
		t.Fatalf("list: %d rooms, %v", len(got), err)
	}
}

func testLeaderboards(t *testing.T, sub *subject) {
	s, ctx := sub.s, testCtx(t)
	top, err := s.Top(ctx, "mines", "expert", KindHost, 10)
	if err != nil || len(top) != 0 {
		t.Fatalf("top of an empty board = %v, %v", top, err)
	}
	scores := []Score{
		{Name: "a", TimeMs: 300, At: 5},
		{Name: "b", TimeMs: 100, At: 9, Room: "K7QXMP", Match: 2},
		{Name: "c", TimeMs: 200.5, At: 1},
		{Name: "d", TimeMs: 100, At: 3},
		{Name: "e", TimeMs: 400, At: 2},
		{Name: "b", TimeMs: 100, At: 9, Room: "K7QXMP", Match: 2}, // the same result twice is kept twice
	}
	for _, sc := range scores {
		if err := s.Record(ctx, "mines", "expert", KindHost, sc); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Record(ctx, "mines", "expert", KindClient, Score{Name: "z", TimeMs: 1, At: 1}); err != nil {
		t.Fatal(err)
	}
	if err := s.Record(ctx, "mines", "beginner", KindHost, Score{Name: "y", TimeMs: 1, At: 1}); err != nil {
		t.Fatal(err)
	}
	top, err = s.Top(ctx, "mines", "expert", KindHost, 4)
	if err != nil {
		t.Fatal(err)
	}
	want := []Score{scores[3], scores[1], scores[1], scores[2]}
	if !slices.Equal(top, want) {
		t.Fatalf("top 4 = %+v, want %+v", top, want)
	}
	all, err := s.Top(ctx, "mines", "expert", KindHost, 0)
	if err != nil || len(all) != len(scores) {
		t.Fatalf("top without limit = %d scores, %v; want %d", len(all), err, len(scores))
	}
	if all[len(all)-1] != scores[4] {
		t.Fatalf("last = %+v, want %+v", all[len(all)-1], scores[4])
	}
	other, err := s.Top(ctx, "mines", "expert", KindClient, 10)
	if err != nil || len(other) != 1 || other[0].Name != "z" {
		t.Fatalf("client board = %+v, %v", other, err)
	}
}

func testDataRoundTrip(t *testing.T, sub *subject) {
	s := sub.s
	every := make([]byte, 256)
	for i := range every {
		every[i] = byte(i)
	}
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	snap := Snapshot{Rev: 0, Data: every}
	l := mustCreate(t, s, "BYTES1", snap)
	es := []Entry{{Rev: 1, Data: []byte{}}, {Rev: 2, Data: every}, {Rev: 3, Data: big}, {Rev: 4, Data: []byte("\x00")}}
	mustAppend(t, s, l, es)
	_, rec := mustOpen(t, s, "BYTES1")
	checkRecord(t, rec, snap, es)

	l2 := mustCreate(t, s, "BYTES2", Snapshot{Rev: 7})
	_, rec = mustOpen(t, s, "BYTES2")
	checkRecord(t, rec, Snapshot{Rev: 7}, nil)
	wantErr(t, "append with the create lease", s.Append(testCtx(t), l2, entries("BYTES2", 8, 8)), ErrFenced)
}

func testClosed(t *testing.T, sub *subject) {
	s, ctx := sub.s, testCtx(t)
	l := mustCreate(t, s, "CLOSED", Snapshot{Data: []byte("s")})
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	_, err := s.Create(ctx, "OTHER1", Snapshot{})
	wantErr(t, "create", err, ErrClosed)
	_, _, err = s.Open(ctx, "CLOSED")
	wantErr(t, "open", err, ErrClosed)
	wantErr(t, "append", s.Append(ctx, l, entries("CLOSED", 1, 1)), ErrClosed)
	wantErr(t, "snapshot", s.WriteSnapshot(ctx, l, Snapshot{Rev: 0}), ErrClosed)
	wantErr(t, "end", s.End(ctx, l, time.Hour), ErrClosed)
	_, err = s.List(ctx)
	wantErr(t, "list", err, ErrClosed)
	wantErr(t, "ping", s.Ping(ctx), ErrClosed)
	wantErr(t, "record", s.Record(ctx, "g", "b", KindHost, Score{TimeMs: 1}), ErrClosed)
	_, err = s.Top(ctx, "g", "b", KindHost, 1)
	wantErr(t, "top", err, ErrClosed)
}

func TestMemoryConformance(t *testing.T) {
	runConformance(t, func(t *testing.T) *subject {
		clock := newFakeClock()
		m := NewMemory()
		m.Now = clock.Now
		t.Cleanup(func() { m.Close() })
		return &subject{s: m, advance: clock.Advance}
	})
}
