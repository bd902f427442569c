package client

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// A server that stops reading: once the socket's buffers are full a write
// blocks, and Config.WriteTimeout after it began the transport closes the
// socket (the write fails) and reconnects — with no deadline of its own on
// each write.
func TestWriteTimeoutClosesAStalledSocket(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	hellos := make(chan struct{}, 8)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer ws.CloseNow()
		if _, _, err := ws.Read(ctx); err != nil {
			return
		}
		hellos <- struct{}{}
		n := (&nodeConn{ws: ws})
		n.online(ctx, 1)
		<-ctx.Done() // never reads again
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		cancel()
		_ = srv.Close()
	})
	url := "http://" + ln.Addr().String()
	const timeout = 300 * time.Millisecond
	r, evs := start(t, Config{URL: url, WriteTimeout: timeout, ReadLimit: 1 << 20, Backoff: never})
	waitOnline(t, r, url)
	<-hellos

	frame := []byte(`{"type":"chat","text":"` + strings.Repeat("x", 1<<20) + `"}`)
	stalled := time.Now()
	failed := make(chan time.Duration, 1)
	go func() {
		for {
			began := time.Now()
			if err := r.SendRaw(context.Background(), frame); err != nil {
				failed <- time.Since(stalled)
				return
			}
			if d := time.Since(began); d < timeout/4 {
				stalled = time.Now() // not stalled yet
			}
		}
	}()
	select {
	case d := <-failed:
		if d < timeout/2 {
			t.Errorf("the write failed %v after the socket stalled: before its timeout (%v)", d, timeout)
		}
		if d > timeout+2*time.Second {
			t.Errorf("the write failed %v after the socket stalled, its timeout is %v", d, timeout)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a write to a socket nobody reads is still blocked after 10 s")
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(strings.Join(evs.states(), ","), string(StateReconnecting)) {
		if time.Now().After(deadline) {
			t.Fatalf("no reconnect after the stalled socket was closed: %v", evs.states())
		}
		time.Sleep(5 * time.Millisecond)
	}
}
