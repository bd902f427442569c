//go:build linux

package transport

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/gobwas/ws"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/transport/client"
)

// polled counts the server's sockets a poller holds, and all of them.
func (s *testServer) polled() (held, all int) {
	s.front.mu.Lock()
	defer s.front.mu.Unlock()
	for c := range s.front.conns {
		if c.ep.Load() != nil {
			held++
		}
	}
	return held, len(s.front.conns)
}

// TestPollerHoldsSockets: once their hello put them in a room, sockets have
// no goroutines of their own — a poller holds them — and they play on;
// with SocketGoroutines each keeps its reader and writer.
func TestPollerHoldsSockets(t *testing.T) {
	for _, goroutines := range []bool{false, true} {
		t.Run(fmt.Sprintf("SocketGoroutines=%v", goroutines), func(t *testing.T) {
			s := startServer(t, func(_ *room.Config, c *Config) { c.SocketGoroutines = goroutines })
			created := s.create("minesweeper", `{"mode":"coop","level":"beginner"}`, "Ann")
			p := s.dial("ann", client.Config{Room: created.Room, Token: created.Token, Game: msPin})
			p.waitOnline()
			before := runtime.NumGoroutine()
			const n = 40
			var specs []*tclient
			for range n {
				c := s.dial("spec", client.Config{Room: created.Room, Watch: true, Game: msPin})
				c.waitOnline()
				specs = append(specs, c)
			}
			// Each test client has goroutines of its own (about 2).
			if !goroutines {
				waitFor(t, "every socket polled", func() bool { held, all := s.polled(); return held == all })
			}
			perClient := float64(runtime.NumGoroutine()-before) / n
			t.Logf("%.1f goroutines per socket, client's and server's", perClient)
			held, all := s.polled()
			if goroutines {
				if held != 0 || perClient < 3.5 {
					t.Fatalf("%d of %d sockets polled, %.1f goroutines per socket: want none polled, a reader and a writer each", held, all, perClient)
				}
			} else if held != all || perClient > 3 {
				t.Fatalf("%d of %d sockets polled, %.1f goroutines per socket (client's and server's): want every socket polled", held, all, perClient)
			}
			p.control(protocol.Control{Op: protocol.ControlStart})
			rc := p.command(`{"type":"flag","r":0,"c":0}`)
			if !rc.OK {
				t.Fatalf("move: %+v", rc)
			}
			for _, c := range specs {
				c.waitFor("the move", func(evs []client.Event) bool {
					for _, e := range evs {
						if e.Update != nil && e.Update.To >= rc.Rev {
							return true
						}
					}
					return false
				})
			}
		})
	}
}

func peerHello(t *testing.T, code string) []byte {
	b, err := protocol.Encode(protocol.Hello{Type: protocol.TypeHello, Room: code, Watch: true, Game: msPin})
	if err != nil {
		t.Fatal(err)
	}
	return text(string(b))
}

// TestPollerFrames: a polled socket reads what a client may send — a
// message sent in the hello's packet, fragments with control frames
// between them, a message a byte at a time — answers pings with pongs of
// the same payload, and echoes the client's close.
func TestPollerFrames(t *testing.T) {
	s := startServer(t)
	created := s.create("minesweeper", `{"mode":"coop","level":"beginner"}`, "Ann")
	// The hello and a ping message in the upgrade's packet: the ping is
	// read past the hello by coder/websocket and carried to the poller.
	p := s.dialPeer(t, append(peerHello(t, created.Room), text(`{"type":"ping","t":7}`)...))
	// The pong may come before the room's welcome and snapshot: the hello
	// goes to the room's actor, the ping is answered where it is read.
	p.expectAll(protocol.TypeSnapshot, "", protocol.TypePong, `"t":7`)
	if held, all := s.polled(); held != all || all != 1 {
		t.Fatalf("%d of %d sockets polled", held, all)
	}

	msg := []byte(`{"type":"ping","t":8}`)
	p.write(maskedFrame(ws.OpText, false, msg[:5], peerKey, false),
		maskedFrame(ws.OpPing, true, []byte("are you there"), peerKey, false),
		maskedFrame(ws.OpContinuation, false, msg[5:12], [4]byte{1, 2, 3, 4}, true),
		maskedFrame(ws.OpPong, true, nil, peerKey, false),
		maskedFrame(ws.OpContinuation, true, msg[12:], peerKey, false))
	controls := p.expect(protocol.TypePong, `"t":8`)
	if len(controls) != 1 || !bytes.Equal(controls[0], append([]byte{0x80 | byte(ws.OpPong)}, "are you there"...)) {
		t.Fatalf("control frames before the pong message: %q, want one pong with the ping's payload", controls)
	}

	for _, c := range text(`{"type":"ping","t":9}`) {
		p.write([]byte{c})
		time.Sleep(time.Millisecond)
	}
	p.expect(protocol.TypePong, `"t":9`)

	p.write(maskedFrame(ws.OpBinary, true, []byte{1, 2, 3}, peerKey, false))
	p.expect(protocol.TypeNotice, protocol.CodeInvalidMessage)

	p.write(maskedFrame(ws.OpClose, true, []byte{0x0f, 0xa0, 'b', 'y', 'e'}, peerKey, false)) // 4000
	if code := p.expectClose(false); code != 4000 {
		t.Fatalf("the client's close echoed with %d, want 4000", code)
	}
	waitFor(t, "the socket to be released", func() bool { _, all := s.polled(); return all == 0 })
}

