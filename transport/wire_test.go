//go:build linux

package transport

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gobwas/ws"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/room"
)

// The wire tests: what a client may put on a socket, before its hello and
// after it (read by a poller, or by the socket's own goroutines), and what
// roomd does about it, seen from a raw TCP connection on loopback. They
// know nothing of roomd's frame reader — only bytes, close codes and when
// the server ends the TCP connection — so that they are the contract a
// replacement of the reader keeps (issue 42).

var floodCap = flag.Int64("wire.flood", 1<<30, "the most a wire flood test writes before it gives up (5 s at most)")

// wirePath is where on a socket's life the frames come.
type wirePath struct {
	name       string
	hello      bool // after a hello and its snapshot
	goroutines bool // Config.SocketGoroutines: no poller
}

var wirePaths = []wirePath{
	{"before the hello", false, false},
	{"after the hello, poller", true, false},
	{"after the hello, goroutines", true, true},
}

// wireBuf is each side's kernel buffer, each way, in the wire tests: what a
// flood gets written before its close is what the server read plus these
// buffers, not the megabytes Linux grows a loopback socket's buffers to.
const wireBuf = 32 << 10

type bufListener struct{ net.Listener }

func (l bufListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok && err == nil {
		_ = tc.SetReadBuffer(wireBuf)
		_ = tc.SetWriteBuffer(wireBuf)
	}
	return c, err
}

// wireServer starts a server for path with a room to say hello to.
func wireServer(t *testing.T, path wirePath, opts ...serverOpt) (*testServer, string) {
	t.Helper()
	opts = append([]serverOpt{func(_ *room.Config, c *Config) { c.SocketGoroutines = path.goroutines }}, opts...)
	s := startServerListener(t, nil, HTTPConfig{}, func(ln net.Listener) net.Listener { return bufListener{ln} }, opts...)
	created := s.create("minesweeper", `{"mode":"coop","level":"beginner"}`, "Ann")
	return s, created.Room
}

// wirePeer opens a raw socket to s; on a path after the hello it says
// hello, reads the snapshot and (poller) waits until a poller holds it.
func wirePeer(t *testing.T, s *testServer, code string, path wirePath) *wsPeer {
	t.Helper()
	p := s.dialPeer(t, nil)
	if tc, ok := p.conn.(*net.TCPConn); ok {
		_ = tc.SetReadBuffer(wireBuf)
		_ = tc.SetWriteBuffer(wireBuf)
	}
	if path.hello {
		p.write(peerHello(t, code))
		p.expect(protocol.TypeSnapshot, "")
		if !path.goroutines {
			waitFor(t, "the socket to be polled", func() bool { held, all := s.polled(); return held == all && all == 1 })
		}
	}
	return p
}

// wireCase runs fn for every path, each with its own server, in parallel.
func wireCase(t *testing.T, fn func(t *testing.T, path wirePath, s *testServer, p *wsPeer), opts ...serverOpt) {
	for _, path := range wirePaths {
		t.Run(path.name, func(t *testing.T) {
			t.Parallel()
			s, code := wireServer(t, path, opts...)
			fn(t, path, s, wirePeer(t, s, code, path))
		})
	}
}

// maskedHeader is the header of a client's frame of n bytes (the 64-bit
// form when n needs it), masked with peerKey.
func maskedHeader(op ws.OpCode, fin bool, n uint64) []byte {
	b0 := byte(op)
	if fin {
		b0 |= 0x80
	}
	h := []byte{b0}
	switch {
	case n < 126:
		h = append(h, 0x80|byte(n))
	case n <= 0xffff:
		h = binary.BigEndian.AppendUint16(append(h, 0x80|126), uint16(n))
	default:
		h = binary.BigEndian.AppendUint64(append(h, 0x80|127), n)
	}
	return append(h, peerKey[:]...)
}

// next reads one server frame, as frame does, but returns an error rather
// than failing the test (it runs on goroutines of its own).
func (p *wsPeer) next() (byte, []byte, error) {
	return readServerFrame(p.br)
}

