package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/http"
	neturl "net/url"
	"time"
)

// A spectator's socket without coder/websocket: roomload's own upgrade and
// RFC 6455 frames (a client's half, no extensions), so that once the
// spectator is in its room one epoll loop reads every spectator (watch
// poller, Linux) — a burst of one move's deliveries to thousands of
// spectators then costs the tool a read system call each, not a goroutine
// woken, a header read byte by byte and a second read that finds nothing.
// The tool's own cost is part of every latency it measures.

// maxFrame bounds a server frame's payload, as the coder/websocket path's
// read limit does.
const maxFrame = 4 << 20

// WebSocket opcodes (RFC 6455 §5.2).
const (
	opContinuation = 0x0
	opText         = 0x1
	opBinary       = 0x2
	opClose        = 0x8
	opPing         = 0x9
	opPong         = 0xa
)

var errFrame = errors.New("websocket: bad frame from the server")

// parseFrame reads the server frame at the start of b: n is its length, 0
// when b does not hold it whole yet.
func parseFrame(b []byte) (op byte, fin bool, payload []byte, n int, err error) {
	if len(b) < 2 {
		return 0, false, nil, 0, nil
	}
	if b[0]&0x70 != 0 || b[1]&0x80 != 0 {
		return 0, false, nil, 0, fmt.Errorf("%w: reserved bits or a mask", errFrame)
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
	if size > maxFrame {
		return 0, false, nil, 0, fmt.Errorf("%w: a frame of %d bytes", errFrame, size)
	}
	if op >= opClose && (!fin || size > 125) {
		return 0, false, nil, 0, fmt.Errorf("%w: a control frame fragmented or over 125 bytes", errFrame)
	}
	if uint64(len(b)-h) < size {
		return 0, false, nil, 0, nil
	}
	return op, fin, b[h : h+int(size)], h + int(size), nil
}

// appendClientFrame appends a whole masked frame (RFC 6455 §5.3: a client
// masks every frame) with opcode op.
func appendClientFrame(dst []byte, op byte, payload []byte) []byte {
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

// message assembles a server's data messages from its frames and answers
// its control frames.
type message struct {
	carry []byte // bytes of a frame not yet whole
	frag  []byte // a fragmented message so far
	open  bool
}

// feed parses the frames b completes (after what was carried), handing
// each whole data message to on; a ping is answered through pong, a close
// ends the reading with closed set. The messages alias b or the carry.
func (m *message) feed(b []byte, on func([]byte), pong func([]byte)) (closed bool, err error) {
	if len(m.carry) > 0 {
		m.carry = append(m.carry, b...)
		b = m.carry
	}
	for {
		op, fin, payload, n, err := parseFrame(b)
		if err != nil {
			return false, err
		}
		if n == 0 {
			break
		}
		b = b[n:]
		switch op {
		case opText, opBinary, opContinuation:
			if (op == opContinuation) != m.open {
				return false, fmt.Errorf("%w: a continuation out of place", errFrame)
			}
			switch {
			case fin && !m.open:
				on(payload)
			case len(m.frag)+len(payload) > maxFrame:
				return false, fmt.Errorf("%w: a message over %d bytes", errFrame, maxFrame)
			default:
				m.frag, m.open = append(m.frag, payload...), !fin
				if fin {
					on(m.frag)
					m.frag = m.frag[:0]
				}
			}
		case opPing:
			pong(payload)
		case opPong:
		case opClose:
			return true, nil
		default:
			return false, fmt.Errorf("%w: opcode %d", errFrame, op)
		}
	}
	// What is left is a frame begun: keep it (copied, unless it is the
	// carry itself).
	if len(b) == 0 {
		m.carry = m.carry[:0]
	} else if len(m.carry) == 0 || &b[0] != &m.carry[0] {
		m.carry = append(m.carry[:0], b...)
	} else {
		m.carry = m.carry[:len(b)]
	}
	return false, nil
}

// rawSocket is a spectator's socket while it is set up: a TCP connection
// after roomload's own upgrade, read with blocking reads.
type rawSocket struct {
	conn net.Conn
	rest []byte // read but not yet parsed
	msg  message
	out  [][]byte // messages parsed but not yet taken
	buf  []byte
}

// dialRaw opens wsURL's socket on a bare TCP connection.
func dialRaw(ctx context.Context, wsURL, origin string) (*rawSocket, error) {
	u, err := neturl.Parse(wsURL)
	if err != nil || u.Scheme != "ws" {
		return nil, fmt.Errorf("a ws:// URL, not %q", wsURL)
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	var key [16]byte
	_, _ = rand.Read(key[:])
	k := base64.StdEncoding.EncodeToString(key[:])
	req := "GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: " + k + "\r\nSec-WebSocket-Version: 13\r\nOrigin: " + origin + "\r\n\r\n"
	if _, err := conn.Write([]byte(req)); err != nil {
		conn.Close()
		return nil, err
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		conn.Close()
		return nil, err
	}
	resp.Body.Close()
	sum := sha1.Sum([]byte(k + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("Sec-WebSocket-Accept") != base64.StdEncoding.EncodeToString(sum[:]) {
		conn.Close()
		return nil, fmt.Errorf("the upgrade was answered %s", resp.Status)
	}
	s := &rawSocket{conn: conn, buf: make([]byte, 64<<10)}
	if n := br.Buffered(); n > 0 {
		b, _ := br.Peek(n)
		s.rest = append(s.rest, b...)
	}
	return s, nil
}

// write sends one text message.
func (s *rawSocket) write(ctx context.Context, payload []byte) error {
	if dl, ok := ctx.Deadline(); ok {
		_ = s.conn.SetWriteDeadline(dl)
	}
	_, err := s.conn.Write(appendClientFrame(nil, opText, payload))
	return err
}

// read returns the next data message (the caller's own copy).
func (s *rawSocket) read(ctx context.Context) ([]byte, error) {
	if dl, ok := ctx.Deadline(); ok {
		_ = s.conn.SetReadDeadline(dl)
	} else {
		_ = s.conn.SetReadDeadline(time.Time{})
	}
	for len(s.out) == 0 {
		b := s.rest
		s.rest = nil
		if len(b) == 0 {
			n, err := s.conn.Read(s.buf)
			if err != nil {
				return nil, err
			}
			b = s.buf[:n]
		}
		closed, err := s.msg.feed(b, func(m []byte) { s.out = append(s.out, append([]byte(nil), m...)) },
			func(p []byte) { _, _ = s.conn.Write(appendClientFrame(nil, opPong, p)) })
		if err != nil {
			return nil, err
		}
		if closed && len(s.out) == 0 {
			return nil, errors.New("websocket: closed by the server")
		}
	}
	m := s.out[0]
	s.out = s.out[1:]
	return m, nil
}
