package transport

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

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
