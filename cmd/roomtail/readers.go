package main

import (
	"context"
	"io"
	"sync"

	"github.com/coder/websocket"
)

// readers are the sockets being read, each by a goroutine of its own.
type readers struct {
	mu    sync.Mutex
	conns []*websocket.Conn
	wg    sync.WaitGroup
}

// read reads conn's messages into scan on a goroutine of its own until
// conn ends; a spectator's socket that ends before close is counted lost.
func (rs *readers) read(conn *websocket.Conn, scan func([]byte), s ...*spectator) {
	rs.mu.Lock()
	rs.conns = append(rs.conns, conn)
	rs.mu.Unlock()
	rs.wg.Go(func() {
		buf := make([]byte, 0, 4096)
		for {
			_, r, err := conn.Reader(context.Background())
			if err == nil {
				buf, err = readAll(r, buf[:0])
			}
			if err != nil {
				if len(s) > 0 && !rs.closing() {
					s[0].lost.Store(true)
				}
				return
			}
			scan(buf)
		}
	})
}

func (rs *readers) closing() bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.conns == nil
}

// close closes every socket and waits for its reader.
func (rs *readers) close() {
	rs.mu.Lock()
	conns := rs.conns
	rs.conns = nil
	rs.mu.Unlock()
	for _, c := range conns {
		c.CloseNow()
	}
	rs.wg.Wait()
}

// readAll reads r to its end into buf, which it reuses.
func readAll(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}
