package transport

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/roomd/roomd/protocol"
)

// dialTCP opens a bare TCP connection to the test server.
func (s *testServer) dialTCP(t *testing.T) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", s.http.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedWithin reads from c until the server closes it, and reports how long
// that took; it fails the test if c is still open after limit.
func closedWithin(t *testing.T, c net.Conn, limit time.Duration) (time.Duration, []byte) {
	t.Helper()
	start := time.Now()
	c.SetReadDeadline(start.Add(limit))
	got, err := io.ReadAll(c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the connection is still open after %v; read %q", limit, got)
	}
	return time.Since(start), got
}

// TestSlowBodyIsCut: a POST whose headers arrive at once but whose body
// trickles in is cut at the read timeout; no room is created.
func TestSlowBodyIsCut(t *testing.T) {
	const readTimeout = 300 * time.Millisecond
	s := startServerHTTP(t, nil, HTTPConfig{ReadTimeout: readTimeout})
	c := s.dialTCP(t)
	body := `{"game":"nim","name":"Slow","settings":{}}`
	fmt.Fprintf(c, "POST /api/rooms HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
	stop := make(chan struct{})
	trickled := make(chan struct{})
	go func() {
		defer close(trickled)
		// One byte every 50 ms: the whole body would take over 2 s.
		for i := 0; i < len(body); i++ {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			if _, err := c.Write([]byte{body[i]}); err != nil {
				return
			}
		}
	}()
	took, got := closedWithin(t, c, readTimeout+2*time.Second)
	close(stop)
	<-trickled
	if took > readTimeout+time.Second {
		t.Errorf("a trickled body held the connection for %v; read timeout %v", took, readTimeout)
	}
	if strings.Contains(string(got), " 201 ") {
		t.Errorf("the trickled request created a room: %q", got)
	}
	if n := len(s.rooms.Rooms()); n != 0 {
		t.Errorf("%d rooms after a cut request", n)
	}
}

// TestIdleKeepAliveClosed: a keep-alive connection with no next request is
// closed after the idle timeout.
func TestIdleKeepAliveClosed(t *testing.T) {
	const idle = 300 * time.Millisecond
	s := startServerHTTP(t, nil, HTTPConfig{IdleTimeout: idle})
	c := s.dialTCP(t)
	fmt.Fprint(c, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("healthz: %d, close %v", resp.StatusCode, resp.Close)
	}
	took, _ := closedWithin(t, c, idle+2*time.Second)
	if took < idle/2 || took > idle+time.Second {
		t.Errorf("idle keep-alive closed after %v; idle timeout %v", took, idle)
	}
}

// TestWebSocketOutlivesHTTPTimeouts: a socket is not bound by the HTTP
// server's read, write and idle timeouts: long after all of them it still
// carries actions and receipts both ways.
func TestWebSocketOutlivesHTTPTimeouts(t *testing.T) {
	const limit = 200 * time.Millisecond
	s := startServerHTTP(t, nil, HTTPConfig{ReadHeaderTimeout: limit, ReadTimeout: limit, WriteTimeout: limit, IdleTimeout: limit})
	created := s.create("nim", `{}`, "Ann")
	rc := s.raw(t, nil)
	b, _ := json.Marshal(protocol.Hello{Type: protocol.TypeHello, Room: created.Room, Token: created.Token, Game: nimPin})
	rc.send(string(b))
	snap := rc.expect("snapshot", func(m protocol.ServerMessage) bool { return m.Snapshot != nil }).Snapshot
	select {
	case code := <-rc.closed:
		t.Fatalf("the socket closed with %d within %v", code, 5*limit)
	case <-time.After(5 * limit):
	}
	rc.send(fmt.Sprintf(`{"type":"control","id":"late","rev":%d,"control":{"op":"fill-with-ai"}}`, snap.Rev))
	m := rc.expect("receipt", func(m protocol.ServerMessage) bool { return m.Receipt != nil && m.Receipt.ID == "late" })
	if !m.Receipt.OK {
		t.Fatalf("receipt after the timeouts: %+v", m.Receipt)
	}
}

func TestHTTPServerDefaults(t *testing.T) {
	srv := NewHTTPServer(http.NotFoundHandler(), HTTPConfig{IdleTimeout: -1})
	if srv.ReadHeaderTimeout != DefaultReadHeaderTimeout || srv.ReadTimeout != DefaultReadTimeout ||
		srv.WriteTimeout != DefaultWriteTimeout || srv.IdleTimeout != 0 {
		t.Fatalf("timeouts %v %v %v %v", srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout)
	}
}
