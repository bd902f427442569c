package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/transport/client"
)

// rawConn is a bare WebSocket to a test server, for sending what no real
// client sends.
type rawConn struct {
	t      *testing.T
	ws     *websocket.Conn
	frames chan []byte
	closed chan int // the close code, once
}

func (s *testServer) raw(t *testing.T, opts *websocket.DialOptions) *rawConn {
	t.Helper()
	u, _ := client.SocketURL(s.URL)
	ws, _, err := websocket.Dial(context.Background(), u, opts)
	if err != nil {
		t.Fatal(err)
	}
	ws.SetReadLimit(1 << 20)
	rc := &rawConn{t: t, ws: ws, frames: make(chan []byte, 1024), closed: make(chan int, 1)}
	go func() {
		for {
			_, data, err := ws.Read(context.Background())
			if err != nil {
				rc.closed <- int(websocket.CloseStatus(err))
				close(rc.frames)
				return
			}
			msgs, err := protocol.SplitServerFrame(data)
			if err != nil {
				t.Errorf("undecodable frame %s", data)
				continue
			}
			for _, m := range msgs {
				rc.frames <- m
			}
		}
	}()
	t.Cleanup(func() { ws.CloseNow() })
	return rc
}

func (rc *rawConn) send(s string) {
	rc.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := rc.ws.Write(ctx, websocket.MessageText, []byte(s)); err != nil {
		rc.t.Fatalf("write: %v", err)
	}
}

