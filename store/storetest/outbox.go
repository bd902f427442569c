package storetest

import (
	"bytes"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/roomd/roomd/store"
)

// Tests of the Outbox: the webhook events a store keeps until they are
// acknowledged.

// event returns an event whose data names its ID.
func event(id string, due int64) store.Event {
	return store.Event{ID: id, Data: fmt.Appendf(nil, `{"id":%q}`, id), Due: due}
}

// mustEnqueue enqueues events or fails the test, and checks none dropped.
func mustEnqueue(t *testing.T, s store.Outbox, events ...store.Event) {
	t.Helper()
	dropped, err := s.Enqueue(Ctx(t), events)
	if err != nil || dropped != 0 {
		t.Fatalf("enqueue %d events: dropped %d, %v", len(events), dropped, err)
	}
}

// checkDue reads Due(now, limit) and compares it with want (IDs, data,
// attempts and due times).
func checkDue(t *testing.T, s store.Outbox, now int64, limit int, want ...store.Event) {
	t.Helper()
	got, err := s.Due(Ctx(t), now, limit)
	if err != nil {
		t.Fatalf("due(%d, %d): %v", now, limit, err)
	}
	if len(got) != len(want) {
		t.Fatalf("due(%d, %d) = %v, want %v", now, limit, eventIDs(got), eventIDs(want))
	}
	for i, e := range got {
		w := want[i]
		if e.ID != w.ID || !bytes.Equal(e.Data, w.Data) || e.Attempts != w.Attempts || e.Due != w.Due {
			t.Fatalf("due(%d, %d)[%d] = %s %q attempts %d due %d, want %s %q attempts %d due %d",
				now, limit, i, e.ID, trunc(e.Data), e.Attempts, e.Due, w.ID, trunc(w.Data), w.Attempts, w.Due)
		}
	}
}

func eventIDs(es []store.Event) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func mustAck(t *testing.T, s store.Outbox, ids ...string) {
	t.Helper()
	if err := s.Ack(Ctx(t), ids); err != nil {
		t.Fatalf("ack %v: %v", ids, err)
	}
}

// testOutboxRoundTrip: enqueued events come back from Due, their data and
// attempts as given (the store keeps its own copy); acknowledged ones are
// gone; unknown IDs are not errors to Ack or Retry.
func testOutboxRoundTrip(t *testing.T, sub *Subject) {
	s := sub.S
	checkDue(t, s, 1<<40, 10)
	a, b := event("01A", 100), event("01B", 100)
	b.Attempts = 2
	c := store.Event{ID: "01C", Data: []byte{}, Due: 100}
	mustEnqueue(t, s, a, b, c)
	b.Data = []byte("other") // the caller's slice is not the stored data
	b = event("01B", 100)
	b.Attempts = 2
	checkDue(t, s, 100, 10, a, b, c)
	mustAck(t, s, "01B", "nope")
	checkDue(t, s, 100, 10, a, c)
	mustAck(t, s)
	if err := s.Retry(Ctx(t), "nope", 1, 100); err != nil {
		t.Fatalf("retry an unknown id: %v", err)
	}
	mustAck(t, s, "01A", "01C", "01A")
	checkDue(t, s, 1<<40, 10)
	if _, err := s.Enqueue(Ctx(t), []store.Event{{Data: []byte("x")}}); err == nil {
		t.Fatal("enqueue an event without ID succeeded")
	}
	checkDue(t, s, 1<<40, 10)
}

// testOutboxOrder: Due returns events by due time, then by ID, whatever
// the order they were enqueued in.
func testOutboxOrder(t *testing.T, sub *Subject) {
	s := sub.S
	want := []store.Event{event("x", -5), event("a", 7), event("b", 7), event("ba", 7), event("c", 7), event("a0", 8), event("0", 1_700_000_000_000)}
	for _, i := range []int{4, 0, 6, 2, 5, 1, 3} {
		mustEnqueue(t, s, want[i])
	}
	checkDue(t, s, 1_700_000_000_000, 100, want...)
}

// testOutboxDue: Due leaves out events due after now and returns at most
// limit; a limit of zero or less, or above store.MaxDue, returns at most
// store.MaxDue.
func testOutboxDue(t *testing.T, sub *Subject) {
	s := sub.S
	var all []store.Event
	for i := range 20 {
		all = append(all, event(fmt.Sprintf("e%02d", i), int64(1000+i)))
	}
	mustEnqueue(t, s, all...)
	checkDue(t, s, 999, 100)
	checkDue(t, s, 1000, 100, all[0])
	checkDue(t, s, 1009, 100, all[:10]...)
	checkDue(t, s, 1009, 3, all[:3]...)
	checkDue(t, s, 5000, 1, all[0])
	checkDue(t, s, 5000, 0, all...)
	checkDue(t, s, 5000, -1, all...)

	var many []store.Event
	for i := range store.MaxDue + 5 {
		many = append(many, event(fmt.Sprintf("m%05d", i), 10))
	}
	mustEnqueue(t, s, many...)
	for _, limit := range []int{0, store.MaxDue + 1} {
		got, err := s.Due(Ctx(t), 10, limit)
		if err != nil || len(got) != store.MaxDue || got[0].ID != "m00000" {
			t.Fatalf("due with limit %d over %d events: %d events, %v; want %d", limit, len(many), len(got), err, store.MaxDue)
		}
	}
}