func readServerFrame(br *bufio.Reader) (byte, []byte, error) {
	var h [2]byte
	if _, err := io.ReadFull(br, h[:]); err != nil {
		return 0, nil, err
	}
	if h[1]&0x80 != 0 {
		return 0, nil, fmt.Errorf("a masked server frame: %x", h)
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var b [2]byte
		if _, err := io.ReadFull(br, b[:]); err != nil {
			return 0, nil, err
		}
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		if _, err := io.ReadFull(br, b[:]); err != nil {
			return 0, nil, err
		}
		n = binary.BigEndian.Uint64(b[:])
	}
	if n > 1<<20 {
		return 0, nil, fmt.Errorf("a server frame of %d bytes", n)
	}
	b := make([]byte, n)
	_, err := io.ReadFull(br, b)
	return h[0], b, err
}

// ended says whether err is the server's end of the TCP connection.
func ended(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF)
}

// closing is what the server did after a client's frames: the close code
// it sent (0: none), and when it sent it and ended the connection, from
// the moment the frames were written.
type closing struct {
	code     int
	reason   []byte
	closeIn  time.Duration
	endIn    time.Duration
	ended    bool
	messages [][]byte // data frames before the close
}

func (c closing) String() string {
	return fmt.Sprintf("close %d after %v, TCP closed %v after %v", c.code, c.closeIn.Round(time.Millisecond), c.ended, c.endIn.Round(time.Millisecond))
}

// awaitClose reads what the server sends until it ends the connection or
// wait passes, from written (when the client's frames were written).
func (p *wsPeer) awaitClose(written time.Time, wait time.Duration) closing {
	var c closing
	_ = p.conn.SetReadDeadline(written.Add(wait))
	defer p.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	for {
		b0, b, err := p.next()
		if err != nil {
			c.endIn = time.Since(written)
			c.ended = ended(err)
			return c
		}
		switch ws.OpCode(b0 & 0x0f) {
		case ws.OpClose:
			if c.code == 0 {
				c.closeIn = time.Since(written)
				c.code = closeNoStatus
				if len(b) >= 2 {
					c.code, c.reason = int(binary.BigEndian.Uint16(b)), b[2:]
				}
			}
		case ws.OpText, ws.OpBinary:
			c.messages = append(c.messages, b)
		}
	}
}

// send writes frames and returns when the write ended.
func (p *wsPeer) send(frames ...[]byte) time.Time {
	p.t.Helper()
	p.write(frames...)
	return time.Now()
}

// TestWireRefusedFrameTailWithheld: a frame refused for its size (32 KiB
// announced, 17 KiB sent, the rest never) is answered with 1009 and the TCP
// connection closed within a second — it was held for ever before the
// hello.
func TestWireRefusedFrameTailWithheld(t *testing.T) {
	wireCase(t, func(t *testing.T, path wirePath, s *testServer, p *wsPeer) {
		at := p.send(maskedHeader(ws.OpText, true, 32<<10), bytes.Repeat([]byte{'x'}, 17<<10))
		c := p.awaitClose(at, 5*time.Second)
		t.Logf("%s: %v", path.name, c)
		if c.code != closeTooBig || !c.ended || c.endIn > time.Second {
			t.Fatalf("%v; want close 1009 and the TCP connection closed within 1 s", c)
		}
	})
}

// floodResult is what a flood got: the bytes written until the server's
// close was seen, how long that took, the close code (0: none), whether
// the server ended the TCP connection, and the pongs that came back.
type floodResult struct {
	written   int64
	took      time.Duration
	code      int
	ended     bool
	endIn     time.Duration
	pongs     int
	pongBytes int64
}

func (r floodResult) String() string {
	return fmt.Sprintf("%d bytes written in %v, close %d, TCP closed %v after %v, %d pongs (%d bytes)",
		r.written, r.took.Round(time.Millisecond), r.code, r.ended, r.endIn.Round(time.Millisecond), r.pongs, r.pongBytes)
}

