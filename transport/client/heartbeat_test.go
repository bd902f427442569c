package client

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/roomd/roomd/protocol"
)

// heartbeatGrace is what the tests allow past 2 × heartbeatMs for a
// client to leave a silent server: the package doc's grace (two timers
// fired late, the socket's teardown) on a loaded machine under the race
// detector.
const heartbeatGrace = 100 * time.Millisecond

// waitState waits up to 5 s for r's state to be s and returns when it saw
// it (looked at every millisecond).
func waitState(t *testing.T, r *Remote, s ConnState) time.Time {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for r.State() != s {
		if time.Now().After(deadline) {
			t.Fatalf("state %s after 5 s, want %s", r.State(), s)
		}
		time.Sleep(time.Millisecond)
	}
	return time.Now()
}

// A server that goes silent after the welcome and snapshot — it reads
// everything, answers no ping, sends nothing — is pinged once the client
// has heard nothing for heartbeatMs, and left heartbeatMs later: the
// client closes the socket and is reconnecting within 2 × heartbeatMs
// (plus the grace), then comes back after its usual backoff with its
// token and position (a hello that resumes). Before this test the client
// stayed online for ever.
func TestSilentServerIsLeft(t *testing.T) {
	t.Parallel()
	const hb = 200 * time.Millisecond
	silentAt := make(chan time.Time, 4)
	srv := newRawServer(t, func(c *rawConn, n int) {
		silentAt <- c.online(int(hb/time.Millisecond), 3)
	})
	r, _ := start(t, Config{URL: srv.URL, Token: "tok-1"})
	waitState(t, r, StateOnline)
	t0 := <-silentAt
	offline := waitState(t, r, StateReconnecting)
	first := srv.conn(0)
	<-first.ended
	took := offline.Sub(t0)
	t.Logf("silent → offline: %v (socket closed by the client after %v; heartbeat %v)", took, first.endAt.Sub(t0), hb)
	if took < 2*hb-5*time.Millisecond || took > 2*hb+heartbeatGrace {
		t.Errorf("offline %v after the server went silent; want 2 × %v (+ %v at most)", took, hb, heartbeatGrace)
	}
	if d := first.endAt.Sub(t0); d > 2*hb+heartbeatGrace {
		t.Errorf("the socket was closed %v after the server went silent; want within 2 × %v (+ %v)", d, hb, heartbeatGrace)
	}
	ping := srv.frame(0, 0x9)
	if d := ping.at.Sub(t0); d < hb-5*time.Millisecond || d > hb+heartbeatGrace {
		t.Errorf("the ping went out %v after the server went silent; want after %v of silence", d, hb)
	}
	if n := srv.pings(0); n != 1 {
		t.Errorf("%d pings on the silent socket, want 1", n)
	}

	// Back after the backoff (0.5 to 0.75 s for a first attempt), resuming.
	back := srv.conn(1)
	if d := time.Since(offline); d < 450*time.Millisecond {
		t.Errorf("reconnected %v after going offline: without the backoff", d)
	}
	if h := back.hello; h.Token != "tok-1" || h.Epoch != "E1" || h.Rev == nil || *h.Rev != 3 {
		t.Errorf("the hello after the silence does not resume: %+v", h)
	}
	waitState(t, r, StateOnline)
	<-silentAt
	// It is left in its turn.
	waitState(t, r, StateReconnecting)
	if n := srv.sockets(); n != 2 {
		t.Errorf("%d sockets accepted, want 2 (one reconnect)", n)
	}
}

// The heartbeat starts with the welcome: a server silent after a welcome
// without a snapshot (the client is still connecting) is left as well,
// within 2 × the welcome's heartbeatMs, not the default's.
func TestSilentAfterWelcomeOnly(t *testing.T) {
	t.Parallel()
	const hb = 150
	welcomed := make(chan time.Time, 4)
	srv := newRawServer(t, func(c *rawConn, n int) {
		c.text(`{"type":"welcome","conn":"c","seat":null,"heartbeatMs":150}`)
		welcomed <- time.Now()
	})
	_, _ = start(t, Config{URL: srv.URL, Backoff: never})
	t0 := <-welcomed
	c := srv.conn(0)
	select {
	case <-c.ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the client still holds a socket silent for 5 s after its welcome")
	}
	if d := c.endAt.Sub(t0); d < 2*hb*time.Millisecond-5*time.Millisecond || d > 2*hb*time.Millisecond+heartbeatGrace {
		t.Errorf("the socket was closed %v after the welcome; want 2 × %d ms (+ %v)", d, hb, heartbeatGrace)
	}
}

