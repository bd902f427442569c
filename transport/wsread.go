package transport

import (
	"encoding/binary"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/gobwas/ws"
	"github.com/roomd/roomd/protocol"
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

// maxControl is the largest control frame payload (RFC 6455 §5.5).
const maxControl = ws.MaxControlFramePayloadSize

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
//
// The RFC's part is gobwas/ws's (ReadHeader over the bytes at hand,
// CheckHeader, Cipher to unmask); the limits, the budget and the close
// codes are roomd's.
type wsReader struct {
	carry  []byte    // a frame begun but not yet whole
	msg    []byte    // a fragmented message's payload so far
	op     ws.OpCode // its opcode; 0 when no message is open
	frags  int       // the open message's frames so far
	skip   uint64    // what is left of a frame being skipped
	budget frameBudget

	closing bool
	broken  bool
	drained int64 // bytes given since the refusal

	// left is feed's input after the frame at which on stopped the
	// reading (nil when on did not stop it).
	left []byte

	in   joined                     // header's input
	hbuf [ws.MaxHeaderSize - 2]byte // header's buffer
}

// refuseRead is the most a socket is read past a refusal (looking for the
// client's close) before it is closed.
const refuseRead = 64 << 10

// frameOut is what feed hands on: a whole data message (ws.OpText,
// ws.OpBinary) or a control frame. payload is valid until on returns.
type frameOut func(op ws.OpCode, payload []byte) (more bool)

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
	for len(r.carry)+len(p) > 0 {
		h, hlen, err := r.header(p)
		if err != nil {
			if err == errShortHeader {
				r.carry = append(r.carry, p...) // less than a header: a few bytes
				return nil, false, nil
			}
			return r.refuse(err, 0, p)
		}
		size := uint64(hlen) + uint64(h.Length)
		if err := r.check(h, lim); err != nil {
			return r.refuse(err, size, p)
		}
		// The frame is within the limits: size is small.
		var frame []byte
		if len(r.carry) > 0 {
			// Complete the carried frame with as few of p's bytes as it
			// needs.
			take := min(int(size)-len(r.carry), len(p))
			r.carry = append(r.carry, p[:take]...)
			p = p[take:]
			if len(r.carry) < int(size) {
				return nil, false, nil // wait for more
			}
			frame = r.carry
		} else {
			if size > uint64(len(p)) {
				r.carry = append(r.carry[:0], p...)
				return nil, false, nil
			}
			frame, p = p[:size], p[size:]
		}
		more, err := r.frame(h, frame[hlen:], len(frame), lim, now, on)
		if len(r.carry) > 0 {
			r.carry = release(r.carry)
		}
		if err != nil || !more {
			return p, !more && err == nil, err
		}
	}
	return nil, false, nil
}

// errShortHeader is header's answer when the bytes so far do not hold a
// whole header.
var errShortHeader = &wsError{closeProtocolError, "short header"}

// header reads the header of the frame that starts at r.carry and goes on
// in p (gobwas/ws's reader, over the bytes at hand), and its size:
// errShortHeader when they do not hold all of it.
func (r *wsReader) header(p []byte) (ws.Header, int, *wsError) {
	r.in = joined{r.carry, p}
	h, err := ws.ReadHeaderBuffer(&r.in, r.hbuf[:0])
	left := r.in.len()
	r.in = joined{}
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return h, 0, errShortHeader
	case err != nil:
		return h, 0, &wsError{closeProtocolError, err.Error()}
	}
	return h, len(r.carry) + len(p) - left, nil
}

// joined reads a then b: the carried bytes, then the new ones.
type joined struct{ a, b []byte }

func (j *joined) Read(p []byte) (int, error) {
	if len(j.a) == 0 && len(j.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, j.a)
	j.a = j.a[n:]
	m := copy(p[n:], j.b)
	j.b = j.b[m:]
	return n + m, nil
}

func (j *joined) len() int { return len(j.a) + len(j.b) }