// testOutboxRetry: Retry moves an event to its new due time and records
// its attempts, data unchanged; it moves later in the order.
func testOutboxRetry(t *testing.T, sub *Subject) {
	s := sub.S
	a, b, c := event("a", 10), event("b", 20), event("c", 30)
	mustEnqueue(t, s, a, b, c)
	if err := s.Retry(Ctx(t), "a", 1, 25); err != nil {
		t.Fatal(err)
	}
	a.Attempts, a.Due = 1, 25
	checkDue(t, s, 20, 10, b)
	checkDue(t, s, 100, 10, b, a, c)
	if err := s.Retry(Ctx(t), "a", 2, 40); err != nil {
		t.Fatal(err)
	}
	a.Attempts, a.Due = 2, 40
	checkDue(t, s, 39, 10, b, c)
	checkDue(t, s, 100, 10, b, c, a)
	mustAck(t, s, "a")
	if err := s.Retry(Ctx(t), "a", 3, 5); err != nil { // acknowledged: no event comes back
		t.Fatal(err)
	}
	checkDue(t, s, 100, 10, b, c)
}

// testOutboxAppendWith: AppendWith stores the entries (Open reads them)
// and the events; a retry of the landed append stores nothing more; a gap
// stores neither; the next append follows.
func testOutboxAppendWith(t *testing.T, sub *Subject) {
	s, ctx := sub.S, Ctx(t)
	const room = "OUTB01"
	snap := store.Snapshot{Data: []byte("s0")}
	l := MustCreate(t, s, room, snap)
	a, b := event("a", 10), event("b", 10)
	dropped, err := s.AppendWith(ctx, l, Entries(room, 1, 3), []store.Event{a, b})
	if err != nil || dropped != 0 {
		t.Fatalf("append with events: dropped %d, %v", dropped, err)
	}
	checkDue(t, s, 10, 10, a, b)
	mustAck(t, s, "a", "b")
	// The same entries again (a retry whose first attempt landed).
	if _, err := s.AppendWith(ctx, l, Entries(room, 1, 3), []store.Event{a, b}); err != nil {
		t.Fatalf("retried append with events: %v", err)
	}
	checkDue(t, s, 10, 10)
	_, err = s.AppendWith(ctx, l, Entries(room, 5, 5), []store.Event{event("gap", 10)})
	WantErr(t, "append with events after a gap", err, store.ErrGap)
	checkDue(t, s, 10, 10)
	c := event("c", 10)
	if _, err := s.AppendWith(ctx, l, Entries(room, 4, 4), []store.Event{c}); err != nil {
		t.Fatal(err)
	}
	MustAppend(t, s, l, Entries(room, 5, 5))
	checkDue(t, s, 10, 10, c)
	_, rec := MustOpen(t, s, room)
	CheckRecord(t, rec, snap, Entries(room, 1, 5))
}

// testOutboxAppendWithFenced: after another Open took the lease,
// AppendWith with the old lease fails with ErrFenced and stores neither the
// entries nor the events; with the new lease it stores both. An unknown
// room is ErrNotFound, nothing enqueued.
func testOutboxAppendWithFenced(t *testing.T, sub *Subject) {
	s, ctx := sub.S, Ctx(t)
	const room = "OUTB02"
	snap := store.Snapshot{Data: []byte("s0")}
	old := MustCreate(t, s, room, snap)
	MustAppend(t, s, old, Entries(room, 1, 1))
	l, _ := MustOpen(t, s, room)
	_, err := s.AppendWith(ctx, old, Entries(room, 2, 3), []store.Event{event("stale", 1)})
	WantErr(t, "append with events under a stale lease", err, store.ErrFenced)
	_, err = s.AppendWith(ctx, old, nil, []store.Event{event("stale2", 1)})
	WantErr(t, "events alone under a stale lease", err, store.ErrFenced)
	_, err = s.AppendWith(ctx, store.Lease{Room: "NOROOM", Token: old.Token}, Entries("NOROOM", 1, 1), []store.Event{event("none", 1)})
	WantErr(t, "append with events to an unknown room", err, store.ErrNotFound)
	checkDue(t, s, 10, 10)
	l, rec := MustOpen(t, s, room)
	CheckRecord(t, rec, snap, Entries(room, 1, 1))
	e := event("fresh", 1)
	if _, err := s.AppendWith(ctx, l, Entries(room, 2, 3), []store.Event{e}); err != nil {
		t.Fatal(err)
	}
	checkDue(t, s, 10, 10, e)
	_, rec = MustOpen(t, s, room)
	CheckRecord(t, rec, snap, Entries(room, 1, 3))
}

