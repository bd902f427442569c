package storetest

import (
	"bytes"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/roomd/roomd/store"
)

func testCreateOpen(t *testing.T, sub *Subject) {
	s, ctx := sub.S, Ctx(t)
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("ping: %v", err)
	}
	snap := store.Snapshot{Rev: 0, Data: []byte(`{"v":1}`)}
	l1 := MustCreate(t, s, "K7QXMP", snap)
	if l1.Room != "K7QXMP" || l1.Token == 0 {
		t.Fatalf("create lease = %+v", l1)
	}
	l2, rec := MustOpen(t, s, "K7QXMP")
	if l2.Token <= l1.Token {
		t.Fatalf("open token %d, not above create's %d", l2.Token, l1.Token)
	}
	if rec.Ended {
		t.Fatal("a new room is ended")
	}
	CheckRecord(t, rec, snap, nil)
	l3, _ := MustOpen(t, s, "K7QXMP")
	if l3.Token <= l2.Token {
		t.Fatalf("second open token %d, not above %d", l3.Token, l2.Token)
	}
	_, err := s.Create(ctx, "K7QXMP", snap)
	WantErr(t, "create a taken code", err, store.ErrExists)
	_, _, err = s.Open(ctx, "NOSUCH")
	WantErr(t, "open unknown", err, store.ErrNotFound)
	err = s.Append(ctx, store.Lease{Room: "NOSUCH", Token: l3.Token}, Entries("NOSUCH", 1, 1))
	WantErr(t, "append to unknown", err, store.ErrNotFound)
}

func testAppendInOrder(t *testing.T, sub *Subject) {
	s := sub.S
	snap := store.Snapshot{Rev: 0, Data: []byte("s0")}
	l := MustCreate(t, s, "ROOM01", snap)
	MustAppend(t, s, l, Entries("ROOM01", 1, 1))
	MustAppend(t, s, l, Entries("ROOM01", 2, 3))
	MustAppend(t, s, l, Entries("ROOM01", 4, 10))
	_, rec := MustOpen(t, s, "ROOM01")
	CheckRecord(t, rec, snap, Entries("ROOM01", 1, 10))
}

func testGap(t *testing.T, sub *Subject) {
	s, ctx := sub.S, Ctx(t)
	snap := store.Snapshot{Rev: 0, Data: []byte("s0")}
	l := MustCreate(t, s, "GAPGAP", snap)
	WantErr(t, "append rev 2 first", s.Append(ctx, l, Entries("GAPGAP", 2, 2)), store.ErrGap)
	WantErr(t, "append 1,3", s.Append(ctx, l, []store.Entry{Entry("GAPGAP", 1), Entry("GAPGAP", 3)}), store.ErrGap)
	MustAppend(t, s, l, Entries("GAPGAP", 1, 2))
	// A retry of an append that landed succeeds; other bytes at a stored
	// revision are a gap.
	MustAppend(t, s, l, Entries("GAPGAP", 1, 2))
	MustAppend(t, s, l, Entries("GAPGAP", 2, 2))
	WantErr(t, "append other bytes at rev 2", s.Append(ctx, l, []store.Entry{{Rev: 2, Data: []byte("other")}}), store.ErrGap)
	WantErr(t, "append 2,3 over the end", s.Append(ctx, l, Entries("GAPGAP", 2, 3)), store.ErrGap)
	WantErr(t, "append rev 0", s.Append(ctx, l, []store.Entry{{Rev: 0, Data: []byte("x")}}), store.ErrGap)
	WantErr(t, "append rev 4", s.Append(ctx, l, Entries("GAPGAP", 4, 4)), store.ErrGap)
	MustAppend(t, s, l, Entries("GAPGAP", 3, 3))
	_, rec := MustOpen(t, s, "GAPGAP")
	CheckRecord(t, rec, snap, Entries("GAPGAP", 1, 3))
}