// check applies RFC 6455 (gobwas/ws's CheckHeader: a server's side,
// without extensions) and roomd's limits to a frame's header: the
// message size limit, and the frames of a message.
func (r *wsReader) check(h ws.Header, lim *wsLimits) *wsError {
	state := ws.StateServerSide
	if r.op != 0 {
		state = state.Set(ws.StateFragmented)
	}
	if err := ws.CheckHeader(h, state); err != nil {
		return &wsError{closeProtocolError, err.Error()}
	}
	if h.OpCode.IsControl() {
		return nil
	}
	if h.OpCode == ws.OpContinuation && r.frags >= lim.fragments && !r.closing {
		return &wsError{closeFlood, fmt.Sprintf("message in more than %d frames", lim.fragments)}
	}
	if n := uint64(h.Length); n > uint64(lim.msg) || uint64(len(r.msg))+n > uint64(lim.msg) {
		return &wsError{closeTooBig, fmt.Sprintf("read limited at %d bytes", lim.msg)}
	}
	return nil
}

// refuse ends the reading with err, a refusal of the frame of size bytes
// that starts at r.carry and goes on in p. A protocol error breaks the
// stream. A frame refused for what its header says is skipped whole, and
// what follows it returned.
func (r *wsReader) refuse(err *wsError, size uint64, p []byte) ([]byte, bool, *wsError) {
	carried := uint64(len(r.carry))
	r.carry = nil
	if err.code == closeProtocolError {
		r.broken = true
		return nil, false, err
	}
	if carried+uint64(len(p)) >= size {
		return p[size-carried:], false, err
	}
	r.skip = size - carried - uint64(len(p))
	return nil, false, err
}

// release empties a buffer, keeping a small one for the next use.
func release(b []byte) []byte {
	if cap(b) > 1<<10 {
		return nil
	}
	return b[:0]
}

// frame unmasks a whole frame's payload in place and hands it on: a
// control frame at once, a data frame once its message is whole. While
// closing, only a close frame is handed on, whatever it holds. size is
// the whole frame's, for the budget.
func (r *wsReader) frame(h ws.Header, payload []byte, size int, lim *wsLimits, now int64, on frameOut) (bool, *wsError) {
	fin, op := h.Fin, h.OpCode
	if r.closing {
		switch {
		case op == ws.OpClose:
			ws.Cipher(payload, h.Mask, 0)
			return on(op, payload), nil
		case op == ws.OpContinuation && fin:
			r.op = 0
		case op == ws.OpText || op == ws.OpBinary:
			r.op = op
			if fin {
				r.op = 0
			}
		}
		return true, nil // dropped
	}
	if ok, what := r.budget.take(lim, now, size); !ok {
		return false, &wsError{closeFlood, "too many " + what + "; slow down"}
	}
	ws.Cipher(payload, h.Mask, 0)
	switch {
	case op == ws.OpClose:
		if err := checkClose(payload); err != nil {
			return false, err
		}
		return on(op, payload), nil
	case op.IsControl():
		return on(op, payload), nil
	case op != ws.OpContinuation && fin:
		if op == ws.OpText && !utf8.Valid(payload) {
			return false, errNotUTF8
		}
		return on(op, payload), nil
	case op != ws.OpContinuation:
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
	if op == ws.OpText && !utf8.Valid(msg) {
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
	case !protocol.ValidCloseCode(int(binary.BigEndian.Uint16(p))):
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

// appendHeader appends the header of a server's final frame of n bytes:
// no mask, no compression (roomd's sockets negotiate none), as gobwas/ws
// writes it.
func appendHeader(b []byte, op ws.OpCode, n int) []byte {
	w := headerWriters.Get().(*headerWriter)
	w.b = b
	_ = ws.WriteHeaderBuffer(w, ws.Header{Fin: true, OpCode: op, Length: int64(n)}, w.buf[:])
	b, w.b = w.b, nil
	headerWriters.Put(w)
	return b
}

// headerWriter is the io.Writer gobwas/ws writes a header to: it appends
// to b. They are pooled: one made for each header would be an allocation
// per frame written.
type headerWriter struct {
	b   []byte
	buf [ws.MaxHeaderSize]byte
}

var headerWriters = sync.Pool{New: func() any { return new(headerWriter) }}

func (w *headerWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// appendControl appends a server's control frame with payload p, at most
// maxControl bytes.
func appendControl(b []byte, op ws.OpCode, p []byte) []byte {
	return append(appendHeader(b, op, len(p)), p...)
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
	b = appendHeader(b, ws.OpClose, 2+len(reason))
	b = binary.BigEndian.AppendUint16(b, uint16(code))
	return append(b, reason...)
}
