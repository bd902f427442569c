package transport

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"

	"github.com/gobwas/ws"
)

// maskedFrame is a client's frame (RFC 6455 §5.2): masked with key, the
// payload length in the shortest form unless long forces the 64-bit one.
func maskedFrame(op ws.OpCode, fin bool, payload []byte, key [4]byte, long bool) []byte {
	b0 := byte(op)
	if fin {
		b0 |= 0x80
	}
	f := []byte{b0}
	switch n := len(payload); {
	case long:
		f = append(f, 0x80|127)
		f = binary.BigEndian.AppendUint64(f, uint64(n))
	case n < 126:
		f = append(f, 0x80|byte(n))
	case n <= 0xffff:
		f = append(f, 0x80|126)
		f = binary.BigEndian.AppendUint16(f, uint16(n))
	default:
		f = append(f, 0x80|127)
		f = binary.BigEndian.AppendUint64(f, uint64(n))
	}
	f = append(f, key[:]...)
	for i, c := range payload {
		f = append(f, c^key[i%4])
	}
	return f
}

type wsOut struct {
	op      ws.OpCode
	payload string
}

// looseLimits are limits of limit bytes a message and a budget no test
// stream reaches.
func looseLimits(limit int64) *wsLimits {
	return &wsLimits{msg: limit, fragments: 1 << 30, frameCost: 1, frameBurst: math.MaxInt64 / 4, byteCost: 1, byteBurst: math.MaxInt64 / 4}
}

// feedChunks feeds stream to a fresh reader in the given chunk sizes and
// returns what it handed on, and its error.
func feedChunks(stream []byte, chunks []int, limit int64) ([]wsOut, *wsError, *wsReader) {
	var r wsReader
	lim := looseLimits(limit)
	var out []wsOut
	on := func(op ws.OpCode, p []byte) bool {
		out = append(out, wsOut{op, string(p)})
		return true
	}
	for _, n := range chunks {
		n = min(n, len(stream))
		if err := r.feed(stream[:n], lim, 1, on); err != nil {
			return out, err, &r
		}
		stream = stream[n:]
	}
	if len(stream) > 0 {
		if err := r.feed(stream, lim, 1, on); err != nil {
			return out, err, &r
		}
	}
	return out, nil, &r
}

// TestWSReaderReassembles: messages of any size, fragmented any way with
// control frames between the fragments, masked with any key and read in
// any chunks, come out whole and in order, the control frames at once.
func TestWSReaderReassembles(t *testing.T) {
	const limit = 4096
	rapid.Check(t, func(t *rapid.T) {
		var stream []byte
		var want []wsOut
		key := func() [4]byte {
			var k [4]byte
			binary.LittleEndian.PutUint32(k[:], rapid.Uint32().Draw(t, "key"))
			return k
		}
		for i, n := 0, rapid.IntRange(1, 6).Draw(t, "messages"); i < n; i++ {
			op := rapid.SampledFrom([]ws.OpCode{ws.OpText, ws.OpBinary}).Draw(t, "op")
			msg := rapid.SliceOfN(rapid.Byte(), 0, limit).Draw(t, "msg")
			if op == ws.OpText { // a text message is UTF-8 (its fragments need not be)
				msg = []byte(rapid.StringOfN(rapid.Rune(), 0, limit, limit).Draw(t, "text"))
			}
			parts := rapid.IntRange(1, 4).Draw(t, "fragments")
			var wantCtl []wsOut
			for j := 0; j < parts; j++ {
				lo, hi := len(msg)*j/parts, len(msg)*(j+1)/parts
				fop := ws.OpContinuation
				if j == 0 {
					fop = op
				}
				stream = append(stream, maskedFrame(fop, j == parts-1, msg[lo:hi], key(), rapid.Bool().Draw(t, "long"))...)
				if j < parts-1 && rapid.Bool().Draw(t, "control") {
					cop := rapid.SampledFrom([]ws.OpCode{ws.OpPing, ws.OpPong}).Draw(t, "cop")
					cp := rapid.SliceOfN(rapid.Byte(), 0, maxControl).Draw(t, "control payload")
					stream = append(stream, maskedFrame(cop, true, cp, key(), false)...)
					wantCtl = append(wantCtl, wsOut{cop, string(cp)})
				}
			}
			want = append(want, wantCtl...)
			want = append(want, wsOut{op, string(msg)})
		}
		chunks := rapid.SliceOf(rapid.IntRange(1, 300)).Draw(t, "chunks")
		got, err, r := feedChunks(stream, chunks, limit)
		if err != nil {
			t.Fatalf("refused: %v", err)
		}
		if len(got) != len(want) {
			t.Fatalf("got %d messages, want %d", len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("message %d: op %d, %d bytes; want op %d, %d bytes", i, got[i].op, len(got[i].payload), want[i].op, len(want[i].payload))
			}
		}
		if len(r.carry) != 0 || r.op != 0 {
			t.Fatalf("after whole frames: %d bytes carried, message %d open", len(r.carry), r.op)
		}
	})
}

