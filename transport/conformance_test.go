package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/transport/client"
)

// Conformance: what PROTOCOL.md promises, checked over real sockets, one
// promise per test. The messages that run on their own clocks (presence,
// pong) are left out wherever an order is checked.

// hello sends h on the raw socket.
func (rc *rawConn) hello(h protocol.Hello) {
	rc.t.Helper()
	h.Type = protocol.TypeHello
	b, err := json.Marshal(h)
	if err != nil {
		rc.t.Fatal(err)
	}
	rc.send(string(b))
}

// answers returns the next n messages, presence and pongs left out.
func (rc *rawConn) answers(n int) []protocol.ServerMessage {
	rc.t.Helper()
	var got []protocol.ServerMessage
	for len(got) < n {
		m := rc.expect(fmt.Sprintf("message %d of %d", len(got)+1, n), func(protocol.ServerMessage) bool { return true })
		if m.Presence == nil && m.Pong == nil {
			got = append(got, m)
		}
	}
	return got
}

// kinds names messages for comparison: "welcome", "notice:stale",
// "receipt:stale" (a refusal's code, or "receipt:ok"), "bye:4008".
func kinds(ms []protocol.ServerMessage) string {
	var out []string
	for _, m := range ms {
		switch {
		case m.Notice != nil:
			out = append(out, "notice:"+m.Notice.Code)
		case m.Receipt != nil && m.Receipt.OK:
			out = append(out, "receipt:ok")
		case m.Receipt != nil && m.Receipt.Notice != nil:
			out = append(out, "receipt:"+m.Receipt.Notice.Code)
		case m.Bye != nil:
			out = append(out, fmt.Sprintf("bye:%d", m.Bye.Code))
		default:
			out = append(out, m.Type)
		}
	}
	return strings.Join(out, " ")
}

// position opens a raw socket on a seat and returns the room's epoch and
// revision from its snapshot.
func position(t *testing.T, s *testServer, code, token string, pin protocol.GamePin) (*rawConn, string, uint64) {
	t.Helper()
	rc := s.raw(t, nil)
	rc.hello(protocol.Hello{Room: code, Token: token, Game: pin})
	m := rc.expect("snapshot", func(m protocol.ServerMessage) bool { return m.Snapshot != nil })
	return rc, m.Snapshot.Epoch, m.Snapshot.Rev
}

// TestHelloDeadline (§2.3, 1002): a socket that sends no hello within
// HelloTimeout gets a hello-first notice, then a close with 1002.
func TestHelloDeadline(t *testing.T) {
	s := startServer(t, func(_ *room.Config, c *Config) { c.HelloTimeout = 150 * time.Millisecond })
	start := time.Now() // before the dial: the server's timer starts at its accept
	rc := s.raw(t, nil)
	rc.expectNotice(protocol.CodeHelloFirst)
	rc.expectClose(protocol.CloseProtocolError)
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Errorf("closed after %v, before the hello timeout", d)
	}
	// A socket that says hello in time is not cut by the timeout.
	created := s.create("nim", `{"pile":21}`, "Ann")
	ok, _, _ := position(t, s, created.Room, created.Token, nimPin)
	deadline := time.After(400 * time.Millisecond)
	for {
		select {
		case _, open := <-ok.frames:
			if !open {
				t.Fatalf("a socket that said hello was closed with %d", <-ok.closed)
			}
			continue
		case <-deadline:
		}
		break
	}
}

