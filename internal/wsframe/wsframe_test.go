package wsframe

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"
)

const limit = 4 << 20

// serverFrame is a server's unmasked frame.
func serverFrame(op byte, fin bool, payload []byte) []byte {
	b0 := op
	if fin {
		b0 |= 0x80
	}
	out := []byte{b0}
	switch n := len(payload); {
	case n < 126:
		out = append(out, byte(n))
	case n <= 0xffff:
		out = append(out, 126, byte(n>>8), byte(n))
	default:
		out = append(out, 127)
		out = binary.BigEndian.AppendUint64(out, uint64(n))
	}
	return append(out, payload...)
}

// TestFeed: messages sent whole or in fragments, with pings between them,
// arrive whole and in order however the bytes are cut, every ping's
// payload is handed on, and a close after them ends the reading with its
// payload.
func TestFeed(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var stream []byte
		var want, wantPings [][]byte
		for i := range rapid.IntRange(1, 8).Draw(t, "messages") {
			msg := rapid.SliceOfN(rapid.Byte(), 0, 70_000).Draw(t, "message")
			want = append(want, msg)
			parts := rapid.IntRange(1, 3).Draw(t, "fragments")
			for k := range parts {
				op := byte(OpText)
				if k > 0 {
					op = OpContinuation
				}
				lo, hi := len(msg)*k/parts, len(msg)*(k+1)/parts
				stream = append(stream, serverFrame(op, k == parts-1, msg[lo:hi])...)
				if rapid.Bool().Draw(t, "ping") {
					ping := []byte{byte(i), byte(k)}
					wantPings = append(wantPings, ping)
					stream = append(stream, serverFrame(OpPing, true, ping)...)
				}
			}
		}
		stream = append(stream, serverFrame(OpClose, true, []byte{0x0f, 0xa8, 's', 'l', 'o', 'w'})...)
		m := Message{Limit: limit}
		var got, pings [][]byte
		var closing []byte
		for len(stream) > 0 {
			n := min(len(stream), rapid.IntRange(1, 9000).Draw(t, "chunk"))
			chunk := append([]byte(nil), stream[:n]...) // the caller's buffer is reused
			stream = stream[n:]
			closed, c, err := m.Feed(chunk, func(b []byte) { got = append(got, bytes.Clone(b)) },
				func(p []byte) { pings = append(pings, bytes.Clone(p)) })
			if err != nil || closed != (len(stream) == 0) {
				t.Fatalf("feed: closed %v with %d bytes to go, %v", closed, len(stream), err)
			}
			if closed {
				closing = bytes.Clone(c)
			}
			clear(chunk)
		}
		if len(got) != len(want) {
			t.Fatalf("%d messages, want %d", len(got), len(want))
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("message %d differs (%d bytes, want %d)", i, len(got[i]), len(want[i]))
			}
		}
		if len(pings) != len(wantPings) {
			t.Fatalf("%d pings, want %d", len(pings), len(wantPings))
		}
		if code, reason := CloseCode(closing); code != 4008 || reason != "slow" {
			t.Fatalf("close %d %q, want 4008 slow", code, reason)
		}
	})
}

// TestFeedRefuses: frames a server may not send are errors, and so is a
// message over the limit, whole or in fragments.
func TestFeedRefuses(t *testing.T) {
	huge := []byte{0x81, 127}
	huge = binary.BigEndian.AppendUint64(huge, limit+1)
	for name, c := range map[string]struct {
		b    []byte
		want error
	}{
		"masked":               {[]byte{0x81, 0x81, 1, 2, 3, 4, 'x'}, ErrFrame},
		"reserved bits":        {[]byte{0xc1, 0}, ErrFrame},
		"too big":              {huge, ErrTooBig},
		"too big in fragments": {append(serverFrame(OpText, false, make([]byte, 40)), serverFrame(OpContinuation, true, make([]byte, 30))...), ErrTooBig},
		"fragmented ping":      {[]byte{0x09, 0}, ErrFrame},
		"stray continuation":   {serverFrame(OpContinuation, true, []byte("x")), ErrFrame},
		"text inside fragment": {append(serverFrame(OpText, false, []byte("a")), serverFrame(OpText, true, []byte("b"))...), ErrFrame},
		"unknown opcode":       {serverFrame(0x3, true, nil), ErrFrame},
	} {
		m := Message{Limit: limit}
		if name == "too big in fragments" {
			m.Limit = 64
		}
		_, _, err := m.Feed(c.b, func([]byte) {}, func([]byte) {})
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}
	var zero Message // no Limit set: DefaultLimit
	got := 0
	if _, _, err := zero.Feed(serverFrame(OpText, true, make([]byte, 1000)), func(b []byte) { got = len(b) }, func([]byte) {}); err != nil || got != 1000 {
		t.Errorf("a zero Message: %d bytes, %v", got, err)
	}
	if code, _ := CloseCode(nil); code != 1005 {
		t.Errorf("an empty close: %d, want 1005", code)
	}
}

