package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"go.uber.org/goleak"

	"github.com/roomd/roomd/protocol"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// node is a stand-in for one roomd node on a loopback port: it takes
// sockets, reads each one's hello and frames after it, and plays a script
// for each: what a real node does when it owns the room, drains, or lost
// the room's lease.
type node struct {
	t   *testing.T
	URL string
	// serve runs one connection after its hello; n counts this node's
	// connections from 0. Returning closes the socket.
	serve func(ctx context.Context, c *nodeConn, n int)

	mu     sync.Mutex
	hellos []protocol.Hello
	frames []json.RawMessage // every frame after the hellos, in order
	poke   chan struct{}
}

// nodeConn is one socket a node accepted.
type nodeConn struct {
	ws    *websocket.Conn
	hello protocol.Hello
}

func (c *nodeConn) send(ctx context.Context, frame string) {
	_ = c.ws.Write(ctx, websocket.MessageText, []byte(frame))
}

// online sends what a node sends a seated player: welcome, then a snapshot
// at rev.
func (c *nodeConn) online(ctx context.Context, rev int) {
	c.send(ctx, `{"type":"welcome","conn":"c","seat":0,"heartbeatMs":15000}`)
	c.send(ctx, fmt.Sprintf(`{"type":"snapshot","epoch":"E1","rev":%d,"seat":0,"view":null,"room":{"code":"ROOM01","phase":"running","seats":[]}}`, rev))
}

// moved sends the bye a node sends when the room moved (url "" for none),
// then closes with 4009.
func (c *nodeConn) moved(ctx context.Context, url string, retryAfterMs int) {
	bye, _ := json.Marshal(protocol.Bye{Type: protocol.TypeBye, Code: protocol.CloseMoved, Reason: "room moved",
		Reconnect: true, RetryAfterMs: retryAfterMs, URL: url})
	c.send(ctx, string(bye))
	_ = c.ws.Close(protocol.CloseMoved, "room moved")
}

// wait holds the connection until the client or the test ends it.
func (c *nodeConn) wait(ctx context.Context) {
	<-ctx.Done()
}

func newNode(t *testing.T, serve func(ctx context.Context, c *nodeConn, n int)) *node {
	t.Helper()
	nd := &node{t: t, serve: serve, poke: make(chan struct{}, 1)}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	nd.URL = "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	var conns sync.WaitGroup
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != protocol.SocketPath {
			http.NotFound(w, r)
			return
		}
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		conns.Add(1)
		defer conns.Done()
		defer ws.CloseNow()
		_, data, err := ws.Read(ctx)
		if err != nil {
			return
		}
		var h protocol.Hello
		if err := json.Unmarshal(data, &h); err != nil || h.Type != protocol.TypeHello {
			t.Errorf("%s: the first frame is not a hello: %s", nd.URL, data)
			return
		}
		nd.mu.Lock()
		n := len(nd.hellos)
		nd.hellos = append(nd.hellos, h)
		nd.mu.Unlock()
		nd.wake()
		cctx, stop := context.WithCancel(ctx)
		defer stop()
		go func() { // read what the client sends next, until the socket ends
			defer stop()
			for {
				_, data, err := ws.Read(cctx)
				if err != nil {
					return
				}
				nd.mu.Lock()
				nd.frames = append(nd.frames, data)
				nd.mu.Unlock()
				nd.wake()
			}
		}()
		nd.serve(cctx, &nodeConn{ws: ws, hello: h}, n)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		cancel()
		_ = srv.Close()
		conns.Wait()
	})
	return nd
}

func (nd *node) wake() {
	select {
	case nd.poke <- struct{}{}:
	default:
	}
}

// Hellos returns the hellos received so far.
func (nd *node) Hellos() []protocol.Hello {
	nd.mu.Lock()
	defer nd.mu.Unlock()
	return append([]protocol.Hello(nil), nd.hellos...)
}

// waitHellos waits until the node has had n hellos.
func (nd *node) waitHellos(n int) []protocol.Hello {
	nd.t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		if h := nd.Hellos(); len(h) >= n {
			return h
		}
		select {
		case <-nd.poke:
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			nd.t.Fatalf("%s: %d hellos, want %d", nd.URL, len(nd.Hellos()), n)
		}
	}
}