// TestWelcomeIsTheFirstAnswer (§4 welcome): on every path of a hello that
// seats or lets watch, the welcome comes first, then the snapshot, then any
// notice about the hello — epoch-changed included, for a seated player
// whose hello saw a revision ahead of the room (which moves the room to a
// new epoch).
func TestWelcomeIsTheFirstAnswer(t *testing.T) {
	s := startServer(t)
	created := s.create("nim", `{"pile":21}`, "Ann")
	_, epoch, rev := position(t, s, created.Room, created.Token, nimPin)
	solo := s.create("minesweeper", `{"mode":"solo","level":"beginner"}`, "Sol")

	t.Run("seated player ahead of the room", func(t *testing.T) {
		ahead := rev + 5
		rc := s.raw(t, nil)
		rc.hello(protocol.Hello{Room: created.Room, Token: created.Token, Game: nimPin, Epoch: epoch, Rev: &ahead})
		got := rc.answers(3)
		if k := kinds(got); k != "welcome snapshot notice:epoch-changed" {
			t.Fatalf("answers to a hello ahead of the room: %s; want welcome snapshot notice:epoch-changed", k)
		}
		if snap := got[1].Snapshot; snap.Epoch == epoch || snap.Rev != rev+1 {
			t.Errorf("snapshot at %s/%d; want a new epoch at %d", snap.Epoch, snap.Rev, rev+1)
		}
	})
	t.Run("new seat with a taken name", func(t *testing.T) {
		rc := s.raw(t, nil)
		rc.hello(protocol.Hello{Room: created.Room, Name: "Ann", Game: nimPin})
		if k := kinds(rc.answers(3)); k != "welcome snapshot notice:name-replaced" {
			t.Fatalf("answers: %s", k)
		}
	})
	t.Run("no free seat", func(t *testing.T) {
		rc := s.raw(t, nil)
		rc.hello(protocol.Hello{Room: solo.Room, Name: "Bob", Game: msPin})
		if k := kinds(rc.answers(3)); k != "welcome snapshot notice:room-full" {
			t.Fatalf("answers: %s", k)
		}
	})
	t.Run("spectator", func(t *testing.T) {
		rc := s.raw(t, nil)
		rc.hello(protocol.Hello{Room: created.Room, Watch: true, Game: nimPin})
		if k := kinds(rc.answers(2)); k != "welcome snapshot" {
			t.Fatalf("answers: %s", k)
		}
	})
}

// TestSnapshotFollowsItsReceipt (§2.2 rule 5, §3 resync): a stale action
// is "refused with stale and followed by a snapshot", and a resync is
// "answered by a receipt and a snapshot": the receipt first, both times.
func TestSnapshotFollowsItsReceipt(t *testing.T) {
	s := startServer(t)
	created := s.create("nim", `{"pile":21}`, "Ann")
	t.Run("stale", func(t *testing.T) {
		rc, _, rev := position(t, s, created.Room, created.Token, nimPin)
		rc.send(fmt.Sprintf(`{"type":"control","id":"ahead","rev":%d,"control":{"op":"ready","ready":true}}`, rev+10))
		got := rc.answers(2)
		if k := kinds(got); k != "receipt:stale snapshot" {
			t.Fatalf("answers to a stale action: %s; want receipt:stale snapshot", k)
		}
	})
	t.Run("resync", func(t *testing.T) {
		rc, _, rev := position(t, s, created.Room, created.Token, nimPin)
		rc.send(fmt.Sprintf(`{"type":"resync","id":"again","rev":%d}`, rev))
		got := rc.answers(2)
		if k := kinds(got); k != "receipt:ok snapshot" {
			t.Fatalf("answers to a resync: %s; want receipt:ok snapshot", k)
		}
	})
}

// TestSeatOnlyWhenItChanged (§4 update): an update carries `seat` only to
// a member whose seat number it changed. The host removes seat 1 of four:
// seats 2 and 3 become 1 and 2; the host and a spectator keep theirs.
func TestSeatOnlyWhenItChanged(t *testing.T) {
	s := startServer(t)
	created := s.create("nim", `{"pile":21}`, "Ann")
	host := s.dial("host", client.Config{Room: created.Room, Token: created.Token, Game: nimPin})
	host.waitOnline()
	players := []*tclient{host}
	for i := 1; i < 4; i++ {
		c := s.dial(fmt.Sprintf("p%d", i), client.Config{Room: created.Room, Name: fmt.Sprintf("P%d", i), Game: nimPin})
		c.waitOnline()
		if c.tr.Seat() != i {
			t.Fatalf("p%d seated at %d", i, c.tr.Seat())
		}
		players = append(players, c)
	}
	spec := s.dial("spec", client.Config{Room: created.Room, Watch: true, Game: nimPin})
	spec.waitOnline()
	host.waitFor("every seat", func([]client.Event) bool { return host.recordedRev() >= 3 })
	_, rev := host.tr.Position()
	one := 1
	if rc := host.control(protocol.Control{Op: protocol.ControlRemoveSeat, Seat: &one}); !rc.OK {
		t.Fatalf("remove-seat: %+v", rc.Notice)
	}
	players[1].closedWith(protocol.CloseLeft)
	// updateTo returns c's update to revision to.
	updateTo := func(c *tclient, to uint64) *protocol.Update {
		var u *protocol.Update
		c.waitFor(fmt.Sprintf("the update to %d", to), func(evs []client.Event) bool {
			for _, ev := range evs {
				if ev.Update != nil && ev.Update.To == to {
					u = ev.Update
					return true
				}
			}
			return false
		})
		return u
	}
	for _, tc := range []struct {
		c    *tclient
		seat int // -1: no seat field
	}{{host, -1}, {players[2], 1}, {players[3], 2}, {spec, -1}} {
		u := updateTo(tc.c, rev+1)
		switch {
		case tc.seat < 0 && u.Seat != nil:
			t.Errorf("%s: update carries seat %d; its seat did not change", tc.c.name, *u.Seat)
		case tc.seat >= 0 && (u.Seat == nil || *u.Seat != tc.seat):
			t.Errorf("%s: update carries seat %v; want %d", tc.c.name, u.Seat, tc.seat)
		}
		if got := tc.c.tr.Seat(); tc.seat >= 0 && got != tc.seat {
			t.Errorf("%s: client seat %d after the update; want %d", tc.c.name, got, tc.seat)
		}
	}
}

