package storetest

import (
	"testing"

	"github.com/roomd/roomd/store"
)

// Tests of Snapshot.Keep: which entries a snapshot leaves in the log.

// testKeepBelowRev: a snapshot whose Keep is below its revision keeps the
// entries from Keep on, covered or not; Open returns them (after a reopen
// too), retries of kept entries still succeed and the next entry follows
// the last one.
func testKeepBelowRev(t *testing.T, sub *Subject) {
	s, ctx := sub.S, Ctx(t)
	const room = "KEEP01"
	l := MustCreate(t, s, room, store.Snapshot{Rev: 0, Data: []byte("s0")})
	MustAppend(t, s, l, Entries(room, 1, 10))
	s6 := store.Snapshot{Rev: 6, Data: []byte("s6"), Keep: 3}
	MustSnapshot(t, s, l, s6)
	l, rec := MustOpen(t, s, room)
	CheckRecord(t, rec, s6, Entries(room, 3, 10))
	if rec.Snapshot.Keep != 0 {
		t.Fatalf("Open returned Keep %d, want 0 (Keep is not stored)", rec.Snapshot.Keep)
	}
	// Append's rules are unchanged: a retry of kept entries succeeds, one
	// of dropped entries or of other bytes is a gap, the next follows 10.
	MustAppend(t, s, l, Entries(room, 4, 5))
	MustAppend(t, s, l, Entries(room, 9, 10))
	WantErr(t, "append dropped entries again", s.Append(ctx, l, Entries(room, 1, 2)), store.ErrGap)
	WantErr(t, "append other bytes at kept rev 4", s.Append(ctx, l, []store.Entry{{Rev: 4, Data: []byte("other")}}), store.ErrGap)
	WantErr(t, "append rev 7 (behind the log)", s.Append(ctx, l, []store.Entry{{Rev: 7, Data: []byte("x")}}), store.ErrGap)
	WantErr(t, "append rev 12", s.Append(ctx, l, Entries(room, 12, 12)), store.ErrGap)
	MustAppend(t, s, l, Entries(room, 11, 12))
	_, rec = MustOpen(t, s, room)
	CheckRecord(t, rec, s6, Entries(room, 3, 12))
	if sub.Reopen == nil {
		return
	}
	s = sub.Reopen(t)
	l, rec = MustOpen(t, s, room)
	CheckRecord(t, rec, s6, Entries(room, 3, 12))
	MustAppend(t, s, l, Entries(room, 13, 13))
	_, rec = MustOpen(t, s, room)
	CheckRecord(t, rec, s6, Entries(room, 3, 13))
}

// testKeepTrims: Keep zero trims everything the snapshot covers; Keep at
// Rev keeps only the last covered entry; Keep above Rev+1 counts as Rev+1.
func testKeepTrims(t *testing.T, sub *Subject) {
	s := sub.S
	for _, tc := range []struct {
		room  string
		keep  uint64
		first uint64 // the first entry left by a snapshot at 6 over 1..8
	}{
		{room: "KEEPZ0", keep: 0, first: 7},
		{room: "KEEPR6", keep: 6, first: 6},
		{room: "KEEPR7", keep: 7, first: 7},
		{room: "KEEPR9", keep: 9, first: 7},
		{room: "KEEPR1", keep: 1, first: 1},
	} {
		l := MustCreate(t, s, tc.room, store.Snapshot{Rev: 0, Data: []byte("s0")})
		MustAppend(t, s, l, Entries(tc.room, 1, 8))
		snap := store.Snapshot{Rev: 6, Data: []byte("s6"), Keep: tc.keep}
		MustSnapshot(t, s, l, snap)
		l, rec := MustOpen(t, s, tc.room)
		CheckRecord(t, rec, snap, Entries(tc.room, tc.first, 8))
		MustAppend(t, s, l, Entries(tc.room, 9, 9))
		_, rec = MustOpen(t, s, tc.room)
		CheckRecord(t, rec, snap, Entries(tc.room, tc.first, 9))
	}
	// A snapshot of the last revision with the default Keep leaves no log.
	const room = "KEEPAL"
	l := MustCreate(t, s, room, store.Snapshot{Rev: 0, Data: []byte("s0")})
	MustAppend(t, s, l, Entries(room, 1, 4))
	s4 := store.Snapshot{Rev: 4, Data: []byte("s4")}
	MustSnapshot(t, s, l, s4)
	l, rec := MustOpen(t, s, room)
	CheckRecord(t, rec, s4, nil)
	MustAppend(t, s, l, Entries(room, 5, 5))
	_, rec = MustOpen(t, s, room)
	CheckRecord(t, rec, s4, Entries(room, 5, 5))
}

