package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/store/memstore"
	"github.com/roomd/roomd/transport/client"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testServer is a real roomd front on a loopback port.
type testServer struct {
	t     testing.TB
	rooms *room.Manager
	front *Server
	http  *httptest.Server
	store *memstore.Memory
	URL   string
}

type serverOpt func(*room.Config, *Config)

func startServer(t testing.TB, opts ...serverOpt) *testServer {
	t.Helper()
	return startServerRoutes(t, nil, opts...)
}

// startServerRoutes is startServer with extra routes made for its manager.
func startServerRoutes(t testing.TB, routes func(*room.Manager) map[string]http.Handler, opts ...serverOpt) *testServer {
	t.Helper()
	return startServerHTTP(t, routes, HTTPConfig{}, opts...)
}

// startServerHTTP is startServerRoutes behind an HTTP server with hc's
// timeouts (NewHTTPServer, as roomd's).
func startServerHTTP(t testing.TB, routes func(*room.Manager) map[string]http.Handler, hc HTTPConfig, opts ...serverOpt) *testServer {
	t.Helper()
	return startServerListener(t, routes, hc, nil, opts...)
}

// startServerListener is startServerHTTP with its listener wrapped by wrap
// (when not nil).
func startServerListener(t testing.TB, routes func(*room.Manager) map[string]http.Handler, hc HTTPConfig,
	wrap func(net.Listener) net.Listener, opts ...serverOpt) *testServer {
	t.Helper()
	st := memstore.New()
	rcfg := room.Config{Games: session.NewRegistry(minesweeper.Game, nim.Game), Store: st, AIDelay: -1,
		PresenceInterval: 5 * time.Millisecond, RetryAfter: 50 * time.Millisecond}
	tcfg := Config{Quotas: Quotas{Off: true}} // one address plays every part; quota tests turn them on
	for _, o := range opts {
		o(&rcfg, &tcfg)
	}
	rooms, err := room.NewManager(rcfg)
	if err != nil {
		t.Fatal(err)
	}
	tcfg.Rooms = rooms
	if routes != nil {
		tcfg.Routes = routes(rooms)
	}
	front, err := NewServer(tcfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(front.Handler())
	hs.Config = NewHTTPServer(front.Handler(), hc)
	hs.Listener = LimitWriteBuffer(hs.Listener, 64<<10)
	if wrap != nil {
		hs.Listener = wrap(hs.Listener)
	}
	hs.Start()
	s := &testServer{t: t, rooms: rooms, front: front, http: hs, store: st, URL: hs.URL}
	t.Cleanup(s.stop)
	return s
}

func (s *testServer) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.front.Shutdown(ctx); err != nil {
		s.t.Errorf("shutdown: %v", err)
	}
	s.http.Close()
}

// post sends a JSON body and decodes a JSON answer.
func (s *testServer) post(path string, body any, out any) int {
	s.t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(s.URL+path, "application/json", bytes.NewReader(b))
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			s.t.Fatalf("POST %s: %d %s: %v", path, resp.StatusCode, data, err)
		}
	}
	return resp.StatusCode
}

func (s *testServer) create(game string, settings string, name string) room.JoinResult {
	s.t.Helper()
	var res room.JoinResult
	if code := s.post("/api/rooms", map[string]any{"game": game, "settings": json.RawMessage(settings), "name": name}, &res); code != http.StatusCreated {
		s.t.Fatalf("create room: status %d", code)
	}
	return res
}

// tclient wraps a client.Remote and records every event it delivers.
type tclient struct {
	t    testing.TB
	name string
	tr   *client.Remote

	mu     sync.Mutex
	events []client.Event
	poke   chan struct{}
	done   chan struct{}
}

