package room

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/memstore"
)

// What a stranger can make a room store and echo is bounded: commands and
// settings in canonical form, a cap on a match's moves.

// writeLog is a store that keeps a copy of every byte written to it, so a
// test can see what was stored without opening the room (which would take
// its lease).
type writeLog struct {
	*memstore.Memory
	mu      sync.Mutex
	written strings.Builder
}

func (w *writeLog) note(b []byte) {
	w.mu.Lock()
	w.written.Write(b)
	w.mu.Unlock()
}

func (w *writeLog) Create(ctx context.Context, room string, snap store.Snapshot) (store.Lease, error) {
	w.note(snap.Data)
	return w.Memory.Create(ctx, room, snap)
}

func (w *writeLog) Append(ctx context.Context, l store.Lease, es []store.Entry) error {
	for _, e := range es {
		w.note(e.Data)
	}
	return w.Memory.Append(ctx, l, es)
}

func (w *writeLog) WriteSnapshot(ctx context.Context, l store.Lease, snap store.Snapshot) error {
	w.note(snap.Data)
	return w.Memory.WriteSnapshot(ctx, l, snap)
}

func (w *writeLog) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.written.String()
}

func msRoom(t *testing.T, cfg Config, settings string) (*Room, *fakeClient, *writeLog, string) {
	t.Helper()
	st := &writeLog{Memory: memstore.New()}
	cfg.Games, cfg.Store = session.NewRegistry(minesweeper.Game), st
	m := bubbleManager(t, cfg)
	created, err := m.Create(t.Context(), CreateRequest{Game: "minesweeper", Settings: json.RawMessage(settings), Name: "Ann"})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := m.Get(t.Context(), created.Room)
	c := newFake("ann")
	r.Hello(c, &protocol.Hello{Room: r.Code(), Token: created.Token})
	synctest.Wait()
	return r, c, st, created.Token
}

func TestCanonicalInputIsStored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pad := strings.Repeat("P", 8000)
		r, c, st, _ := msRoom(t, Config{}, `{"mode":"solo","level":"beginner","pad":"`+pad+`"}`)
		sendAct(t, r, c, "s", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlSettings,
			Settings: json.RawMessage(`{"level":"expert", "mode":"solo", "junk":"` + pad + `"}`)})
		sendAct(t, r, c, "go", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlStart})
		sendAct(t, r, c, "m", protocol.TypeCommand, json.RawMessage(`{ "type" : "flag", "r":0, "c":0, "junk":"`+pad+`"}`), nil)
		if rc := c.last(t, protocol.TypeReceipt).Receipt; rc.ID != "m" || !rc.OK {
			t.Fatalf("padded command: %+v", rc)
		}
		stored := st.String()
		if strings.Contains(stored, "PPPP") {
			t.Fatalf("padding stored (%d bytes)", len(stored))
		}
		if !strings.Contains(stored, `{"type":"flag","r":0,"c":0}`) || !strings.Contains(stored, `{"mode":"solo","level":"expert"}`) {
			t.Fatalf("stored: %s", stored)
		}
		if s := r.Info().Settings; string(s) != `{"mode":"solo","level":"expert"}` {
			t.Fatalf("room info echoes %s", s)
		}
	})
}

func TestMatchMovesCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, c, _, _ := msRoom(t, Config{MaxMatchMoves: 3}, `{"mode":"solo","level":"expert"}`)
		sendAct(t, r, c, "go", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlStart})
		for i := range 4 {
			sendAct(t, r, c, string(rune('a'+i)), protocol.TypeCommand, json.RawMessage(`{"type":"flag","r":0,"c":0}`), nil)
		}
		rc := c.receipt(t, "d")
		if rc.OK || rc.Notice.Code != protocol.CodeMatchFull {
			t.Fatalf("the 4th move: %+v, want match-full", rc)
		}
		if rc := c.receipt(t, "c"); !rc.OK {
			t.Fatalf("the 3rd move: %+v", rc)
		}
		sendAct(t, r, c, "quit", protocol.TypeResign, nil, nil)
		if rc := c.receipt(t, "quit"); !rc.OK {
			t.Fatalf("resigning a full match: %+v", rc)
		}
	})
}

// TestHostileHellosChangeNothing: hellos from a spectator or with a wrong
// token that claim a revision far ahead store nothing and leave the epoch
// as it is; a seated player's claim moves the room to a new epoch once, and
// no more after that.
func TestHostileHellosChangeNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, c, st, token := msRoom(t, Config{}, `{"mode":"coop","level":"beginner"}`)
		snap := c.last(t, protocol.TypeSnapshot).Snapshot
		epoch, ahead := snap.Epoch, snap.Rev+1000
		stored := st.String()
		for i := range 50 {
			h := &protocol.Hello{Room: r.Code(), Epoch: epoch, Rev: &ahead, Watch: i%2 == 0}
			if i%2 == 1 {
				h.Token = "not-a-token"
			}
			r.Hello(newFake("evil"), h)
		}
		synctest.Wait()
		if got := st.String(); got != stored {
			t.Fatal("hostile hellos stored entries")
		}
		if s := c.last(t, protocol.TypeSnapshot).Snapshot; r.Stats().Epoch != epoch || r.Stats().Rev != snap.Rev || s.Epoch != epoch {
			t.Fatalf("epoch %s rev %d after hostile hellos, want %s %d", r.Stats().Epoch, r.Stats().Rev, epoch, snap.Rev)
		}
		// The seated player may move it once.
		for range 3 {
			again := newFake("host-again")
			r.Hello(again, &protocol.Hello{Room: r.Code(), Token: token, Epoch: r.Stats().Epoch, Rev: &ahead})
			synctest.Wait()
		}
		if r.Stats().Epoch == epoch || r.Stats().Rev != snap.Rev+1 {
			t.Fatalf("after seated claims: epoch %s rev %d, want one new epoch at %d", r.Stats().Epoch, r.Stats().Rev, snap.Rev+1)
		}
	})
}

func TestSpectatorCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, _, _, _ := msRoom(t, Config{MaxSpectators: 3}, `{"mode":"coop"}`)
		var last *fakeClient
		for i := range 4 {
			last = newFake("spec")
			r.Hello(last, &protocol.Hello{Room: r.Code(), Watch: true})
			synctest.Wait()
			if i < 3 && last.closeCode() != 0 {
				t.Fatalf("spectator %d refused", i)
			}
		}
		if last.closeCode() != protocol.CloseTryLater || last.last(t, protocol.TypeNotice).Notice.Code != protocol.CodeTooMany {
			t.Fatalf("the 4th spectator: close %d", last.closeCode())
		}
		if n := r.Info().Spectators; n != 3 {
			t.Fatalf("%d spectators", n)
		}
	})
}

func TestMaxRooms(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := bubbleManager(t, Config{MaxRooms: 2})
		for i := range 3 {
			_, err := m.Create(t.Context(), CreateRequest{Game: "nim", Name: "Ann"})
			if i < 2 && err != nil {
				t.Fatal(err)
			}
			if i == 2 && err != ErrTooManyRooms {
				t.Fatalf("the 3rd room: %v", err)
			}
		}
		if _, err := m.Get(t.Context(), "NOT-A-CODE"); err != ErrNoRoom {
			t.Fatalf("a malformed code: %v", err)
		}
	})
}

// TestLockedRoom: a locked room seats only who brings its invite (over
// HTTP or in a hello); without it one watches, or — when the host locked
// watching too — is turned away with 4005. Seated players get the invite.
func TestLockedRoom(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := bubbleManager(t, Config{Games: session.NewRegistry(minesweeper.Game)})
		created, err := m.Create(t.Context(), CreateRequest{Game: "minesweeper", Settings: json.RawMessage(`{"mode":"coop"}`), Name: "Ann", Access: protocol.AccessLocked})
		if err != nil || created.Invite == "" {
			t.Fatalf("create: %+v %v", created, err)
		}
		r, _ := m.Get(t.Context(), created.Room)
		if _, err := r.Join(t.Context(), "Eve", "guess", ""); err != ErrLocked {
			t.Fatalf("a join with a wrong invite: %v", err)
		}
		if res, err := r.Join(t.Context(), "Bob", created.Invite, ""); err != nil || res.Seat != 1 {
			t.Fatalf("a join with the invite: %+v %v", res, err)
		}
		eve := newFake("eve")
		r.Hello(eve, &protocol.Hello{Room: r.Code(), Name: "Eve"})
		synctest.Wait()
		if w := eve.last(t, protocol.TypeWelcome).Welcome; w.Seat != nil || eve.last(t, protocol.TypeNotice).Notice.Code != protocol.CodeInviteRequired {
			t.Fatalf("a hello without the invite: welcome %+v", w)
		}
		if s := eve.last(t, protocol.TypeSnapshot).Snapshot; s.Invite != "" || s.Room.Access != protocol.AccessLocked {
			t.Fatalf("a spectator's snapshot: invite %q, access %q", s.Invite, s.Room.Access)
		}
		cat := newFake("cat")
		r.Hello(cat, &protocol.Hello{Room: r.Code(), Name: "Cat", Invite: created.Invite})
		synctest.Wait()
		if s := cat.last(t, protocol.TypeSnapshot).Snapshot; s.Seat == nil || s.Invite != created.Invite {
			t.Fatalf("a hello with the invite: seat %v invite %q", s.Seat, s.Invite)
		}
		host := newFake("host")
		r.Hello(host, &protocol.Hello{Room: r.Code(), Token: created.Token})
		synctest.Wait()
		sendAct(t, r, host, "lock-watch", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlAccess, Access: protocol.AccessLocked, WatchLocked: true})
		if rc := host.receipt(t, "lock-watch"); !rc.OK {
			t.Fatalf("lock watching: %+v", rc.Notice)
		}
		spy := newFake("spy")
		r.Hello(spy, &protocol.Hello{Room: r.Code(), Watch: true})
		synctest.Wait()
		if spy.closeCode() != protocol.CloseLocked {
			t.Fatalf("a spectator without the invite: close %d, want 4005", spy.closeCode())
		}
		sendAct(t, r, host, "open", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlAccess, Access: protocol.AccessPublic})
		if u := host.last(t, protocol.TypeUpdate).Update; u.Room == nil || u.Room.Access != protocol.AccessPublic {
			t.Fatalf("after opening: %+v", u)
		}
		if _, err := r.Join(t.Context(), "Eve", "", ""); err != nil {
			t.Fatalf("a join once public: %v", err)
		}
	})
}
