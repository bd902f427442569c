// Package wsframe is the client's half of RFC 6455 framing, with no
// extensions: a server's frames parsed and assembled into messages, a
// client's frames masked, and the upgrade's key. roomd's own clients —
// transport/client and roomload's spectators — read and write through it
// rather than through a general WebSocket library: a message costs them a
// read system call and one copy, not a goroutine hand-off and a header read
// byte by byte (BENCHMARKS.md, "roombot's own CPU"). The server's half is
// transport's (wsread.go); both use these opcodes.
package wsframe

import (
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Opcodes (RFC 6455 §5.2).
const (
	OpContinuation = 0x0
	OpText         = 0x1
	OpBinary       = 0x2
	OpClose        = 0x8
	OpPing         = 0x9
	OpPong         = 0xa
)

// ErrFrame is a frame a server may not send.
var ErrFrame = errors.New("websocket: bad frame from the server")

// ErrTooBig is a message over the reader's limit.
var ErrTooBig = errors.New("websocket: message over the read limit")

// ParseServerFrame reads the server frame at the start of b: n is its
// length, 0 when b does not hold it whole yet. A frame whose payload is
// over limit is an error (ErrTooBig) as soon as its header says so.
func ParseServerFrame(b []byte, limit int) (op byte, fin bool, payload []byte, n int, err error) {
	if len(b) < 2 {
		return 0, false, nil, 0, nil
	}
	if b[0]&0x70 != 0 || b[1]&0x80 != 0 {
		return 0, false, nil, 0, fmt.Errorf("%w: reserved bits or a mask", ErrFrame)
	}
	op, fin = b[0]&0x0f, b[0]&0x80 != 0
	size, h := uint64(b[1]&0x7f), 2
	switch size {
	case 126:
		if len(b) < 4 {
			return 0, false, nil, 0, nil
		}
		size, h = uint64(binary.BigEndian.Uint16(b[2:])), 4
	case 127:
		if len(b) < 10 {
			return 0, false, nil, 0, nil
		}
		size, h = binary.BigEndian.Uint64(b[2:]), 10
	}
	if size > uint64(limit) {
		return 0, false, nil, 0, fmt.Errorf("%w: a frame of %d bytes (limit %d)", ErrTooBig, size, limit)
	}
	if op >= OpClose && (!fin || size > 125) {
		return 0, false, nil, 0, fmt.Errorf("%w: a control frame fragmented or over 125 bytes", ErrFrame)
	}
	if uint64(len(b)-h) < size {
		return 0, false, nil, 0, nil
	}
	return op, fin, b[h : h+int(size)], h + int(size), nil
}

// AppendClientFrame appends a whole frame with opcode op, masked with a
// fresh random key (RFC 6455 §5.3: a client masks every frame).
func AppendClientFrame(dst []byte, op byte, payload []byte) []byte {
	dst = append(dst, 0x80|op)
	switch n := len(payload); {
	case n < 126:
		dst = append(dst, 0x80|byte(n))
	case n <= 0xffff:
		dst = append(dst, 0x80|126, byte(n>>8), byte(n))
	default:
		dst = append(dst, 0x80|127)
		dst = binary.BigEndian.AppendUint64(dst, uint64(n))
	}
	var key [4]byte
	_, _ = rand.Read(key[:])
	dst = append(dst, key[:]...)
	for i, c := range payload {
		dst = append(dst, c^key[i&3])
	}
	return dst
}

// AppendClose appends a client's close frame with code and reason (see
// ClosePayload for a code that may not be sent).
func AppendClose(dst []byte, code int, reason string) []byte {
	return AppendClientFrame(dst, OpClose, ClosePayload(code, reason))
}

// ClosePayload is a close frame's payload: code, then reason (at most 123
// bytes of it, cut between characters). A code no endpoint may send (ValidCloseCode: 1005 and
// 1006 among them, which only name the absence of a code or of a close
// frame) is never put on the wire: its payload is empty, a close without
// a code.
func ClosePayload(code int, reason string) []byte {
	if !ValidCloseCode(code) {
		return []byte{}
	}
	if len(reason) > 123 {
		cut := 123
		for cut > 0 && !utf8.RuneStart(reason[cut]) {
			cut--
		}
		reason = reason[:cut]
	}
	p := binary.BigEndian.AppendUint16(make([]byte, 0, 2+len(reason)), uint16(code))
	return append(p, reason...)
}

// ValidCloseCode says whether an endpoint may send code in a close frame
// (RFC 6455 §7.4): 1000 to 1014 but for 1004 (reserved), 1005 (no code)
// and 1006 (no close frame), then 3000 to 4999. 1015 (a failed TLS
// handshake), the unassigned ranges and anything below 1000 may not.
func ValidCloseCode(code int) bool {
	switch {
	case code >= 3000 && code <= 4999:
		return true
	case code >= 1000 && code <= 1014:
		return code != 1004 && code != 1005 && code != 1006
	}
	return false
}

// CloseCode reads a close frame's payload: its status code and reason;
// 1005 (no status) for an empty one, 1002 (a protocol error) for a
// payload of one byte.
func CloseCode(payload []byte) (code int, reason string) {
	switch len(payload) {
	case 0:
		return 1005, ""
	case 1:
		return 1002, ""
	}
	return int(binary.BigEndian.Uint16(payload)), string(payload[2:])
}

// CloseReply is the code a peer's close frame is answered with (RFC 6455
// §5.5.1, §7.4): its own code when that may be sent, 1000 for a close
// without one; 1002 (protocol error) for a one-byte payload or a code no
// endpoint may send — 1005, 1006 and 1015 are never echoed —; 1007 for a
// reason that is not UTF-8.
func CloseReply(payload []byte) int {
	code, reason := CloseCode(payload)
	switch {
	case len(payload) == 0:
		return 1000
	case len(payload) == 1 || !ValidCloseCode(code):
		return 1002
	case !utf8.ValidString(reason):
		return 1007
	}
	return code
}

// DefaultLimit is a Message's Limit when none is set (transport/client's
// default ReadLimit too).
const DefaultLimit = 4 << 20

// Message assembles a server's data messages from its frames, hands its
// control frames on, and bounds a message by Limit bytes.
type Message struct {
	Limit int    // the largest message (and frame) taken; zero: DefaultLimit
	carry []byte // bytes of a frame not yet whole
	frag  []byte // a fragmented message so far
	open  bool
}

// Feed parses the frames b completes (after what was carried), handing each
// whole data message to on and each ping's payload to ping; a close frame
// ends the reading: closed is set and closing is its payload. The slices
// handed on alias b or the carry: copy what outlives the call.
func (m *Message) Feed(b []byte, on func([]byte), ping func([]byte)) (closed bool, closing []byte, err error) {
	limit := m.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	if len(m.carry) > 0 {
		m.carry = append(m.carry, b...)
		b = m.carry
	}
	for {
		op, fin, payload, n, err := ParseServerFrame(b, limit)
		if err != nil {
			return false, nil, err
		}
		if n == 0 {
			break
		}
		b = b[n:]
		switch op {
		case OpText, OpBinary, OpContinuation:
			if (op == OpContinuation) != m.open {
				return false, nil, fmt.Errorf("%w: a continuation out of place", ErrFrame)
			}
			switch {
			case fin && !m.open:
				on(payload)
			case len(m.frag)+len(payload) > limit:
				return false, nil, fmt.Errorf("%w: a message over %d bytes", ErrTooBig, limit)
			default:
				m.frag, m.open = append(m.frag, payload...), !fin
				if fin {
					on(m.frag)
					m.frag = keep(m.frag)
				}
			}
		case OpPing:
			ping(payload)
		case OpPong:
		case OpClose:
			return true, payload, nil
		default:
			return false, nil, fmt.Errorf("%w: opcode %d", ErrFrame, op)
		}
	}
	// What is left is a frame begun: keep it (copied, unless it is the
	// carry itself).
	if len(b) == 0 {
		m.carry = keep(m.carry)
	} else if len(m.carry) == 0 || &b[0] != &m.carry[0] {
		m.carry = append(m.carry[:0], b...)
	} else {
		m.carry = m.carry[:len(b)]
	}
	return false, nil, nil
}

// keep empties a buffer for the next message, or lets it go when a large
// message grew it: a socket does not hold its largest message's size for
// good.
func keep(b []byte) []byte {
	if cap(b) > 64<<10 {
		return nil
	}
	return b[:0]
}

// Key returns a fresh Sec-WebSocket-Key.
func Key() string {
	var k [16]byte
	_, _ = rand.Read(k[:])
	return base64.StdEncoding.EncodeToString(k[:])
}

// Accept returns the Sec-WebSocket-Accept a server answers key with.
func Accept(key string) string {
	sum := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	return base64.StdEncoding.EncodeToString(sum[:])
}
