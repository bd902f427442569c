package transport

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gobwas/ws"
	"github.com/roomd/roomd/protocol"
)

// A client that sends its hello in the same packet as the upgrade request:
// the HTTP server has read the frame already when the socket is handed
// over with smaller buffers (smallBuffers), and the room still gets it —
// the welcome and the snapshot come back.
func TestHelloInTheUpgradePacket(t *testing.T) {
	s := startServer(t)
	res := s.create("minesweeper", `{"mode":"solo","level":"beginner"}`, "Ann")
	hello, err := protocol.Encode(protocol.Hello{Type: protocol.TypeHello, Room: res.Room, Token: res.Token, Game: msPin})
	if err != nil {
		t.Fatal(err)
	}
	p := s.dialPeer(t, text(string(hello)))
	var got []string
	for len(got) < 2 {
		_, msg, err := p.frame()
		if err != nil {
			t.Fatal(err)
		}
		parts, err := protocol.SplitServerFrame(msg)
		if err != nil {
			t.Fatal(err)
		}
		for _, part := range parts {
			m, err := protocol.DecodeServer(part)
			if err != nil {
				t.Fatalf("%v: %s", err, part)
			}
			got = append(got, m.Type)
		}
	}
	if got[0] != protocol.TypeWelcome || got[1] != protocol.TypeSnapshot {
		t.Fatalf("after a hello sent with the upgrade: %v, want welcome then snapshot", got)
	}
}

// wsPeer is a client on a bare TCP socket, for the frames no WebSocket
// library sends.
type wsPeer struct {
	t       *testing.T
	conn    net.Conn
	br      *bufio.Reader
	pending [][]byte // messages read but not yet looked at
}

// dialPeer upgrades a bare TCP socket and sends first (in the same packet
// as the upgrade request, when given).
func (s *testServer) dialPeer(t *testing.T, first []byte) *wsPeer {
	t.Helper()
	addr := strings.TrimPrefix(s.URL, "http://")
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	req := "GET " + protocol.SocketPath + " HTTP/1.1\r\nHost: " + addr + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
	if _, err := conn.Write(append([]byte(req), first...)); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade answered %s", resp.Status)
	}
	return &wsPeer{t: t, conn: conn, br: br}
}

var peerKey = [4]byte{0x37, 0xfa, 0x21, 0x3d}

func (p *wsPeer) write(frames ...[]byte) {
	p.t.Helper()
	if _, err := p.conn.Write(bytes.Join(frames, nil)); err != nil {
		p.t.Fatal(err)
	}
}

func text(s string) []byte { return maskedFrame(ws.OpText, true, []byte(s), peerKey, false) }

// frame reads one server frame: its first byte (FIN and opcode) and
// payload; io.EOF once the server has closed the socket.
func (p *wsPeer) frame() (byte, []byte, error) {
	var h [2]byte
	if _, err := io.ReadFull(p.br, h[:]); err != nil {
		return 0, nil, err
	}
	if h[1]&0x80 != 0 {
		p.t.Fatalf("a masked server frame: %x", h)
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var b [2]byte
		io.ReadFull(p.br, b[:])
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		io.ReadFull(p.br, b[:])
		n = binary.BigEndian.Uint64(b[:])
	}
	b := make([]byte, n)
	_, err := io.ReadFull(p.br, b)
	return h[0], b, err
}

// expect reads frames until a message of type typ (whose JSON holds
// has), answering nothing, and returns the control frames read before it.
func (p *wsPeer) expect(typ, has string) (controls [][]byte) {
	p.t.Helper()
	return p.expectAll(typ, has)
}

// expectAll reads frames until it has seen, in any order, a message for
// each pair of type and text its JSON holds in want, and returns the
// control frames read meanwhile. Messages of a batch after the last one
// wanted are kept for the next call.
func (p *wsPeer) expectAll(want ...string) (controls [][]byte) {
	p.t.Helper()
	for len(want) > 0 {
		for len(p.pending) > 0 && len(want) > 0 {
			m := p.pending[0]
			p.pending = p.pending[1:]
			sm, err := protocol.DecodeServer(m)
			for i := 0; err == nil && i < len(want); i += 2 {
				if sm.Type == want[i] && bytes.Contains(m, []byte(want[i+1])) {
					want = append(want[:i:i], want[i+2:]...)
					break
				}
			}
		}
		if len(want) == 0 {
			break
		}
		b0, b, err := p.frame()
		if err != nil {
			p.t.Fatalf("waiting for %q: %v", want, err)
		}
		if ws.OpCode(b0&0x0f) >= ws.OpClose {
			controls = append(controls, append([]byte{b0}, b...))
			if ws.OpCode(b0&0x0f) == ws.OpClose {
				p.t.Fatalf("closed (%x) waiting for %q", b, want)
			}
			continue
		}
		msgs, err := protocol.SplitServerFrame(b)
		if err != nil {
			p.t.Fatalf("undecodable %s", b)
		}
		p.pending = append(p.pending, msgs...)
	}
	return controls
}

// expectClose reads until the server's close frame and returns its code;
// when answer, the peer answers with its own close, as a client does, and
// the server then closes the socket.
func (p *wsPeer) expectClose(answer bool) int {
	p.t.Helper()
	for {
		b0, b, err := p.frame()
		if err != nil {
			p.t.Fatalf("waiting for a close frame: %v", err)
		}
		if b0 != 0x80|byte(ws.OpClose) {
			continue
		}
		if answer {
			// The server may have closed already: the answer then gets
			// a reset, which may also be what the next read finds.
			_, _ = p.conn.Write(maskedFrame(ws.OpClose, true, b, peerKey, false))
		}
		if _, _, err := p.frame(); err != io.EOF && !(answer && errors.Is(err, syscall.ECONNRESET)) {
			p.t.Fatalf("after the close frame: %v, want the socket closed", err)
		}
		if len(b) < 2 {
			return closeNoStatus
		}
		return int(binary.BigEndian.Uint16(b))
	}
}
