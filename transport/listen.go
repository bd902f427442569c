package transport

import (
	"net"
)

// LimitWriteBuffer wraps ln so that every accepted TCP connection gets a
// kernel send buffer of size bytes. Linux otherwise grows a socket's send
// buffer to megabytes, so a client that stops reading could sit on that much
// kernel memory before its outbox even starts to fill and it is closed as
// slow. A size of 0 or less leaves ln as it is.
func LimitWriteBuffer(ln net.Listener, size int) net.Listener {
	if size <= 0 {
		return ln
	}
	return sndbufListener{Listener: ln, size: size}
}

type sndbufListener struct {
	net.Listener
	size int
}

func (l sndbufListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok && err == nil {
		_ = tc.SetWriteBuffer(l.size) // best effort: a refusal leaves the default
	}
	return c, err
}
