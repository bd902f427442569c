package room

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/internal/ids"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/memstore"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeClient is an in-package Client that records what a room sends.
type fakeClient struct {
	id     string
	mu     sync.Mutex
	frames [][]byte
	closed int
	signal chan struct{}
}

func newFake(id string) *fakeClient { return &fakeClient{id: id, signal: make(chan struct{}, 1)} }

func (f *fakeClient) ID() string { return f.id }
func (f *fakeClient) Send(frame []byte) {
	f.mu.Lock()
	f.frames = append(f.frames, frame)
	f.mu.Unlock()
	f.poke()
}
func (f *fakeClient) Close(code int, reason string, retry time.Duration) {
	f.mu.Lock()
	if f.closed == 0 {
		f.closed = code
	}
	f.mu.Unlock()
	f.poke()
}
func (f *fakeClient) poke() {
	select {
	case f.signal <- struct{}{}:
	default:
	}
}

func (f *fakeClient) messages(t *testing.T) []protocol.ServerMessage {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []protocol.ServerMessage
	for _, fr := range f.frames {
		m, err := protocol.DecodeServer(fr)
		if err != nil {
			t.Fatalf("%s: undecodable frame %s: %v", f.id, fr, err)
		}
		out = append(out, m)
	}
	return out
}

func (f *fakeClient) closeCode() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// receipt waits for the receipt of action id.
func (f *fakeClient) receipt(t *testing.T, id string) protocol.Receipt {
	t.Helper()
	var rc *protocol.Receipt
	waitFor(t, "receipt "+id, func() bool {
		for _, m := range f.messages(t) {
			if m.Receipt != nil && m.Receipt.ID == id {
				rc = m.Receipt
			}
		}
		return rc != nil
	})
	return *rc
}

func (f *fakeClient) last(t *testing.T, typ string) protocol.ServerMessage {
	t.Helper()
	var found protocol.ServerMessage
	waitFor(t, f.id+" "+typ, func() bool {
		ms := f.messages(t)
		for i := len(ms) - 1; i >= 0; i-- {
			if ms[i].Type == typ {
				found = ms[i]
				return true
			}
		}
		return false
	})
	return found
}

// newManager starts a manager of Nim rooms on st (nil means a fresh memory
// store) and shuts it down when the test ends.
func newManager(t *testing.T, st store.Store) *Manager {
	t.Helper()
	if st == nil {
		st = memstore.New()
	}
	m, err := NewManager(Config{Games: session.NewRegistry(nim.Game), Store: st, AIDelay: -1, PresenceInterval: time.Millisecond})
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
	return m
}

// nimRoom creates a two-seat hidden-Nim room and seats a host and a guest,
// both connected as fake clients, and starts the match.
func nimRoom(t *testing.T, m *Manager) (*Room, *fakeClient, *fakeClient, string) {
	t.Helper()
	r, token := newNimLobby(t, m)
	host, guest := newFake("host"), newFake("guest")
	if err := r.Hello(host, &protocol.Hello{Room: r.Code(), Token: token}); err != nil {
		t.Fatal(err)
	}
	if err := r.Hello(guest, &protocol.Hello{Room: r.Code(), Name: "Bob"}); err != nil {
		t.Fatal(err)
	}
	w := guest.last(t, protocol.TypeWelcome)
	if w.Welcome.Token == "" || w.Welcome.Seat == nil || *w.Welcome.Seat != 1 {
		t.Fatalf("guest welcome = %+v, want seat 1 with a token", w.Welcome)
	}
	// A seat taken by hello starts with the welcome and a snapshot that
	// includes the join, never with the join's update.
	if ms := guest.messages(t); len(ms) < 2 || ms[0].Welcome == nil || ms[1].Snapshot == nil || ms[1].Snapshot.Rev != 1 {
		t.Fatalf("guest's first messages: %+v", ms)
	}
	act(t, r, guest, "g-ready", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlReady, Ready: true})
	act(t, r, host, "h-start", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlStart})
	return r, host, guest, token
}

