package transport

import (
	"bufio"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/gobwas/ws"
	"github.com/roomd/roomd/internal/rawsock"
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
	// restSince is when rest last went from empty to holding bytes (Unix
	// ns): the poller's write deadline.
	restSince int64

	// fd is the socket's own descriptor once a poller holds it
	// (poll_linux.go): writes and reads go to it, and net.Conn is closed.
	// -1 before, and after closeFD.
	fd int
	// br and bw are the buffers coder/websocket reads and writes through
	// (hijack.go), for the poller to take over what br holds; nil when the
	// connection kept the HTTP server's.
	br *bufio.Reader
	bw *bufio.Writer
	// in is the reader the upgrade left the socket's bytes in: br, or the
	// HTTP server's. The socket's frames are read from it (connread.go)
	// until a poller holds the socket.
	in *bufio.Reader

	// raw is nil when the connection has no file descriptor of its own
	// (TLS, a wrapped listener) or the system is not Linux (sock_other.go):
	// its frames all go through the writer, its reads through net.Conn.
	raw   syscall.RawConn
	wbuf  []byte // tryWrite's argument and results, for wfn
	wn    int
	werr  error
	wfunc func(fd uintptr) bool
	rd    rawsock.Reader // Read's (the reader's alone)
}

func newSock(nc net.Conn) *sock {
	s := &sock{Conn: nc, fd: -1}
	if tc, ok := nc.(*net.TCPConn); ok && rawsock.Supported {
		if raw, err := tc.SyscallConn(); err == nil {
			s.raw = raw
			s.wfunc = s.writeOnce
			s.rd.Init(raw)
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

// Read implements io.Reader for coder/websocket: the read itself is a raw
// system call (see writeOnce), and waiting for data is the runtime's
// network poller's, as net.Conn's.
func (s *sock) Read(p []byte) (int, error) {
	if s.raw == nil {
		return s.Conn.Read(p)
	}
	return s.rd.Read(p)
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
	if !s.mu.TryLock() {
		return false
	}
	if (s.raw == nil && s.fd < 0) || len(s.rest) > 0 || s.err != nil {
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
	var n int
	var err error
	switch {
	case s.fd >= 0:
		n, err = writeFD(s.fd, p)
	case s.raw != nil:
		s.wbuf = p
		err = s.raw.Write(s.wfunc)
		n = s.wn
		if err == nil {
			err = s.werr
		}
		s.wbuf, s.werr = nil, nil
	default:
		err = net.ErrClosed
	}
	if err != nil {
		s.err = err
		return true
	}
	if n < len(p) {
		s.rest = append([]byte(nil), p[n:]...)
		s.restSince = time.Now().UnixNano()
		return true
	}
	return false
}

// writeFD is one non-blocking write(2) to fd: 0 bytes when the socket takes
// none.
func writeFD(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, errno := rawsock.Write(uintptr(fd), p)
		switch errno {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return 0, nil
		case 0:
			return n, nil
		}
		return 0, errno
	}
}

// The poller's writes (s.mu held): they never wait for the socket.

// writeRestLocked writes what an earlier write left; it reports whether
// some is still left (or the socket failed).
func (s *sock) writeRestLocked() (left bool) {
	if s.err != nil {
		return true
	}
	if len(s.rest) == 0 {
		return false
	}
	if s.fd < 0 {
		s.err = net.ErrClosed
		return true
	}
	n, err := writeFD(s.fd, s.rest)
	if err != nil {
		s.err = err
		return true
	}
	if n < len(s.rest) {
		s.rest = s.rest[n:]
		return true
	}
	s.rest = nil
	return false
}

// queueLocked writes b after what an earlier write left.
func (s *sock) queueLocked(b []byte) {
	if s.err != nil {
		return
	}
	if len(s.rest) > 0 {
		s.rest = append(s.rest, b...)
		return
	}
	s.tryWrite(b)
}

// stalledSince says since when the socket has not taken all that was
// written to it (Unix ns), 0 when it has.
func (s *sock) stalledSince() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.rest) == 0 {
		return 0
	}
	return s.restSince
}

// closeFD closes the poller's descriptor; later writes fail.
func (s *sock) closeFD() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fd >= 0 {
		rawsock.Close(s.fd)
		s.fd = -1
	}
	s.rest = nil
	if s.err == nil {
		s.err = net.ErrClosed
	}
}

// writeOnce is tryWrite's callback: one write, never a wait for the socket
// (it returns true whatever happened; EAGAIN is 0 bytes written). The
// descriptor is non-blocking, so the write is a raw system call: the
// runtime does not hand the goroutine's P to another thread for it, which
// under load cost more (a thread woken, and the runtime's monitor kept at
// its shortest sleep) than the write itself.
func (s *sock) writeOnce(fd uintptr) bool {
	if len(s.wbuf) == 0 {
		s.wn, s.werr = 0, nil
		return true
	}
	for {
		n, errno := rawsock.Write(fd, s.wbuf)
		switch errno {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			s.wn, s.werr = 0, nil
		case 0:
			s.wn, s.werr = n, nil
		default:
			s.wn, s.werr = 0, errno
		}
		return true
	}
}

// appendFrame appends a server's text frame holding p, as
// coder/websocket writes one for Write(ctx, MessageText, p).
func appendFrame(b, p []byte) []byte {
	return append(appendHeader(b, ws.OpText, len(p)), p...)
}
