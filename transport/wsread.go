package transport

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"unicode/utf8"

	"github.com/roomd/roomd/internal/wsframe"
)

// Close codes the frame reader answers with (RFC 6455 §7.4.1).
const (
	closeProtocolError = 1002
	closeInvalidData   = 1007
	closeTooBig        = 1009
	closeFlood         = 4029 // protocol.CloseRateLimited: past the frame budget
)

// closeNoStatus is a close frame without a code (RFC 6455 §7.4.1).
const closeNoStatus = 1005

// validCloseCode says whether a peer may send code (RFC 6455 §7.4).
func validCloseCode(code int) bool {
	switch {
	case code >= 3000 && code <= 4999:
		return true
	case code >= 1000 && code <= 1014:
		return code != 1004 && code != 1005 && code != 1006
	}
	return false
}

// maxControl is the largest control frame payload (RFC 6455 §5.5).
const maxControl = 125

// wsError is a frame the reader refuses: the connection closes with code
// and reason (ASCII, at most what a close frame holds).
type wsError struct {
	code   int
	reason string
}

func (e *wsError) Error() string { return fmt.Sprintf("websocket %d: %s", e.code, e.reason) }

// wsReader reads a client's frames from bytes as they arrive (a server's
// half of RFC 6455 §5, without extensions: roomd negotiates none), for
// every socket of the server: on the socket's own goroutine before its
// hello (and for its whole life with Config.SocketGoroutines, TLS or
// outside Linux), then on a poller. It keeps only what it must between
// reads: the bytes of a frame that has not arrived whole (at most one
// frame: its length is checked against the limit from its header), and a
// fragmented message's payload so far.
//
// Every frame counts against the socket's budget (budget.go), and a
// message has at most 64 frames; past either, 4029. What RFC 6455 forbids
// closes with 1002, a message past the size limit with 1009, a text
// message or a close reason that is not UTF-8 with 1007.
//
// After a refusal the reader is closing: it hands on nothing but a close
// frame (the client's answer to the server's), charges nothing, and counts
// in drained what it is given, for its caller to cut the socket past
// refuseRead. A frame refused for what its header says (its size, its
// message's frames) is skipped whole, so that the client's close after it
// is found; a stream whose header broke the protocol cannot be read on and
// is dropped whole (broken).
type wsReader struct {
	carry  []byte // a frame begun but not yet whole
	msg    []byte // a fragmented message's payload so far
	op     byte   // its opcode; 0 when no message is open
	frags  int    // the open message's frames so far
	skip   uint64 // what is left of a frame being skipped
	budget frameBudget

	closing bool
	broken  bool
	drained int64 // bytes given since the refusal

	// left is feed's input after the frame at which on stopped the
	// reading (nil when on did not stop it).
	left []byte
}

// refuseRead is the most a socket is read past a refusal (looking for the
// client's close) before it is closed.
const refuseRead = 64 << 10

// frameOut is what feed hands on: a whole data message (wsframe.OpText,
// wsframe.OpBinary) or a control frame. payload is valid until on returns.
type frameOut func(op byte, payload []byte) (more bool)

// feed reads the frames p completes, handing each message and control
// frame to on, which stops the reading by returning false (what p holds
// past that frame is then in r.left). It returns the refusal that made the
// reader closing, in the call that made it so; nil otherwise. now is the
// server's monotonic clock, for the budget.
func (r *wsReader) feed(p []byte, lim *wsLimits, now int64, on frameOut) *wsError {
	r.left = nil
	if r.closing {
		r.drained += int64(len(p))
	}
	var refused *wsError
	for !r.broken {
		rest, stopped, err := r.feedFrames(p, lim, now, on)
		switch {
		case stopped:
			r.left = rest
			return refused
		case err == nil:
			return refused
		case !r.closing:
			r.closing, refused = true, err
			r.carry, r.msg, r.op, r.frags = nil, nil, 0, 0
			r.drained += int64(len(rest))
		}
		p = rest
	}
	return refused
}

