package transport

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/transport/client"
)

// Per-address quotas, over real HTTP and WebSockets on loopback. The test
// server trusts loopback as a proxy, so X-Forwarded-For plays other
// addresses.

func quotaServer(t *testing.T, q Quotas) *testServer {
	t.Helper()
	q.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	return startServer(t, func(_ *room.Config, c *Config) { c.Quotas = q })
}

// do sends a request as client address from, and returns its status and
// Retry-After.
func do(t *testing.T, method, url, from, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if from != "" {
		req.Header.Set("X-Forwarded-For", from)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Retry-After")
}

// TestRoomCreationQuota: one address's flood of rooms gets 429 with
// Retry-After once its burst is spent, while another address still creates
// rooms; an untrusted peer cannot pretend to be another address.
func TestRoomCreationQuota(t *testing.T) {
	s := quotaServer(t, Quotas{Rooms: Limit{PerMinute: 10}}) // bursts of 5
	body := `{"game":"nim","name":"Ann"}`
	created, refused := 0, 0
	var retry string
	for range 20 {
		switch code, ra := do(t, http.MethodPost, s.URL+"/api/rooms", "203.0.113.7", body); code {
		case http.StatusCreated:
			created++
		case http.StatusTooManyRequests:
			refused++
			retry = ra
		default:
			t.Fatalf("status %d", code)
		}
	}
	if created != 5 || refused != 15 {
		t.Fatalf("one address: %d created, %d refused; want 5 and 15", created, refused)
	}
	if n, err := strconv.Atoi(retry); err != nil || n < 1 || n > 6 {
		t.Fatalf("Retry-After %q", retry)
	}
	if code, _ := do(t, http.MethodPost, s.URL+"/api/rooms", "198.51.100.2", body); code != http.StatusCreated {
		t.Fatalf("another address: %d", code)
	}
	// A chain: the client is the last address that is not a trusted proxy.
	if code, _ := do(t, http.MethodPost, s.URL+"/api/rooms", "198.51.100.9, 127.0.0.5", body); code != http.StatusCreated {
		t.Fatalf("through two proxies: %d", code)
	}
	if code, _ := do(t, http.MethodPost, s.URL+"/api/rooms", "1.2.3.4, 203.0.113.7", body); code != http.StatusTooManyRequests {
		t.Fatalf("a forged first hop passed the quota: %d", code)
	}
}

func TestXForwardedForNeedsATrustedPeer(t *testing.T) {
	s := startServer(t, func(_ *room.Config, c *Config) { c.Quotas = Quotas{Rooms: Limit{PerMinute: 2}} }) // no trusted proxy
	body := `{"game":"nim","name":"Ann"}`
	refused := 0
	for i := range 6 {
		if code, _ := do(t, http.MethodPost, s.URL+"/api/rooms", fmt.Sprintf("10.0.0.%d", i), body); code == http.StatusTooManyRequests {
			refused++
		}
	}
	if refused != 5 {
		t.Fatalf("%d of 6 refused: an untrusted X-Forwarded-For was believed", refused)
	}
}

// TestCodeGuessingQuota: codes that name no room spend the address's
// lookups; once they are spent even real rooms answer 429, over HTTP and in
// hellos (a too-many notice and 4013).
func TestCodeGuessingQuota(t *testing.T) {
	s := quotaServer(t, Quotas{Lookups: Limit{PerMinute: 6}}) // bursts of 3
	real := s.create("nim", `{}`, "Ann")
	from := "203.0.113.8"
	for i := range 3 {
		if code, _ := do(t, http.MethodGet, s.URL+"/api/rooms/ZZZZZ"+string(rune('A'+i)), from, ""); code != http.StatusNotFound {
			t.Fatalf("guess %d: %d", i, code)
		}
	}
	if code, _ := do(t, http.MethodGet, s.URL+"/api/rooms/"+real.Room, from, ""); code != http.StatusTooManyRequests {
		t.Fatalf("after 3 misses: %d, want 429", code)
	}
	if code, _ := do(t, http.MethodGet, s.URL+"/api/rooms/"+real.Room, "198.51.100.3", ""); code != http.StatusOK {
		t.Fatalf("another address: %d", code)
	}
	// The same budget, spent by hellos.
	hdr := http.Header{"X-Forwarded-For": {"203.0.113.9"}}
	for i := range 4 {
		code := helloClose(t, s.URL, hdr, "YYYYY"+string(rune('A'+i)))
		want := protocol.CloseRoomClosed
		if i == 3 {
			want = protocol.CloseTryLater
		}
		if code != want {
			t.Fatalf("hello %d for a made-up code: close %d, want %d", i, code, want)
		}
	}
}

// helloClose opens a socket, says hello to code and returns how it closed.
func helloClose(t *testing.T, base string, hdr http.Header, code string) int {
	t.Helper()
	u, _ := client.SocketURL(base)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPHeader: hdr})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	frame, _ := protocol.Encode(protocol.Hello{Type: protocol.TypeHello, Room: code})
	if err := ws.Write(ctx, websocket.MessageText, frame); err != nil {
		t.Fatal(err)
	}
	for {
		if _, _, err := ws.Read(ctx); err != nil {
			return int(websocket.CloseStatus(err))
		}
	}
}

