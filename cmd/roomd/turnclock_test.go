package main

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/roomd/roomd/protocol"
)

var nimPin = protocol.GamePin{ID: "nim", RulesVersion: "nim/1"}

// clockedNim opens a two-seat Hidden Nim room with a 3 s limit per move on
// the server at base and starts its match: Ann (seat 0, to move) and Bob.
func clockedNim(t *testing.T, base string) (ann, bob *bot, started time.Time) {
	t.Helper()
	room, annToken := createGame(t, base, "nim", "Ann", `{"clock":{"moveMs":3000}}`)
	resp, err := http.Post(base+"/api/rooms/"+room+"/join", "application/json", strings.NewReader(`{"name":"Bob"}`))
	if err != nil {
		t.Fatal(err)
	}
	var joined struct{ Token string }
	if err := json.NewDecoder(resp.Body).Decode(&joined); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("join: %d %v", resp.StatusCode, err)
	}
	resp.Body.Close()
	ann, bob = dialGame(t, base, room, annToken, nimPin), dialGame(t, base, room, joined.Token, nimPin)
	for _, b := range []*bot{ann, bob} {
		b.until("online", 10*time.Second, func() bool { return b.snapshot != nil })
	}
	ready := bob.send(protocol.Action{Type: protocol.TypeControl, Control: &protocol.Control{Op: protocol.ControlReady, Ready: true}})
	if ok, code, _ := bob.waitReceipt(ready, 5*time.Second); !ok {
		t.Fatalf("ready: %s", code)
	}
	bob.mu.Lock()
	readyRev := bob.acked[ready]
	bob.mu.Unlock()
	ann.until("Bob ready", 5*time.Second, func() bool { _, rev := ann.tr.Position(); return rev >= readyRev })
	started = time.Now()
	if ok, code, _ := ann.waitReceipt(ann.send(protocol.Action{Type: protocol.TypeControl,
		Control: &protocol.Control{Op: protocol.ControlStart}}), 5*time.Second); !ok {
		t.Fatalf("start: %s", code)
	}
	return ann, bob, started
}

// deadline is the turn clock's deadline the bot was last shown.
func (b *bot) deadline() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.update != nil && b.update.TurnClock != nil && (b.snapshot == nil || b.update.To > b.snapshot.Rev) {
		return b.update.TurnClock.Deadline
	}
	if b.snapshot != nil && b.snapshot.Room.TurnClock != nil {
		return b.snapshot.Room.TurnClock.Deadline
	}
	return 0
}

// timedOut waits for the result and checks it is seat 0's timeout, seat 1
// winning; it returns when the result arrived.
func (b *bot) timedOut(t *testing.T, within time.Duration) time.Time {
	t.Helper()
	var res *protocol.Result
	b.until("the match's result", within, func() bool {
		if b.update != nil && b.update.Result != nil {
			res = b.update.Result
		}
		return res != nil
	})
	at := time.Now()
	if res.Status != "timeout" || !slices.Equal(res.Winners, []int{1}) || !slices.Equal(res.TimedOut, []int{0}) {
		t.Fatalf("result %+v: want status timeout, seat 1 winning, seat 0 timed out", res)
	}
	return at
}

// TestTurnClockTimeoutOverSockets: the real binary, real sockets. A two-seat
// Hidden Nim room with a 3 s limit per move where nobody moves ends on
// time, the other seat winning, within 1 s of the deadline; and the same
// across a kill -9 during the countdown, the deadline moved by the
// downtime the restart credits (the time played stays 3 s, within the
// heartbeat's second).
func TestTurnClockTimeoutOverSockets(t *testing.T) {
	t.Parallel()
	t.Run("idle", func(t *testing.T) {
		t.Parallel()
		p := startRoomd(t, freeAddr(t), "--data", t.TempDir())
		ann, bob, started := clockedNim(t, p.URL)
		deadline := time.UnixMilli(ann.deadline())
		if d := deadline.Sub(started); d < 3*time.Second-5*time.Millisecond || d > 4*time.Second {
			t.Fatalf("deadline %v after the start, want 3 s", d)
		}
		for _, b := range []*bot{ann, bob} {
			at := b.timedOut(t, 10*time.Second)
			if late := at.Sub(deadline); late < -5*time.Millisecond || late > time.Second {
				t.Fatalf("the timeout arrived %v after the deadline, want within 1 s", late)
			}
		}
		p.term()
	})
	t.Run("kill9", func(t *testing.T) {
		t.Parallel()
		addr, data := freeAddr(t), t.TempDir()
		p := startRoomd(t, addr, "--data", data)
		ann, _, started := clockedNim(t, p.URL)
		before := ann.deadline()
		time.Sleep(1500 * time.Millisecond) // halfway through the countdown
		p.kill9()
		killed := time.Now()
		time.Sleep(2 * time.Second)
		restarted := time.Now()
		p2 := startRoomd(t, addr, "--data", data)
		ann.until("the room back with its clock", 15*time.Second, func() bool {
			return ann.tr.State() == "online" && ann.snapshot != nil && ann.snapshot.Room.TurnClock != nil &&
				ann.snapshot.Room.TurnClock.Deadline != before
		})
		back := time.Now()
		after := ann.deadline()
		credited := time.Duration(after-before) * time.Millisecond
		// The credit is the downtime to the last heartbeat: at least the
		// time no process ran, at most until the room came back plus the
		// heartbeat's second.
		if low, high := restarted.Sub(killed), back.Sub(killed)+time.Second; credited < low || credited > high {
			t.Fatalf("credited %v of downtime; want %v to %v", credited, low, high)
		}
		at := ann.timedOut(t, 15*time.Second)
		if late := at.Sub(time.UnixMilli(after)); late < -5*time.Millisecond || late > time.Second {
			t.Fatalf("the timeout arrived %v after the credited deadline, want within 1 s", late)
		}
		if played := at.Sub(started) - back.Sub(killed); played < 2*time.Second || played > 4500*time.Millisecond {
			t.Fatalf("time played %v, want the 3 s limit within the heartbeat's second", played)
		}
		p2.term()
	})
}