// waitFrame waits for a frame after the hellos that ok accepts.
func (nd *node) waitFrame(ok func(json.RawMessage) bool) json.RawMessage {
	nd.t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		nd.mu.Lock()
		for _, f := range nd.frames {
			if ok(f) {
				nd.mu.Unlock()
				return f
			}
		}
		nd.mu.Unlock()
		select {
		case <-nd.poke:
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			nd.t.Fatalf("%s: no such frame", nd.URL)
		}
	}
}

// deadURL is the base URL of a loopback port nothing listens on: a dial
// is refused.
func deadURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + ln.Addr().String()
	ln.Close()
	return u
}

// events collects a Remote's events.
type events struct {
	mu  sync.Mutex
	evs []Event
}

func start(t *testing.T, cfg Config) (*Remote, *events) {
	t.Helper()
	cfg.Room = "ROOM01"
	cfg.Game = protocol.GamePin{ID: "minesweeper", RulesVersion: "minesweeper/1"}
	r, err := NewRemote(cfg)
	if err != nil {
		t.Fatal(err)
	}
	evs := &events{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range r.Events() {
			evs.mu.Lock()
			evs.evs = append(evs.evs, ev)
			evs.mu.Unlock()
		}
	}()
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		r.Close()
		<-done
	})
	return r, evs
}

// states returns the state events so far as "state code url" strings.
func (e *events) states() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, ev := range e.evs {
		if ev.Kind == EventState {
			out = append(out, fmt.Sprintf("%s %d %s", ev.State, ev.Close, ev.URL))
		}
	}
	return out
}

