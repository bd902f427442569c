package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"pgregory.net/rapid"
)

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

// TestMessageFeed: messages sent whole or in fragments, with pings between
// them, arrive whole and in order however the bytes are cut, and every
// ping is answered with its payload.
func TestMessageFeed(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var stream []byte
		var want, wantPongs [][]byte
		for i := range rapid.IntRange(1, 8).Draw(t, "messages") {
			msg := rapid.SliceOfN(rapid.Byte(), 0, 70_000).Draw(t, "message")
			want = append(want, msg)
			parts := rapid.IntRange(1, 3).Draw(t, "fragments")
			for k := range parts {
				op := byte(opText)
				if k > 0 {
					op = opContinuation
				}
				lo, hi := len(msg)*k/parts, len(msg)*(k+1)/parts
				stream = append(stream, serverFrame(op, k == parts-1, msg[lo:hi])...)
				if rapid.Bool().Draw(t, "ping") {
					ping := []byte{byte(i), byte(k)}
					wantPongs = append(wantPongs, ping)
					stream = append(stream, serverFrame(opPing, true, ping)...)
				}
			}
		}
		var m message
		var got, pongs [][]byte
		for len(stream) > 0 {
			n := min(len(stream), rapid.IntRange(1, 9000).Draw(t, "chunk"))
			chunk := append([]byte(nil), stream[:n]...) // the caller's buffer is reused
			stream = stream[n:]
			closed, err := m.feed(chunk, func(b []byte) { got = append(got, bytes.Clone(b)) },
				func(p []byte) { pongs = append(pongs, bytes.Clone(p)) })
			if err != nil || closed {
				t.Fatalf("feed: closed %v, %v", closed, err)
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
		if len(pongs) != len(wantPongs) {
			t.Fatalf("%d pongs, want %d", len(pongs), len(wantPongs))
		}
		if len(m.carry) != 0 {
			t.Fatalf("%d bytes carried after the last frame", len(m.carry))
		}
	})
}

// TestMessageFeedRefuses: frames the server never sends are errors, a close
// ends the reading.
func TestMessageFeedRefuses(t *testing.T) {
	huge := []byte{0x81, 127}
	huge = binary.BigEndian.AppendUint64(huge, maxFrame+1)
	for name, b := range map[string][]byte{
		"masked":               {0x81, 0x81, 1, 2, 3, 4, 'x'},
		"reserved bits":        {0xc1, 0},
		"too big":              huge,
		"fragmented ping":      {0x09, 0},
		"stray continuation":   serverFrame(opContinuation, true, []byte("x")),
		"text inside fragment": append(serverFrame(opText, false, []byte("a")), serverFrame(opText, true, []byte("b"))...),
		"unknown opcode":       serverFrame(0x3, true, nil),
	} {
		var m message
		_, err := m.feed(b, func([]byte) {}, func([]byte) {})
		if !errors.Is(err, errFrame) {
			t.Errorf("%s: %v, want a bad frame", name, err)
		}
	}
	var m message
	if closed, err := m.feed(serverFrame(opClose, true, []byte{3, 232}), func([]byte) {}, func([]byte) {}); !closed || err != nil {
		t.Errorf("close: closed %v, %v", closed, err)
	}
}

// TestClientFrameMasked: a client frame unmasks to its payload, at each
// length form.
func TestClientFrameMasked(t *testing.T) {
	for _, n := range []int{0, 125, 126, 65535, 65536} {
		payload := bytes.Repeat([]byte{'z'}, n)
		f := appendClientFrame(nil, opText, payload)
		if f[0] != 0x81 || f[1]&0x80 == 0 {
			t.Fatalf("%d bytes: header % x", n, f[:2])
		}
		// The same frame unmasked is a server frame.
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
}