// TestWSReaderRefuses: what coder/websocket refuses, the reader refuses
// with the same close codes, from the header alone — a frame past the
// limit is not buffered.
func TestWSReaderRefuses(t *testing.T) {
	const limit = 1000
	k := [4]byte{9, 8, 7, 6}
	big := bytes.Repeat([]byte("x"), limit+1)
	for _, tc := range []struct {
		name   string
		stream []byte
		code   int
	}{
		{"past the limit", maskedFrame(ws.OpText, true, big, k, false), closeTooBig},
		{"past the limit in fragments", append(maskedFrame(ws.OpText, false, big[:600], k, false), maskedFrame(ws.OpContinuation, true, big[:401], k, false)...), closeTooBig},
		{"a 64-bit length past the limit", maskedFrame(ws.OpText, true, big[:10], k, false)[:2:2], -1}, // filled in below
		{"unmasked", []byte{0x81, 0x01, 'x'}, closeProtocolError},
		{"rsv bits", append([]byte{0xc1}, maskedFrame(ws.OpText, true, []byte("x"), k, false)[1:]...), closeProtocolError},
		{"unknown opcode", maskedFrame(0x3, true, nil, k, false), closeProtocolError},
		{"continuation first", maskedFrame(ws.OpContinuation, true, []byte("x"), k, false), closeProtocolError},
		{"a new message inside one", append(maskedFrame(ws.OpText, false, []byte("x"), k, false), maskedFrame(ws.OpText, true, []byte("y"), k, false)...), closeProtocolError},
		{"fragmented control", maskedFrame(ws.OpPing, false, nil, k, false), closeProtocolError},
		{"long control", maskedFrame(ws.OpPing, true, big[:maxControl+1], k, false), closeProtocolError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stream, code := tc.stream, tc.code
			if code == -1 {
				// A header claiming 2^62 bytes: refused before any payload.
				stream = binary.BigEndian.AppendUint64([]byte{0x81, 0x80 | 127}, 1<<62)
				stream = append(stream, k[:]...)
				code = closeTooBig
			}
			for _, chunk := range []int{1, 3, len(stream)} {
				var chunks []int
				for range len(stream) {
					chunks = append(chunks, chunk)
				}
				_, err, r := feedChunks(stream, chunks, limit)
				if err == nil || err.code != code {
					t.Fatalf("chunks of %d: error %v, want close %d", chunk, err, code)
				}
				if len(r.carry) > 14+limit {
					t.Fatalf("carried %d bytes", len(r.carry))
				}
			}
		})
	}
}

