package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/roomd/roomd/internal/testredis"
	"github.com/roomd/roomd/protocol"
)

// flagger is a bot that flags distinct cells of an expert board in a loop:
// a flag is a toggle, so each acknowledged flag must still be set after any
// restart, and any double application would clear it.
type flagger struct {
	*bot
	token string
	sent  map[string]json.RawMessage // action id → command
	next  int
}

func startFlaggers(t *testing.T, base string, n int) []*flagger {
	t.Helper()
	var out []*flagger
	for range n {
		room, token := createRoom(t, base, `{"mode":"solo","level":"expert"}`)
		b := dialBot(t, base, room, token)
		b.until("online", 10*time.Second, func() bool { return b.snapshot != nil })
		id := b.send(protocol.Action{Type: protocol.TypeControl, Control: &protocol.Control{Op: protocol.ControlStart}})
		if ok, code, _ := b.waitReceipt(id, 10*time.Second); !ok {
			t.Fatalf("start: %s", code)
		}
		out = append(out, &flagger{bot: b, token: token, sent: map[string]json.RawMessage{}})
	}
	return out
}

// run flags cells until stop is closed or the board is full.
func (f *flagger) run(stop <-chan struct{}) {
	for f.next < 16*30 {
		select {
		case <-stop:
			return
		default:
		}
		cmd := flagCmd(f.next)
		id := f.send(protocol.Action{Type: protocol.TypeCommand, Command: cmd})
		if id == "" {
			time.Sleep(20 * time.Millisecond) // offline: the server is away
			continue
		}
		f.mu.Lock()
		f.sent[id] = cmd
		f.mu.Unlock()
		f.next++
		f.waitReceipt(id, 2*time.Second)
	}
}

// ackedFlags returns the commands whose receipt said ok.
func (f *flagger) ackedFlags() map[string]bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]bool{}
	for id := range f.acked {
		if cmd, ok := f.sent[id]; ok {
			out[string(cmd)] = true
		}
	}
	return out
}

// verifyAfterRestart reconnects to every flagger's room with its token and
// checks that every acknowledged flag is on the board. It returns the
// number of rooms lost, of acknowledged actions checked and of those lost.
func verifyAfterRestart(t *testing.T, base string, fs []*flagger) (lost, checked, missing int) {
	t.Helper()
	for _, f := range fs {
		acked := f.ackedFlags()
		f.close()
		resp, err := http.Get(base + "/api/rooms/" + f.room)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			lost++
			t.Errorf("room %s lost after the restart: %d", f.room, resp.StatusCode)
			continue
		}
		b := dialBot(t, base, f.room, f.token)
		b.until("snapshot", 10*time.Second, func() bool { return b.snapshot != nil })
		have := flaggedCells(t, b.snapshot)
		for cmd := range acked {
			checked++
			if !have[cmd] {
				missing++
				t.Errorf("room %s: acknowledged %s is not on the board after the restart", f.room, cmd)
			}
		}
		b.close()
	}
	return lost, checked, missing
}

// TestKill9LosesNothingAcknowledged kills roomd (the embedded store) with
// SIGKILL while bots play N rooms, restarts it on the same data, and checks
// that every acknowledged action is there and no room is lost.
func TestKill9LosesNothingAcknowledged(t *testing.T) {
	t.Parallel()
	for _, fsync := range []bool{true, false} {
		t.Run(fmt.Sprintf("fsync=%v", fsync), func(t *testing.T) {
			addr, data := freeAddr(t), t.TempDir()
			args := []string{"--data", data, fmt.Sprintf("--fsync=%v", fsync)}
			p := startRoomd(t, addr, args...)
			const rooms = 30
			fs := startFlaggers(t, p.URL, rooms)
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for _, f := range fs {
				wg.Add(1)
				go func() { defer wg.Done(); f.run(stop) }()
			}
			// Let them play, then kill roomd in the middle of it.
			deadline := time.Now().Add(10 * time.Second)
			for total := 0; total < rooms*40 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				total = 0
				for _, f := range fs {
					total += len(f.ackedFlags())
				}
			}
			p.kill9()
			close(stop)
			wg.Wait()
			p2 := startRoomd(t, addr, args...)
			lost, checked, missing := verifyAfterRestart(t, p2.URL, fs)
			t.Logf("kill -9 with %d rooms: %d acknowledged actions checked, %d of them lost, %d rooms lost", rooms, checked, missing, lost)
			if checked < rooms*10 {
				t.Fatalf("only %d acknowledged actions before the kill; the test proves little", checked)
			}
			p2.term()
		})
	}
}

