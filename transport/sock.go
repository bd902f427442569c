package transport

import (
	"encoding/binary"
	"errors"
	"net"
	"sync"
	"syscall"
)

// sock is a socket's connection as coder/websocket writes to it, so that a
// room's actor may also write frames to it without waiting (conn.Flush).
// Every write holds mu: coder/websocket's (blocking, as net.Conn's) and the
// actor's (one non-blocking write(2), never waiting for the socket). What a
// non-blocking write could not take is kept in rest, and goes out before
// anything else: the next write writes it first.
type sock struct {
	net.Conn
	mu   sync.Mutex
	rest []byte // written by a non-blocking write's owner before anything else
	err  error  // a non-blocking write's failure, for the writer to act on

	// raw is nil when the connection has no file descriptor of its own
	// (TLS, a wrapped listener): its frames all go through the writer.
	raw   syscall.RawConn
	wbuf  []byte // tryWrite's argument and results, for wfn
	wn    int
	werr  error
	wfunc func(fd uintptr) bool
}

func newSock(nc net.Conn) *sock {
	s := &sock{Conn: nc}
	if tc, ok := nc.(*net.TCPConn); ok {
		if raw, err := tc.SyscallConn(); err == nil {
			s.raw = raw
			s.wfunc = s.writeOnce
		}
	}
	return s
}

// Write implements io.Writer for coder/websocket: what a non-blocking write
// left comes first, then p, both written whole (blocking).
func (s *sock) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.flushRestLocked(); err != nil {
		return 0, err
	}
	return s.Conn.Write(p)
}

// flushRest writes, blocking, what a non-blocking write left.
func (s *sock) flushRest() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flushRestLocked()
}

func (s *sock) flushRestLocked() error {
	if s.err != nil {
		return s.err
	}
	if len(s.rest) == 0 {
		return nil
	}
	_, err := s.Conn.Write(s.rest)
	s.rest = nil
	if err != nil {
		s.err = err
	}
	return err
}

// pending reports whether a non-blocking write left something (or failed):
// the writer has work to do.
func (s *sock) pending() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.rest) > 0 || s.err != nil
}

// tryLock takes the socket for a non-blocking write: it fails when the
// connection cannot write directly, when another write holds it (a pong,
// say, which may be waiting on the socket), or when a previous write left
// bytes that must go first.
func (s *sock) tryLock() bool {
	if s.raw == nil || !s.mu.TryLock() {
		return false
	}
	if len(s.rest) > 0 || s.err != nil {
		s.mu.Unlock()
		return false
	}
	return true
}

func (s *sock) unlock() { s.mu.Unlock() }

// tryWrite writes p with one non-blocking write(2) (its caller holds the
// socket, by tryLock) and keeps in rest what the socket did not take, a copy
// that p's owner may reuse p. It reports whether anything is left (the
// writer then writes it, blocking as its writes may).
func (s *sock) tryWrite(p []byte) (left bool) {
	s.wbuf = p
	err := s.raw.Write(s.wfunc)
	n := s.wn
	if err == nil {
		err = s.werr
	}
	s.wbuf, s.werr = nil, nil
	if err != nil {
		s.err = err
		return true
	}
	if n < len(p) {
		s.rest = append([]byte(nil), p[n:]...)
		return true
	}
	return false
}

// writeOnce is tryWrite's callback: one write, never a wait for the socket
// (it returns true whatever happened; EAGAIN is 0 bytes written).
func (s *sock) writeOnce(fd uintptr) bool {
	for {
		n, err := syscall.Write(int(fd), s.wbuf)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EAGAIN):
			s.wn, s.werr = 0, nil
		case err != nil:
			s.wn, s.werr = 0, err
		default:
			s.wn, s.werr = n, nil
		}
		return true
	}
}

// appendFrame appends a server's (unmasked) text frame holding p, as
// coder/websocket writes one for Write(ctx, MessageText, p).
func appendFrame(b, p []byte) []byte {
	return append(appendFrameHeader(b, len(p)), p...)
}

// appendFrameHeader appends the header of a server's final text frame of
// n bytes: no mask, no compression (roomd's sockets negotiate none).
func appendFrameHeader(b []byte, n int) []byte {
	switch {
	case n < 126:
		return append(b, 0x81, byte(n))
	case n <= 0xffff:
		b = append(b, 0x81, 126)
		return binary.BigEndian.AppendUint16(b, uint16(n))
	default:
		b = append(b, 0x81, 127)
		return binary.BigEndian.AppendUint64(b, uint64(n))
	}
}