// testKeepLater: a later snapshot with a higher Keep trims more; one with a
// lower Keep brings nothing back; an older snapshot changes nothing, the log
// included.
func testKeepLater(t *testing.T, sub *Subject) {
	s := sub.S
	const room = "KEEP02"
	l := MustCreate(t, s, room, store.Snapshot{Rev: 0, Data: []byte("s0")})
	MustAppend(t, s, l, Entries(room, 1, 12))
	s8 := store.Snapshot{Rev: 8, Data: []byte("s8"), Keep: 3}
	MustSnapshot(t, s, l, s8)
	l, rec := MustOpen(t, s, room)
	CheckRecord(t, rec, s8, Entries(room, 3, 12))

	// The same revision again with a higher Keep.
	s8b := store.Snapshot{Rev: 8, Data: []byte("s8b"), Keep: 5}
	MustSnapshot(t, s, l, s8b)
	l, rec = MustOpen(t, s, room)
	CheckRecord(t, rec, s8b, Entries(room, 5, 12))

	// A later revision with a higher Keep.
	s10 := store.Snapshot{Rev: 10, Data: []byte("s10"), Keep: 7}
	MustSnapshot(t, s, l, s10)
	l, rec = MustOpen(t, s, room)
	CheckRecord(t, rec, s10, Entries(room, 7, 12))

	// A later one with a lower Keep: what was dropped stays dropped.
	s11 := store.Snapshot{Rev: 11, Data: []byte("s11"), Keep: 2}
	MustSnapshot(t, s, l, s11)
	l, rec = MustOpen(t, s, room)
	CheckRecord(t, rec, s11, Entries(room, 7, 12))

	// Older snapshots, whatever their Keep, change nothing.
	for _, old := range []store.Snapshot{
		{Rev: 9, Data: []byte("s9"), Keep: 10},
		{Rev: 9, Data: []byte("s9")},
		{Rev: 3, Data: []byte("s3"), Keep: 1},
	} {
		if err := s.WriteSnapshot(Ctx(t), l, old); err != nil {
			t.Fatalf("older snapshot rev %d keep %d: %v", old.Rev, old.Keep, err)
		}
		l, rec = MustOpen(t, s, room)
		CheckRecord(t, rec, s11, Entries(room, 7, 12))
	}
	MustAppend(t, s, l, Entries(room, 13, 14))
	_, rec = MustOpen(t, s, room)
	CheckRecord(t, rec, s11, Entries(room, 7, 14))
}

// testKeepAhead: a snapshot ahead of the log drops the whole log whatever
// its Keep (the entries kept stay contiguous), and the next entry follows
// the snapshot.
func testKeepAhead(t *testing.T, sub *Subject) {
	s, ctx := sub.S, Ctx(t)
	const room = "KEEP03"
	l := MustCreate(t, s, room, store.Snapshot{Rev: 0, Data: []byte("s0")})
	MustAppend(t, s, l, Entries(room, 1, 5))
	s8 := store.Snapshot{Rev: 8, Data: []byte("s8"), Keep: 3}
	MustSnapshot(t, s, l, s8)
	l, rec := MustOpen(t, s, room)
	CheckRecord(t, rec, s8, nil)
	WantErr(t, "append 6 behind the snapshot", s.Append(ctx, l, Entries(room, 6, 6)), store.ErrGap)
	MustAppend(t, s, l, Entries(room, 9, 10))
	_, rec = MustOpen(t, s, room)
	CheckRecord(t, rec, s8, Entries(room, 9, 10))
}