// newNimLobby creates a two-seat hidden-Nim room with Ann in the host's
// seat, no one connected, and returns it and the host's token.
func newNimLobby(t *testing.T, m *Manager) (*Room, string) {
	t.Helper()
	ctx := context.Background()
	created, err := m.Create(ctx, CreateRequest{Game: "nim", Settings: json.RawMessage(`{"pile":10}`), Name: "Ann"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := m.Get(ctx, created.Room)
	if err != nil {
		t.Fatal(err)
	}
	return r, created.Token
}

// act sends an action at the room's current revision and returns its receipt.
func act(t *testing.T, r *Room, c *fakeClient, id, typ string, cmd json.RawMessage, ctl *protocol.Control) protocol.Receipt {
	t.Helper()
	a := &protocol.Action{Type: typ, ID: id, Command: cmd, Control: ctl}
	a.Rev = currentRev(t, c)
	if err := r.Act(c, a); err != nil {
		t.Fatal(err)
	}
	return c.receipt(t, id)
}

// currentRev is the client's revision: the last snapshot or update it got.
func currentRev(t *testing.T, c *fakeClient) uint64 {
	t.Helper()
	var rev uint64
	for _, m := range c.messages(t) {
		switch {
		case m.Snapshot != nil:
			rev = m.Snapshot.Rev
		case m.Update != nil:
			rev = m.Update.To
		}
	}
	return rev
}

func take(n int) json.RawMessage { return json.RawMessage(fmt.Sprintf(`{"type":"take","n":%d}`, n)) }

// TestRevisionsContinuous plays a Nim match and checks that each client sees
// revisions rising by exactly one, with one receipt per action.
// TestConfigRequired: a Config without Games or Store is refused with an
// error that names the missing field.
func TestConfigRequired(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"Games", Config{Store: memstore.New()}},
		{"Store", Config{Games: session.NewRegistry(nim.Game)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := NewManager(tc.cfg)
			if err == nil {
				m.Shutdown(context.Background())
				t.Fatal("NewManager succeeded")
			}
			if !strings.Contains(err.Error(), "Config."+tc.name) {
				t.Fatalf("err = %v, want it to name Config.%s", err, tc.name)
			}
		})
	}
}

func TestRevisionsContinuous(t *testing.T) {
	m := newManager(t, nil)
	r, host, guest, _ := nimRoom(t, m)
	turn := []*fakeClient{host, guest}
	for i := 0; ; i++ {
		if r.Info().Phase == protocol.PhaseEnded {
			break
		}
		if i > 20 {
			t.Fatal("match did not end")
		}
		c := turn[i%2]
		rc := act(t, r, c, fmt.Sprintf("take-%d", i), protocol.TypeCommand, take(1), nil)
		if !rc.OK {
			t.Fatalf("take %d refused: %+v", i, rc.Notice)
		}
		waitFor(t, "info to follow", func() bool { return currentRev(t, host) == rc.Rev && currentRev(t, guest) == rc.Rev })
	}
	for _, c := range []*fakeClient{host, guest} {
		var rev uint64
		var snaps int
		for _, msg := range c.messages(t) {
			switch {
			case msg.Snapshot != nil:
				snaps++
				rev = msg.Snapshot.Rev
			case msg.Update != nil:
				if msg.Update.From != rev || msg.Update.To != rev+1 {
					t.Fatalf("%s: update %d→%d after revision %d", c.id, msg.Update.From, msg.Update.To, rev)
				}
				rev = msg.Update.To
			}
		}
		if snaps != 1 {
			t.Errorf("%s got %d snapshots, want 1", c.id, snaps)
		}
	}
	if r.Info().Phase != protocol.PhaseEnded {
		t.Fatalf("phase %s", r.Info().Phase)
	}
}

