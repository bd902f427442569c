package transport

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/session/sessiontest"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/memstore"
	"github.com/roomd/roomd/transport/client"
)

// fullDisk is a store that answers pings but refuses every write while
// full, as bbolt does on a full disk (its ping is an empty transaction).
type fullDisk struct {
	*memstore.Memory
	full atomic.Bool
}

var errNoSpace = errors.New("write /data/roomd.db: no space left on device")

func (d *fullDisk) Append(ctx context.Context, l store.Lease, e []store.Entry) error {
	if d.full.Load() {
		return errNoSpace
	}
	return d.Memory.Append(ctx, l, e)
}

func (d *fullDisk) WriteSnapshot(ctx context.Context, l store.Lease, s store.Snapshot) error {
	if d.full.Load() {
		return errNoSpace
	}
	return d.Memory.WriteSnapshot(ctx, l, s)
}

// TestFullDiskReadiness: while writes fail and pings pass, /readyz answers
// 503 (the old roomd said 200 through 785 failed appends); once space
// returns the room's own retry writes again, /readyz is 200 within seconds,
// and nothing acknowledged is lost.
func TestFullDiskReadiness(t *testing.T) {
	disk := &fullDisk{Memory: memstore.New()}
	s := startServer(t, func(rc *room.Config, _ *Config) { rc.Store = disk })
	ready := func() int {
		resp, err := http.Get(s.URL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	created := s.create("minesweeper", `{"mode":"solo","level":"expert"}`, "Ann")
	p := s.dial("ann", client.Config{Room: created.Room, Token: created.Token, Game: msPin})
	p.waitOnline()
	p.control(protocol.Control{Op: protocol.ControlStart})
	if rc := p.command(`{"type":"flag","r":0,"c":0}`); !rc.OK {
		t.Fatalf("before: %+v", rc.Notice)
	}
	if code := ready(); code != http.StatusOK {
		t.Fatalf("/readyz before: %d", code)
	}
	disk.full.Store(true)
	if rc := p.command(`{"type":"flag","r":0,"c":1}`); rc.OK || rc.Notice.Code != protocol.CodeStorageUnavailable {
		t.Fatalf("on a full disk: %+v", rc)
	}
	if code := ready(); code != http.StatusServiceUnavailable {
		t.Fatalf("/readyz with a full disk: %d, want 503", code)
	}
	disk.full.Store(false)
	back := time.Now()
	for ready() != http.StatusOK {
		if time.Since(back) > 5*time.Second {
			t.Fatal("/readyz still 503 five seconds after space returned")
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("/readyz back to 200 %v after space returned", time.Since(back).Round(10*time.Millisecond))
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if rc := p.command(`{"type":"flag","r":0,"c":1}`); rc.OK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("writes did not resume")
		}
	}
	_, snapRev := p.tr.Position()
	if snapRev != 3 {
		t.Fatalf("revision %d after start and two flags, want 3: something was lost or applied twice", snapRev)
	}
}

// TestEnginePanicOverSockets: a game whose Apply panics (the test-only
// sessiontest.Boom), played over real sockets: the sender's receipt is
// engine-threw, the room's revision is unchanged and its next command is
// applied, a player of another room never notices, and the server goes on
// answering. (The old roomd died with the process.)
func TestEnginePanicOverSockets(t *testing.T) {
	s := startServer(t, func(rc *room.Config, _ *Config) {
		rc.Games = session.NewRegistry(minesweeper.Game, sessiontest.Boom)
	})
	var players []*tclient
	for _, name := range []string{"ann", "bob"} {
		created := s.create("boom", `{}`, name)
		p := s.dial(name, client.Config{Room: created.Room, Token: created.Token})
		p.waitOnline()
		if rc := p.control(protocol.Control{Op: protocol.ControlStart}); !rc.OK {
			t.Fatalf("%s start: %+v", name, rc.Notice)
		}
		if rc := p.command(`{}`); !rc.OK {
			t.Fatalf("%s first move: %+v", name, rc.Notice)
		}
		players = append(players, p)
	}
	ann, bob := players[0], players[1]
	before := ann.recordedRev()
	rc := ann.command(`{"boom":true}`)
	if rc.OK || rc.Notice == nil || rc.Notice.Code != protocol.CodeEngineThrew {
		t.Fatalf("the panicking command: %+v", rc)
	}
	if rc := ann.command(`{}`); !rc.OK || rc.Rev != before+1 {
		t.Fatalf("the next command: %+v, want accepted at %d", rc, before+1)
	}
	if rc := bob.command(`{}`); !rc.OK {
		t.Fatalf("the other room: %+v", rc.Notice)
	}
	resp, err := http.Get(s.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz after the panic: %d", resp.StatusCode)
	}
}
