// Command roomfloor is the performance floor of roomd: a bare
// coder/websocket relay that answers just enough of roomd's protocol for
// cmd/roomload, with no room actor, no store and no JSON decoding on the hot
// path. Per action it does one read and the writes roomd does for a flag
// toggle (the mover's update and receipt, batched in one frame, and an
// update to every other member), so roomd's CPU per move can be compared
// with it by the same clients in the same run:
//
//	roomfloor --addr 127.0.0.1:18093
//	roomload --url http://127.0.0.1:18093 ...
//
// /metrics serves the Go and process collectors, so process_cpu_seconds_total
// reads as roomd's does. Not a server for anything else: it validates
// nothing.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/roomd/roomd/cmd/roomfloor/floor"
)

func main() {
	fs := flag.NewFlagSet("roomfloor", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:8093", "listen address")
	batch := fs.Bool("batch", true, "send the mover its update and receipt in one frame, as roomd does when both wait (false: a receipt frame, then an update frame)")
	sndbuf := fs.Int("socket-sndbuf", 64<<10, "kernel send buffer of each client socket in bytes, as roomd's --socket-sndbuf (0 keeps the kernel's default)")
	_ = fs.Parse(os.Args[1:])
	if err := serve(*addr, *batch, *sndbuf); err != nil {
		fmt.Fprintf(os.Stderr, "roomfloor: %v\n", err)
		os.Exit(1)
	}
}

func serve(addr string, batch bool, sndbuf int) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	f := floor.New(floor.Config{SeparateReceipt: !batch})
	srv := &http.Server{Handler: f.Handler(), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(sndbufListener{ln, sndbuf}) }()
	fmt.Printf("roomfloor is listening on http://%s (batch %v)\n", ln.Addr(), batch)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	f.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// sndbufListener gives every accepted connection roomd's kernel send buffer.
type sndbufListener struct {
	net.Listener
	size int
}

func (l sndbufListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok && l.size > 0 {
		_ = tc.SetWriteBuffer(l.size)
	}
	return c, err
}
