package transport

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/roomd/roomd/internal/queue"
	"github.com/roomd/roomd/internal/rawsock"
	"github.com/roomd/roomd/internal/tcppair"
	"github.com/roomd/roomd/protocol"
)

// tcpPair returns both ends of a loopback TCP connection, the server's
// wrapped in a sock.
func tcpPair(t testing.TB) (*sock, net.Conn) {
	t.Helper()
	if !rawsock.Supported {
		t.Skip("a sock writes directly on Linux only")
	}
	peer, nc := tcppair.New(t)
	s := newSock(nc)
	if s.raw == nil {
		t.Fatal("a TCP connection's sock cannot write directly")
	}
	t.Cleanup(func() { s.Close(); peer.Close() })
	return s, peer
}

// header is a server's text frame header for n bytes, written out.
func header(n int) []byte {
	switch {
	case n < 126:
		return []byte{0x81, byte(n)}
	case n <= 0xffff:
		return binary.BigEndian.AppendUint16([]byte{0x81, 126}, uint16(n))
	}
	return binary.BigEndian.AppendUint64([]byte{0x81, 127}, uint64(n))
}

// TestWireBatchesAsWriteAll checks that the frames Flush writes are those
// writeAll writes: the same batches, as WebSocket text frames.
func TestWireBatchesAsWriteAll(t *testing.T) {
	big := []byte(`{"type":"snapshot","pad":"` + strings.Repeat("x", protocol.MaxBatch/2) + `"}`)
	huge := []byte(`"` + strings.Repeat("y", 70000) + `"`)
	fat := []byte(`"` + strings.Repeat("w", protocol.MaxBatch-7) + `"`) // does not fit a batch after a
	mid := []byte(`{"p":"` + strings.Repeat("z", 200) + `"}`)
	a, b, batch := []byte(`{"a":1}`), []byte(`{"b":2}`), []byte(`[{"c":3},{"d":4}]`)
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for _, tc := range []struct {
		name   string
		frames [][]byte
		want   []byte
	}{
		{"one", [][]byte{a}, cat(header(len(a)), a)},
		{"two batched", [][]byte{a, b}, cat(header(17), []byte(`[{"a":1},{"b":2}]`))},
		{"a batch goes alone", [][]byte{a, batch, b}, cat(header(len(a)), a, header(len(batch)), batch, header(len(b)), b)},
		{"a big frame goes alone", [][]byte{big, a, b}, cat(header(len(big)), big, header(17), []byte(`[{"a":1},{"b":2}]`))},
		{"big but it fits", [][]byte{a, big}, cat(header(len(a)+len(big)+3), []byte("["), a, []byte(","), big, []byte("]"))},
		{"no room in the batch", [][]byte{a, fat}, cat(header(len(a)), a, header(len(fat)), fat)},
		{"16-bit length", [][]byte{mid}, cat(header(len(mid)), mid)},
		{"64-bit length", [][]byte{huge}, cat(header(len(huge)), huge)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &conn{}
			var held int64
			for _, f := range tc.frames {
				held += int64(len(f))
			}
			c.held.Store(held)
			frames := append([][]byte(nil), tc.frames...)
			if got := c.wire(frames); !bytes.Equal(got, tc.want) {
				t.Fatalf("wire =\n%q\nwant\n%q", got, tc.want)
			}
			if c.held.Load() != 0 {
				t.Fatalf("held = %d after wire, want 0", c.held.Load())
			}
			for i, f := range frames {
				if f != nil {
					t.Fatalf("frame %d not cleared", i)
				}
			}
		})
	}
}

// TestSockTryWriteKeepsTheRest fills a socket whose peer does not read: the
// non-blocking write takes what the kernel takes and keeps the rest, which
// goes out before the next write, all in order.
func TestSockTryWriteKeepsTheRest(t *testing.T) {
	s, peer := tcpPair(t)
	if tc, ok := s.Conn.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4 << 10)
	}
	msg := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB: more than the socket takes
	if !s.tryLock() {
		t.Fatal("tryLock failed on an idle socket")
	}
	left := s.tryWrite(msg)
	s.unlock()
	if !left || len(s.rest) == 0 || len(s.rest) >= len(msg) {
		t.Fatalf("left %v, rest %d of %d bytes", left, len(s.rest), len(msg))
	}
	if s.tryLock() {
		t.Fatal("tryLock succeeded with bytes left to write")
	}
	if !s.pending() {
		t.Fatal("pending is false with bytes left to write")
	}
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(peer, int64(len(msg)+5)))
		got <- b
	}()
	if _, err := s.Write([]byte("after")); err != nil { // the rest first, then this
		t.Fatal(err)
	}
	if b := <-got; !bytes.Equal(b, append(append([]byte(nil), msg...), "after"...)) {
		t.Fatalf("the peer read %d bytes, not the message then %q", len(b), "after")
	}
	if s.pending() {
		t.Fatal("pending after the rest was written")
	}
}

// TestSockTryWriteFailure keeps a write's failure for the writer.
func TestSockTryWriteFailure(t *testing.T) {
	s, _ := tcpPair(t)
	s.Conn.Close()
	if !s.tryLock() {
		t.Fatal("tryLock failed")
	}
	left := s.tryWrite([]byte("x"))
	s.unlock()
	if !left || s.err == nil {
		t.Fatalf("left %v, err %v after writing to a closed socket", left, s.err)
	}
	if err := s.flushRest(); err == nil {
		t.Fatal("flushRest hides the failure")
	}
}

// BenchmarkFlush is a room's actor flushing a move to one member: its
// update and receipt queued, then written by Flush as one batched frame,
// one non-blocking write (the peer reads and discards).
func BenchmarkFlush(b *testing.B) {
	s, peer := tcpPair(b)
	go func() { _, _ = io.Copy(io.Discard, peer) }()
	c := &conn{srv: &Server{cfg: Config{OutboxBytes: 1 << 20, OutboxSize: 128}}, sock: s,
		out: queue.New[[]byte](128), closing: make(chan struct{})}
	update := []byte(`{"type":"update","epoch":"01JDQ7Z8X9Y0A1B2C3D4E5F6G7","from":12,"to":13,"by":0,"beats":[{"type":"flag","r":3,"c":7,"flagged":true}]}`)
	receipt := []byte(`{"type":"receipt","id":"a1b2c3","ok":true,"rev":13}`)
	b.ReportAllocs()
	for b.Loop() {
		c.Queue(update)
		c.Queue(receipt)
		c.Flush()
		if len(s.rest) > 0 {
			if err := s.flushRest(); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestSockRead reads what the peer sends (waiting for it when it is not
// there yet) and io.EOF when the peer closes.
func TestSockRead(t *testing.T) {
	s, peer := tcpPair(t)
	go func() {
		_, _ = peer.Write([]byte("hello"))
		peer.Close()
	}()
	got, err := io.ReadAll(s)
	if err != nil || string(got) != "hello" {
		t.Fatalf("read %q, %v; want %q and EOF", got, err, "hello")
	}
	if n, err := s.Read(make([]byte, 8)); n != 0 || err != io.EOF {
		t.Fatalf("after EOF: %d, %v", n, err)
	}
}