// TestMatchTimeAcrossKill9: the match clock of a running Minesweeper match
// across a kill -9 of the real binary is the time played, within the
// heartbeat's second: the downtime is credited, not charged. Solo, and
// co-op with two seats that both come back (issue 43 saw a co-op timer
// charged the outage in the browser).
func TestMatchTimeAcrossKill9(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"solo", "coop"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			addr, data := freeAddr(t), t.TempDir()
			p := startRoomd(t, addr, "--data", data)
			room, token := createRoom(t, p.URL, `{"mode":"`+mode+`","level":"beginner"}`)
			bots := []*bot{dialBot(t, p.URL, room, token)}
			if mode == "coop" {
				guest := dialBot(t, p.URL, room, joinRoom(t, p.URL, room, "Bob"))
				guest.until("online", 10*time.Second, func() bool { return guest.snapshot != nil })
				if ok, code, _ := guest.waitReceipt(guest.send(protocol.Action{Type: protocol.TypeControl, Control: &protocol.Control{Op: protocol.ControlReady, Ready: true}}), 5*time.Second); !ok {
					t.Fatalf("ready: %s", code)
				}
				bots = append(bots, guest)
			}
			b := bots[0]
			b.until("online", 10*time.Second, func() bool { return b.snapshot != nil })
			if mode == "coop" {
				// The host starts at the revision of the guest's ready.
				g := bots[1]
				g.mu.Lock()
				var ready uint64
				for _, rev := range g.acked {
					ready = max(ready, rev)
				}
				g.mu.Unlock()
				b.until("the guest's ready", 10*time.Second, func() bool {
					return b.update != nil && b.update.To >= ready || b.snapshot.Rev >= ready
				})
			}
			if ok, code, _ := b.waitReceipt(b.send(protocol.Action{Type: protocol.TypeControl, Control: &protocol.Control{Op: protocol.ControlStart}}), 5*time.Second); !ok {
				t.Fatalf("start: %s", code)
			}
			began := time.Now()
			if ok, code, _ := b.waitReceipt(b.send(protocol.Action{Type: protocol.TypeCommand, Command: json.RawMessage(`{"type":"reveal","r":4,"c":4}`)}), 5*time.Second); !ok {
				t.Fatalf("reveal: %s", code)
			}
			time.Sleep(1500 * time.Millisecond)
			p.kill9()
			played := time.Since(began)
			time.Sleep(3 * time.Second)
			restarted := time.Now()
			p2 := startRoomd(t, addr, "--data", data)
			for i, b := range bots {
				var clocks protocol.Clocks
				b.until("back with the match running", 15*time.Second, func() bool {
					if b.tr.State() != "online" || b.snapshot == nil || !b.snapshot.Room.Clocks.Running || b.snapshot.Room.Clocks.Now < restarted.UnixMilli() {
						return false
					}
					clocks = b.snapshot.Room.Clocks
					return true
				})
				// The match time as of this snapshot's server time.
				since := time.UnixMilli(clocks.Now).Sub(restarted)
				elapsed := time.Duration(clocks.ElapsedMs) * time.Millisecond
				if low, high := played-time.Second-200*time.Millisecond, played+since; elapsed < low || elapsed > high {
					t.Fatalf("seat %d: after a kill -9 the match clock reads %v; the match was played %v before it (want %v to %v: the 3 s of downtime left out)",
						i, elapsed, played, low, high)
				}
			}
			p2.term()
		})
	}
}