// testOutboxBound: an outbox of 5 takes 5 events and drops, counting
// them, those beyond; AppendWith still stores its entries when it drops
// events; re-enqueueing a queued ID takes no room; an Ack makes room.
func testOutboxBound(t *testing.T, sub *Subject) {
	if sub.Outboxes == nil {
		t.Skip("the store has no outbox bound option")
	}
	s, ctx := sub.Outboxes(t, 5), Ctx(t)
	var all []store.Event
	for i := range 9 {
		all = append(all, event(fmt.Sprint("e", i), int64(i)))
	}
	if dropped, err := s.Enqueue(ctx, all[:3]); err != nil || dropped != 0 {
		t.Fatalf("enqueue 3 of 5: dropped %d, %v", dropped, err)
	}
	if dropped, err := s.Enqueue(ctx, all[3:6]); err != nil || dropped != 1 {
		t.Fatalf("enqueue 3 more: dropped %d, %v; want 1", dropped, err)
	}
	checkDue(t, s, 100, 100, all[:5]...)
	if dropped, err := s.Enqueue(ctx, all[2:3]); err != nil || dropped != 0 {
		t.Fatalf("enqueue a queued event into a full outbox: dropped %d, %v; want 0", dropped, err)
	}
	const room = "OUTB03"
	l := MustCreate(t, s, room, store.Snapshot{})
	dropped, err := s.AppendWith(ctx, l, Entries(room, 1, 2), all[5:8])
	if err != nil || dropped != 3 {
		t.Fatalf("append with 3 events into a full outbox: dropped %d, %v; want 3", dropped, err)
	}
	_, rec := MustOpen(t, s, room)
	CheckRecord(t, rec, store.Snapshot{}, Entries(room, 1, 2))
	mustAck(t, s, "e0", "e1")
	l, _ = MustOpen(t, s, room)
	dropped, err = s.AppendWith(ctx, l, Entries(room, 3, 3), all[6:9])
	if err != nil || dropped != 1 {
		t.Fatalf("append with 3 events into an outbox with room for 2: dropped %d, %v; want 1", dropped, err)
	}
	checkDue(t, s, 100, 100, slices.Concat(all[2:5], all[6:8])...)
}

// testOutboxReopen: events, enqueued alone or with an append, survive a
// reopen with their attempts and due times, and can be acknowledged then.
func testOutboxReopen(t *testing.T, sub *Subject) {
	if sub.Reopen == nil {
		t.Skip("nothing persists")
	}
	s, ctx := sub.S, Ctx(t)
	const room = "OUTB04"
	l := MustCreate(t, s, room, store.Snapshot{})
	a, b, c := event("a", 1), event("b", 2), event("c", 3)
	mustEnqueue(t, s, a)
	if _, err := s.AppendWith(ctx, l, Entries(room, 1, 1), []store.Event{b, c}); err != nil {
		t.Fatal(err)
	}
	if err := s.Retry(ctx, "a", 1, 5); err != nil {
		t.Fatal(err)
	}
	a.Attempts, a.Due = 1, 5
	s = sub.Reopen(t)
	checkDue(t, s, 10, 10, b, c, a)
	mustAck(t, s, "b")
	s = sub.Reopen(t)
	checkDue(t, s, 10, 10, c, a)
	_, rec := MustOpen(t, s, room)
	CheckRecord(t, rec, store.Snapshot{}, Entries(room, 1, 1))
}

// testOutboxConcurrent: 8 goroutines enqueueing 50 events each, one at a
// time and in batches, and 4 rooms appending with events, lose none.
func testOutboxConcurrent(t *testing.T, sub *Subject) {
	s := sub.S
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		want []store.Event
	)
	add := func(es ...store.Event) {
		mu.Lock()
		want = append(want, es...)
		mu.Unlock()
	}
	for g := range 8 {
		wg.Go(func() {
			for i := 0; i < 50; {
				n := 1 + i%3
				var es []store.Event
				for j := 0; j < n && i < 50; j++ {
					es = append(es, event(fmt.Sprintf("g%d/%02d", g, i), int64(i)))
					i++
				}
				dropped, err := s.Enqueue(Ctx(t), es)
				if err != nil || dropped != 0 {
					t.Errorf("enqueue: dropped %d, %v", dropped, err)
					return
				}
				add(es...)
			}
		})
	}
	for r := range 4 {
		room := fmt.Sprintf("OUTC%02d", r)
		l := MustCreate(t, s, room, store.Snapshot{})
		wg.Go(func() {
			for rev := uint64(1); rev <= 20; rev++ {
				e := event(fmt.Sprintf("%s/%02d", room, rev), int64(rev))
				dropped, err := s.AppendWith(Ctx(t), l, Entries(room, rev, rev), []store.Event{e})
				if err != nil || dropped != 0 {
					t.Errorf("append with events: dropped %d, %v", dropped, err)
					return
				}
				add(e)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	slices.SortFunc(want, func(a, b store.Event) int {
		if a.Due != b.Due {
			return int(a.Due - b.Due)
		}
		return bytes.Compare([]byte(a.ID), []byte(b.ID))
	})
	checkDue(t, s, 1000, store.MaxDue, want...)
}
