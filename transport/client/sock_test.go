package client

import (
	"context"
	"net"
	"net/http"
	"testing"

	"github.com/coder/websocket"
)

// BenchmarkSocketRoundTrip: a move-sized frame written and its echo read,
// on the client's socket (net/http's upgrade, internal/wsframe), on one a
// Poll reads, and on a coder/websocket client, against the same
// coder/websocket echo server in one run.
//
//	go test -run '^$' -bench SocketRoundTrip -benchmem ./transport/client
func BenchmarkSocketRoundTrip(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer ws.CloseNow()
		for {
			typ, data, err := ws.Read(r.Context())
			if err != nil {
				return
			}
			if err := ws.Write(r.Context(), typ, data); err != nil {
				return
			}
		}
	})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	url := "ws://" + ln.Addr().String() + "/"
	frame := []byte(`{"type":"command","id":"01JEXAMPLEACTIONID0000000","rev":1234,"command":{"type":"reveal","r":12,"c":7}}`)
	ctx := context.Background()

	b.Run("wsframe", func(b *testing.B) {
		rwc, err := dialSocket(ctx, nil, url)
		if err != nil {
			b.Fatal(err)
		}
		s := newSock(rwc, DefaultWriteTimeout, 1<<20)
		defer s.close()
		b.ReportAllocs()
		for b.Loop() {
			if err := s.write(ctx, frame); err != nil {
				b.Fatal(err)
			}
			if m, err := s.read(); err != nil || len(m) != len(frame) {
				b.Fatal(len(m), err)
			}
		}
	})
	b.Run("poll", func(b *testing.B) {
		// The echo is read in a Poll's loop, which writes the next frame:
		// the socket's reads cost no goroutine wake-up.
		p, err := NewPoll(PollConfig{})
		if err != nil {
			b.Skip(err)
		}
		defer p.Close()
		conn, rc, _, err := p.dialSocket(ctx, url)
		if err != nil || rc == nil {
			b.Fatal(rc, err)
		}
		s := newSock(conn, DefaultWriteTimeout, 1<<20)
		s.pl, s.rc = p, rc
		defer s.close()
		n, done := 0, make(chan struct{})
		s.onMsg = func(m []byte) bool {
			if len(m) != len(frame) {
				b.Errorf("echo of %d bytes, want %d", len(m), len(frame))
			}
			if n++; n >= b.N {
				close(done)
				return false
			}
			if err := s.write(ctx, frame); err != nil {
				b.Error(err)
			}
			return true
		}
		served := make(chan error, 1)
		b.ReportAllocs()
		b.ResetTimer()
		go func() { served <- p.serve(s) }()
		if err := s.write(ctx, frame); err != nil {
			b.Fatal(err)
		}
		<-done
		b.StopTimer()
		<-served
	})
	b.Run("coder-websocket", func(b *testing.B) {
		ws, _, err := websocket.Dial(ctx, url, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer ws.CloseNow()
		b.ReportAllocs()
		for b.Loop() {
			if err := ws.Write(ctx, websocket.MessageText, frame); err != nil {
				b.Fatal(err)
			}
			if _, m, err := ws.Read(ctx); err != nil || len(m) != len(frame) {
				b.Fatal(len(m), err)
			}
		}
	})
}