// expect reads frames until one satisfies ok.
func (rc *rawConn) expect(what string, ok func(m protocol.ServerMessage) bool) protocol.ServerMessage {
	rc.t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case f, open := <-rc.frames:
			if !open {
				rc.t.Fatalf("connection closed while waiting for %s", what)
			}
			m, err := protocol.DecodeServer(f)
			if err != nil {
				rc.t.Fatalf("undecodable frame %s", f)
			}
			if ok(m) {
				return m
			}
		case <-timeout:
			rc.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func (rc *rawConn) expectNotice(code string) {
	rc.t.Helper()
	rc.expect("notice "+code, func(m protocol.ServerMessage) bool { return m.Notice != nil && m.Notice.Code == code })
}

func (rc *rawConn) expectReceipt(id, code string) {
	rc.t.Helper()
	m := rc.expect("receipt "+id, func(m protocol.ServerMessage) bool { return m.Receipt != nil && m.Receipt.ID == id })
	if m.Receipt.OK || m.Receipt.Notice == nil || m.Receipt.Notice.Code != code {
		rc.t.Fatalf("receipt %s = %+v, want notice %s", id, m.Receipt, code)
	}
}

func (rc *rawConn) expectClose(code int) {
	rc.t.Helper()
	for {
		select {
		case _, open := <-rc.frames:
			if open {
				continue
			}
			if got := <-rc.closed; got != code {
				rc.t.Fatalf("closed with %d, want %d", got, code)
			}
			return
		case <-time.After(5 * time.Second):
			rc.t.Fatalf("not closed (want %d)", code)
		}
	}
}

// TestBadInput sends every kind of bad input to a running room. Each gets a
// clear notice or a documented close, and the room, the other player and the
// state are unaffected.
func TestBadInput(t *testing.T) {
	s := startServer(t)
	host, guest, code := nimPair(t, s)
	_, rev := host.tr.Position()
	hello := func(rc *rawConn, token string, watch bool) {
		b, _ := json.Marshal(protocol.Hello{Type: protocol.TypeHello, Room: code, Token: token, Watch: watch, Game: nimPin})
		rc.send(string(b))
		rc.expect("snapshot", func(m protocol.ServerMessage) bool { return m.Snapshot != nil })
	}

	t.Run("malformed JSON", func(t *testing.T) {
		rc := s.raw(t, nil)
		hello(rc, "", true)
		rc.send(`{"type":"command",`)
		rc.expectNotice(protocol.CodeInvalidMessage)
		rc.send(`[1,2,3]`)
		rc.expectNotice(protocol.CodeInvalidMessage)
	})
	t.Run("action before hello", func(t *testing.T) {
		rc := s.raw(t, nil)
		rc.send(`{"type":"resync","id":"x","rev":0}`)
		rc.expectNotice(protocol.CodeHelloFirst)
	})
	t.Run("unknown message type", func(t *testing.T) {
		rc := s.raw(t, nil)
		hello(rc, "", true)
		rc.send(`{"type":"dance","id":"x"}`)
		rc.expectNotice(protocol.CodeUnknownType)
	})
	t.Run("oversized frame", func(t *testing.T) {
		rc := s.raw(t, nil)
		hello(rc, "", true)
		rc.send(`{"type":"ping","t":1,"pad":"` + strings.Repeat("x", 20<<10) + `"}`)
		rc.expectClose(protocol.CloseTooBig)
	})
	t.Run("command from a spectator", func(t *testing.T) {
		rc := s.raw(t, nil)
		hello(rc, "", true)
		rc.send(fmt.Sprintf(`{"type":"command","id":"spec","rev":%d,"command":{"type":"take","n":1}}`, rev))
		rc.expectReceipt("spec", protocol.CodeWrongSeat)
	})
	t.Run("command out of turn", func(t *testing.T) {
		rc := s.raw(t, nil)
		hello(rc, guest.tr.Token(), false) // replaces the guest's transport
		guest.closedWith(protocol.CloseReplaced)
		rc.send(fmt.Sprintf(`{"type":"command","id":"early","rev":%d,"command":{"type":"take","n":1}}`, rev))
		rc.expectReceipt("early", "game:NotYourTurn")
	})
	t.Run("invalid commands", func(t *testing.T) {
		rc := s.raw(t, nil)
		hello(rc, host.tr.Token(), false)
		host.closedWith(protocol.CloseReplaced)
		rc.send(fmt.Sprintf(`{"type":"command","id":"big","rev":%d,"command":{"type":"take","n":7}}`, rev))
		rc.expectReceipt("big", "game:InvalidMove")
		rc.send(fmt.Sprintf(`{"type":"command","id":"str","rev":%d,"command":"take two"}`, rev))
		rc.expectReceipt("str", protocol.CodeInvalidCommand)
		rc.send(fmt.Sprintf(`{"type":"control","id":"ctl","rev":%d,"control":{"op":"explode"}}`, rev))
		rc.expectReceipt("ctl", protocol.CodeInvalidControl)
		// The state did not move: a valid move now is the next revision.
		rc.send(fmt.Sprintf(`{"type":"command","id":"ok","rev":%d,"command":{"type":"take","n":1}}`, rev))
		m := rc.expect("ok receipt", func(m protocol.ServerMessage) bool { return m.Receipt != nil && m.Receipt.ID == "ok" })
		if !m.Receipt.OK || m.Receipt.Rev != rev+1 {
			t.Fatalf("valid move after bad ones: %+v, want ok at %d", m.Receipt, rev+1)
		}
		rev++
	})
	t.Run("flood", func(t *testing.T) {
		rc := s.raw(t, nil)
		hello(rc, "", true)
		limited := false
		for i := 0; i < 400; i++ {
			if err := rc.ws.Write(context.Background(), websocket.MessageText,
				[]byte(fmt.Sprintf(`{"type":"command","id":"f%d","rev":%d,"command":{"type":"take","n":1}}`, i, rev))); err != nil {
				break // closed under us: that is the point
			}
		}
		for f := range rc.frames {
			if m, _ := protocol.DecodeServer(f); m.Receipt != nil && m.Receipt.Notice != nil && m.Receipt.Notice.Code == protocol.CodeRateLimited {
				limited = true
			}
		}
		if got := <-rc.closed; got != protocol.CloseRateLimited || !limited {
			t.Fatalf("flood: closed %d, rate-limited notices seen %v", got, limited)
		}
	})
	// After all of it, a fresh player connection plays on in the same room.
	again := s.dial("guest-again", client.Config{Room: code, Token: guest.tr.Token(), Game: nimPin})
	again.waitOnline()
	if rc := again.command(`{"type":"take","n":2}`); !rc.OK || rc.Rev != rev+1 {
		t.Fatalf("move after the bad input: %+v, want ok at %d", rc, rev+1)
	}
}

// spectators is the spectator count of c's room's last presence.
func spectators(c *msPlayer) int {
	evs := c.snapshotEvents()
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Presence != nil {
			return evs[i].Presence.Spectators
		}
	}
	return -1
}