func (s *testServer) dial(name string, cfg client.Config) *tclient {
	s.t.Helper()
	cfg.URL = s.URL
	if cfg.Backoff == nil {
		cfg.Backoff = func(int) time.Duration { return 20 * time.Millisecond }
	}
	if cfg.Name == "" {
		cfg.Name = name
	}
	tr, err := client.NewRemote(cfg)
	if err != nil {
		s.t.Fatal(err)
	}
	c := &tclient{t: s.t, name: name, tr: tr, poke: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for ev := range tr.Events() {
			c.mu.Lock()
			c.events = append(c.events, ev)
			c.mu.Unlock()
			select {
			case c.poke <- struct{}{}:
			default:
			}
		}
	}()
	if err := tr.Start(context.Background()); err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(c.close)
	return c
}

func (c *tclient) close() {
	c.tr.Close()
	<-c.done
}

func (c *tclient) snapshotEvents() []client.Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]client.Event(nil), c.events...)
}

// waitFor polls until cond holds on the recorded events.
func (c *tclient) waitFor(what string, cond func(evs []client.Event) bool) []client.Event {
	c.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		evs := c.snapshotEvents()
		if cond(evs) {
			return evs
		}
		select {
		case <-c.poke:
		case <-time.After(5 * time.Millisecond):
		case <-deadline:
			c.t.Fatalf("%s: timed out waiting for %s; last events: %s", c.name, what, describe(evs))
		}
	}
}

func describe(evs []client.Event) string {
	var b bytes.Buffer
	from := max(0, len(evs)-8)
	for _, ev := range evs[from:] {
		if ev.Raw != nil {
			raw := ev.Raw
			if len(raw) > 400 {
				raw = append(raw[:400:400], "…"...)
			}
			fmt.Fprintf(&b, "\n  %s", raw)
		} else {
			fmt.Fprintf(&b, "\n  %s %s %d", ev.Kind, ev.State, ev.Close)
		}
	}
	return b.String()
}

func (c *tclient) waitOnline() {
	c.t.Helper()
	c.waitFor("online", func(evs []client.Event) bool { return c.tr.State() == client.StateOnline })
}

// receipt waits for the receipt of action id.
func (c *tclient) receipt(id string) protocol.Receipt {
	c.t.Helper()
	var rc protocol.Receipt
	c.waitFor("receipt "+id, func(evs []client.Event) bool {
		for _, ev := range evs {
			if ev.Receipt != nil && ev.Receipt.ID == id {
				rc = *ev.Receipt
				return true
			}
		}
		return false
	})
	return rc
}

// send sends an action and waits for its receipt.
// send sends a and waits for its receipt. An action refused because the
// transport is off line was not sent: like a player, the helper waits until
// it is back on line and sends it again (a room that moves node, say, may
// take the transport off line between a waitOnline and the send).
func (c *tclient) send(a protocol.Action) protocol.Receipt {
	c.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		id, err := c.tr.Send(context.Background(), a)
		if errors.Is(err, client.ErrOffline) && time.Now().Before(deadline) {
			c.waitOnline()
			continue
		}
		if err != nil {
			c.t.Fatalf("%s: send %s: %v", c.name, a.Type, err)
		}
		return c.receipt(id)
	}
}

func (c *tclient) command(cmd string) protocol.Receipt {
	c.t.Helper()
	return c.send(protocol.Action{Type: protocol.TypeCommand, Command: json.RawMessage(cmd)})
}

func (c *tclient) control(ctl protocol.Control) protocol.Receipt {
	c.t.Helper()
	return c.send(protocol.Action{Type: protocol.TypeControl, Control: &ctl})
}

// closedWith waits until the transport stopped with code.
func (c *tclient) closedWith(code int) {
	c.t.Helper()
	c.waitFor(fmt.Sprintf("close %d", code), func(evs []client.Event) bool {
		for _, ev := range evs {
			if ev.Kind == client.EventState && ev.State == client.StateClosed && ev.Close == code {
				return true
			}
		}
		return false
	})
}

