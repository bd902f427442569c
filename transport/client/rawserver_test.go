package client

import (
	"bufio"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/roomd/roomd/protocol"
)

// rawServer is a WebSocket server written by hand on a loopback port, with
// nothing between the test and the wire: no library answers a ping or a
// close for it. It takes each socket's upgrade and hello, runs the test's
// script on the socket, and reads and records every frame the client
// sends until the client closes the connection or the test ends. It is
// the contract of the client's socket as a server sees it, whatever frame
// codec the client uses.
type rawServer struct {
	t   *testing.T
	URL string
	// script runs on its own goroutine once the hello of socket n (from 0)
	// has been read; the socket is read meanwhile.
	script func(c *rawConn, n int)
	// onFrame, when set, is called with each frame after it was recorded,
	// on the socket's reader: a server that answers pings or closes.
	onFrame func(c *rawConn, f rawFrame)

	mu     sync.Mutex
	conns  []*rawConn
	frames []rawFrame // every frame after the hellos, all sockets, in order
	poke   chan struct{}
}

// rawFrame is one frame a client sent.
type rawFrame struct {
	conn    int // the socket's number, from 0
	op      byte
	payload []byte
	at      time.Time
}

// code is a close frame's status code: 0 for none.
func (f rawFrame) code() int {
	if len(f.payload) < 2 {
		return 0
	}
	return int(binary.BigEndian.Uint16(f.payload))
}

// rawConn is one socket the raw server accepted.
type rawConn struct {
	n     int
	hello protocol.Hello
	conn  net.Conn
	wmu   sync.Mutex
	ended chan struct{} // closed once the client's side ended (EOF, an error)
	endAt time.Time     // when (read after ended)
}

// text writes a text frame, unmasked as a server's are.
func (c *rawConn) text(msg string) { c.frame(0x1, []byte(msg)) }

// close writes a close frame: the payload as given (a code, a reason, or
// nothing at all), checked by nobody.
func (c *rawConn) close(payload []byte) { c.frame(0x8, payload) }

func (c *rawConn) frame(op byte, payload []byte) {
	b := []byte{0x80 | op}
	switch n := len(payload); {
	case n < 126:
		b = append(b, byte(n))
	case n <= 0xffff:
		b = append(b, 126, byte(n>>8), byte(n))
	default:
		b = append(b, 127)
		b = binary.BigEndian.AppendUint64(b, uint64(n))
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, _ = c.conn.Write(append(b, payload...))
}

// online sends what a node sends a seated player, a welcome naming
// heartbeatMs and a snapshot at rev, and returns when they were written.
func (c *rawConn) online(heartbeatMs, rev int) time.Time {
	c.text(fmt.Sprintf(`{"type":"welcome","conn":"c%d","seat":0,"token":"tok-1","heartbeatMs":%d}`, c.n, heartbeatMs))
	c.text(fmt.Sprintf(`{"type":"snapshot","epoch":"E1","rev":%d,"seat":0,"view":null,"room":{"code":"ROOM01","phase":"running","seats":[]}}`, rev))
	return time.Now()
}

// closeCode is a close payload with code.
func closeCode(code int) []byte { return binary.BigEndian.AppendUint16(nil, uint16(code)) }

// newRawServer starts a raw server that runs script on each socket and,
// when given, onFrame on each frame it reads.
func newRawServer(t *testing.T, script func(c *rawConn, n int), onFrame ...func(c *rawConn, f rawFrame)) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{t: t, URL: "http://" + ln.Addr().String(), script: script, poke: make(chan struct{}, 1)}
	if len(onFrame) > 0 {
		s.onFrame = onFrame[0]
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { s.serve(conn, &wg) })
		}
	})
	t.Cleanup(func() {
		ln.Close()
		s.mu.Lock()
		for _, c := range s.conns {
			c.conn.Close()
		}
		s.mu.Unlock()
		wg.Wait()
		// Whatever the test: no close frame the client sent carries a
		// code RFC 6455 §7.4.1 reserves for a close that had none (1005),
		// a connection lost (1006) or a failed TLS handshake (1015).
		// And nothing after its close frame (RFC 6455 §5.5.1).
		closed := map[int]bool{}
		for _, f := range s.all() {
			if closed[f.conn] {
				t.Errorf("socket %d: the client wrote a frame (opcode %d) after its close frame", f.conn, f.op)
			}
			if f.op == 0x8 {
				closed[f.conn] = true
				if len(f.payload) == 1 || f.code() == 1005 || f.code() == 1006 || f.code() == 1015 {
					t.Errorf("the client wrote a close frame with payload %x (code %d): reserved, never on the wire", f.payload, f.code())
				}
			}
		}
	})
	return s
}

