package room

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/memstore"
)

// lossyStore stores an append and then answers with a timeout, as a store
// whose reply was lost on the network.
type lossyStore struct {
	*memstore.Memory
	lie atomic.Bool
}

func (s *lossyStore) Append(ctx context.Context, l store.Lease, e []store.Entry) error {
	err := s.Memory.Append(ctx, l, e)
	if err == nil && s.lie.CompareAndSwap(true, false) {
		return context.DeadlineExceeded
	}
	return err
}

func nimPile(t *testing.T, m protocol.ServerMessage) int {
	t.Helper()
	var v nim.View
	if err := json.Unmarshal(m.Snapshot.View.(json.RawMessage), &v); err != nil {
		t.Fatal(err)
	}
	return v.Pile
}

// TestLostReplyReloads: an append lands but its answer is lost. The room
// refuses the action (storage-unavailable), then reloads what the store
// holds; the resent action gets its receipt and is applied once.
func TestLostReplyReloads(t *testing.T) {
	st := &lossyStore{Memory: memstore.New()}
	m := newManager(t, st)
	r, host, guest, _ := nimRoom(t, m)
	rev := currentRev(t, host)
	st.lie.Store(true)
	if rc := act(t, r, host, "lost", protocol.TypeCommand, take(3), nil); rc.OK || rc.Notice.Code != protocol.CodeStorageUnavailable {
		t.Fatalf("receipt %+v, want storage-unavailable", rc)
	}
	// The room retries the store within a second and reloads: everyone gets
	// a snapshot that includes the move that did land.
	waitFor(t, "reload snapshot", func() bool {
		s := guest.last(t, protocol.TypeSnapshot)
		return s.Snapshot.Rev == rev+1
	})
	if pile := nimPile(t, guest.last(t, protocol.TypeSnapshot)); pile != 7 {
		t.Fatalf("pile %d after reload, want 7", pile)
	}
	if err := r.Act(host, &protocol.Action{Type: protocol.TypeCommand, ID: "lost", Rev: rev, Command: take(3)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the resend's receipt", func() bool {
		n := 0
		for _, msg := range host.messages(t) {
			if msg.Receipt != nil && msg.Receipt.ID == "lost" && msg.Receipt.OK && msg.Receipt.Rev == rev+1 {
				n++
			}
		}
		return n == 1
	})
	if rc := act(t, r, guest, "next", protocol.TypeCommand, take(1), nil); !rc.OK || rc.Rev != rev+2 {
		t.Fatalf("guest's move after the reload: %+v", rc)
	}
}

// TestStoreLostRoomNewEpoch: the store forgets the room (a Redis restarted
// empty). The room stores itself again under a new epoch and sends every
// client a snapshot of it; nothing is rewound.
func TestStoreLostRoomNewEpoch(t *testing.T) {
	st := memstore.New()
	m := newManager(t, st)
	r, host, guest, _ := nimRoom(t, m)
	act(t, r, host, "m1", protocol.TypeCommand, take(2), nil)
	before := guest.last(t, protocol.TypeSnapshot).Snapshot.Epoch
	rev := currentRev(t, guest)
	st.Forget(r.Code())
	if rc := act(t, r, guest, "m2", protocol.TypeCommand, take(2), nil); rc.OK || rc.Notice.Code != protocol.CodeStorageUnavailable {
		t.Fatalf("receipt %+v", rc)
	}
	var snap *protocol.Snapshot
	waitFor(t, "a snapshot of a new epoch", func() bool {
		snap = guest.last(t, protocol.TypeSnapshot).Snapshot
		return snap.Epoch != before
	})
	if snap.Rev != rev || nimPile(t, guest.last(t, protocol.TypeSnapshot)) != 8 {
		t.Fatalf("new epoch at rev %d (want %d), pile %d (want 8)", snap.Rev, rev, nimPile(t, guest.last(t, protocol.TypeSnapshot)))
	}
	if err := r.Act(guest, &protocol.Action{Type: protocol.TypeCommand, ID: "m2", Rev: rev, Command: take(2)}); err != nil {
		t.Fatal(err)
	}
	if rc := guest.receipt(t, "m2"); !rc.OK {
		// the first receipt was the refusal; wait for the second
		waitFor(t, "m2 accepted", func() bool {
			for _, msg := range guest.messages(t) {
				if msg.Receipt != nil && msg.Receipt.ID == "m2" && msg.Receipt.OK {
					return true
				}
			}
			return false
		})
	}
	if _, _, err := st.Open(context.Background(), r.Code()); err != nil {
		t.Fatalf("the room is not in the store again: %v", err)
	}
}

