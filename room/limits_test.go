package room

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/store/memstore"
)

// What a stranger can make a room store and echo is bounded: commands and
// settings in canonical form, a cap on a match's moves.

func msRoom(t *testing.T, cfg Config, settings string) (*Room, *fakeClient, *memstore.Memory) {
	t.Helper()
	st := memstore.New()
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
	return r, c, st
}

// storedBytes is everything the store holds of a room.
func storedBytes(t *testing.T, st *memstore.Memory, code string) string {
	t.Helper()
	_, rec, err := st.Open(t.Context(), code)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.Write(rec.Snapshot.Data)
	for _, e := range rec.Entries {
		b.Write(e.Data)
	}
	return b.String()
}

func TestCanonicalInputIsStored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pad := strings.Repeat("P", 8000)
		r, c, st := msRoom(t, Config{}, `{"mode":"solo","level":"beginner","pad":"`+pad+`"}`)
		sendAct(t, r, c, "s", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlSettings,
			Settings: json.RawMessage(`{"level":"expert", "mode":"solo", "junk":"` + pad + `"}`)})
		sendAct(t, r, c, "go", protocol.TypeControl, nil, &protocol.Control{Op: protocol.ControlStart})
		sendAct(t, r, c, "m", protocol.TypeCommand, json.RawMessage(`{ "type" : "flag", "r":0, "c":0, "junk":"`+pad+`"}`), nil)
		if rc := c.last(t, protocol.TypeReceipt).Receipt; rc.ID != "m" || !rc.OK {
			t.Fatalf("padded command: %+v", rc)
		}
		stored := storedBytes(t, st, r.Code())
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
		r, c, _ := msRoom(t, Config{MaxMatchMoves: 3}, `{"mode":"solo","level":"expert"}`)
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