// TestGracefulRestartResumes restarts roomd with SIGTERM in the middle of a
// Minesweeper game and a hidden-Nim game: the clients are told to come back,
// reconnect by themselves with their tokens to the new process, find the
// same revision, and play on.
func TestGracefulRestartResumes(t *testing.T) {
	t.Parallel()
	addr, data := freeAddr(t), t.TempDir()
	p := startRoomd(t, addr, "--data", data, "--ai-delay", "50ms")
	ms := startFlaggers(t, p.URL, 1)[0]
	for range 5 {
		id := ms.send(protocol.Action{Type: protocol.TypeCommand, Command: flagCmd(ms.next)})
		ms.next++
		if ok, code, _ := ms.waitReceipt(id, 5*time.Second); !ok {
			t.Fatalf("flag: %s", code)
		}
	}
	// Hidden Nim, one person against the AI.
	resp, err := http.Post(p.URL+"/api/rooms", "application/json", strings.NewReader(`{"game":"nim","name":"Ann","settings":{"pile":40}}`))
	if err != nil {
		t.Fatal(err)
	}
	var created struct{ Room, Token string }
	json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	nb := dialGame(t, p.URL, created.Room, created.Token, protocol.GamePin{ID: "nim", RulesVersion: "nim/1"})
	nb.until("online", 10*time.Second, func() bool { return nb.snapshot != nil })
	for _, op := range []string{protocol.ControlFillWithAI, protocol.ControlStart} {
		id := nb.send(protocol.Action{Type: protocol.TypeControl, Control: &protocol.Control{Op: op}})
		if ok, code, _ := nb.waitReceipt(id, 5*time.Second); !ok {
			t.Fatalf("%s: %s", op, code)
		}
	}
	id := nb.send(protocol.Action{Type: protocol.TypeCommand, Command: json.RawMessage(`{"type":"take","n":1}`)})
	if ok, code, _ := nb.waitReceipt(id, 5*time.Second); !ok {
		t.Fatalf("take: %s", code)
	}
	// Wait for the AI's answer so both games are mid-way and quiet.
	nb.until("the AI's move", 5*time.Second, func() bool { _, rev := nb.tr.Position(); return rev >= 4 })
	_, msRev := ms.tr.Position()
	_, nimRev := nb.tr.Position()

	p.term()
	for _, b := range []*bot{ms.bot, nb} {
		b.until("a 4000 close", 10*time.Second, func() bool {
			for _, c := range b.closes {
				if c == protocol.CloseRestarting {
					return true
				}
			}
			return false
		})
	}
	p2 := startRoomd(t, addr, "--data", data, "--ai-delay", "50ms")
	for _, tc := range []struct {
		b   *bot
		rev uint64
		cmd string
	}{{ms.bot, msRev, string(flagCmd(ms.next))}, {nb, nimRev, `{"type":"take","n":1}`}} {
		b := tc.b
		b.until("back online", 15*time.Second, func() bool { return b.tr.State() == "online" && b.snapshot != nil && b.snapshot.Rev >= tc.rev })
		// A match whose clock runs (Minesweeper's, after its first reveal)
		// comes back one revision on: the restart's downtime credited to it
		// (kindResume); any other room at the revision the client had.
		want := tc.rev
		if b.snapshot.Room.Clocks.Running {
			want++
		}
		if b.snapshot.Rev != want {
			t.Fatalf("room %s came back at rev %d (clocks %+v), the client had %d", b.room, b.snapshot.Rev, b.snapshot.Room.Clocks, tc.rev)
		}
		id := b.send(protocol.Action{Type: protocol.TypeCommand, Command: json.RawMessage(tc.cmd)})
		if ok, code, _ := b.waitReceipt(id, 5*time.Second); !ok || b.acked[id] != want+1 {
			t.Fatalf("room %s: move after the restart: ok=%v %s rev %d", b.room, ok, code, b.acked[id])
		}
	}
	p2.term()
}