// TestPollerRefusals: frames the protocol forbids close a polled socket
// with the code coder/websocket would send, and the room carries on.
func TestPollerRefusals(t *testing.T) {
	s := startServer(t)
	created := s.create("minesweeper", `{"mode":"coop","level":"beginner"}`, "Ann")
	for _, tc := range []struct {
		name  string
		frame []byte
		code  int
	}{
		{"unmasked", []byte{0x81, 2, '{', '}'}, closeProtocolError},
		{"continuation first", maskedFrame(ws.OpContinuation, true, []byte("{}"), peerKey, false), closeProtocolError},
		{"too long", maskedFrame(ws.OpText, true, bytes.Repeat([]byte("x"), 17<<10), peerKey, false), closeTooBig},
		{"a close code nobody may send", maskedFrame(ws.OpClose, true, []byte{0x03, 0xed}, peerKey, false), closeProtocolError}, // 1005
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := s.dialPeer(t, peerHello(t, created.Room))
			p.expect(protocol.TypeSnapshot, "")
			waitFor(t, "the socket to be polled", func() bool { held, all := s.polled(); return held == all && all == 1 })
			p.write(tc.frame)
			if code := p.expectClose(true); code != tc.code {
				t.Fatalf("closed with %d, want %d", code, tc.code)
			}
			waitFor(t, "the socket to be released", func() bool { _, all := s.polled(); return all == 0 })
		})
	}
	ann := s.dial("ann", client.Config{Room: created.Room, Token: created.Token, Game: msPin})
	ann.waitOnline()
	ann.control(protocol.Control{Op: protocol.ControlStart})
	if rc := ann.command(`{"type":"flag","r":0,"c":0}`); !rc.OK {
		t.Fatalf("the room after the refusals: %+v", rc)
	}
}

// TestPollerPings: a polled socket that says nothing is pinged every
// heartbeat and stays while it answers; one that stops answering is
// closed and leaves the room.
func TestPollerPings(t *testing.T) {
	s := startServer(t, func(rc *room.Config, _ *Config) { rc.Heartbeat = 60 * time.Millisecond })
	created := s.create("minesweeper", `{"mode":"coop","level":"beginner"}`, "Ann")
	p := s.dialPeer(t, peerHello(t, created.Room))
	p.expect(protocol.TypeSnapshot, "")
	pings := 0
	deadline := time.Now().Add(600 * time.Millisecond)
	for time.Now().Before(deadline) {
		_ = p.conn.SetReadDeadline(deadline)
		b0, b, err := p.frame()
		if err != nil {
			break
		}
		if b0 == 0x80|byte(ws.OpPing) {
			pings++
			p.write(maskedFrame(ws.OpPong, true, b, peerKey, false))
		}
	}
	_ = p.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	if pings < 3 {
		t.Fatalf("%d pings in 600 ms at a 60 ms heartbeat", pings)
	}
	if _, all := s.polled(); all != 1 {
		t.Fatalf("a socket that answers its pings was closed")
	}
	// Now it answers nothing: closed within a few heartbeats.
	waitFor(t, "the silent socket to be closed", func() bool { _, all := s.polled(); return all == 0 })
}

