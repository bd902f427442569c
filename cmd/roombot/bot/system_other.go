//go:build !unix

package bot

import (
	"net"
	"time"
)

func dialer(int) *net.Dialer {
	return &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
}