func testFencing(t *testing.T, sub *Subject) {
	s, ctx := sub.S, Ctx(t)
	snap := store.Snapshot{Rev: 0, Data: []byte("s0")}
	first := MustCreate(t, s, "FENCE1", snap)
	MustAppend(t, s, first, Entries("FENCE1", 1, 1))
	second, _ := MustOpen(t, s, "FENCE1")
	WantErr(t, "stale append", s.Append(ctx, first, Entries("FENCE1", 2, 2)), store.ErrFenced)
	WantErr(t, "stale snapshot", s.WriteSnapshot(ctx, first, store.Snapshot{Rev: 1, Data: []byte("stale")}), store.ErrFenced)
	WantErr(t, "stale end", s.End(ctx, first, time.Hour), store.ErrFenced)
	MustAppend(t, s, second, Entries("FENCE1", 2, 3))
	if err := s.WriteSnapshot(ctx, second, store.Snapshot{Rev: 2, Data: []byte("s2")}); err != nil {
		t.Fatalf("snapshot by the holder: %v", err)
	}
	third, rec := MustOpen(t, s, "FENCE1")
	if rec.Ended {
		t.Fatal("a stale End ended the room")
	}
	CheckRecord(t, rec, store.Snapshot{Rev: 2, Data: []byte("s2")}, Entries("FENCE1", 3, 3))
	WantErr(t, "append by the second after a third open", s.Append(ctx, second, Entries("FENCE1", 4, 4)), store.ErrFenced)
	if err := s.End(ctx, third, time.Hour); err != nil {
		t.Fatalf("end by the holder: %v", err)
	}
}

func testSnapshot(t *testing.T, sub *Subject) {
	s, ctx := sub.S, Ctx(t)
	l := MustCreate(t, s, "SNAPPY", store.Snapshot{Rev: 0, Data: []byte("s0")})
	MustAppend(t, s, l, Entries("SNAPPY", 1, 10))
	s6 := store.Snapshot{Rev: 6, Data: []byte("s6")}
	if err := s.WriteSnapshot(ctx, l, s6); err != nil {
		t.Fatal(err)
	}
	l, rec := MustOpen(t, s, "SNAPPY")
	CheckRecord(t, rec, s6, Entries("SNAPPY", 7, 10))
	// An older snapshot is accepted but changes nothing.
	if err := s.WriteSnapshot(ctx, l, store.Snapshot{Rev: 3, Data: []byte("s3")}); err != nil {
		t.Fatalf("older snapshot: %v", err)
	}
	l, rec = MustOpen(t, s, "SNAPPY")
	CheckRecord(t, rec, s6, Entries("SNAPPY", 7, 10))
	s10 := store.Snapshot{Rev: 10, Data: []byte("s10")}
	if err := s.WriteSnapshot(ctx, l, s10); err != nil {
		t.Fatal(err)
	}
	MustAppend(t, s, l, Entries("SNAPPY", 11, 12))
	l, rec = MustOpen(t, s, "SNAPPY")
	CheckRecord(t, rec, s10, Entries("SNAPPY", 11, 12))
	// A snapshot ahead of the log: the next entry follows it.
	s15 := store.Snapshot{Rev: 15, Data: []byte("s15")}
	if err := s.WriteSnapshot(ctx, l, s15); err != nil {
		t.Fatal(err)
	}
	WantErr(t, "append 13 behind the snapshot", s.Append(ctx, l, Entries("SNAPPY", 13, 13)), store.ErrGap)
	MustAppend(t, s, l, Entries("SNAPPY", 16, 16))
	_, rec = MustOpen(t, s, "SNAPPY")
	CheckRecord(t, rec, s15, Entries("SNAPPY", 16, 16))
}