// TestPollerWriteTimeout: a polled socket whose client stops reading is
// closed once a write has waited WriteTimeout, and the room goes on.
func TestPollerWriteTimeout(t *testing.T) {
	s := startServer(t, func(_ *room.Config, c *Config) {
		c.WriteTimeout = 300 * time.Millisecond
		c.RateLimit, c.RateBurst = 10_000, 10_000
		c.OutboxSize, c.OutboxBytes = 100_000, 1<<30 // the write times out first
	})
	created := s.create("minesweeper", `{"mode":"coop","level":"expert"}`, "Ann")
	p := s.dialPeer(t, peerHello(t, created.Room))
	p.expect(protocol.TypeSnapshot, "")
	waitFor(t, "the socket to be polled", func() bool { held, all := s.polled(); return held == all && all == 1 })
	// Snapshots of an expert board, asked for without reading one.
	var burst []byte
	for i := range 2000 {
		burst = append(burst, text(fmt.Sprintf(`{"type":"resync","id":"r%d","rev":0}`, i))...)
	}
	p.write(burst)
	waitFor(t, "the stalled socket to be closed", func() bool { _, all := s.polled(); return all == 0 })
	ann := s.dial("ann", client.Config{Room: created.Room, Token: created.Token, Game: msPin})
	ann.waitOnline()
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestPollerYieldsInAFanout: a crowded room's fan-out is serviced a batch
// at a time, the loop yielding between batches (so that a move arriving
// meanwhile is read and its room's actor runs before the fan-out ends),
// and every spectator still gets every update once, in order.
func TestPollerYieldsInAFanout(t *testing.T) {
	s := startServer(t)
	for _, p := range s.front.polls {
		p.batch = 2 // set before the first socket starts the loops
	}
	created := s.create("minesweeper", `{"mode":"coop","level":"beginner"}`, "Ann")
	p := s.dial("ann", client.Config{Room: created.Room, Token: created.Token, Game: msPin})
	p.waitOnline()
	const n = 40 // a crowded room: more than 32 members
	var specs []*tclient
	for range n {
		c := s.dial("spec", client.Config{Room: created.Room, Watch: true, Game: msPin})
		c.waitOnline()
		specs = append(specs, c)
	}
	waitFor(t, "every socket polled", func() bool { held, all := s.polled(); return held == all })
	yields := func() (sum int64) {
		for _, p := range s.front.polls {
			sum += p.yields.Load()
		}
		return sum
	}
	before := yields()
	p.control(protocol.Control{Op: protocol.ControlStart})
	var last uint64
	for i := range 6 {
		rc := p.command(fmt.Sprintf(`{"type":"flag","r":%d,"c":0}`, i))
		if !rc.OK {
			t.Fatalf("move %d: %+v", i, rc)
		}
		last = rc.Rev
	}
	for _, c := range specs {
		c.waitFor("the last move", func(evs []client.Event) bool {
			for _, e := range evs {
				if e.Update != nil && e.Update.To >= last {
					return true
				}
			}
			return false
		})
		c.checkContinuity()
	}
	if got := yields() - before; got == 0 {
		t.Fatalf("the pollers never yielded in 7 fan-outs to %d spectators, two sockets a batch", n)
	}
}

// TestPollerKickListStaysBounded: kicks that keep arriving while earlier
// ones are serviced a batch at a time do not grow the loop's list past
// what waits (the serviced head is dropped as it goes).
func TestPollerKickListStaysBounded(t *testing.T) {
	p := &poller{conns: map[int32]*conn{}, batch: 8}
	socks := make([]*conn, 10)
	for i := range socks {
		socks[i] = &conn{}
	}
	for range 1000 {
		p.mu.Lock()
		p.kicks = append(p.kicks, socks...)
		p.mu.Unlock()
		p.takeRequests()
		p.head = min(p.head+p.batch, len(p.todo)) // what serviceSome does, without the sockets
		if waiting := len(p.todo) - p.head; waiting > 0 {
			continue
		}
		p.todo, p.head = p.todo[:0], 0
	}
	if waiting := len(p.todo) - p.head; len(p.todo) > 2*waiting+len(socks) {
		t.Fatalf("after 1,000 rounds the list holds %d entries for %d waiting", len(p.todo), waiting)
	}
}
