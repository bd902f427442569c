// Package rawsock reads and writes non-blocking TCP sockets with raw system
// calls: read(2) and write(2) without the Go runtime's system-call
// bookkeeping, waiting for readiness in the runtime's network poller as
// net.Conn does. Each ordinary system call wakes the runtime's monitor
// thread and keeps it polling; under load that cost more than the calls
// themselves (BENCHMARKS.md: 19.7 % of roomd's CPU before its sockets used
// raw calls). On systems other than Linux, Wrap returns the connection as
// it is.
package rawsock

import (
	"io"
	"net"
	"sync"
	"syscall"
)

// Conn is a TCP connection whose Read and Write are raw system calls.
// Deadlines, Close and the addresses are the TCPConn's.
type Conn struct {
	*net.TCPConn
	rc syscall.RawConn

	rmu sync.Mutex // one Read at a time
	rd  Reader

	wmu  sync.Mutex // one Write at a time
	wbuf []byte
	wn   int
	werr error
	wfn  func(fd uintptr) bool
}

// Wrap returns c as a Conn when it is a TCP connection on a system with raw
// calls, else c itself.
func Wrap(c net.Conn) net.Conn {
	tc, ok := c.(*net.TCPConn)
	if !ok || !Supported {
		return c
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return c
	}
	rcn := &Conn{TCPConn: tc, rc: rc}
	rcn.rd.Init(rc)
	rcn.wfn = rcn.writeSome
	return rcn
}

// Read implements io.Reader: one read(2) once the socket has data.
func (c *Conn) Read(p []byte) (int, error) {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	return c.rd.Read(p)
}

// Reader reads a socket with raw read(2) calls, waiting for data in the
// runtime's network poller (through its RawConn) as net.Conn does. One
// Read at a time; its zero value is ready once Init has run.
type Reader struct {
	rc  syscall.RawConn
	buf []byte
	n   int
	err error
	fn  func(fd uintptr) bool // readOnce, bound once: no closure per Read
}

// Init readies r to read rc.
func (r *Reader) Init(rc syscall.RawConn) {
	r.rc, r.fn = rc, r.readOnce
}

// Read implements io.Reader: one read(2) once the socket has data.
func (r *Reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r.buf = p
	err := r.rc.Read(r.fn)
	n := r.n
	if err == nil {
		err = r.err
	}
	r.buf, r.n, r.err = nil, 0, nil
	return n, err
}

// readOnce is Read's callback: false (wait for data) on EAGAIN.
func (r *Reader) readOnce(fd uintptr) bool {
	for {
		n, errno := Read(fd, r.buf)
		switch errno {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false // wait for data in the poller
		case 0:
			r.n = n
			if n == 0 {
				r.err = io.EOF
			}
		default:
			r.err = errno
		}
		return true
	}
}

// Write implements io.Writer: p written whole, waiting in the poller
// whenever the socket takes no more.
func (c *Conn) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.wbuf, c.wn = p, 0
	err := c.rc.Write(c.wfn)
	n := c.wn
	if err == nil {
		err = c.werr
	}
	c.wbuf, c.wn, c.werr = nil, 0, nil
	return n, err
}

func (c *Conn) writeSome(fd uintptr) bool {
	for c.wn < len(c.wbuf) {
		n, errno := Write(fd, c.wbuf[c.wn:])
		switch errno {
		case 0:
			c.wn += n
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false // wait until the socket takes more
		default:
			c.werr = errno
			return true
		}
	}
	return true
}