// feedFrames reads the frames p completes; it returns what is left of p
// after a refusal or a stop.
func (r *wsReader) feedFrames(p []byte, lim *wsLimits, now int64, on frameOut) (rest []byte, stopped bool, err *wsError) {
	if r.skip > 0 {
		n := min(r.skip, uint64(len(p)))
		r.skip -= n
		p = p[n:]
	}
	for {
		var frame []byte
		if len(r.carry) > 0 {
			// Complete the carried frame with as few of p's bytes as it
			// needs: first its header, then its payload.
			for {
				size, err := r.frameSize(r.carry, lim)
				if err != nil {
					return r.refuse(err, r.carry, p)
				}
				want := size
				if size < 0 {
					want = -size // the header's bytes
				}
				take := min(want-len(r.carry), len(p))
				r.carry = append(r.carry, p[:take]...)
				p = p[take:]
				if len(r.carry) < want {
					return nil, false, nil // wait for more
				}
				if size > 0 {
					break
				}
			}
			frame = r.carry
		} else {
			if len(p) == 0 {
				return nil, false, nil
			}
			size, err := r.frameSize(p, lim)
			if err != nil {
				return r.refuse(err, p, nil)
			}
			if size < 0 || size > len(p) {
				r.carry = append(r.carry[:0], p...)
				return nil, false, nil
			}
			frame, p = p[:size], p[size:]
		}
		more, err := r.frame(frame, lim, now, on)
		if len(r.carry) > 0 {
			r.carry = release(r.carry)
		}
		if err != nil || !more {
			return p, !more && err == nil, err
		}
	}
}

// refuse ends the reading with err, a refusal of the frame whose header
// starts b. A protocol error breaks the stream. A frame refused for what
// its header says is skipped whole — what b and then p hold of it first
// (p is nil when b is the input) — and what follows it returned.
func (r *wsReader) refuse(err *wsError, b, p []byte) ([]byte, bool, *wsError) {
	r.carry = nil
	if err.code == closeProtocolError {
		r.broken = true
		return nil, false, err
	}
	size := frameLen(b)
	if p == nil && uint64(len(b)) >= size {
		return b[size:], false, err
	}
	r.skip = size - uint64(len(b))
	n := min(r.skip, uint64(len(p)))
	r.skip -= n
	return p[n:], false, err
}

// frameLen is the whole size of the frame whose whole header b holds.
func frameLen(b []byte) uint64 {
	switch b[1] & 0x7f {
	case 126:
		return 2 + 2 + 4 + uint64(binary.BigEndian.Uint16(b[2:]))
	case 127:
		return 2 + 8 + 4 + min(binary.BigEndian.Uint64(b[2:]), 1<<62)
	}
	return 2 + 4 + uint64(b[1]&0x7f)
}

// release empties a buffer, keeping a small one for the next use.
func release(b []byte) []byte {
	if cap(b) > 1<<10 {
		return nil
	}
	return b[:0]
}

// frameSize checks the header at the start of b and returns the frame's
// whole size, or minus the header's size when b does not hold all of it.
func (r *wsReader) frameSize(b []byte, lim *wsLimits) (int, *wsError) {
	if len(b) < 2 {
		return -2, nil
	}
	b0, b1 := b[0], b[1]
	fin, op := b0&0x80 != 0, b0&0x0f
	if b0&0x70 != 0 {
		return 0, &wsError{closeProtocolError, fmt.Sprintf("received header with unexpected rsv bits set: %#x", b0&0x70)}
	}
	if b1&0x80 == 0 {
		return 0, &wsError{closeProtocolError, "received unmasked frame from client"}
	}
	hlen := 2 + 4
	switch b1 & 0x7f {
	case 126:
		hlen += 2
	case 127:
		hlen += 8
	}
	if len(b) < hlen {
		return -hlen, nil
	}
	var n uint64
	switch b1 & 0x7f {
	case 126:
		n = uint64(binary.BigEndian.Uint16(b[2:]))
	case 127:
		n = binary.BigEndian.Uint64(b[2:])
		if n>>63 != 0 {
			return 0, &wsError{closeProtocolError, "received 64-bit payload length with its most significant bit set"}
		}
	default:
		n = uint64(b1 & 0x7f)
	}
	switch op {
	case wsframe.OpClose, wsframe.OpPing, wsframe.OpPong:
		if n > maxControl {
			return 0, &wsError{closeProtocolError, fmt.Sprintf("received control frame payload with invalid length: %d", n)}
		}
		if !fin {
			return 0, &wsError{closeProtocolError, "received fragmented control frame"}
		}
	case wsframe.OpContinuation:
		if r.op == 0 {
			return 0, &wsError{closeProtocolError, "received continuation frame without text or binary frame"}
		}
		if r.frags >= lim.fragments && !r.closing {
			return 0, &wsError{closeFlood, fmt.Sprintf("message in more than %d frames", lim.fragments)}
		}
		fallthrough
	case wsframe.OpText, wsframe.OpBinary:
		if op != wsframe.OpContinuation && r.op != 0 {
			return 0, &wsError{closeProtocolError, "received new data message without finishing the previous message"}
		}
		if n > uint64(lim.msg) || uint64(len(r.msg))+n > uint64(lim.msg) {
			return 0, &wsError{closeTooBig, fmt.Sprintf("read limited at %d bytes", lim.msg)}
		}
	default:
		return 0, &wsError{closeProtocolError, fmt.Sprintf("received unknown opcode %d", op)}
	}
	return hlen + int(n), nil
}

