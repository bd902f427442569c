package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	neturl "net/url"
	"time"

	"github.com/roomd/roomd/internal/wsframe"
)

// A spectator's socket without coder/websocket: roomload's own upgrade and
// RFC 6455 frames (internal/wsframe: a client's half, no extensions), so
// that once the spectator is in its room one epoll loop reads every
// spectator (watch poller, Linux) — a burst of one move's deliveries to
// thousands of spectators then costs the tool a read system call each, not
// a goroutine woken, a header read byte by byte and a second read that
// finds nothing. The tool's own cost is part of every latency it measures.

// rawSocket is a spectator's socket while it is set up: a TCP connection
// after roomload's own upgrade, read with blocking reads.
type rawSocket struct {
	conn net.Conn
	rest []byte // read but not yet parsed
	msg  wsframe.Message
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
	k := wsframe.Key()
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
	if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("Sec-WebSocket-Accept") != wsframe.Accept(k) {
		conn.Close()
		return nil, fmt.Errorf("the upgrade was answered %s", resp.Status)
	}
	s := &rawSocket{conn: conn, buf: make([]byte, 64<<10), msg: wsframe.Message{Limit: wsframe.DefaultLimit}}
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
	_, err := s.conn.Write(wsframe.AppendClientFrame(nil, wsframe.OpText, payload))
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
		closed, _, err := s.msg.Feed(b, func(m []byte) { s.out = append(s.out, append([]byte(nil), m...)) },
			func(p []byte) { _, _ = s.conn.Write(wsframe.AppendClientFrame(nil, wsframe.OpPong, p)) })
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