// stallingSpectator opens a raw spectator socket with a 1 KiB receive
// buffer that reads nothing until the caller does.
func stallingSpectator(t *testing.T, s *testServer, code string, pin protocol.GamePin) *websocket.Conn {
	t.Helper()
	dialer := &net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 1024) })
		return serr
	}}
	u, _ := client.SocketURL(s.URL)
	hc := &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext}}
	ws, _, err := websocket.Dial(context.Background(), u, &websocket.DialOptions{HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.CloseNow() })
	ws.SetReadLimit(1 << 30)
	b, _ := json.Marshal(protocol.Hello{Type: protocol.TypeHello, Room: code, Watch: true, Game: pin})
	if err := ws.Write(context.Background(), websocket.MessageText, b); err != nil {
		t.Fatal(err)
	}
	return ws
}

// TestSlowConsumerGetsBye (§2.3): "before a server-initiated close with a
// 4xxx code the server sends a bye" — 4008 included: a spectator that reads
// nothing (with a tiny socket buffer) lets its outbox overflow, gets its
// backlog dropped, then a bye (reconnect) and the 4008 close. Meanwhile the
// player's updates keep flowing: the stalled spectator is dropped, never
// waited on.
func TestSlowConsumerGetsBye(t *testing.T) {
	s := startServer(t, func(_ *room.Config, c *Config) {
		c.OutboxSize = 4
		c.RateLimit, c.RateBurst = 100000, 100000
	})
	created := s.create("minesweeper", `{"mode":"solo","level":"custom","rows":100,"cols":100,"mines":1}`, "Ann")
	p := &msPlayer{tclient: s.dial("ann", client.Config{Room: created.Room, Token: created.Token, Game: msPin})}
	p.waitOnline()
	p.control(protocol.Control{Op: protocol.ControlStart})
	staller := stallingSpectator(t, s, created.Room, msPin)
	p.waitFor("the spectator", func([]client.Event) bool { return spectators(p) == 1 })
	// Each round sends the spectator an update of some 300 KB (one reveal
	// floods the board) until its outbox overflows.
	var worst time.Duration
	for i := 0; i < 100 && spectators(p) != 0; i++ {
		start := time.Now()
		if rc := p.command(`{"type":"reveal","r":50,"c":50}`); !rc.OK {
			t.Fatalf("reveal %d: %+v", i, rc.Notice)
		}
		worst = max(worst, time.Since(start))
		if p.phase() != protocol.PhaseEnded { // a corner cell can be left hidden
			p.send(protocol.Action{Type: protocol.TypeResign})
		}
		p.waitFor("the result", func([]client.Event) bool { return p.phase() == protocol.PhaseEnded })
		if rc := p.control(protocol.Control{Op: protocol.ControlRematch}); !rc.OK {
			t.Fatalf("rematch: %+v", rc.Notice)
		}
		p.waitFor("the rematch", func([]client.Event) bool { return p.phase() == protocol.PhaseRunning })
	}
	p.waitFor("the spectator dropped", func([]client.Event) bool { return spectators(p) == 0 })
	// Every round completed while the spectator read nothing (the time is
	// logged, not asserted).
	t.Logf("slowest round trip while the spectator stalled: %v", worst)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var last []protocol.ServerMessage
	for {
		_, data, err := staller.Read(ctx)
		if err != nil {
			if got := websocket.CloseStatus(err); got != protocol.CloseSlow {
				t.Fatalf("closed with %d (%v); want %d", got, err, protocol.CloseSlow)
			}
			break
		}
		msgs, err := protocol.SplitServerFrame(data)
		if err != nil {
			t.Fatalf("undecodable frame: %v", err)
		}
		for _, raw := range msgs {
			m, err := protocol.DecodeServer(raw)
			if err != nil {
				t.Fatalf("undecodable message: %v", err)
			}
			last = append(last, m)
		}
	}
	if len(last) == 0 || last[len(last)-1].Bye == nil {
		t.Fatalf("the 4008 close came without a bye before it; last messages: %s", kinds(last[max(0, len(last)-3):]))
	}
	if bye := last[len(last)-1].Bye; bye.Code != protocol.CloseSlow || !bye.Reconnect {
		t.Fatalf("bye %+v; want code %d with reconnect", bye, protocol.CloseSlow)
	}
}

