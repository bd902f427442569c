//go:build unix

package bot

import (
	"net"
	"syscall"
	"time"
)

// dialer returns a dialer for sockets; rcvbuf > 0 shrinks the socket's
// receive buffer (slow spectators: the server's outbox then fills after a
// few hundred frames instead of megabytes).
func dialer(rcvbuf int) *net.Dialer {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if rcvbuf > 0 {
		d.Control = func(network, address string, c syscall.RawConn) error {
			var serr error
			err := c.Control(func(fd uintptr) {
				serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, rcvbuf)
			})
			if err != nil {
				return err
			}
			return serr
		}
	}
	return d
}