func testList(t *testing.T, sub *Subject) {
	s, ctx := sub.S, Ctx(t)
	got, err := s.List(ctx)
	if err != nil || len(got) != 0 {
		t.Fatalf("list of an empty store = %v, %v", got, err)
	}
	snap := store.Snapshot{Data: []byte("s")}
	MustCreate(t, s, "LISTAA", snap)
	b := MustCreate(t, s, "LISTBB", snap)
	MustCreate(t, s, "LISTCC", snap)
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

func testEndTTL(t *testing.T, sub *Subject) {
	s, ctx := sub.S, Ctx(t)
	ttl := time.Hour
	if sub.Advance == nil {
		ttl = time.Second
	}
	snap := store.Snapshot{Rev: 0, Data: []byte("s0")}
	l := MustCreate(t, s, "ENDED1", snap)
	MustAppend(t, s, l, Entries("ENDED1", 1, 3))
	if err := s.WriteSnapshot(ctx, l, store.Snapshot{Rev: 2, Data: []byte("s2")}); err != nil {
		t.Fatal(err)
	}
	if err := s.End(ctx, l, ttl); err != nil {
		t.Fatal(err)
	}
	old, rec := MustOpen(t, s, "ENDED1")
	if !rec.Ended {
		t.Fatal("open after End: Ended = false")
	}
	CheckRecord(t, rec, store.Snapshot{Rev: 2, Data: []byte("s2")}, Entries("ENDED1", 3, 3))
	if got, _ := s.List(ctx); slices.Contains(got, "ENDED1") {
		t.Fatalf("list = %v, has the ended room", got)
	}
	_, err := s.Create(ctx, "ENDED1", snap)
	WantErr(t, "create over an ended room", err, store.ErrExists)
	waitExpired(t, sub, "ENDED1", ttl)
	// The code is free again, and no lease of the old room writes the new.
	fresh := MustCreate(t, s, "ENDED1", snap)
	if fresh.Token == old.Token {
		t.Fatalf("the new room has the old room's token %d", old.Token)
	}
	WantErr(t, "append with the old room's lease", s.Append(ctx, old, Entries("ENDED1", 1, 1)), store.ErrFenced)
	MustAppend(t, s, fresh, Entries("ENDED1", 1, 1))
	_, rec = MustOpen(t, s, "ENDED1")
	if rec.Ended {
		t.Fatal("the new room is ended")
	}
	CheckRecord(t, rec, snap, Entries("ENDED1", 1, 1))
}

func testReopen(t *testing.T, sub *Subject) {
	if sub.Reopen == nil {
		t.Skip("nothing persists")
	}
	s, ctx := sub.S, Ctx(t)
	l := MustCreate(t, s, "DURA01", store.Snapshot{Rev: 0, Data: []byte("s0")})
	MustAppend(t, s, l, Entries("DURA01", 1, 5))
	s3 := store.Snapshot{Rev: 3, Data: []byte("s3")}
	if err := s.WriteSnapshot(ctx, l, s3); err != nil {
		t.Fatal(err)
	}
	MustAppend(t, s, l, Entries("DURA01", 6, 6))
	e := MustCreate(t, s, "DURA02", store.Snapshot{Data: []byte("e")})
	if err := s.End(ctx, e, time.Hour); err != nil {
		t.Fatal(err)
	}
	times := store.Board{Game: "g", Board: "b", Kind: store.KindHost}
	points := store.Board{Game: "g", Board: "p", Kind: store.KindHost, Higher: true}
	if err := s.Record(ctx, times, store.Score{Name: "ann", Value: 1234.5, At: 1}); err != nil {
		t.Fatal(err)
	}
	for i, v := range []float64{5, 50, -5} {
		if err := s.Record(ctx, points, store.Score{Name: fmt.Sprint("bob", i), Value: v, At: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}

	s = sub.Reopen(t)
	l2, rec := MustOpen(t, s, "DURA01")
	if l2.Token <= l.Token {
		t.Fatalf("token after reopen %d, not above %d", l2.Token, l.Token)
	}
	CheckRecord(t, rec, s3, Entries("DURA01", 4, 6))
	WantErr(t, "append with the lease from before", s.Append(ctx, l, Entries("DURA01", 7, 7)), store.ErrFenced)
	MustAppend(t, s, l2, Entries("DURA01", 7, 7))
	if got, err := s.List(ctx); err != nil || !slices.Equal(got, []string{"DURA01"}) {
		t.Fatalf("list after reopen = %v, %v", got, err)
	}
	if _, rec := MustOpen(t, s, "DURA02"); !rec.Ended {
		t.Fatal("an ended room is not ended after reopen")
	}
	if top, err := s.Top(ctx, times, 10); err != nil || len(top) != 1 || top[0].Name != "ann" || top[0].Value != 1234.5 {
		t.Fatalf("top after reopen = %v, %v", top, err)
	}
	if top, err := s.Top(ctx, points, 10); err != nil || len(top) != 3 || top[0].Value != 50 || top[1].Value != 5 || top[2].Value != -5 {
		t.Fatalf("top of a higher-is-better board after reopen = %v, %v", top, err)
	}
}

// testRewound: a room opens Rewound only when the store lost writes of it
// (Subject.Rewind), and then until an entry after the revision it came
// back at is stored, however often it is opened before; a room with
// nothing lost never does.
func testRewound(t *testing.T, sub *Subject) {
	s := sub.S
	a := MustCreate(t, s, "REWND1", store.Snapshot{Data: []byte("s0")})
	MustCreate(t, s, "REWND2", store.Snapshot{Data: []byte("s0")})
	MustAppend(t, s, a, Entries("REWND1", 1, 2))
	MustAppend(t, s, a, Entries("REWND1", 3, 3))
	notRewound := func(what string) {
		t.Helper()
		for _, code := range []string{"REWND1", "REWND2"} {
			if _, rec := MustOpen(t, s, code); rec.Rewound {
				t.Fatalf("%s: %s opened Rewound with nothing lost", what, code)
			}
		}
	}
	if sub.Rewind == nil {
		notRewound("stored")
		if sub.Reopen != nil {
			s = sub.Reopen(t)
			notRewound("reopened")
		}
		return
	}
	s = sub.Rewind(t)
	var last uint64
	for i := range 2 {
		_, rec := MustOpen(t, s, "REWND1")
		last = rec.Snapshot.Rev
		if n := len(rec.Entries); n > 0 {
			last = rec.Entries[n-1].Rev
		}
		if !rec.Rewound || last >= 3 {
			t.Fatalf("open %d after losing its appends: rewound %v, last rev %d; want rewound, before 3", i+1, rec.Rewound, last)
		}
	}
	l, _ := MustOpen(t, s, "REWND1")
	MustAppend(t, s, l, Entries("REWND1", last+1, last+1))
	if _, rec := MustOpen(t, s, "REWND1"); rec.Rewound {
		t.Fatal("still Rewound after an entry was stored")
	}
	if sub.Reopen != nil {
		s = sub.Reopen(t)
		if _, rec := MustOpen(t, s, "REWND1"); rec.Rewound {
			t.Fatal("Rewound again after a reopen")
		}
	}
}

func testConcurrentRooms(t *testing.T, sub *Subject) {
	const rooms, appends = 200, 50
	s := sub.S
	var wg sync.WaitGroup
	errs := make(chan error, rooms)
	for i := range rooms {
		wg.Go(func() {
			ctx := Ctx(t)
			code := fmt.Sprintf("C%05d", i)
			l, err := s.Create(ctx, code, store.Snapshot{Data: []byte(code)})
			if err != nil {
				errs <- err
				return
			}
			for rev := uint64(1); rev <= appends; rev++ {
				if err := s.Append(ctx, l, []store.Entry{Entry(code, rev)}); err != nil {
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
		_, rec := MustOpen(t, s, code)
		CheckRecord(t, rec, store.Snapshot{Data: []byte(code)}, Entries(code, 1, appends))
	}
	got, err := s.List(Ctx(t))
	if err != nil || len(got) != rooms {
		t.Fatalf("list: %d rooms, %v", len(got), err)
	}
}

func testDataRoundTrip(t *testing.T, sub *Subject) {
	s := sub.S
	every := make([]byte, 256)
	for i := range every {
		every[i] = byte(i)
	}
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	snap := store.Snapshot{Rev: 0, Data: every}
	l := MustCreate(t, s, "BYTES1", snap)
	es := []store.Entry{{Rev: 1, Data: []byte{}}, {Rev: 2, Data: every}, {Rev: 3, Data: big}, {Rev: 4, Data: []byte("\x00")}}
	MustAppend(t, s, l, es)
	_, rec := MustOpen(t, s, "BYTES1")
	CheckRecord(t, rec, snap, es)

	l2 := MustCreate(t, s, "BYTES2", store.Snapshot{Rev: 7})
	_, rec = MustOpen(t, s, "BYTES2")
	CheckRecord(t, rec, store.Snapshot{Rev: 7}, nil)
	WantErr(t, "append with the create lease", s.Append(Ctx(t), l2, Entries("BYTES2", 8, 8)), store.ErrFenced)
}

func testClosed(t *testing.T, sub *Subject) {
	s, ctx := sub.S, Ctx(t)
	l := MustCreate(t, s, "CLOSED", store.Snapshot{Data: []byte("s")})
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	_, err := s.Create(ctx, "OTHER1", store.Snapshot{})
	WantErr(t, "create", err, store.ErrClosed)
	_, _, err = s.Open(ctx, "CLOSED")
	WantErr(t, "open", err, store.ErrClosed)
	WantErr(t, "append", s.Append(ctx, l, Entries("CLOSED", 1, 1)), store.ErrClosed)
	WantErr(t, "snapshot", s.WriteSnapshot(ctx, l, store.Snapshot{Rev: 0}), store.ErrClosed)
	WantErr(t, "end", s.End(ctx, l, time.Hour), store.ErrClosed)
	_, err = s.List(ctx)
	WantErr(t, "list", err, store.ErrClosed)
	WantErr(t, "ping", s.Ping(ctx), store.ErrClosed)
	b := store.Board{Game: "g", Board: "b", Kind: store.KindHost}
	WantErr(t, "record", s.Record(ctx, b, store.Score{Value: 1}), store.ErrClosed)
	_, err = s.Top(ctx, b, 1)
	WantErr(t, "top", err, store.ErrClosed)
}