// FuzzWSReader: whatever a client sends, in whatever chunks and at
// whatever pace, the reader neither panics nor keeps more than one frame (a
// control frame may be longer than the limit) and one message; it hands on
// no message past the limit or in more frames than a message may have, no
// text that is not UTF-8, no close a peer may not send, and nothing but a
// close once it has refused a frame.
func FuzzWSReader(f *testing.F) {
	k := [4]byte{1, 2, 3, 4}
	f.Add(maskedFrame(ws.OpText, true, []byte(`{"type":"ping","t":1}`), k, false), uint8(3), uint8(0))
	f.Add(append(maskedFrame(ws.OpText, false, []byte("ab"), k, false), maskedFrame(ws.OpContinuation, true, []byte("c"), k, true)...), uint8(1), uint8(0))
	f.Add(maskedFrame(ws.OpClose, true, []byte{3, 232}, k, false), uint8(7), uint8(0))
	// A flood of empty continuations, of pings, of empty messages.
	f.Add(append(maskedFrame(ws.OpText, false, []byte("{"), k, false), bytes.Repeat(maskedFrame(ws.OpContinuation, false, nil, k, false), 12)...), uint8(31), uint8(0))
	f.Add(bytes.Repeat(maskedFrame(ws.OpPing, true, []byte("are you there"), k, false), 12), uint8(19), uint8(1))
	f.Add(bytes.Repeat(maskedFrame(ws.OpText, true, nil, k, false), 12), uint8(5), uint8(3))
	// Invalid UTF-8: in a message, split over fragments, in a close reason;
	// a character split over fragments (valid).
	f.Add(maskedFrame(ws.OpText, true, []byte("a\xffb"), k, false), uint8(2), uint8(0))
	f.Add(append(maskedFrame(ws.OpText, false, []byte("\xe2\x82"), k, false), maskedFrame(ws.OpContinuation, true, []byte("\xac"), k, false)...), uint8(1), uint8(0))
	f.Add(maskedFrame(ws.OpClose, true, []byte{0x0f, 0xa0, 0xff}, k, false), uint8(4), uint8(0))
	// A 64-bit length with its top bit set; a frame past the limit, then
	// the client's close.
	f.Add(append(binary.BigEndian.AppendUint64([]byte{0x81, 0xff}, 1<<63|3), 1, 2, 3, 4, 'a', 'b', 'c'), uint8(6), uint8(0))
	f.Add(append(maskedFrame(ws.OpText, true, bytes.Repeat([]byte("z"), 100), k, false), maskedFrame(ws.OpClose, true, []byte{3, 232}, k, false)...), uint8(9), uint8(0))
	f.Fuzz(func(t *testing.T, stream []byte, chunk, pace uint8) {
		const limit = 64
		// A budget of 8 frames and 256 bytes at once, a frame and 32 bytes
		// a millisecond; messages of at most 4 frames.
		lim := &wsLimits{msg: limit, fragments: 4, frameCost: 1e6, frameBurst: 8e6, byteCost: 31250 << 16, byteBurst: 8e6}
		var r wsReader
		closing := false
		on := func(op ws.OpCode, p []byte) bool {
			switch {
			case closing && op != ws.OpClose:
				panic(fmt.Sprintf("op %d handed on after a refusal", op))
			case (op == ws.OpText || op == ws.OpBinary) && len(p) > limit:
				panic(fmt.Sprintf("a %d-byte message past the limit", len(p)))
			case op == ws.OpText && !utf8.Valid(p):
				panic(fmt.Sprintf("text %q is not UTF-8", p))
			case op == ws.OpClose && !closing && checkClose(p) != nil:
				panic(fmt.Sprintf("close %x handed on", p))
			}
			return true
		}
		n := int(chunk%32) + 1
		now := int64(1)
		for len(stream) > 0 {
			c := min(n, len(stream))
			err := r.feed(stream[:c], lim, now, on)
			if err != nil && closing {
				t.Fatalf("a second refusal: %v", err)
			}
			closing = r.closing
			stream = stream[c:]
			now += int64(pace) * 1e5
			if len(r.carry) > 14+max(limit, maxControl) || len(r.msg) > limit || r.frags > lim.fragments {
				t.Fatalf("holds %d carried and %d message bytes, %d fragments", len(r.carry), len(r.msg), r.frags)
			}
		}
	})
}

