package transport

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/roomd/roomd/internal/wsframe"
)

// Close codes the frame reader answers with (RFC 6455 §7.4.1).
const (
	closeProtocolError = 1002
	closeInvalidData   = 1007
	closeTooBig        = 1009
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
// and reason.
type wsError struct {
	code   int
	reason string
}

func (e *wsError) Error() string { return fmt.Sprintf("websocket %d: %s", e.code, e.reason) }

// wsReader reads a client's frames from bytes as they arrive (a server's
// half of RFC 6455 §5, without extensions: roomd negotiates none), for a
// socket read by the poller rather than by a goroutine of its own. It
// keeps only what it must between reads: the bytes of a frame that has not
// arrived whole (at most one frame: its length is checked against the limit
// from its header), and a fragmented message's payload so far. It mirrors
// coder/websocket's reader, which the socket's hello went through: the same
// limit (1009 past it), the same refusals (1002).
type wsReader struct {
	carry []byte // a frame begun but not yet whole
	msg   []byte // a fragmented message's payload so far
	op    byte   // its opcode; 0 when no message is open
	// skip is what is left of a frame refused for its size: dropped
	// before the next frame, so that a closing socket still finds the
	// client's close frame. After that refusal (refused), data messages
	// are dropped too: only control frames are handed on.
	skip    uint64
	refused bool
	rest    []byte // feedFrames' input past a frame refused for its size
}

// frameOut is what feed hands on: a whole data message (wsframe.OpText, wsframe.OpBinary)
// or a control frame. payload is valid until on returns.
type frameOut func(op byte, payload []byte) (more bool)

// feed reads the frames p completes, handing each message and control
// frame to on, which stops the reading by returning false. A refused frame
// ends the reading with its error — but one refused for its size (1009),
// which is skipped: the frames after it are read on, and the error
// returned at the end.
func (r *wsReader) feed(p []byte, limit int64, on frameOut) *wsError {
	var tooBig *wsError
	for {
		if err := r.feedFrames(p, limit, on); err == nil || err.code != closeTooBig {
			if err == nil {
				err = tooBig
			}
			return err
		} else {
			tooBig, p = err, r.rest
			r.rest = nil
		}
	}
}

func (r *wsReader) feedFrames(p []byte, limit int64, on frameOut) *wsError {
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
				size, err := r.frameSize(r.carry, limit)
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
					return nil // wait for more
				}
				if size > 0 {
					break
				}
			}
			frame = r.carry
		} else {
			if len(p) == 0 {
				return nil
			}
			size, err := r.frameSize(p, limit)
			if err != nil {
				return r.refuse(err, p, nil)
			}
			if size < 0 || size > len(p) {
				r.carry = append(r.carry[:0], p...)
				return nil
			}
			frame, p = p[:size], p[size:]
		}
		more, err := r.frame(frame, on)
		if len(r.carry) > 0 {
			r.carry = release(r.carry)
		}
		if err != nil || !more {
			return err
		}
	}
}

// refuse ends the reading with err. A frame refused for its size is
// skipped whole, what b and then p hold of it first; what p holds past it
// is kept in rest, for feed to read on.
func (r *wsReader) refuse(err *wsError, b, p []byte) *wsError {
	if err.code == closeTooBig {
		size := r.frameLen(b)
		if uint64(len(b)) >= size {
			r.rest = b[size:] // p is empty: b is the input
		} else {
			r.skip = size - uint64(len(b))
			n := min(r.skip, uint64(len(p)))
			r.skip -= n
			r.rest = p[n:]
		}
		r.refused = true
	}
	r.carry, r.msg, r.op = nil, nil, 0
	return err
}

// frameLen is the whole size of the frame whose whole header b holds.
func (r *wsReader) frameLen(b []byte) uint64 {
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
func (r *wsReader) frameSize(b []byte, limit int64) (int, *wsError) {
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
		fallthrough
	case wsframe.OpText, wsframe.OpBinary:
		if op != wsframe.OpContinuation && r.op != 0 {
			return 0, &wsError{closeProtocolError, "received new data message without finishing the previous message"}
		}
		if n > uint64(limit) || uint64(len(r.msg))+n > uint64(limit) {
			return 0, &wsError{closeTooBig, fmt.Sprintf("read limited at %d bytes", limit)}
		}
	default:
		return 0, &wsError{closeProtocolError, fmt.Sprintf("received unknown opcode %d", op)}
	}
	return hlen + int(n), nil
}

// frame unmasks a whole frame in place and hands it on: a control frame at
// once, a data frame once its message is whole.
func (r *wsReader) frame(b []byte, on frameOut) (bool, *wsError) {
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
	unmask(payload, key)
	switch {
	case op >= wsframe.OpClose:
		return on(op, payload), nil
	case r.refused:
		return true, nil // closing: data is dropped
	case op != wsframe.OpContinuation && fin:
		return on(op, payload), nil
	case op != wsframe.OpContinuation:
		r.op, r.msg = op, append(r.msg[:0], payload...)
		return true, nil
	}
	r.msg = append(r.msg, payload...)
	if !fin {
		return true, nil
	}
	op, msg := r.op, r.msg
	r.op, r.msg = 0, release(r.msg)
	return on(op, msg), nil
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

// appendClose appends a server's close frame with code and reason (cut to
// what a control frame holds).
func appendClose(b []byte, code int, reason string) []byte {
	if len(reason) > maxControl-2 {
		reason = reason[:maxControl-2]
	}
	b = append(b, 0x80|wsframe.OpClose, byte(2+len(reason)))
	b = binary.BigEndian.AppendUint16(b, uint16(code))
	return append(b, reason...)
}