// TestSocketQuotas: one address may hold OpenSockets sockets and open
// Sockets a minute; past either it gets 429 before the upgrade, and others
// still connect.
func TestSocketQuotas(t *testing.T) {
	s := quotaServer(t, Quotas{OpenSockets: 3, Sockets: Limit{PerMinute: 8}})
	u, _ := client.SocketURL(s.URL)
	dial := func(from string) (*websocket.Conn, int) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		ws, resp, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPHeader: http.Header{"X-Forwarded-For": {from}}})
		if err != nil {
			if resp == nil {
				t.Fatal(err)
			}
			return nil, resp.StatusCode
		}
		return ws, http.StatusSwitchingProtocols
	}
	var open []*websocket.Conn
	for i := range 4 {
		ws, code := dial("203.0.113.10")
		if i < 3 && code != http.StatusSwitchingProtocols || i == 3 && code != http.StatusTooManyRequests {
			t.Fatalf("socket %d: %d", i, code)
		}
		if ws != nil {
			open = append(open, ws)
		}
	}
	if _, code := dial("198.51.100.4"); code != http.StatusSwitchingProtocols {
		t.Fatalf("another address: %d", code)
	}
	open[0].CloseNow()
	time.Sleep(100 * time.Millisecond) // the server notices the close
	ws, code := dial("203.0.113.10")   // a free slot, and the 5th of a burst of 4: refused by the rate
	if code != http.StatusTooManyRequests {
		t.Fatalf("past the socket rate: %d", code)
	}
	for _, w := range append(open[1:], ws) {
		if w != nil {
			w.CloseNow()
		}
	}
}

// TestConnectionCap: past MaxConns the upgrade gets 503 with Retry-After.
func TestConnectionCap(t *testing.T) {
	s := startServer(t, func(_ *room.Config, c *Config) { c.MaxConns = 2 })
	u, _ := client.SocketURL(s.URL)
	var open []*websocket.Conn
	defer func() {
		for _, w := range open {
			w.CloseNow()
		}
	}()
	for i := range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		ws, resp, err := websocket.Dial(ctx, u, nil)
		cancel()
		if i < 2 {
			if err != nil {
				t.Fatal(err)
			}
			open = append(open, ws)
			continue
		}
		if err == nil || resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
			t.Fatalf("the 3rd socket: %v %v", err, resp)
		}
	}
}

// TestQuotaTableIsBounded: past MaxAddrs remembered addresses, new ones
// share one set of buckets (a flood from many addresses is still limited,
// and the table does not grow); once old addresses are forgotten, a new
// one gets its own buckets again.
func TestQuotaTableIsBounded(t *testing.T) {
	now := time.Unix(1_750_000_000, 0)
	q := newQuotas(Quotas{MaxAddrs: 3, Rooms: Limit{PerMinute: 2}}, func() time.Time { return now })
	addr := func(i int) netip.Addr { return netip.AddrFrom4([4]byte{10, 0, 0, byte(i)}) }
	for i := 1; i <= 3; i++ {
		if _, ok := q.take(addr(i), qRooms); !ok {
			t.Fatalf("address %d refused its first room", i)
		}
	}
	// Bursts of 1: beyond the table, addresses 4 and 5 share one bucket.
	if _, ok := q.take(addr(4), qRooms); !ok {
		t.Fatal("address 4 refused the shared bucket's first room")
	}
	if wait, ok := q.take(addr(5), qRooms); ok || wait <= 0 {
		t.Fatalf("address 5 took a room from the spent shared bucket (wait %v)", wait)
	}
	for i := 6; i < 1000; i++ {
		q.take(addr(i%250), qRooms)
	}
	if n := len(q.addrs); n != 3 {
		t.Fatalf("%d addresses remembered, want at most 3", n)
	}
	// Sockets beyond the table are bounded by the global cap only; closing
	// them leaves the remembered addresses' counts alone.
	if !q.open(addr(9)) {
		t.Fatal("an overflow address could not open a socket")
	}
	q.closed(addr(9))
	// Ten minutes later the first three are forgotten: a new address gets
	// its own, full bucket.
	now = now.Add(idle + 2*time.Second)
	if _, ok := q.take(addr(7), qRooms); !ok {
		t.Fatal("a new address after the table emptied was refused")
	}
	if _, ok := q.addrs[addr(7)]; !ok || len(q.addrs) != 1 {
		t.Fatalf("table %v, want only address 7", q.addrs)
	}
}
