package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/roomd/roomd/internal/ids"
	"github.com/roomd/roomd/internal/testredis"
	"github.com/roomd/roomd/protocol"
)

// Per-address quotas across nodes, with the real binary: two roomd nodes
// on one redis-server, clients on loopback playing other addresses through
// X-Forwarded-For (loopback is a trusted proxy). The figures go to the
// test log (go test -v -run Quotas ./cmd/roomd).

// quotaFlags turns the quotas on, at their defaults, for nodes on the
// Redis at url.
func quotaFlags(url string) []string {
	return []string{"--redis", url, "--quotas", quotasOn, "--trusted-proxies", "127.0.0.1"}
}

// request sends a request as client address from and returns its status
// and headers, and how long the answer took.
func request(t *testing.T, method, url, from, body string) (int, http.Header, time.Duration) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("X-Forwarded-For", from)
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header, time.Since(start)
}

// guessCode is the i-th made-up room code: valid in form, naming no room.
func guessCode(i int) string {
	a := ids.CodeAlphabet
	return fmt.Sprintf("Z%c%c%c%cZ", a[i/1000%len(a)], a[i/100%len(a)], a[i/10%len(a)], a[i%len(a)])
}

// TestQuotasAcrossNodes: a flood from one address through two nodes on
// one Redis gets one node's quota in total, not one per node: rooms
// created (10 a minute, bursts of 5), unknown codes tried (20 a minute,
// bursts of 10) and sockets opened (60 a minute, bursts of 30). A socket
// relayed from the node it reached to the room's node counts once.
func TestQuotasAcrossNodes(t *testing.T) {
	t.Parallel()
	rs := testredis.Start(t, testredis.NoPersistence())
	a := startClusterNode(t, "quota-a", quotaFlags(rs.URL())...)
	b := startClusterNode(t, "quota-b", quotaFlags(rs.URL())...)
	nodes := []*clusterNode{a, b}

	// Rooms: 20 creations through A, then 20 through B.
	created := map[string]int{}
	var retry string
	for _, n := range nodes {
		for range 20 {
			switch code, h, _ := request(t, http.MethodPost, n.URL+"/api/rooms", "203.0.113.7", `{"game":"nim","name":"Eve"}`); code {
			case http.StatusCreated:
				created[n.id]++
			case http.StatusTooManyRequests:
				retry = h.Get("Retry-After")
			default:
				t.Fatalf("create through %s: %d", n.id, code)
			}
		}
	}
	rooms := created[a.id] + created[b.id]
	t.Logf("room flood, 20 through each of two nodes: %d created (%d through A, %d through B); one node's quota is a burst of 5",
		rooms, created[a.id], created[b.id])
	if rooms < 5 || rooms > 6 || retry == "" {
		t.Errorf("room flood: %d created through two nodes (Retry-After %q), want 5 (6 if a token came back)", rooms, retry)
	}

	// Unknown codes: 20 guesses through A, then 20 through B.
	misses := map[string]int{}
	for i, n := range nodes {
		for j := range 20 {
			switch code, _, _ := request(t, http.MethodGet, n.URL+"/api/rooms/"+guessCode(i*20+j), "203.0.113.8", ""); code {
			case http.StatusNotFound:
				misses[n.id]++
			case http.StatusTooManyRequests:
			default:
				t.Fatalf("guess through %s: %d", n.id, code)
			}
		}
	}
	guesses := misses[a.id] + misses[b.id]
	t.Logf("code guessing, 20 through each node: %d answered 404 (%d through A, %d through B); one node's quota is a burst of 10",
		guesses, misses[a.id], misses[b.id])
	if guesses < 10 || guesses > 11 {
		t.Errorf("code guessing: %d guesses answered through two nodes, want 10 (11 if a token came back)", guesses)
	}

	// Sockets: 40 opened through A, then 40 through B (no hello: they
	// are held until the test ends, below the cap of 64 open per node).
	opened := map[string]int{}
	for _, n := range nodes {
		for range 40 {
			switch h, code := dialHostile(t, n.URL, "203.0.113.9"); {
			case h != nil:
				opened[n.id]++
			case code != http.StatusTooManyRequests:
				t.Fatalf("socket through %s: %d", n.id, code)
			}
		}
	}
	sockets := opened[a.id] + opened[b.id]
	t.Logf("socket flood, 40 through each node: %d opened (%d through A, %d through B); one node's quota is a burst of 30",
		sockets, opened[a.id], opened[b.id])
	if sockets < 30 || sockets > 31 {
		t.Errorf("socket flood: %d sockets opened through two nodes, want 30 (31 if a token came back)", sockets)
	}

	// Relayed sockets: 20 spectators of a room on A, each through B. Each
	// is one socket the client opened, so 20 of the address's 30.
	code, _ := hostileRoom(t, a.URL, "198.51.100.20", `{"game":"nim","name":"Host"}`)
	if owner := a.owner(t, code); owner != a.id {
		t.Fatalf("room %s is on %q, want %s", code, owner, a.id)
	}
	for i := range 20 {
		h, status := dialHostile(t, b.URL, "203.0.113.10")
		if h == nil {
			t.Fatalf("relayed spectator %d: %d", i, status)
		}
		h.send(protocol.Hello{Type: protocol.TypeHello, Room: code, Watch: true})
		if m := h.snapshotOrBye(); m.Type != protocol.TypeSnapshot {
			t.Fatalf("relayed spectator %d: %s %+v, want a snapshot", i, m.Type, m.Bye)
		}
	}
}

// snapshotOrBye reads until a snapshot or a bye arrives, and returns it.
func (h *hostile) snapshotOrBye() protocol.ServerMessage {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		_, data, err := h.ws.Read(ctx)
		if err != nil {
			h.t.Fatalf("waiting for a snapshot: %v", err)
		}
		msgs, err := protocol.SplitServerFrame(data)
		if err != nil {
			h.t.Fatal(err)
		}
		for _, raw := range msgs {
			if m, err := protocol.DecodeServer(raw); err == nil && (m.Type == protocol.TypeSnapshot || m.Type == protocol.TypeBye) {
				return m
			}
		}
	}
}