// flood writes lead, then unit again and again, until the server closes
// the socket (its close frame, or its end of the connection; with
// pastClose, only its end), limit bytes have gone or maxTime has passed.
func (p *wsPeer) flood(lead, unit []byte, limit int64, maxTime time.Duration, pastClose bool) floodResult {
	chunk := bytes.Repeat(unit, max(1, (16<<10)/len(unit)))
	var seen, gone atomic.Bool
	var r floodResult
	var seenAt, goneAt time.Time
	done := make(chan struct{})
	start := time.Now()
	_ = p.conn.SetReadDeadline(start.Add(maxTime + 3*time.Second))
	go func() {
		defer close(done)
		for {
			b0, b, err := p.next()
			if err != nil {
				r.ended = ended(err)
				goneAt = time.Now()
				gone.Store(true)
				if !seen.Load() {
					seenAt = goneAt
					seen.Store(true)
				}
				return
			}
			switch ws.OpCode(b0 & 0x0f) {
			case ws.OpPong:
				r.pongs++
				r.pongBytes += int64(2 + len(b))
			case ws.OpClose:
				if r.code == 0 {
					r.code = closeNoStatus
					if len(b) >= 2 {
						r.code = int(binary.BigEndian.Uint16(b))
					}
					seenAt = time.Now()
					seen.Store(true)
				}
			}
		}
	}()
	_ = p.conn.SetWriteDeadline(start.Add(maxTime))
	var written int64
	n, err := p.conn.Write(lead)
	written += int64(n)
	for err == nil && !gone.Load() && (pastClose || !seen.Load()) && written < limit {
		n, err = p.conn.Write(chunk)
		written += int64(n)
	}
	r.written = written
	<-done
	if seenAt.IsZero() {
		seenAt = time.Now()
	}
	r.took, r.endIn = seenAt.Sub(start), goneAt.Sub(start)
	if pastClose {
		r.took = r.endIn
	}
	_ = p.conn.SetDeadline(time.Now().Add(20 * time.Second))
	return r
}

// TestWireRefusedFrameStreamed: a frame refused for its size whose payload
// keeps coming (a terabyte announced) is read for at most 64 KiB past the
// refusal and the connection closed within a second — before the hello,
// roomd read and dropped it for as long as it came (1.35 GB a minute).
func TestWireRefusedFrameStreamed(t *testing.T) {
	wireCase(t, func(t *testing.T, path wirePath, s *testServer, p *wsPeer) {
		r := p.flood(maskedHeader(ws.OpText, true, 1<<40), make([]byte, 16<<10), *floodCap, 5*time.Second, true)
		t.Logf("%s: %v", path.name, r)
		// What the server may read (the 16 KiB limit, then 64 KiB), the
		// kernel's buffers (each doubled by Linux), a chunk being written
		// and slack: 320 KiB. Before: all of it, a gigabyte in 5 s.
		bound := int64(16<<10 + 64<<10 + 4*wireBuf + 16<<10 + 80<<10)
		if r.code != closeTooBig || !r.ended || r.took > time.Second || r.written > bound {
			t.Fatalf("%v; want close 1009 within 1 s and at most %d bytes written", r, bound)
		}
	})
}

// floodKinds are floods of every kind of frame a client may send.
var floodKinds = []struct {
	name       string
	lead, unit []byte
}{
	{"empty continuations", maskedFrame(ws.OpText, false, []byte("{"), peerKey, false),
		maskedFrame(ws.OpContinuation, false, nil, peerKey, false)},
	{"pings", nil, maskedFrame(ws.OpPing, true, bytes.Repeat([]byte{'p'}, maxControl), peerKey, false)},
	{"empty pings", nil, maskedFrame(ws.OpPing, true, nil, peerKey, false)},
	{"pongs", nil, maskedFrame(ws.OpPong, true, nil, peerKey, false)},
	{"16 KiB messages", nil, text(`{"type":"ping","t":1,"pad":"` + strings.Repeat("x", 16<<10-40) + `"}`)},
	{"small messages", nil, text(`{"type":"ping","t":1}`)},
	{"messages in 64 frames", nil, fragmented(`{"type":"ping","t":1}`, 64)},
}

// fragmented is msg as a text message in n frames, all but the first
// empty.
func fragmented(msg string, n int) []byte {
	b := maskedFrame(ws.OpText, n == 1, []byte(msg), peerKey, false)
	for i := 1; i < n; i++ {
		b = append(b, maskedFrame(ws.OpContinuation, i == n-1, nil, peerKey, false)...)
	}
	return b
}