// serve upgrades one connection, reads its hello, starts the script and
// records the frames that follow.
func (s *rawServer) serve(conn net.Conn, wg *sync.WaitGroup) {
	defer conn.Close()
	br := bufio.NewReader(conn)
	req, err := http.ReadRequest(br)
	if err != nil || req.Header.Get("Upgrade") != "websocket" {
		return
	}
	sum := sha1.Sum([]byte(req.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	if _, err := fmt.Fprintf(conn, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n",
		base64.StdEncoding.EncodeToString(sum[:])); err != nil {
		return
	}
	c := &rawConn{conn: conn, ended: make(chan struct{})}
	s.mu.Lock()
	c.n = len(s.conns)
	s.conns = append(s.conns, c)
	s.mu.Unlock()
	defer func() {
		c.endAt = time.Now()
		close(c.ended)
		s.wake()
	}()
	op, payload, err := readClientFrame(br)
	if err != nil {
		return
	}
	var hello protocol.Hello
	if op != 0x1 || json.Unmarshal(payload, &hello) != nil || hello.Type != protocol.TypeHello {
		s.t.Errorf("socket %d: the first frame is not a hello: op %d %q", c.n, op, payload)
		return
	}
	s.mu.Lock()
	c.hello = hello
	s.mu.Unlock()
	s.wake()
	wg.Go(func() { s.script(c, c.n) })
	for {
		op, payload, err := readClientFrame(br)
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) && !errors.Is(err, io.ErrUnexpectedEOF) {
				s.t.Logf("socket %d: %v", c.n, err)
			}
			return
		}
		f := rawFrame{conn: c.n, op: op, payload: payload, at: time.Now()}
		s.mu.Lock()
		s.frames = append(s.frames, f)
		s.mu.Unlock()
		s.wake()
		if s.onFrame != nil {
			s.onFrame(c, f)
		}
	}
}

// readClientFrame reads one whole frame a client sent (RFC 6455 §5.2:
// masked), and unmasks its payload.
func readClientFrame(r io.Reader) (op byte, payload []byte, err error) {
	var h [2]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, nil, err
	}
	if h[0]&0x80 == 0 || h[0]&0x70 != 0 {
		return 0, nil, fmt.Errorf("a fragmented frame, or reserved bits: %x", h)
	}
	if h[1]&0x80 == 0 {
		return 0, nil, fmt.Errorf("an unmasked frame from the client: %x", h)
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return 0, nil, err
		}
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return 0, nil, err
		}
		n = binary.BigEndian.Uint64(b[:])
	}
	if n > 1<<20 {
		return 0, nil, fmt.Errorf("a frame of %d bytes", n)
	}
	var key [4]byte
	if _, err := io.ReadFull(r, key[:]); err != nil {
		return 0, nil, err
	}
	payload = make([]byte, n)
	if _, err := io.ReadFull(r, payload); err != nil {
		return 0, nil, err
	}
	for i := range payload {
		payload[i] ^= key[i&3]
	}
	return h[0] & 0x0f, payload, nil
}

func (s *rawServer) wake() {
	select {
	case s.poke <- struct{}{}:
	default:
	}
}

// all returns the frames the clients sent so far.
func (s *rawServer) all() []rawFrame {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]rawFrame(nil), s.frames...)
}

// conn returns socket n, waiting for it to be accepted and its hello read.
func (s *rawServer) conn(n int) *rawConn {
	s.t.Helper()
	var c *rawConn
	s.until(fmt.Sprintf("socket %d", n), func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		if n < len(s.conns) && s.conns[n].hello.Type != "" {
			c = s.conns[n]
		}
		return c != nil
	})
	return c
}

// sockets returns how many sockets the server accepted.
func (s *rawServer) sockets() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// frame waits for a frame of socket n with opcode op.
func (s *rawServer) frame(n int, op byte) rawFrame {
	s.t.Helper()
	var f rawFrame
	s.until(fmt.Sprintf("a frame with opcode %d on socket %d", op, n), func() bool {
		for _, g := range s.all() {
			if g.conn == n && g.op == op {
				f = g
				return true
			}
		}
		return false
	})
	return f
}

// until waits up to 5 s for ok, looked at whenever the server records
// something.
func (s *rawServer) until(what string, ok func() bool) {
	s.t.Helper()
	deadline := time.After(5 * time.Second)
	for !ok() {
		select {
		case <-s.poke:
		case <-time.After(5 * time.Millisecond):
		case <-deadline:
			s.t.Fatalf("%s: still waiting for %s after 5 s", s.URL, what)
		}
	}
}