// TestDedupAppliesOnce resends an accepted and a refused action: each gets
// its first receipt again and nothing is applied twice.
func TestDedupAppliesOnce(t *testing.T) {
	m := newManager(t, nil)
	r, host, guest, _ := nimRoom(t, m)
	first := act(t, r, host, "dup", protocol.TypeCommand, take(2), nil)
	if !first.OK {
		t.Fatalf("refused: %+v", first.Notice)
	}
	before := currentRev(t, host)
	if err := r.Act(host, &protocol.Action{Type: protocol.TypeCommand, ID: "dup", Rev: before, Command: take(2)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "second receipt", func() bool {
		n := 0
		for _, msg := range host.messages(t) {
			if msg.Receipt != nil && msg.Receipt.ID == "dup" {
				n++
			}
		}
		return n == 2
	})
	var receipts []protocol.Receipt
	for _, msg := range host.messages(t) {
		if msg.Receipt != nil && msg.Receipt.ID == "dup" {
			receipts = append(receipts, *msg.Receipt)
		}
	}
	if receipts[0] != receipts[1] || !receipts[1].OK {
		t.Fatalf("receipts differ: %+v", receipts)
	}
	if got := currentRev(t, host); got != before {
		t.Fatalf("resend moved the revision from %d to %d", before, got)
	}
	// A refused action (out of turn) is refused the same way when resent.
	for range 2 {
		if err := r.Act(host, &protocol.Action{Type: protocol.TypeCommand, ID: "early", Rev: before, Command: take(1)}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "two refusals", func() bool {
		n := 0
		for _, msg := range host.messages(t) {
			if msg.Receipt != nil && msg.Receipt.ID == "early" {
				if msg.Receipt.OK || msg.Receipt.Notice.Code != session.CodeNotYourTurn {
					t.Fatalf("out-of-turn receipt %+v", msg.Receipt)
				}
				n++
			}
		}
		return n == 2
	})
	_ = guest
}

// TestStorageFailureKeepsState makes the store refuse writes: the command is
// answered with a temporary storage-unavailable notice, the room keeps its
// state, and a resend with the same id after the store is back is applied.
func TestStorageFailureKeepsState(t *testing.T) {
	st := memstore.New()
	m := newManager(t, st)
	r, host, guest, _ := nimRoom(t, m)
	before := currentRev(t, guest)
	st.SetFail(errors.New("disk on fire"))
	rc := act(t, r, host, "t1", protocol.TypeCommand, take(3), nil)
	if rc.OK || rc.Notice.Code != protocol.CodeStorageUnavailable || !rc.Notice.Temporary {
		t.Fatalf("receipt during outage = %+v", rc)
	}
	waitFor(t, "frozen flag", func() bool { return r.Info().Frozen })
	if got := currentRev(t, guest); got != before {
		t.Fatalf("guest saw revision %d during the outage; had %d", got, before)
	}
	st.SetFail(nil)
	if err := r.Act(host, &protocol.Action{Type: protocol.TypeCommand, ID: "t1", Rev: before, Command: take(3)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "applied after the outage", func() bool { return currentRev(t, guest) == before+1 })
	var pile int
	for _, msg := range guest.messages(t) {
		if msg.Update != nil && msg.Update.To == before+1 {
			var beats []nim.Event
			if err := json.Unmarshal(msg.Update.Beats.(json.RawMessage), &beats); err != nil {
				t.Fatal(err)
			}
			pile = beats[0].Pile
		}
	}
	if pile != 7 {
		t.Fatalf("pile after one take of 3 from 10 = %d", pile)
	}
	waitFor(t, "unfrozen", func() bool { return !r.Info().Frozen })
}

// TestRestoreFromStore shuts a manager down mid-match and restores the room
// in a new one: same revision, tokens still work, play continues.
func TestRestoreFromStore(t *testing.T) {
	st := memstore.New()
	m1, err := NewManager(Config{Games: session.NewRegistry(nim.Game), Store: st, AIDelay: -1, SnapshotEvery: 3})
	if err != nil {
		t.Fatal(err)
	}
	r, host, guest, hostToken := nimRoom(t, m1)
	act(t, r, host, "m1", protocol.TypeCommand, take(1), nil)
	act(t, r, guest, "m2", protocol.TypeCommand, take(2), nil)
	act(t, r, host, "m3", protocol.TypeCommand, take(1), nil)
	rev := currentRev(t, host)
	code := r.Code()
	ctx := context.Background()
	if err := m1.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if host.closeCode() != protocol.CloseRestarting {
		t.Fatalf("host closed with %d, want %d", host.closeCode(), protocol.CloseRestarting)
	}
	m2 := newManager(t, st)
	r2, err := m2.Get(ctx, code)
	if err != nil {
		t.Fatal(err)
	}
	back := newFake("host-again")
	if err := r2.Hello(back, &protocol.Hello{Room: code, Token: hostToken}); err != nil {
		t.Fatal(err)
	}
	snap := back.last(t, protocol.TypeSnapshot).Snapshot
	rev++ // the graceful shutdown's downtime, credited to the running match (kindResume)
	if snap.Rev != rev || snap.Seat == nil || *snap.Seat != 0 {
		t.Fatalf("restored snapshot rev %d seat %v; want rev %d seat 0", snap.Rev, snap.Seat, rev)
	}
	var view nim.View
	if err := json.Unmarshal(snap.View.(json.RawMessage), &view); err != nil {
		t.Fatal(err)
	}
	if view.Pile != 6 || view.Turn != 1 {
		t.Fatalf("restored view pile %d turn %d; want 6 and 1", view.Pile, view.Turn)
	}
	// The dedup window came back too: m3 resent is not applied again.
	if err := r2.Act(back, &protocol.Action{Type: protocol.TypeCommand, ID: "m3", Rev: rev, Command: take(1)}); err != nil {
		t.Fatal(err)
	}
	if rc := back.receipt(t, "m3"); !rc.OK || rc.Rev != rev-1 {
		t.Fatalf("resent m3 after restore: %+v, want ok at its own rev %d", rc, rev-1)
	}
}

// TestStoreHoldsNoToken checks that nothing the store keeps contains a seat
// token: only its hash.
func TestStoreHoldsNoToken(t *testing.T) {
	st := memstore.New()
	m := newManager(t, st)
	r, _, guest, hostToken := nimRoom(t, m)
	guestToken := guest.last(t, protocol.TypeWelcome).Welcome.Token
	ctx := context.Background()
	_, rec, err := st.Open(ctx, r.Code())
	if err != nil {
		t.Fatal(err)
	}
	all := [][]byte{rec.Snapshot.Data}
	for _, e := range rec.Entries {
		all = append(all, e.Data)
	}
	joined := bytes.Join(all, nil)
	for _, tok := range []string{hostToken, guestToken} {
		if bytes.Contains(joined, []byte(tok)) {
			t.Fatalf("the store holds the token %q", tok)
		}
		if !bytes.Contains(joined, []byte(ids.HashToken(tok))) {
			t.Fatalf("the store lacks the hash of token %q (the test would be vacuous)", tok)
		}
	}
}

// TestNameReplaced gives a second "Ann" another name and says so.
func TestNameReplaced(t *testing.T) {
	m := newManager(t, nil)
	created, err := m.Create(context.Background(), CreateRequest{Game: "nim", Name: "Ann"})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := m.Get(context.Background(), created.Room)
	c := newFake("ann2")
	r.Hello(c, &protocol.Hello{Room: r.Code(), Name: "Ann"})
	n := c.last(t, protocol.TypeNotice)
	if n.Notice.Code != protocol.CodeNameReplaced || !strings.Contains(n.Notice.Message, "Ann (2)") {
		t.Fatalf("notice = %+v", n.Notice)
	}
	if got := r.Info().Seats[1].Name; got != "Ann (2)" {
		t.Fatalf("seat 1 name %q", got)
	}
}

// TestEntryEncoding: the hand-written command entry decodes to the same
// entry as encoding/json's, for every kind.
func TestEntryEncoding(t *testing.T) {
	for _, e := range []entry{
		{Rev: 7, Kind: kindCommand, By: "01ABC", Aid: `a"<id>`, T: 1750000000123, Move: json.RawMessage(`{"type":"flag","r":1,"c":2}`)},
		{Rev: 8, Kind: kindCommand, By: "01ABC", T: 5, Move: json.RawMessage(`{"type":"take","n":1}`)},
		{Rev: 11, Kind: kindCommand, By: "01ABC", Aid: "x", T: 6, Tick: 81, Move: json.RawMessage(`{"type":"turn","dir":"up"}`)},
		{Rev: 12, Kind: kindTick, T: 7, Tick: 2460},
		{Rev: 9, Kind: kindJoin, By: "p", Players: []*player{{ID: "p", Name: "Ann", TokenHash: "ab"}}},
		{Rev: 10, Kind: kindStart, By: "p", Seed: session.IntSeed(42), T: 3},
	} {
		got, err := e.encode()
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(&e)
		var a, b entry
		if err := json.Unmarshal(got, &a); err != nil {
			t.Fatalf("%s: %v", got, err)
		}
		json.Unmarshal(want, &b)
		ab, _ := json.Marshal(a)
		bb, _ := json.Marshal(b)
		if string(ab) != string(bb) {
			t.Fatalf("entry %s decodes differently from %s", got, want)
		}
		// decodeEntry (its scan of a command, or encoding/json) reads both
		// forms as encoding/json does.
		for _, data := range [][]byte{got, want} {
			d, err := decodeEntry(data)
			if err != nil {
				t.Fatalf("decodeEntry(%s): %v", data, err)
			}
			if db, _ := json.Marshal(d); string(db) != string(bb) {
				t.Fatalf("decodeEntry(%s) = %s, want %s", data, db, bb)
			}
		}
	}
	// Commands the scan does not take are still read, by encoding/json.
	for _, data := range []string{
		`{"rev":3,"k":"command","by":"p\u0041","t":1,"move":{"type":"x"}}`,
		`{"k":"command","rev":3,"by":"p","t":1,"move":{"type":"x"}}`,
		`{"rev":3,"k":"command","by":"p","t":1,"move":{"type":"x"} }`,
		`{"rev":03,"k":"command","by":"p","t":1,"move":{"type":"x"}}`,
	} {
		var want entry
		err := json.Unmarshal([]byte(data), &want)
		got, gerr := decodeEntry([]byte(data))
		if (err == nil) != (gerr == nil) {
			t.Fatalf("decodeEntry(%s): %v, encoding/json: %v", data, gerr, err)
		}
		if err == nil {
			a, _ := json.Marshal(got)
			b, _ := json.Marshal(&want)
			if string(a) != string(b) {
				t.Fatalf("decodeEntry(%s) = %s, want %s", data, a, b)
			}
		}
	}
	// A scanned command is exactly the encoded one.
	e := entry{Rev: 4, Kind: kindCommand, By: "p", Aid: "a1", T: 9, Tick: 3, Move: json.RawMessage(`{"type":"step","dir":"up"}`)}
	data, _ := e.encode()
	d, ok := decodeCommandEntry(data)
	if !ok || d.Rev != 4 || d.By != "p" || d.Aid != "a1" || d.T != 9 || d.Tick != 3 || string(d.Move) != string(e.Move) {
		t.Fatalf("decodeCommandEntry(%s) = %+v, %v", data, d, ok)
	}
}

// TestStoreCtxShared: the actors' store calls share a context for a
// sixteenth of StoreTimeout, whose deadline is StoreTimeout to 17/16 of it
// away; after that window a call gets a new one.
func TestStoreCtxShared(t *testing.T) {
	m := newManager(t, nil)
	timeout := m.cfg.StoreTimeout
	start := time.Now()
	a := m.storeCtx()
	b := m.storeCtx()
	if a != b {
		t.Fatal("two calls in one window got different contexts")
	}
	dl, ok := a.Deadline()
	if !ok {
		t.Fatal("the store context has no deadline")
	}
	if lo, hi := start.Add(timeout), time.Now().Add(timeout+timeout/16); dl.Before(lo) || dl.After(hi) {
		t.Fatalf("deadline %v from now, want %v to %v", time.Until(dl), timeout, timeout+timeout/16)
	}
	time.Sleep(timeout/16 + 10*time.Millisecond)
	c := m.storeCtx()
	if c == a {
		t.Fatal("a call after the window got the old context")
	}
	if a.Err() != nil || c.Err() != nil {
		t.Fatalf("contexts ended early: %v, %v", a.Err(), c.Err())
	}
}

// TestJoinAnsweredOnceInfoShowsIt: a join over HTTP is answered only when
// the room's info shows its seat, so that a client that has joined and
// then asks for the room (GET /api/rooms/{code}) finds itself there. Many
// rooms: the reply once came before the info, and a reader on another
// thread saw the room without the seat now and then.
func TestJoinAnsweredOnceInfoShowsIt(t *testing.T) {
	m := newManager(t, nil)
	ctx := context.Background()
	for i := range 300 {
		r, _ := newNimLobby(t, m)
		res, err := r.Join(ctx, "Bob", "", "")
		if err != nil {
			t.Fatal(err)
		}
		if seats := r.Info().Seats; len(seats) != 2 || seats[res.Seat].Name != "Bob" {
			t.Fatalf("room %d: joined as seat %d, and the room's info then shows the seats %+v", i, res.Seat, seats)
		}
	}
}