// resync asks for a snapshot and returns it: the one that follows the
// resync's receipt.
func (c *tclient) resync() *protocol.Snapshot {
	c.t.Helper()
	var id string
	for {
		var err error
		id, err = c.tr.Send(context.Background(), protocol.Action{Type: protocol.TypeResync})
		if err == nil {
			break
		}
		if !errors.Is(err, client.ErrOffline) {
			c.t.Fatalf("%s: resync: %v", c.name, err)
		}
		// A drop noticed after the last wait for online: wait again.
		c.waitFor("online", func([]client.Event) bool { return c.tr.State() == client.StateOnline })
	}
	var snap *protocol.Snapshot
	c.waitFor("the resync's snapshot", func(evs []client.Event) bool {
		answered := false
		for _, ev := range evs {
			switch {
			case ev.Receipt != nil && ev.Receipt.ID == id:
				if !ev.Receipt.OK {
					c.t.Fatalf("%s: resync refused: %+v", c.name, ev.Receipt.Notice)
				}
				answered = true
			case answered && ev.Snapshot != nil:
				snap = ev.Snapshot
				return true
			}
		}
		return false
	})
	return snap
}

// lastSnapshot returns the newest snapshot event.
func (c *tclient) lastSnapshot() *protocol.Snapshot {
	evs := c.snapshotEvents()
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Snapshot != nil {
			return evs[i].Snapshot
		}
	}
	return nil
}

// recordedRev is the revision of the last snapshot or update recorded.
func (c *tclient) recordedRev() uint64 {
	evs := c.snapshotEvents()
	for i := len(evs) - 1; i >= 0; i-- {
		switch {
		case evs[i].Update != nil:
			return evs[i].Update.To
		case evs[i].Snapshot != nil:
			return evs[i].Snapshot.Rev
		}
	}
	return 0
}

// phase is the room phase as the client last saw it.
func (c *tclient) phase() string {
	evs := c.snapshotEvents()
	for i := len(evs) - 1; i >= 0; i-- {
		switch {
		case evs[i].Update != nil && evs[i].Update.Room != nil:
			return evs[i].Update.Room.Phase
		case evs[i].Snapshot != nil:
			return evs[i].Snapshot.Room.Phase
		}
	}
	return ""
}

// checkContinuity fails unless the client's revisions rose by exactly one
// per update, or jumped only at a snapshot.
func (c *tclient) checkContinuity() {
	c.t.Helper()
	var rev uint64
	var epoch string
	seen := false
	for _, ev := range c.snapshotEvents() {
		switch {
		case ev.Snapshot != nil:
			if seen && ev.Snapshot.Epoch == epoch && ev.Snapshot.Rev < rev {
				c.t.Errorf("%s: snapshot went back from %d to %d", c.name, rev, ev.Snapshot.Rev)
			}
			rev, epoch, seen = ev.Snapshot.Rev, ev.Snapshot.Epoch, true
		case ev.Update != nil:
			if !seen || ev.Update.From != rev || ev.Update.To != rev+1 {
				c.t.Errorf("%s: update %d→%d after revision %d", c.name, ev.Update.From, ev.Update.To, rev)
			}
			rev = ev.Update.To
		}
	}
}

// postJSON posts body and decodes the answer into out.
func postJSON(url string, body, out any) (int, error) {
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	return resp.StatusCode, json.NewDecoder(resp.Body).Decode(out)
}

// decodeSeed decodes a result's disclosed seed.
func decodeSeed(t *testing.T, raw json.RawMessage) session.Seed {
	t.Helper()
	var s session.Seed
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("result seed %s: %v", raw, err)
	}
	return s
}

// seedPattern matches a disclosed seed in a frame: a secret's hex digits in
// either case, or a reference seed's number standing alone.
func seedPattern(raw json.RawMessage) *regexp.Regexp {
	if len(raw) > 0 && raw[0] == '"' {
		return regexp.MustCompile(`(?i)` + regexp.QuoteMeta(strings.Trim(string(raw), `"`)))
	}
	return regexp.MustCompile(`[^0-9.]` + regexp.QuoteMeta(string(raw)) + `[^0-9]`)
}
