package client

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roomd/roomd/protocol"
)

// starter starts a Remote for a test and collects its events.
type starter func(t *testing.T, cfg Config) (*Remote, *events)

// readers runs a test twice: each socket read by a goroutine of its own,
// then by a Poll.
func readers(t *testing.T, f func(t *testing.T, start starter)) {
	t.Run("goroutine", func(t *testing.T) { f(t, start) })
	t.Run("poll", func(t *testing.T) { f(t, startPolled) })
}

// newTestPoll returns a Poll closed when the test ends (after the
// Remotes the test closes in its own cleanups, which run first).
func newTestPoll(t *testing.T, cfg PollConfig) *Poll {
	t.Helper()
	p, err := NewPoll(cfg)
	if err != nil {
		if runtime.GOOS != "linux" {
			t.Skipf("no Poll here: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// startPolled is start with the socket read by a Poll: the events come
// through a Handler on the Poll's loop.
func startPolled(t *testing.T, cfg Config) (*Remote, *events) {
	t.Helper()
	cfg.Poll = newTestPoll(t, PollConfig{})
	cfg.Room = "ROOM01"
	cfg.Game = protocol.GamePin{ID: "minesweeper", RulesVersion: "minesweeper/1"}
	evs := &events{}
	cfg.Handler = func(ev Event) {
		evs.mu.Lock()
		evs.evs = append(evs.evs, ev)
		evs.mu.Unlock()
	}
	r, err := NewRemote(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		r.Close()
		for ev := range r.Events() {
			t.Errorf("an event on the channel with a handler set: %+v", ev)
		}
	})
	return r, evs
}

// plainConn hides a connection's descriptor: a Poll cannot read it.
type plainConn struct{ net.Conn }

// Many Remotes share one Poll: each gets every message of its own socket,
// in order — long ones over several reads (over the loop's buffer), short
// ones many to a read —, the Poll's OnRead sees every byte, and the
// connections without a descriptor are read by goroutines of their own.
// Closing the Remotes, then the Poll, leaves no goroutine (TestMain's
// goleak).
func TestPollManySockets(t *testing.T) {
	const sockets, notices = 24, 300
	long := strings.Repeat("L", 3*pollReadBuffer/2)
	var sent atomic.Int64
	nd := newNode(t, func(ctx context.Context, c *nodeConn, n int) {
		c.online(ctx, 1)
		for i := range notices {
			msg := fmt.Sprintf(`{"type":"notice","code":"n","message":"%d"}`, i)
			if i%100 == 50 {
				msg = fmt.Sprintf(`{"type":"notice","code":"n","message":"%d%s"}`, i, long)
			}
			sent.Add(int64(len(msg)))
			c.send(ctx, msg)
		}
		c.wait(ctx)
	})
	var read atomic.Int64
	var mu sync.Mutex
	var plain int
	p := newTestPoll(t, PollConfig{
		OnRead: func(n int) { read.Add(int64(n)) },
		Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			mu.Lock()
			defer mu.Unlock()
			if plain++; plain%4 == 0 {
				return plainConn{c}, nil
			}
			return c, nil
		}})
	type got struct {
		mu   sync.Mutex
		seen []string
		done chan struct{}
	}
	all := make([]*got, sockets)
	remotes := make([]*Remote, sockets)
	for i := range sockets {
		g := &got{done: make(chan struct{})}
		all[i] = g
		r, err := NewRemote(Config{URL: nd.URL, Room: "ROOM01", Token: fmt.Sprintf("tok-%d", i), Backoff: never, Poll: p,
			Game: protocol.GamePin{ID: "minesweeper", RulesVersion: "minesweeper/1"},
			Handler: func(ev Event) {
				if ev.Kind != EventNotice {
					return
				}
				g.mu.Lock()
				defer g.mu.Unlock()
				g.seen = append(g.seen, ev.Notice.Message)
				if len(g.seen) == notices {
					close(g.done)
				}
			}})
		if err != nil {
			t.Fatal(err)
		}
		remotes[i] = r
		if err := r.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	for i, g := range all {
		select {
		case <-g.done:
		case <-time.After(20 * time.Second):
			g.mu.Lock()
			t.Fatalf("socket %d got %d of %d notices", i, len(g.seen), notices)
		}
		g.mu.Lock()
		for k, m := range g.seen {
			want := fmt.Sprint(k)
			if k%100 == 50 {
				want += long
			}
			if m != want {
				t.Fatalf("socket %d: notice %d is %.20q…, want %.20q…", i, k, m, want)
			}
		}
		g.mu.Unlock()
	}
	for _, r := range remotes {
		r.Close()
	}
	// Three of four sockets went through the loop: it read at least what
	// their notices hold.
	if min := sent.Load() / sockets * (sockets - sockets/4); read.Load() < min {
		t.Errorf("the loop read %d bytes, want at least %d", read.Load(), min)
	}
	if read.Load() >= sent.Load()+sockets*4096 {
		t.Errorf("the loop read %d bytes: more than the polled and plain sockets were sent (%d)", read.Load(), sent.Load())
	}
}

// A Remote's Drop cuts a socket the Poll reads: the Remote reconnects, on
// the same Poll, and comes back online; a Poll closed under a socket ends
// it as a lost connection, and the Remote, not let back in, stays off line.
func TestPollDropAndClose(t *testing.T) {
	nd := newNode(t, func(ctx context.Context, c *nodeConn, n int) {
		c.online(ctx, 4+n)
		c.wait(ctx)
	})
	p := newTestPoll(t, PollConfig{})
	var mu sync.Mutex
	var states []string
	r, err := NewRemote(Config{URL: nd.URL, Room: "ROOM01", Token: "tok-1", Poll: p,
		Backoff: func(int) time.Duration { return 5 * time.Millisecond },
		Game:    protocol.GamePin{ID: "minesweeper", RulesVersion: "minesweeper/1"},
		Handler: func(ev Event) {
			if ev.Kind == EventState {
				mu.Lock()
				states = append(states, string(ev.State))
				mu.Unlock()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	waitOnline(t, r, nd.URL)
	r.Drop()
	nd.waitHellos(2)
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, rev := r.Position(); rev == 5 && r.State() == StateOnline {
			break
		}
		if time.Now().After(deadline) {
			_, rev := r.Position()
			t.Fatalf("not back online after the drop: %s at rev %d", r.State(), rev)
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.Close()
	nd.waitHellos(3) // a new socket, which the closed Poll does not take
	time.Sleep(50 * time.Millisecond)
	if s := r.State(); s == StateOnline {
		t.Errorf("online after its Poll was closed")
	}
	mu.Lock()
	defer mu.Unlock()
	if n := strings.Count(strings.Join(states, " "), "online"); n != 2 {
		t.Errorf("states %q: online %d times, want 2", states, n)
	}
}

// The frames of a socket a Poll reads reach the server as the Remote
// sends them, from the Handler on the loop as from any goroutine.
func TestPollSendsFromTheHandler(t *testing.T) {
	nd := newNode(t, func(ctx context.Context, c *nodeConn, n int) {
		c.online(ctx, 1)
		for i := range 20 {
			c.send(ctx, fmt.Sprintf(`{"type":"notice","code":"n","message":"%d"}`, i))
		}
		c.wait(ctx)
	})
	p := newTestPoll(t, PollConfig{})
	var r *Remote
	r, err := NewRemote(Config{URL: nd.URL, Room: "ROOM01", Token: "tok-1", Backoff: never, Poll: p,
		Game: protocol.GamePin{ID: "minesweeper", RulesVersion: "minesweeper/1"},
		Handler: func(ev Event) {
			if ev.Kind == EventNotice {
				if _, err := r.Send(context.Background(), protocol.Action{Type: protocol.TypeCommand,
					Command: json.RawMessage(`{"type":"reveal","r":` + ev.Notice.Message + `,"c":0}`)}); err != nil {
					t.Errorf("send: %v", err)
				}
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i := range 20 {
		nd.waitFrame(func(f json.RawMessage) bool { return strings.Contains(string(f), fmt.Sprintf(`"r":%d,`, i)) })
	}
}

// A server whose answer to the upgrade never ends gets an error that says
// so once maxUpgradeAnswer bytes are in, well before the dial's timeout.
func TestPollUpgradeAnswerBounded(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	served := make(chan struct{})
	go func() {
		defer close(served)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		// Read the request first and close only once the client has:
		// closing with the request unread would reset the connection,
		// and the client could see that before the bound.
		if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
			return
		}
		_, _ = c.Write([]byte("HTTP/1.1 101 Switching Protocols\r\n"))
		pad := []byte("X-Pad: " + strings.Repeat("p", 1000) + "\r\n")
		for range 1000 { // 1 MB of headers, far over the bound
			if _, err := c.Write(pad); err != nil {
				return
			}
		}
		_, _ = io.Copy(io.Discard, c)
	}()
	p := newTestPoll(t, PollConfig{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _, _, err = p.dialSocket(ctx, "ws://"+ln.Addr().String()+protocol.SocketPath)
	if err == nil || !strings.Contains(err.Error(), "over 65536 bytes") {
		t.Fatalf("dial: %v, want the answer's bound named", err)
	}
	ln.Close()
	<-served
}