// waitOnline waits until r is online through the node at url.
func waitOnline(t *testing.T, r *Remote, url string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for r.State() != StateOnline || r.Node() != url {
		if time.Now().After(deadline) {
			t.Fatalf("not online through %s: %s through %s", url, r.State(), r.Node())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// never is a backoff too long for any test: a client that reconnects at
// all within a test did so without backing off.
func never(int) time.Duration { return time.Hour }

// A node that no longer owns the room says where it went (bye 4009 with
// url): the client goes there at once — no backoff —, with the same token
// and the position it saw, and sends again the action that had no receipt,
// with its id.
func TestMovedFollowsTheNodeNamed(t *testing.T) {
	b := newNode(t, func(ctx context.Context, c *nodeConn, n int) {
		c.online(ctx, 7)
		c.wait(ctx)
	})
	release := make(chan struct{})
	a := newNode(t, func(ctx context.Context, c *nodeConn, n int) {
		c.online(ctx, 7)
		select {
		case <-release:
		case <-ctx.Done():
			return
		}
		c.moved(ctx, b.URL, 20)
	})
	r, evs := start(t, Config{URL: a.URL, Token: "tok-1", Backoff: never})
	waitOnline(t, r, a.URL)
	id, err := r.Send(context.Background(), protocol.Action{Type: protocol.TypeCommand, Command: json.RawMessage(`{"type":"reveal","r":1,"c":1}`)})
	if err != nil {
		t.Fatal(err)
	}
	a.waitFrame(func(f json.RawMessage) bool { return strings.Contains(string(f), id) })
	close(release) // a receipt never comes from a: the room moves first

	h := b.waitHellos(1)[0]
	if h.Token != "tok-1" || h.Epoch != "E1" || h.Rev == nil || *h.Rev != 7 {
		t.Errorf("the hello at the new node lost the client's place: %+v", h)
	}
	resent := b.waitFrame(func(f json.RawMessage) bool { return strings.Contains(string(f), id) })
	if !strings.Contains(string(resent), `"type":"command"`) {
		t.Errorf("the action without a receipt came back as %s", resent)
	}
	waitOnline(t, r, b.URL)
	if r.Pending() != 1 {
		t.Errorf("%d actions pending, want the one without a receipt", r.Pending())
	}
	want := "reconnecting 4009 " + a.URL
	if s := evs.states(); !containsString(s, want) {
		t.Errorf("states %q lack %q", s, want)
	}
	if len(a.Hellos()) != 1 {
		t.Errorf("the old node had %d hellos, want 1", len(a.Hellos()))
	}
}

// A moved bye without a url (behind one load balancer, or when the owner
// is not known yet) brings the client back at once to the node that said
// so: it answers, and it routes to the room's node; another node of the
// list may be the one gone quiet.
func TestMovedWithoutURLComesBack(t *testing.T) {
	b := newNode(t, func(ctx context.Context, c *nodeConn, n int) {
		c.online(ctx, 3)
		c.wait(ctx)
	})
	a := newNode(t, func(ctx context.Context, c *nodeConn, n int) {
		c.online(ctx, 3)
		if n == 0 {
			c.moved(ctx, "", 0)
			return
		}
		c.wait(ctx)
	})
	r, _ := start(t, Config{URLs: []string{a.URL, b.URL}, Token: "tok-1", Backoff: never})
	hs := a.waitHellos(2)
	waitOnline(t, r, a.URL)
	if hs[1].Token != "tok-1" {
		t.Errorf("second hello at a: %+v", hs[1])
	}
	if n := len(b.Hellos()); n != 0 {
		t.Errorf("b had %d hellos, want none", n)
	}
}

// A url the client must not follow — from TLS to plain text, not a URL,
// or when the client keeps to its own list — is not dialed: the next node
// of the list is.
func TestMovedURLNotFollowed(t *testing.T) {
	for _, tc := range []struct {
		name   string
		url    string
		ignore bool
	}{
		{"not a URL", "::not a url", false},
		{"no host", "http://", false},
		{"ftp", "ftp://127.0.0.1:1", false},
		{"ignored", "", true}, // set to a live node below
	} {
		t.Run(tc.name, func(t *testing.T) {
			other := newNode(t, func(ctx context.Context, c *nodeConn, n int) {
				c.online(ctx, 1)
				c.wait(ctx)
			})
			b := newNode(t, func(ctx context.Context, c *nodeConn, n int) {
				c.online(ctx, 1)
				c.wait(ctx)
			})
			url := tc.url
			if tc.ignore {
				url = other.URL
			}
			a := newNode(t, func(ctx context.Context, c *nodeConn, n int) {
				c.online(ctx, 1)
				c.moved(ctx, url, 0)
			})
			r, _ := start(t, Config{URLs: []string{a.URL, b.URL}, IgnoreMovedURL: tc.ignore, Backoff: never})
			waitOnline(t, r, b.URL)
			if n := len(other.Hellos()); n != 0 {
				t.Errorf("followed the url it should ignore (%d hellos there)", n)
			}
		})
	}
}

// Two nodes that each say the other owns the room cannot make a client
// spin between them: MaxMovesInARow moves are followed at once, the next
// one waits the backoff.
func TestMovedLoopBacksOff(t *testing.T) {
	var mu sync.Mutex
	var urls [2]string // a's and b's; each sends the client to the other
	serve := func(self int) func(ctx context.Context, c *nodeConn, n int) {
		return func(ctx context.Context, c *nodeConn, n int) {
			mu.Lock()
			to := urls[1-self]
			mu.Unlock()
			c.moved(ctx, to, 0)
		}
	}
	a, b := newNode(t, serve(0)), newNode(t, serve(1))
	mu.Lock()
	urls = [2]string{a.URL, b.URL}
	mu.Unlock()

	var calls []int
	var cmu sync.Mutex
	backoff := func(n int) time.Duration {
		cmu.Lock()
		calls = append(calls, n)
		cmu.Unlock()
		return time.Hour
	}
	start(t, Config{URL: a.URL, Backoff: backoff})
	// a, b, a, b: the first connection and three moves followed at once;
	// the fourth move waits an hour.
	a.waitHellos(2)
	b.waitHellos(2)
	time.Sleep(300 * time.Millisecond) // what a fifth immediate dial would need, many times over
	if na, nb := len(a.Hellos()), len(b.Hellos()); na+nb != MaxMovesInARow+1 {
		t.Errorf("%d connections (a %d, b %d), want %d: moves in a row must back off", na+nb, na, nb, MaxMovesInARow+1)
	}
	cmu.Lock()
	defer cmu.Unlock()
	if len(calls) != 1 || calls[0] != 0 {
		t.Errorf("backoff asked for %v, want [0]: the first move past the limit waits the backoff's first step", calls)
	}
}

// A lost socket and a refused dial each send the client to the next node
// of its list: a, then the dead one, then b (a client that stayed on the
// dead one would never be online again).
func TestLostSocketAndRefusedDialTryTheNextNode(t *testing.T) {
	b := newNode(t, func(ctx context.Context, c *nodeConn, n int) {
		c.online(ctx, 2)
		c.wait(ctx)
	})
	a := newNode(t, func(ctx context.Context, c *nodeConn, n int) {
		c.online(ctx, 2)
		_ = c.ws.CloseNow() // the node died under the socket
	})
	dead := deadURL(t)
	fast := func(int) time.Duration { return 5 * time.Millisecond }
	r, evs := start(t, Config{URL: a.URL, URLs: []string{dead, b.URL}, Token: "tok-1", Backoff: fast})
	waitOnline(t, r, b.URL)
	if n := len(a.Hellos()); n != 1 {
		t.Errorf("a had %d hellos, want 1 (the next dials go to the next nodes)", n)
	}
	s := evs.states()
	for _, want := range []string{"online 0 " + a.URL, "online 0 " + b.URL} {
		if !containsString(s, want) {
			t.Errorf("states %q lack %q", s, want)
		}
	}
}

// Every wait of the default backoff is at most 2 s: a client tries again
// often enough to find its room soon after another node took it over.
func TestDefaultBackoffBounded(t *testing.T) {
	for _, n := range []int{-1, 0, 1, 2, 3, 4, 5, 10, 63, 64, 1 << 30} {
		for range 50 {
			d := DefaultBackoff(n)
			if d <= 0 || d > 2*time.Second {
				t.Fatalf("DefaultBackoff(%d) = %v, want (0, 2s]", n, d)
			}
		}
	}
	if d := DefaultBackoff(0); d < 500*time.Millisecond || d >= 750*time.Millisecond {
		t.Errorf("DefaultBackoff(0) = %v, want 500 ms plus up to 250 ms", d)
	}
	if d := DefaultBackoff(9); d < BackoffCap {
		t.Errorf("DefaultBackoff(9) = %v, want at least the cap %v", d, BackoffCap)
	}
}

func TestNodesList(t *testing.T) {
	if _, err := newNodes("", nil); err == nil {
		t.Error("no URL at all was accepted")
	}
	if _, err := newNodes("ftp://x", nil); err == nil {
		t.Error("an ftp URL was accepted")
	}
	n, err := newNodes("http://a:1", []string{" http://b:2 ", "", "http://a:1", "https://c"})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for range 4 {
		base, _ := n.pick()
		order = append(order, base)
		n.advance()
	}
	if got := strings.Join(order, " "); got != "http://a:1 http://b:2 https://c http://a:1" {
		t.Errorf("round robin %q", got)
	}
	if n.moveTo("http://d:4", "wss://c/ws") {
		t.Error("a move from TLS to plain text was followed")
	}
	if !n.moveTo("https://d:4", "wss://c/ws") {
		t.Error("a move from TLS to TLS was refused")
	}
	if base, ws := n.pick(); base != "https://d:4" || ws != "wss://d:4/ws" {
		t.Errorf("after a move, pick %q %q", base, ws)
	}
	if base, _ := n.pick(); base != "http://b:2" {
		t.Errorf("a move is dialed once; then %q", base)
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// With a Handler the events reach it in order, on the transport's own
// goroutine (it may send from there), and the events channel carries
// nothing: it is closed when the transport stops.
func TestHandlerTakesTheEvents(t *testing.T) {
	nd := newNode(t, func(ctx context.Context, c *nodeConn, n int) {
		c.online(ctx, 7)
		c.wait(ctx)
	})
	var mu sync.Mutex
	var kinds []string
	var r *Remote
	sent := make(chan string, 1)
	cfg := Config{URL: nd.URL, Room: "ROOM01", Token: "tok-1", Backoff: never,
		Game: protocol.GamePin{ID: "minesweeper", RulesVersion: "minesweeper/1"},
		Handler: func(ev Event) {
			mu.Lock()
			kinds = append(kinds, string(ev.Kind)+" "+string(ev.State))
			mu.Unlock()
			if ev.Kind == EventSnapshot {
				id, err := r.Send(context.Background(), protocol.Action{Type: protocol.TypeCommand, Command: json.RawMessage(`{"type":"reveal","r":0,"c":0}`)})
				if err != nil {
					t.Errorf("send from the handler: %v", err)
				}
				sent <- id
			}
		}}
	r, err := NewRemote(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	var id string
	select {
	case id = <-sent:
	case <-time.After(5 * time.Second):
		t.Fatal("no snapshot reached the handler")
	}
	nd.waitFrame(func(f json.RawMessage) bool { return strings.Contains(string(f), id) })
	r.Close()
	for ev := range r.Events() {
		t.Errorf("an event on the channel with a handler set: %+v", ev)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"welcome ", "state online", "snapshot "}
	if len(kinds) < len(want) || !slices.Equal(kinds[:len(want)], want) {
		t.Errorf("the handler saw %q, want %q first", kinds, want)
	}
}

// The client's socket answers the server's pings, takes a message in
// fragments, hands a close's code on (the state event says 4008), and
// drops a socket whose message is over ReadLimit — then reconnects.
func TestSocketFrames(t *testing.T) {
	pinged := make(chan error, 1)
	nd := newNode(t, func(ctx context.Context, c *nodeConn, n int) {
		switch n {
		case 0:
			c.online(ctx, 1)
			pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			pinged <- c.ws.Ping(pctx) // needs the client's pong
			cancel()
			w, err := c.ws.Writer(ctx, websocket.MessageText)
			if err != nil {
				return
			}
			_, _ = w.Write([]byte(`{"type":"notice","code":"x",`)) // a message in fragments
			_, _ = w.Write([]byte(`"message":"fragmented"}`))
			_ = w.Close()
			_ = c.ws.Close(protocol.CloseSlow, "too slow")
		case 1:
			c.online(ctx, 1)
			c.send(ctx, `{"type":"notice","code":"y","message":"`+strings.Repeat("z", 2048)+`"}`)
			c.wait(ctx)
		default:
			c.online(ctx, 1)
			c.wait(ctx)
		}
	})
	r, evs := start(t, Config{URL: nd.URL, Token: "tok-1", ReadLimit: 1024, Backoff: func(int) time.Duration { return 10 * time.Millisecond }})
	select {
	case err := <-pinged:
		if err != nil {
			t.Fatalf("the server's ping: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no ping answered")
	}
	nd.waitHellos(3) // after 4008, and after the message over the limit
	waitOnline(t, r, nd.URL)
	if s := evs.states(); !containsString(s, "reconnecting 4008 "+nd.URL) {
		t.Errorf("states %q: no 4008", s)
	}
	evs.mu.Lock()
	defer evs.mu.Unlock()
	var notices []string
	for _, ev := range evs.evs {
		if ev.Kind == EventNotice {
			notices = append(notices, ev.Notice.Code+":"+ev.Notice.Message)
		}
	}
	if !slices.Equal(notices, []string{"x:fragmented"}) {
		t.Errorf("notices %q, want the fragmented one only (the other is over the limit)", notices)
	}
}

// Over TLS, against a server that speaks HTTP/2 as well, the client's
// upgrade still goes over HTTP/1.1 (net/http keeps a WebSocket upgrade off
// HTTP/2) and the transport comes online through the caller's client.
func TestSocketOverTLS(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer ws.CloseNow()
		if _, _, err := ws.Read(r.Context()); err != nil {
			return
		}
		c := &nodeConn{ws: ws}
		c.online(r.Context(), 3)
		_, _, _ = ws.Read(r.Context()) // until the client goes
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	r, _ := start(t, Config{URL: srv.URL, Token: "tok-1", HTTPClient: srv.Client(), Backoff: never})
	waitOnline(t, r, srv.URL)
	if _, rev := r.Position(); rev != 3 {
		t.Errorf("position %d, want 3", rev)
	}
}