// TestRedisOutageAndEmptyRestart runs roomd on a real redis-server: stopped
// for a few seconds mid-play, commands get the temporary notice, /readyz
// says degraded, and play resumes when Redis is back with nothing
// acknowledged lost. Then Redis restarts empty: clients get a new epoch and
// a snapshot, not a silent rewind.
func TestRedisOutageAndEmptyRestart(t *testing.T) {
	t.Parallel()
	rs := testredis.Start(t, testredis.Args("--appendfsync", "always"))
	addr := freeAddr(t)
	p := startRoomd(t, addr, "--redis", rs.URL())
	fs := startFlaggers(t, p.URL, 3)
	f := fs[0]
	send := func() (bool, string) {
		id := f.send(protocol.Action{Type: protocol.TypeCommand, Command: flagCmd(f.next)})
		if id == "" {
			return false, "offline"
		}
		f.mu.Lock()
		f.sent[id] = flagCmd(f.next)
		f.mu.Unlock()
		ok, code, _ := f.waitReceipt(id, 5*time.Second)
		if ok {
			f.next++
		}
		return ok, code
	}
	for range 5 {
		if ok, code := send(); !ok {
			t.Fatalf("before the outage: %s", code)
		}
	}
	rs.Stop()
	ok, code := send()
	if ok || code != protocol.CodeStorageUnavailable {
		t.Fatalf("during the outage: ok=%v code %q, want %s", ok, code, protocol.CodeStorageUnavailable)
	}
	if resp, err := http.Get(p.URL + "/readyz"); err != nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("/readyz during the outage: %v %v", resp.StatusCode, err)
	}
	time.Sleep(3 * time.Second) // several seconds of outage in all
	rs.Start()
	resumed := false
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if ok, _ := send(); ok {
			resumed = true
			break
		}
	}
	if !resumed {
		t.Fatal("play did not resume after Redis came back")
	}
	if resp, err := http.Get(p.URL + "/readyz"); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/readyz after the outage: %v %v", resp.StatusCode, err)
	}
	// Everything acknowledged is on the board, and the outage's refused
	// flag was not applied behind the client's back.
	b := f.bot
	b.mu.Lock()
	prev := b.snapshot
	b.mu.Unlock()
	rid := b.send(protocol.Action{Type: protocol.TypeResync})
	if ok, code, _ := b.waitReceipt(rid, 5*time.Second); !ok {
		t.Fatalf("resync: %q", code)
	}
	// The snapshot follows its receipt.
	var snap *protocol.Snapshot
	b.until("resync snapshot", 5*time.Second, func() bool { snap = b.snapshot; return snap != prev })
	have := flaggedCells(t, snap)
	for cmd := range f.ackedFlags() {
		if !have[cmd] {
			t.Errorf("acknowledged %s lost in the outage", cmd)
		}
	}
	if len(have) != len(f.ackedFlags()) {
		t.Errorf("%d flags on the board, %d acknowledged", len(have), len(f.ackedFlags()))
	}

	// Redis comes back empty: the room stores itself again under a new epoch.
	epoch := snap.Epoch
	rs.RestartEmpty()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no new epoch after Redis restarted empty")
		}
		send()
		b.mu.Lock()
		snap = b.snapshot
		b.mu.Unlock()
		if snap.Epoch != epoch {
			break
		}
	}
	if snap.Rev == 0 {
		t.Fatal("the new epoch rewound the room to nothing")
	}
	// A client of another room that reconnects now gets its room's new
	// epoch once that room has noticed (on its next write).
	other := fs[1]
	oldEpoch := other.snapshot.Epoch
	other.tr.Drop()
	other.until("back online", 20*time.Second, func() bool { return other.tr.State() == "online" })
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the other room never moved to a new epoch")
		}
		other.send(protocol.Action{Type: protocol.TypeCommand, Command: flagCmd(other.next)})
		other.mu.Lock()
		changed := other.snapshot.Epoch != oldEpoch
		other.mu.Unlock()
		if changed {
			break
		}
	}
	p.term()
}

// TestIdleRoomsSurviveEmptyRedis: Redis restarts empty while rooms sit idle
// in memory (the old roomd never stored them again: its shutdown snapshot got
// "not found", was logged, and the rooms were gone after the next start).
// The shutdown's final write now finds the loss and stores each room again,
// so after a roomd restart every room is back, under a new epoch, with every
// acknowledged move.
func TestIdleRoomsSurviveEmptyRedis(t *testing.T) {
	t.Parallel()
	rs := testredis.Start(t, testredis.Args("--appendfsync", "always"))
	addr := freeAddr(t)
	p := startRoomd(t, addr, "--redis", rs.URL())
	fs := startFlaggers(t, p.URL, 6)
	for _, f := range fs {
		for range 12 {
			id := f.send(protocol.Action{Type: protocol.TypeCommand, Command: flagCmd(f.next)})
			f.mu.Lock()
			f.sent[id] = flagCmd(f.next)
			f.mu.Unlock()
			if ok, code, _ := f.waitReceipt(id, 5*time.Second); !ok {
				t.Fatalf("flag: %s", code)
			}
			f.next++
		}
	}
	epochs := map[*flagger]string{}
	for _, f := range fs {
		f.mu.Lock()
		epochs[f] = f.snapshot.Epoch
		f.mu.Unlock()
	}
	rs.RestartEmpty() // the rooms are idle: nothing notices yet
	p.term()
	p2 := startRoomd(t, addr, "--redis", rs.URL())
	defer p2.term()
	for i, f := range fs {
		f.until("a new epoch", 20*time.Second, func() bool {
			return f.snapshot != nil && f.snapshot.Epoch != epochs[f] && f.tr.State() == "online"
		})
		f.mu.Lock()
		snap := f.snapshot
		f.mu.Unlock()
		have := flaggedCells(t, snap)
		for cmd := range f.ackedFlags() {
			if !have[cmd] {
				t.Errorf("room %d: acknowledged %s lost", i, cmd)
			}
		}
		if len(have) != 12 {
			t.Errorf("room %d: %d flags after the restart, 12 acknowledged", i, len(have))
		}
	}
	t.Logf("%d idle rooms, Redis restarted empty, roomd restarted: all back under new epochs", len(fs))
}