// TestWSReaderSkipsRefusedFrame: after refusing a frame for its size, the
// reader drops the rest of it, however it arrives, and reads the frames
// after it — a closing socket still finds the client's close.
func TestWSReaderSkipsRefusedFrame(t *testing.T) {
	const limit = 100
	k := [4]byte{5, 6, 7, 8}
	closeFrame := maskedFrame(ws.OpClose, true, []byte{0x03, 0xe8}, k, false)
	for _, long := range []bool{false, true} {
		big := maskedFrame(ws.OpText, true, bytes.Repeat([]byte("z"), 300), k, long)
		stream := append(append([]byte(nil), big...), closeFrame...)
		for _, chunk := range []int{1, 5, 64, 1000} {
			var r wsReader
			var got []wsOut
			on := func(op ws.OpCode, p []byte) bool { got = append(got, wsOut{op, string(p)}); return true }
			refused := 0
			for s := stream; len(s) > 0; {
				n := min(chunk, len(s))
				if err := r.feed(s[:n], looseLimits(limit), 1, on); err != nil {
					refused++
					if err.code != closeTooBig {
						t.Fatalf("refused with %d", err.code)
					}
				}
				s = s[n:]
			}
			if refused != 1 || len(got) != 1 || got[0].op != ws.OpClose {
				t.Fatalf("long %v, chunks of %d: %d refusals, then %v; want one, then the close", long, chunk, refused, got)
			}
		}
	}
}

// BenchmarkWSReader reads a client's command frames as the poller does,
// arriving whole (one per read) or in one read of 16.
func BenchmarkWSReader(b *testing.B) {
	cmd := []byte(`{"type":"command","id":"01JDQ80A1B2C3D4E5F6G7H8J9K","rev":1234,"command":{"type":"flag","r":12,"c":7}}`)
	frame := maskedFrame(ws.OpText, true, cmd, [4]byte{0x12, 0x34, 0x56, 0x78}, false)
	for _, n := range []int{1, 16} {
		b.Run(fmt.Sprintf("%d per read", n), func(b *testing.B) {
			stream := bytes.Repeat(frame, n)
			buf := make([]byte, len(stream))
			var r wsReader
			lim := looseLimits(16 << 10)
			msgs := 0
			on := func(op ws.OpCode, p []byte) bool { msgs++; return true }
			b.SetBytes(int64(len(stream)))
			b.ReportAllocs()
			for b.Loop() {
				copy(buf, stream) // unmasked in place, as the loop's buffer is
				if err := r.feed(buf, lim, 1, on); err != nil {
					b.Fatal(err)
				}
			}
			if msgs != b.N*n {
				b.Fatalf("%d messages of %d", msgs, b.N*n)
			}
		})
	}
}

// TestAppendCloseUTF8: roomd's close frames hold at most 125 bytes and
// never invalid UTF-8: a long reason is cut at a character, one that is
// not UTF-8 is left out.
func TestAppendCloseUTF8(t *testing.T) {
	for _, reason := range []string{strings.Repeat("é", 100), "bad \xff reason", "fine"} {
		f := appendClose(nil, 4000, reason)
		payload := f[2:]
		if len(payload) > maxControl || int(f[1]) != len(payload) || !utf8.Valid(payload[2:]) {
			t.Fatalf("reason %q: a close frame of %d bytes, reason %q", reason, len(payload), payload[2:])
		}
		if utf8.ValidString(reason) && !strings.HasPrefix(reason, string(payload[2:])) {
			t.Fatalf("reason %q sent as %q", reason, payload[2:])
		}
	}
}