// TestClientAheadOfRestoredRoom: the store lost the last entries; a client
// that saw them comes back and gets a new epoch and a snapshot instead of a
// silent rewind.
func TestClientAheadOfRestoredRoom(t *testing.T) {
	ctx := context.Background()
	a := memstore.New()
	m1, err := NewManager(Config{Games: session.NewRegistry(nim.Game), Store: a, AIDelay: -1})
	if err != nil {
		t.Fatal(err)
	}
	r, _, _, hostToken := nimRoom(t, m1)
	code := r.Code()
	if err := m1.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	// Store b is a copy of the room as it was then: it will "lose" what follows.
	_, rec, err := a.Open(ctx, code)
	if err != nil {
		t.Fatal(err)
	}
	b := memstore.New()
	lease, err := b.Create(ctx, code, rec.Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Append(ctx, lease, rec.Entries); err != nil {
		t.Fatal(err)
	}
	// Play on with store a.
	m2 := newManager(t, a)
	r2, err := m2.Get(ctx, code)
	if err != nil {
		t.Fatal(err)
	}
	host := newFake("host")
	r2.Hello(host, &protocol.Hello{Room: code, Token: hostToken})
	lostAt := host.last(t, protocol.TypeSnapshot).Snapshot.Rev
	if rc := act(t, r2, host, "x1", protocol.TypeCommand, take(1), nil); !rc.OK {
		t.Fatalf("x1: %+v", rc.Notice)
	}
	waitFor(t, "x1's update", func() bool { return currentRev(t, host) == lostAt+1 })
	seen := currentRev(t, host)
	epoch := host.last(t, protocol.TypeSnapshot).Snapshot.Epoch
	if err := m2.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	// The room comes back from store b, which never got x1.
	m3 := newManager(t, b)
	r3, err := m3.Get(ctx, code)
	if err != nil {
		t.Fatal(err)
	}
	// First the store refuses the move: the client is told so and asked to
	// come back (4000), not left on a snapshot older than what it saw.
	b.SetFail(errors.New("disk on fire"))
	early := newFake("early")
	r3.Hello(early, &protocol.Hello{Room: code, Token: hostToken, Epoch: epoch, Rev: &seen})
	waitFor(t, "close 4000", func() bool { return early.closeCode() == protocol.CloseRestarting })
	if n := early.last(t, protocol.TypeNotice).Notice; n.Code != protocol.CodeStorageUnavailable || !n.Temporary {
		t.Fatalf("notice %+v, want a temporary storage-unavailable", n)
	}
	for _, m := range early.messages(t) {
		if m.Snapshot != nil && m.Snapshot.Epoch != epoch {
			t.Fatalf("shown the new epoch %s the store refused", m.Snapshot.Epoch)
		}
	}
	b.SetFail(nil)
	back := newFake("back")
	r3.Hello(back, &protocol.Hello{Room: code, Token: hostToken, Epoch: epoch, Rev: &seen})
	snap := back.last(t, protocol.TypeSnapshot).Snapshot
	if snap.Epoch == epoch {
		t.Fatalf("same epoch %s at rev %d for a client that saw %d", snap.Epoch, snap.Rev, seen)
	}
	if snap.Rev != lostAt+1 { // the epoch change is itself an entry
		t.Fatalf("new epoch at rev %d, want %d", snap.Rev, lostAt+1)
	}
	if n := back.last(t, protocol.TypeNotice).Notice; n.Code != protocol.CodeEpochChanged {
		t.Fatalf("notice %+v", n)
	}
}

// gateStore holds one append until its gate opens, then makes the store
// refuse every write after it.
type gateStore struct {
	*memstore.Memory
	gate  chan struct{}
	armed atomic.Bool
}

func (s *gateStore) Append(ctx context.Context, l store.Lease, e []store.Entry) error {
	if !s.armed.CompareAndSwap(true, false) {
		return s.Memory.Append(ctx, l, e)
	}
	<-s.gate
	err := s.Memory.Append(ctx, l, e)
	s.Memory.SetFail(errors.New("disk on fire"))
	return err
}

// TestResendInSameBatchIsNotAcknowledged: an action and its resend land in
// one batch whose append fails. Neither may be acknowledged: the repeated
// receipt stands only once the batch is stored (PROTOCOL.md §2.2 rule 7).
func TestResendInSameBatchIsNotAcknowledged(t *testing.T) {
	st := &gateStore{Memory: memstore.New(), gate: make(chan struct{})}
	m := newManager(t, st)
	r, host, guest, _ := nimRoom(t, m)
	rev := currentRev(t, host)
	st.armed.Store(true)
	if err := r.Act(host, &protocol.Action{Type: protocol.TypeCommand, ID: "held", Rev: rev, Command: take(1)}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // the room is in the held append
	for range 2 {
		if err := r.Act(guest, &protocol.Action{Type: protocol.TypeCommand, ID: "twice", Rev: rev, Command: take(2)}); err != nil {
			t.Fatal(err)
		}
	}
	close(st.gate)
	waitFor(t, "answers to both copies", func() bool {
		n := 0
		for _, msg := range guest.messages(t) {
			if msg.Receipt != nil && msg.Receipt.ID == "twice" {
				n++
			}
		}
		return n >= 1 && r.Info().Frozen
	})
	for _, msg := range guest.messages(t) {
		if msg.Receipt != nil && msg.Receipt.ID == "twice" && msg.Receipt.OK {
			t.Fatalf("an action whose append failed was acknowledged: %+v", msg.Receipt)
		}
	}
	st.SetFail(nil)
}

// rewindingStore reports the rooms in rewound as store.Record.Rewound
// until an entry of theirs is stored, as a store that lost writes does.
type rewindingStore struct {
	*memstore.Memory
	mu      sync.Mutex
	rewound map[string]bool
}

func (s *rewindingStore) Open(ctx context.Context, room string) (store.Lease, store.Record, error) {
	l, rec, err := s.Memory.Open(ctx, room)
	s.mu.Lock()
	rec.Rewound = s.rewound[room]
	s.mu.Unlock()
	return l, rec, err
}

func (s *rewindingStore) Append(ctx context.Context, l store.Lease, e []store.Entry) error {
	err := s.Memory.Append(ctx, l, e)
	if err == nil {
		s.mu.Lock()
		delete(s.rewound, l.Room)
		s.mu.Unlock()
	}
	return err
}

// TestRewoundRoomNewEpoch: a room the store opens Rewound (it may have lost
// revisions its clients saw) is loaded in a new epoch, stored before anyone
// is served, so a client that comes back gets a snapshot of the new epoch;
// when the store refuses the epoch the room is not loaded; once stored, the
// next load keeps it.
func TestRewoundRoomNewEpoch(t *testing.T) {
	ctx := context.Background()
	st := &rewindingStore{Memory: memstore.New(), rewound: map[string]bool{}}
	m1, err := NewManager(Config{Games: session.NewRegistry(nim.Game), Store: st, AIDelay: -1})
	if err != nil {
		t.Fatal(err)
	}
	r, host, _, hostToken := nimRoom(t, m1)
	act(t, r, host, "m1", protocol.TypeCommand, take(1), nil)
	code, epoch, seen := r.Code(), host.last(t, protocol.TypeSnapshot).Snapshot.Epoch, currentRev(t, host)
	if err := m1.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	_, rec, err := st.Memory.Open(ctx, code)
	if err != nil {
		t.Fatal(err)
	}
	stored := rec.Entries[len(rec.Entries)-1].Rev
	st.rewound[code] = true

	st.SetFail(errors.New("disk on fire"))
	m2 := newManager(t, st)
	if _, err := m2.Get(ctx, code); !errors.Is(err, ErrStorage) {
		t.Fatalf("load while the store refuses the new epoch: %v, want ErrStorage", err)
	}
	st.SetFail(nil)
	r2, err := m2.Get(ctx, code)
	if err != nil {
		t.Fatal(err)
	}
	back := newFake("back")
	r2.Hello(back, &protocol.Hello{Room: code, Token: hostToken, Epoch: epoch, Rev: &seen})
	snap := back.last(t, protocol.TypeSnapshot).Snapshot
	if snap.Epoch == epoch || snap.Rev <= stored {
		t.Fatalf("came back in epoch %s at rev %d; want a new epoch (not %s) after rev %d", snap.Epoch, snap.Rev, epoch, stored)
	}
	// The epoch is the first entry stored after the load (a running
	// match's resume follows it).
	_, rec, err = st.Memory.Open(ctx, code)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(rec.Entries, func(e store.Entry) bool { return e.Rev == stored+1 })
	if i < 0 {
		t.Fatalf("no entry at rev %d among the store's %d", stored+1, len(rec.Entries))
	}
	if e, err := decodeEntry(rec.Entries[i].Data); err != nil || e.Kind != kindEpoch || e.Epoch != snap.Epoch {
		t.Fatalf("the store's entry at rev %d is %+v (%v), want the epoch %s", stored+1, e, err, snap.Epoch)
	}
	if err := m2.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	m3 := newManager(t, st)
	r3, err := m3.Get(ctx, code)
	if err != nil {
		t.Fatal(err)
	}
	again := newFake("again")
	r3.Hello(again, &protocol.Hello{Room: code, Token: hostToken})
	if got := again.last(t, protocol.TypeSnapshot).Snapshot.Epoch; got != snap.Epoch {
		t.Fatalf("reloaded in epoch %s, want %s: moved again", got, snap.Epoch)
	}
}