// TestGoClientStopsOnNormalClosure (§2.3: 1000, stop): a server that closes
// with 1000 is not dialled again.
func TestGoClientStopsOnNormalClosure(t *testing.T) {
	var dials atomic.Int32
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer ws.CloseNow()
		dials.Add(1)
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		if _, _, err := ws.Read(ctx); err != nil { // the hello
			return
		}
		ws.Close(websocket.StatusNormalClosure, "done")
	}))
	defer hs.Close()
	tr, err := client.NewRemote(client.Config{URL: hs.URL, Room: "ABCDEF", Game: nimPin,
		Backoff: func(int) time.Duration { return 10 * time.Millisecond }})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for range tr.Events() {
		}
	}()
	if err := tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	select {
	case <-tr.Done():
	case <-time.After(5 * time.Second):
		t.Fatalf("still running after a 1000 close (state %s, %d dials)", tr.State(), dials.Load())
	}
	if tr.State() != client.StateClosed || tr.LastClose() != protocol.CloseNormal || dials.Load() != 1 {
		t.Fatalf("state %s, last close %d, %d dials; want closed by 1000 after one dial", tr.State(), tr.LastClose(), dials.Load())
	}
}

// TestBadToken (§2.3, 4006): a hello with a token that is not one of the
// room's seats gets a bad-token notice, a bye and close 4006 (not 4002,
// which means the client left its seat); the Go client forgets the token
// and stops.
func TestBadToken(t *testing.T) {
	s := startServer(t)
	created := s.create("nim", `{"pile":21}`, "Ann")
	rc := s.raw(t, nil)
	rc.hello(protocol.Hello{Room: created.Room, Token: "not-a-seat-token", Game: nimPin})
	if k := kinds(rc.answers(2)); k != "notice:bad-token bye:4006" {
		t.Fatalf("answers to a bad token: %s; want notice:bad-token bye:4006", k)
	}
	rc.expectClose(protocol.CloseBadToken)

	var forgot atomic.Bool
	c := s.dial("stranger", client.Config{Room: created.Room, Token: "not-a-seat-token", Game: nimPin,
		OnToken: func(_, token string) { forgot.Store(token == "") }})
	c.closedWith(protocol.CloseBadToken)
	select {
	case <-c.tr.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the client goes on after 4006")
	}
	if c.tr.Token() != "" || !forgot.Load() {
		t.Fatalf("token %q kept after 4006 (OnToken told to forget: %v)", c.tr.Token(), forgot.Load())
	}
}

// TestForeignOriginRefused (§2, §2.3): a foreign Origin is refused at the
// upgrade with 403 — no socket, so no close code — and the close-code
// table does not promise one (1008) that nothing sends.
func TestForeignOriginRefused(t *testing.T) {
	s := startServer(t)
	u, _ := client.SocketURL(s.URL)
	h := http.Header{}
	h.Set("Origin", "http://evil.example")
	ws, resp, err := websocket.Dial(context.Background(), u, &websocket.DialOptions{HTTPHeader: h})
	if err == nil {
		ws.CloseNow()
		t.Fatal("a foreign Origin got a socket")
	}
	if resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a foreign Origin got %v (%v); want 403", resp, err)
	}
	for code := range closeTable(t) {
		if code == 1008 {
			t.Error("PROTOCOL.md §2.3 lists 1008, which roomd never sends (a foreign Origin gets 403 before any socket)")
		}
	}
}

// closeTable returns the close codes of PROTOCOL.md §2.3's table, with
// their rows.
func closeTable(t *testing.T) map[int]string {
	t.Helper()
	doc, err := os.ReadFile("../PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	sec := string(doc)
	start := strings.Index(sec, "### 2.3")
	end := strings.Index(sec, "### 2.4")
	if start < 0 || end < start {
		t.Fatal("PROTOCOL.md has no §2.3")
	}
	rows := map[int]string{}
	row := regexp.MustCompile(`(?m)^\| \**(\d{4})\**\s*\|.*$`)
	for _, m := range row.FindAllStringSubmatch(sec[start:end], -1) {
		var code int
		fmt.Sscan(m[1], &code)
		rows[code] = m[0]
	}
	if len(rows) < 5 {
		t.Fatalf("found %d rows in §2.3's table", len(rows))
	}
	return rows
}