// frame unmasks a whole frame in place and hands it on: a control frame at
// once, a data frame once its message is whole. While closing, only a
// close frame is handed on, whatever it holds.
func (r *wsReader) frame(b []byte, lim *wsLimits, now int64, on frameOut) (bool, *wsError) {
	fin, op := b[0]&0x80 != 0, b[0]&0x0f
	hlen := 2
	switch b[1] & 0x7f {
	case 126:
		hlen += 2
	case 127:
		hlen += 8
	}
	key := binary.LittleEndian.Uint32(b[hlen:])
	payload := b[hlen+4:]
	if r.closing {
		switch {
		case op == wsframe.OpClose:
			unmask(payload, key)
			return on(op, payload), nil
		case op == wsframe.OpContinuation && fin:
			r.op = 0
		case op == wsframe.OpText || op == wsframe.OpBinary:
			r.op = op
			if fin {
				r.op = 0
			}
		}
		return true, nil // dropped
	}
	if ok, what := r.budget.take(lim, now, len(b)); !ok {
		return false, &wsError{closeFlood, "too many " + what + "; slow down"}
	}
	unmask(payload, key)
	switch {
	case op == wsframe.OpClose:
		if err := checkClose(payload); err != nil {
			return false, err
		}
		return on(op, payload), nil
	case op >= wsframe.OpClose:
		return on(op, payload), nil
	case op != wsframe.OpContinuation && fin:
		if op == wsframe.OpText && !utf8.Valid(payload) {
			return false, errNotUTF8
		}
		return on(op, payload), nil
	case op != wsframe.OpContinuation:
		r.op, r.msg, r.frags = op, append(r.msg[:0], payload...), 1
		return true, nil
	}
	r.msg = append(r.msg, payload...)
	r.frags++
	if !fin {
		return true, nil
	}
	op, msg := r.op, r.msg
	r.op, r.msg, r.frags = 0, release(r.msg), 0
	if op == wsframe.OpText && !utf8.Valid(msg) {
		return false, errNotUTF8
	}
	return on(op, msg), nil
}

var errNotUTF8 = &wsError{closeInvalidData, "received text message that is not UTF-8"}

// checkClose checks a client's close frame's payload (RFC 6455 §5.5.1,
// §7.4): none, or a code a peer may send and a UTF-8 reason.
func checkClose(p []byte) *wsError {
	switch {
	case len(p) == 0:
		return nil
	case len(p) == 1:
		return &wsError{closeProtocolError, "received invalid close payload: one byte"}
	case !validCloseCode(int(binary.BigEndian.Uint16(p))):
		return &wsError{closeProtocolError, fmt.Sprintf("received invalid close code %d", binary.BigEndian.Uint16(p))}
	case !utf8.Valid(p[2:]):
		return &wsError{closeInvalidData, "received close reason that is not UTF-8"}
	}
	return nil
}

// closeCode is the code of a close frame's payload checkClose accepted:
// closeNoStatus when it has none.
func closeCode(p []byte) int {
	if len(p) < 2 {
		return closeNoStatus
	}
	return int(binary.BigEndian.Uint16(p))
}

// unmask XORs b with the client's masking key (RFC 6455 §5.3), read as a
// little-endian word, eight bytes at a time.
func unmask(b []byte, key uint32) {
	if len(b) >= 8 {
		k := uint64(key)<<32 | uint64(key)
		for len(b) >= 8 {
			binary.LittleEndian.PutUint64(b, binary.LittleEndian.Uint64(b)^k)
			b = b[8:]
		}
	}
	for i := range b {
		b[i] ^= byte(key)
		key = bits.RotateLeft32(key, -8)
	}
}

// appendControl appends a server's control frame (unmasked) with payload
// p, at most maxControl bytes.
func appendControl(b []byte, op byte, p []byte) []byte {
	return append(append(b, 0x80|op, byte(len(p))), p...)
}

// appendClose appends a server's close frame with code and reason: the
// reason cut to what a control frame holds, at a character's boundary, and
// left out when it is not UTF-8 (roomd never sends invalid UTF-8).
func appendClose(b []byte, code int, reason string) []byte {
	if !utf8.ValidString(reason) {
		reason = ""
	}
	for len(reason) > maxControl-2 {
		_, n := utf8.DecodeLastRuneInString(reason)
		reason = reason[:len(reason)-n]
	}
	b = append(b, 0x80|wsframe.OpClose, byte(2+len(reason)))
	b = binary.BigEndian.AppendUint16(b, uint16(code))
	return append(b, reason...)
}