// A server that answers the client's pings, or one that keeps talking,
// is not left: the first gets a ping each time the client has heard
// nothing for heartbeatMs, the second none.
func TestLiveServerIsKept(t *testing.T) {
	t.Parallel()
	const hb = 100 * time.Millisecond
	for _, tc := range []struct {
		name   string
		talks  bool // sends a notice every hb/4
		answer bool // answers pings
	}{{"answers pings", false, true}, {"talks", true, false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var answer func(c *rawConn, f rawFrame)
			if tc.answer {
				answer = func(c *rawConn, f rawFrame) {
					if f.op == 0x9 {
						c.frame(0xa, f.payload)
					}
				}
			}
			srv := newRawServer(t, func(c *rawConn, n int) {
				c.online(int(hb/time.Millisecond), 1)
				if !tc.talks {
					return
				}
				for {
					select {
					case <-c.ended:
						return
					case <-time.After(hb / 4):
						c.text(`{"type":"notice","code":"x","message":"still here"}`)
					}
				}
			}, answer)
			r, _ := start(t, Config{URL: srv.URL, Token: "tok-1", Backoff: never, CloseTimeout: hb})
			waitState(t, r, StateOnline)
			time.Sleep(8 * hb)
			if s := r.State(); s != StateOnline {
				t.Fatalf("state %s after 8 heartbeats with a live server", s)
			}
			switch pings := srv.pings(0); {
			case tc.talks && pings > 1: // one, were the server's goroutine held up a heartbeat
				t.Errorf("%d pings to a server that keeps talking, want none", pings)
			case !tc.talks && (pings < 5 || pings > 8):
				t.Errorf("%d pings in 8 heartbeats to a server that only answers them, want one a heartbeat after the first (7)", pings)
			}
			if n := srv.sockets(); n != 1 {
				t.Errorf("%d sockets, want 1", n)
			}
		})
	}
}

// pings counts the pings socket n sent.
func (s *rawServer) pings(n int) int {
	k := 0
	for _, f := range s.all() {
		if f.conn == n && f.op == 0x9 {
			k++
		}
	}
	return k
}

// A client that is itself behind — its Handler holds the socket's reader
// for four heartbeats while the server goes on talking — does not take its own lateness for the server's silence:
// the server's bytes wait unread, so the socket is kept.
func TestSlowClientKeepsItsSocket(t *testing.T) {
	t.Parallel()
	const hb = 100 * time.Millisecond
	srv := newRawServer(t, func(c *rawConn, n int) {
		c.online(int(hb/time.Millisecond), 1)
		for {
			select {
			case <-c.ended:
				return
			case <-time.After(hb / 4):
				c.text(`{"type":"notice","code":"x","message":"still here"}`)
			}
		}
	})
	held := make(chan struct{})
	var once sync.Once
	cfg := Config{URL: srv.URL, Room: "ROOM01", Token: "tok-1", Backoff: never, CloseTimeout: hb,
		Game: protocol.GamePin{ID: "minesweeper", RulesVersion: "minesweeper/1"},
		Handler: func(ev Event) {
			if ev.Kind == EventNotice {
				once.Do(func() {
					time.Sleep(4 * hb) // the reader is away: nothing is read meanwhile
					close(held)
				})
			}
		}}
	r, err := NewRemote(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	<-held
	time.Sleep(2 * hb)
	if s := r.State(); s != StateOnline {
		t.Errorf("state %s after the client's own pause of 4 heartbeats", s)
	}
	if n := srv.sockets(); n != 1 {
		t.Errorf("%d sockets, want 1: the client left a server that was talking", n)
	}
}
