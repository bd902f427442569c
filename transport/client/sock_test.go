package client

import (
	"context"
	"net"
	"net/http"
	"testing"

	"github.com/coder/websocket"
)

// BenchmarkSocketRoundTrip: a move-sized frame written and its echo read,
// on the client's socket (net/http's upgrade, gobwas/ws frames) and on a
// coder/websocket client, against the same coder/websocket echo server in
// one run.
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

	b.Run("gobwas", func(b *testing.B) {
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