// TestClientFrameMasked: a client frame unmasks to its payload, at each
// length form.
func TestClientFrameMasked(t *testing.T) {
	for _, n := range []int{0, 125, 126, 65535, 65536} {
		payload := bytes.Repeat([]byte{'z'}, n)
		f := AppendClientFrame(nil, OpText, payload)
		if f[0] != 0x81 || f[1]&0x80 == 0 {
			t.Fatalf("%d bytes: header % x", n, f[:2])
		}
		h := len(f) - n - 4
		key := f[h : h+4]
		body := bytes.Clone(f[h+4:])
		for i := range body {
			body[i] ^= key[i&3]
		}
		if !bytes.Equal(body, payload) {
			t.Fatalf("%d bytes: unmasked payload differs", n)
		}
	}
	f := AppendClose(nil, 1000, "bye")
	if f[0] != 0x80|OpClose || f[1] != 0x80|5 {
		t.Fatalf("close frame header % x", f[:2])
	}
}

func TestAccept(t *testing.T) {
	// RFC 6455 §1.3's example.
	if got := Accept("dGhlIHNhbXBsZSBub25jZQ=="); got != "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" {
		t.Fatalf("accept %q", got)
	}
	if Key() == Key() || len(Key()) != 24 {
		t.Fatal("keys are not fresh 16-byte values")
	}
}

// TestFeedLetsLargeBuffersGo: once a large message is handed on, the
// buffer it grew (the carry of a frame read in pieces, or the fragments
// gathered) goes with it; a small one's is kept for the next.
func TestFeedLetsLargeBuffersGo(t *testing.T) {
	for _, size := range []int{200 << 10, 1 << 10} {
		msg := bytes.Repeat([]byte{'m'}, size)
		whole := serverFrame(OpText, true, msg)
		fragments := append(serverFrame(OpText, false, msg[:size/2]), serverFrame(OpContinuation, true, msg[size/2:])...)
		for k, stream := range [][]byte{whole, fragments} {
			m := Message{Limit: limit}
			got := 0
			for len(stream) > 0 {
				n := min(len(stream), 300)
				if _, _, err := m.Feed(stream[:n], func(b []byte) { got = len(b) }, func([]byte) {}); err != nil {
					t.Fatal(err)
				}
				stream = stream[n:]
			}
			large := size > 64<<10
			if got != size || (m.carry == nil) != large {
				t.Errorf("%d bytes: got %d, carry %d/%d", size, got, len(m.carry), cap(m.carry))
			}
			if k == 1 && (m.frag == nil) != large {
				t.Errorf("%d bytes in fragments: frag %d/%d", size, len(m.frag), cap(m.frag))
			}
		}
	}
}

// TestCloseCodes: a peer's close is answered with its code when it may be
// sent, 1000 when it had none, 1002 for a code no endpoint may send (1005,
// 1006 and 1015 above all: they are never on the wire) or a one-byte
// payload, 1007 for a reason that is not UTF-8; and ClosePayload never
// writes a code that may not be sent.
func TestCloseCodes(t *testing.T) {
	payload := func(code int, reason string) []byte {
		return append(binary.BigEndian.AppendUint16(nil, uint16(code)), reason...)
	}
	for _, c := range []struct {
		p    []byte
		want int
	}{
		{nil, 1000}, {[]byte{3}, 1002},
		{payload(1000, "bye"), 1000}, {payload(1001, ""), 1001}, {payload(1011, ""), 1011}, {payload(1014, ""), 1014},
		{payload(3000, ""), 3000}, {payload(4008, "slow"), 4008}, {payload(4999, ""), 4999},
		{payload(1004, ""), 1002}, {payload(1005, ""), 1002}, {payload(1006, ""), 1002}, {payload(1015, ""), 1002},
		{payload(0, ""), 1002}, {payload(999, ""), 1002}, {payload(1016, ""), 1002}, {payload(2999, ""), 1002}, {payload(5000, ""), 1002},
		{payload(4000, "\xff\xfe"), 1007},
	} {
		if got := CloseReply(c.p); got != c.want {
			t.Errorf("CloseReply(%x) = %d, want %d", c.p, got, c.want)
		}
	}
	for _, code := range []int{0, 999, 1004, 1005, 1006, 1015, 2999, 5000, 65535} {
		if p := ClosePayload(code, "x"); len(p) != 0 {
			t.Errorf("ClosePayload(%d) = %x: a code that may not be sent, want no code at all", code, p)
		}
	}
	if p := ClosePayload(1000, strings.Repeat("é", 100)); len(p) != 2+122 || !utf8.Valid(p[2:]) {
		t.Errorf("a long reason is cut to %d bytes (valid UTF-8: %v), want 122 between characters", len(p)-2, utf8.Valid(p[2:]))
	}
	if code, _ := CloseCode([]byte{3}); code != 1002 {
		t.Errorf("a one-byte close payload reads as %d, want 1002", code)
	}
}
