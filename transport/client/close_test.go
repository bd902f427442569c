package client

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/roomd/roomd/protocol"
)

// Remote.Close says goodbye: a close frame with 1000 goes out, and the
// client waits for the server's close before it drops TCP (here the server
// answers 100 ms later). Before this test Close dropped TCP with no close
// frame at all.
func TestCloseSendsNormalClosure(t *testing.T) {
	t.Parallel()
	const answerAfter = 100 * time.Millisecond
	srv := newRawServer(t, func(c *rawConn, n int) { c.online(15000, 1) }, func(c *rawConn, f rawFrame) {
		if f.op == 0x8 {
			time.AfterFunc(answerAfter, func() { c.close(f.payload) })
		}
	})
	r, _ := start(t, Config{URL: srv.URL, Token: "tok-1"})
	waitState(t, r, StateOnline)
	began := time.Now()
	r.Close()
	took := time.Since(began)
	c := srv.conn(0)
	<-c.ended
	f := srv.frame(0, 0x8)
	if f.code() != protocol.CloseNormal {
		t.Errorf("Close sent a close frame with payload %x, want code 1000", f.payload)
	}
	if d := c.endAt.Sub(f.at); d < answerAfter-5*time.Millisecond {
		t.Errorf("TCP dropped %v after the close frame: before the server's close (%v)", d, answerAfter)
	}
	if took > answerAfter+time.Second {
		t.Errorf("Close took %v with a server that answers in %v", took, answerAfter)
	}
	if s := r.State(); s != StateClosed {
		t.Errorf("state %s after Close", s)
	}
}

// A server that never answers the close frame holds Close only for
// CloseTimeout: then the client drops TCP.
func TestCloseWithoutAnAnswerIsBounded(t *testing.T) {
	t.Parallel()
	const wait = 150 * time.Millisecond
	srv := newRawServer(t, func(c *rawConn, n int) { c.online(15000, 1) })
	r, _ := start(t, Config{URL: srv.URL, Token: "tok-1", CloseTimeout: wait})
	waitState(t, r, StateOnline)
	began := time.Now()
	r.Close()
	took := time.Since(began)
	c := srv.conn(0)
	<-c.ended
	f := srv.frame(0, 0x8)
	if f.code() != protocol.CloseNormal {
		t.Errorf("Close sent a close frame with payload %x, want code 1000", f.payload)
	}
	if took < wait-5*time.Millisecond || took > wait+time.Second {
		t.Errorf("Close took %v with a server that never answers; want its CloseTimeout, %v", took, wait)
	}
	if d := c.endAt.Sub(f.at); d < wait-5*time.Millisecond || d > wait+time.Second {
		t.Errorf("TCP dropped %v after the close frame; want after CloseTimeout, %v", d, wait)
	}
}

// The end of Start's context is a going away: 1001, with the same wait
// for the server's close.
func TestContextEndGoesAway(t *testing.T) {
	t.Parallel()
	for _, handler := range []bool{false, true} {
		t.Run(fmt.Sprintf("handler=%v", handler), func(t *testing.T) {
			t.Parallel()
			srv := newRawServer(t, func(c *rawConn, n int) { c.online(15000, 1) }, func(c *rawConn, f rawFrame) {
				if f.op == 0x8 {
					c.close(f.payload)
				}
			})
			cfg := Config{URL: srv.URL, Room: "ROOM01", Token: "tok-1", Game: protocol.GamePin{ID: "minesweeper", RulesVersion: "minesweeper/1"}}
			if handler {
				cfg.Handler = func(Event) {}
			}
			r, err := NewRemote(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if err := r.Start(ctx); err != nil {
				t.Fatal(err)
			}
			go func() {
				for range r.Events() {
				}
			}()
			waitState(t, r, StateOnline)
			cancel()
			select {
			case <-r.Done():
			case <-time.After(5 * time.Second):
				t.Fatal("still running 5 s after its context ended")
			}
			if f := srv.frame(0, 0x8); f.code() != protocol.CloseGoingAway {
				t.Errorf("the context's end sent a close frame with payload %x, want code 1001", f.payload)
			}
			r.Close()
		})
	}
}

// A server's close is answered with its own code when that code may be
// sent (RFC 6455 §7.4), and never with a code reserved for what is not
// on the wire: a close without a code is answered 1000; one with 1005,
// 1006, 1015, a code out of the ranges, or a one-byte payload is a
// protocol error (1002); a reason that is not UTF-8 is 1007. The raw
// server's cleanup checks that no 1005/1006/1015 was written, whatever
// the test.
func TestServerCloseAnswered(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		payload []byte
		want    int
	}{
		{closeCode(4008), 4008},
		{closeCode(1001), 1001},
		{closeCode(3000), 3000},
		{closeCode(4999), 4999},
		{closeCode(1013), 1013},
		{nil, 1000},
		{closeCode(1005), 1002},
		{closeCode(1006), 1002},
		{closeCode(1015), 1002},
		{closeCode(1004), 1002},
		{closeCode(999), 1002},
		{closeCode(2999), 1002},
		{closeCode(5000), 1002},
		{[]byte{0x03}, 1002},
		{append(closeCode(4000), 0xff, 0xfe), 1007},
	} {
		t.Run(fmt.Sprintf("%x", tc.payload), func(t *testing.T) {
			t.Parallel()
			srv := newRawServer(t, func(c *rawConn, n int) {
				c.online(15000, 1)
				c.close(tc.payload)
			})
			_, _ = start(t, Config{URL: srv.URL, Token: "tok-1", Backoff: never})
			f := srv.frame(0, 0x8)
			if f.code() != tc.want {
				t.Errorf("the server's close %x answered with %x, want code %d", tc.payload, f.payload, tc.want)
			}
			<-srv.conn(0).ended
		})
	}
}
