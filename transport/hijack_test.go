package transport

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

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
	addr := strings.TrimPrefix(s.URL, "http://")
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))

	var pkt bytes.Buffer
	pkt.WriteString("GET " + protocol.SocketPath + " HTTP/1.1\r\nHost: " + addr + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
	pkt.Write(clientFrame(hello))
	if _, err := conn.Write(pkt.Bytes()); err != nil {
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
	var got []string
	for len(got) < 2 {
		msg := serverFrame(t, br)
		parts, err := protocol.SplitServerFrame(msg)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range parts {
			m, err := protocol.DecodeServer(p)
			if err != nil {
				t.Fatalf("%v: %s", err, p)
			}
			got = append(got, m.Type)
		}
	}
	if got[0] != protocol.TypeWelcome || got[1] != protocol.TypeSnapshot {
		t.Fatalf("after a hello sent with the upgrade: %v, want welcome then snapshot", got)
	}
}

// clientFrame is one masked text frame (RFC 6455 §5.2).
func clientFrame(payload []byte) []byte {
	f := []byte{0x81}
	switch n := len(payload); {
	case n < 126:
		f = append(f, 0x80|byte(n))
	default:
		f = append(f, 0x80|126)
		f = binary.BigEndian.AppendUint16(f, uint16(n))
	}
	mask := [4]byte{1, 2, 3, 4}
	f = append(f, mask[:]...)
	for i, b := range payload {
		f = append(f, b^mask[i%4])
	}
	return f
}

// serverFrame reads one unfragmented, unmasked server frame's payload.
func serverFrame(t *testing.T, r *bufio.Reader) []byte {
	t.Helper()
	var h [2]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		t.Fatal(err)
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			t.Fatal(err)
		}
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			t.Fatal(err)
		}
		n = binary.BigEndian.Uint64(b[:])
	}
	if h[0] != 0x81 || h[1]&0x80 != 0 || n > 1<<20 {
		t.Fatalf("not a final unmasked text frame: %x, %d bytes", h, n)
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(r, p); err != nil {
		t.Fatal(err)
	}
	return p
}