// TestWireFloods: a flood of any kind of frame, before the hello or after
// it, is closed with 4029 (or 1002, a protocol error) within a second and
// before a mebibyte has gone in. Before: empty continuations and pings
// were never limited (1.17 GB and 613 MB in 10 s on one socket).
func TestWireFloods(t *testing.T) {
	for _, kind := range floodKinds {
		t.Run(kind.name, func(t *testing.T) {
			wireCase(t, func(t *testing.T, path wirePath, s *testServer, p *wsPeer) {
				r := p.flood(kind.lead, kind.unit, *floodCap, 5*time.Second, false)
				t.Logf("%s, %s: %v", kind.name, path.name, r)
				if (r.code != protocol.CloseRateLimited && r.code != protocol.CloseProtocolError) || !r.ended ||
					r.took > time.Second || r.endIn > time.Second || r.written > 1<<20 {
					t.Fatalf("%v; want close 4029 or 1002 within 1 s and 1 MiB, and the TCP connection closed within 1 s", r)
				}
			})
		})
	}
}

// TestWirePongsCapped: pings within the socket's budget are each answered
// with their payload; a flood of pings gets no more pongs than the budget
// lets pings in (before: 85 MB of pongs for 613 MB of pings).
func TestWirePongsCapped(t *testing.T) {
	wireCase(t, func(t *testing.T, path wirePath, s *testServer, p *wsPeer) {
		for i := range 10 {
			payload := []byte(fmt.Sprintf("ping %d", i))
			p.write(maskedFrame(ws.OpPing, true, payload, peerKey, false))
			_ = p.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			for {
				b0, b, err := p.next()
				if err != nil {
					t.Fatalf("waiting for pong %d: %v", i, err)
				}
				if b0 == 0x80|byte(ws.OpPong) {
					if !bytes.Equal(b, payload) {
						t.Fatalf("pong %q for ping %q", b, payload)
					}
					break
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
		r := p.flood(nil, maskedFrame(ws.OpPing, true, bytes.Repeat([]byte{'p'}, maxControl), peerKey, false), *floodCap, 5*time.Second, false)
		t.Logf("%s: ping flood: %v", path.name, r)
		if r.pongBytes > 32<<10 || r.code != protocol.CloseRateLimited {
			t.Fatalf("%v; want at most 32 KiB of pongs, then 4029", r)
		}
	})
}

// TestWireProtocolErrors: frames RFC 6455 forbids close the socket with
// 1002 on every path, and the TCP connection within a second (before the
// hello, an unmasked frame and a 64-bit length with its top bit set closed
// with 1000, which tells a client to stop).
func TestWireProtocolErrors(t *testing.T) {
	top := binary.BigEndian.AppendUint64([]byte{0x81, 0x80 | 127}, 1<<63|5)
	top = append(append(top, peerKey[:]...), "hello"...)
	for _, tc := range []struct {
		name  string
		frame []byte
	}{
		{"unmasked", []byte{0x81, 2, '{', '}'}},
		{"a 64-bit length with its top bit set", top},
		{"rsv bits", append([]byte{0xc1}, text("{}")[1:]...)},
		{"unknown opcode", maskedFrame(0x3, true, nil, peerKey, false)},
		{"continuation first", maskedFrame(ws.OpContinuation, true, []byte("{}"), peerKey, false)},
		{"a new message inside one", append(maskedFrame(ws.OpText, false, []byte("{"), peerKey, false), text("{}")...)},
		{"fragmented ping", maskedFrame(ws.OpPing, false, nil, peerKey, false)},
		{"a 126-byte ping", maskedFrame(ws.OpPing, true, make([]byte, 126), peerKey, false)},
		{"a close of one byte", maskedFrame(ws.OpClose, true, []byte{3}, peerKey, false)},
		{"close code 1005", maskedFrame(ws.OpClose, true, []byte{0x03, 0xed}, peerKey, false)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wireCase(t, func(t *testing.T, path wirePath, s *testServer, p *wsPeer) {
				c := p.awaitClose(p.send(tc.frame), 5*time.Second)
				t.Logf("%s, %s: %v", tc.name, path.name, c)
				if c.code != closeProtocolError || !c.ended || c.endIn > time.Second {
					t.Fatalf("%v; want close 1002 and the TCP connection closed within 1 s", c)
				}
			})
		})
	}
}

// TestWireInvalidUTF8: a text message that is not UTF-8 — whole, or across
// its fragments — and a close whose reason is not, close the socket with
// 1007; roomd's own close frame holds no invalid UTF-8 (it echoed the
// reason before). A character split between fragments is fine.
func TestWireInvalidUTF8(t *testing.T) {
	invalid := []byte(`{"type":"ping","t":1,"x":"` + "\xff" + `"}`)
	euro := []byte(`{"type":"ping","t":5,"x":"€"}`)
	cut := bytes.IndexByte(euro, 0xe2) + 1
	for _, tc := range []struct {
		name   string
		frames []byte
		code   int // 0: not closed, a pong message instead
	}{
		{"a text frame", maskedFrame(ws.OpText, true, invalid, peerKey, false), closeInvalidData},
		{"fragments", append(maskedFrame(ws.OpText, false, invalid[:10], peerKey, false),
			maskedFrame(ws.OpContinuation, true, invalid[10:], peerKey, false)...), closeInvalidData},
		{"a close reason", maskedFrame(ws.OpClose, true, []byte{0x0f, 0xa0, 'b', 0xff, 'e'}, peerKey, false), closeInvalidData},
		{"a character split between fragments", append(maskedFrame(ws.OpText, false, euro[:cut], peerKey, false),
			maskedFrame(ws.OpContinuation, true, euro[cut:], peerKey, false)...), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wireCase(t, func(t *testing.T, path wirePath, s *testServer, p *wsPeer) {
				at := p.send(tc.frames)
				if tc.code == 0 {
					if !path.hello {
						// Read whole, and refused as a message before the hello.
						p.expect(protocol.TypeNotice, protocol.CodeHelloFirst)
						return
					}
					p.expect(protocol.TypePong, `"t":5`)
					return
				}
				c := p.awaitClose(at, 5*time.Second)
				t.Logf("%s, %s: %v, reason %q", tc.name, path.name, c, c.reason)
				if c.code != tc.code || !c.ended || c.endIn > time.Second {
					t.Fatalf("%v; want close %d and the TCP connection closed within 1 s", c, tc.code)
				}
				if !utf8.Valid(c.reason) {
					t.Fatalf("roomd's close reason %q is not UTF-8", c.reason)
				}
			})
		})
	}
}

// TestWireClientClose: a client's close is answered with its code (not its
// reason) and the connection closed, on every path.
func TestWireClientClose(t *testing.T) {
	wireCase(t, func(t *testing.T, path wirePath, s *testServer, p *wsPeer) {
		c := p.awaitClose(p.send(maskedFrame(ws.OpClose, true, []byte{0x0f, 0xa0, 'b', 'y', 'e'}, peerKey, false)), 5*time.Second)
		if c.code != 4000 || !c.ended || c.endIn > time.Second {
			t.Fatalf("%v; want the client's 4000 echoed and the connection closed", c)
		}
		waitFor(t, "the socket to be released", func() bool { _, all := s.polled(); return all == 0 })
	})
}

// TestWireMessageFrames: a message may come in up to 64 frames; its 65th
// closes the socket with 4029, well within the frame budget.
func TestWireMessageFrames(t *testing.T) {
	for _, n := range []int{64, 65} {
		t.Run(fmt.Sprintf("%d frames", n), func(t *testing.T) {
			wireCase(t, func(t *testing.T, path wirePath, s *testServer, p *wsPeer) {
				at := p.send(fragmented(`{"type":"ping","t":64}`, n))
				if n <= maxFragments {
					if path.hello {
						p.expect(protocol.TypePong, `"t":64`)
					} else {
						p.expect(protocol.TypeNotice, protocol.CodeHelloFirst) // read whole
					}
					return
				}
				c := p.awaitClose(at, 5*time.Second)
				if c.code != protocol.CloseRateLimited || !c.ended || c.endIn > time.Second {
					t.Fatalf("%v; want close 4029 and the TCP connection closed within 1 s", c)
				}
			})
		})
	}
}
