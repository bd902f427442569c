//go:build linux

package main

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// The kernel's arrival time of each delivery: with SO_TIMESTAMPNS a
// socket's reads carry the time its last segment arrived (on loopback,
// during the server's write), so a delivery can be timed without the
// tool's own delay in reading it — at 5,000 spectators one core reads
// 50,000 frames a second, and the tool's reading is much of what it
// measures.

// arrivalDial returns an HTTP client for one websocket.Dial whose socket
// notes the arrival time of what it reads (tsConn), and the function that
// tells the arrival time of its last read (Unix ns; 0 when unknown).
func arrivalDial() (*http.Client, func() int64) {
	d := &net.Dialer{}
	var conn atomic.Pointer[tsConn]
	last := func() int64 {
		if c := conn.Load(); c != nil {
			return c.last.Load()
		}
		return 0
	}
	return &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			tc := c.(*net.TCPConn)
			rc, err := tc.SyscallConn()
			if err == nil {
				var serr error
				err = rc.Control(func(fd uintptr) { serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1) })
				err = firstErr(err, serr)
			}
			if err != nil {
				c.Close()
				return nil, err
			}
			ts := &tsConn{TCPConn: tc, rc: rc}
			conn.Store(ts)
			return ts, nil
		},
	}}, last
}

// tsConn reads with recvmsg and keeps the arrival time its last read
// carried (Unix ns, CLOCK_REALTIME).
type tsConn struct {
	*net.TCPConn
	rc   syscall.RawConn
	last atomic.Int64
}

func (c *tsConn) Read(p []byte) (int, error) {
	var (
		n   int
		err error
		oob [64]byte
	)
	rerr := c.rc.Read(func(fd uintptr) bool {
		var oobn int
		n, oobn, _, _, err = unix.Recvmsg(int(fd), p, oob[:], 0)
		if err == unix.EAGAIN {
			return false // wait in Go's poller
		}
		if err == nil {
			c.note(oob[:oobn])
		}
		return true
	})
	switch {
	case rerr != nil:
		return 0, rerr
	case err != nil:
		return 0, err
	case n == 0 && len(p) > 0:
		return 0, io.EOF
	}
	return n, nil
}

func (c *tsConn) note(oob []byte) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return
	}
	for _, m := range msgs {
		if m.Header.Level == unix.SOL_SOCKET && m.Header.Type == unix.SO_TIMESTAMPNS && len(m.Data) >= 16 {
			sec, nsec := binary.NativeEndian.Uint64(m.Data), binary.NativeEndian.Uint64(m.Data[8:])
			c.last.Store(int64(sec)*1e9 + int64(nsec))
		}
	}
}
