package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/roomd/roomd/internal/ids"
	"github.com/roomd/roomd/internal/testredis"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/transport"
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
	t.Run("redis", func(t *testing.T) {
		t.Parallel()
		rs := testredis.Start(t, testredis.NoPersistence())
		quotasAcrossNodes(t, quotaFlags(rs.URL()), func(key string) bool { return rs.Do("EXISTS "+key) == ":1" })
	})
	t.Run("redis-cluster", func(t *testing.T) {
		t.Parallel()
		rc := testredis.StartCluster(t, testredis.NoPersistence())
		exists := func(key string) bool {
			return slices.Contains(rc.Do("EXISTS "+key), ":1") // the node of its slot has it; the others refuse (MOVED)
		}
		quotasAcrossNodes(t, append(quotaFlags(rc.URL()), "--redis-cluster"), exists)
	})
}

// quotasAcrossNodes floods two nodes started with flags; exists says
// whether a key is in their Redis.
func quotasAcrossNodes(t *testing.T, flags []string, exists func(key string) bool) {
	a := startClusterNode(t, "quota-a", flags...)
	b := startClusterNode(t, "quota-b", flags...)
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
	// The quota's key lives with roomd's other keys, none under
	// redis_rate's own prefix.
	if !exists("roomd:quota:rooms:203.0.113.7") || exists("rate:roomd:quota:rooms:203.0.113.7") {
		t.Error("the quota's key is not roomd:quota:rooms:203.0.113.7")
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

// replayBody is a recorded Minesweeper game for POST /api/replays: work
// that needs no store.
func replayBody(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "replay", "g01.json"))
	if err != nil {
		t.Fatal(err)
	}
	return `{"game":"minesweeper",` + strings.TrimPrefix(strings.TrimSpace(string(b)), "{")
}

// outageBound is the longest a request may take while Redis is down or
// frozen: the shared limiter's timeout (transport.DefaultSharedTimeout,
// 200 ms), and room for a loaded machine. (A constant of its own, so that
// this file runs on roomd before shared quotas too: the figures before.)
const outageBound = 700 * time.Millisecond

// TestOutageBound: that bound leaves room above the shared limiter's
// timeout.
func TestOutageBound(t *testing.T) {
	t.Parallel()
	if outageBound < transport.DefaultSharedTimeout+300*time.Millisecond {
		t.Fatalf("outageBound %v: too close to the shared limiter's timeout %v", outageBound, transport.DefaultSharedTimeout)
	}
}

// flood sends n requests through node from one address; it returns how
// many got each status, and the longest answer. Every 429 must carry
// Retry-After.
func flood(t *testing.T, n int, method, url, from, body string) (codes map[int]int, longest time.Duration) {
	t.Helper()
	codes = map[int]int{}
	for range n {
		code, h, took := request(t, method, url, from, body)
		longest = max(longest, took)
		codes[code]++
		if code == http.StatusTooManyRequests && h.Get("Retry-After") == "" {
			t.Fatalf("429 from %s without Retry-After", url)
		}
	}
	return codes, longest
}

// TestQuotasWhenRedisStops: with Redis stopped, each node counts on its
// own: a flood of rooms through each gets that node's burst answered (503:
// the store is Redis too) and then 429, replays (no store) that node's
// burst answered 200 and then 429; with Redis frozen (SIGSTOP), no request
// waits on it longer than the shared limiter's timeout. Once Redis is
// back, the quotas are counted across the nodes again.
func TestQuotasWhenRedisStops(t *testing.T) {
	t.Parallel()
	rs := testredis.Start(t)
	a := startClusterNode(t, "outage-a", quotaFlags(rs.URL())...)
	b := startClusterNode(t, "outage-b", quotaFlags(rs.URL())...)
	nodes := []*clusterNode{a, b}
	replay := replayBody(t)
	if code, _, _ := request(t, http.MethodPost, a.URL+"/api/replays", "198.51.100.30", replay); code != http.StatusOK {
		t.Fatalf("a replay with Redis up: %d", code)
	}

	rs.Stop()
	for _, n := range nodes {
		codes, longest := flood(t, 8, http.MethodPost, n.URL+"/api/rooms", "203.0.113.20", `{"game":"nim","name":"Eve"}`)
		t.Logf("Redis stopped, 8 creations through %s: %d answered 503 (the store is down), %d refused with 429; longest answer %v",
			n.id, codes[http.StatusServiceUnavailable], codes[http.StatusTooManyRequests], longest.Round(time.Millisecond))
		if codes[http.StatusServiceUnavailable] != 5 || codes[http.StatusTooManyRequests] != 3 {
			t.Errorf("Redis stopped, creations through %s: %v, want this node's burst of 5 answered 503, then 3 429", n.id, codes)
		}
		codes, longest = flood(t, 5, http.MethodPost, n.URL+"/api/replays", "203.0.113.21", replay)
		t.Logf("Redis stopped, 5 replays through %s: %d answered 200, %d refused with 429; longest answer %v",
			n.id, codes[http.StatusOK], codes[http.StatusTooManyRequests], longest.Round(time.Millisecond))
		if codes[http.StatusOK] != 3 || codes[http.StatusTooManyRequests] != 2 || longest > outageBound {
			t.Errorf("Redis stopped, replays through %s: %v, longest %v; want this node's burst of 3 answered, then 2 429, none over %v",
				n.id, codes, longest, outageBound)
		}
	}

	// Redis back: once a node has asked it again (a second after it
	// failed), it counts for both.
	rs.Start()
	for i, n := range nodes {
		waitShared(t, n, fmt.Sprintf("198.51.100.%d", 40+i))
	}
	created := 0
	for _, n := range nodes {
		codes, _ := flood(t, 6, http.MethodPost, n.URL+"/api/rooms", "203.0.113.22", `{"game":"nim","name":"Eve"}`)
		t.Logf("Redis back, 6 creations through %s: %v", n.id, codes)
		created += codes[http.StatusCreated]
	}
	if created < 5 || created > 6 {
		t.Errorf("Redis back: %d rooms created through two nodes, want 5 (6 if a token came back)", created)
	}

	// Redis frozen: its sockets take requests and never answer.
	rs.Pause(30 * time.Second)
	defer rs.Resume()
	codes, longest := flood(t, 5, http.MethodPost, a.URL+"/api/replays", "203.0.113.23", replay)
	t.Logf("Redis frozen, 5 replays through A: %d answered 200, %d refused with 429; longest answer %v",
		codes[http.StatusOK], codes[http.StatusTooManyRequests], longest.Round(time.Millisecond))
	if codes[http.StatusOK] != 3 || codes[http.StatusTooManyRequests] != 2 || longest > outageBound {
		t.Errorf("Redis frozen, replays: %v, longest %v; want 3 answered, then 2 429, none over %v", codes, longest, outageBound)
	}
}

// waitShared waits until node n counts quotas in Redis again after an
// outage: it looks up made-up codes from address from (each one asks the
// shared limiter, once its rest after the failure is over) until the node
// logs that the shared quotas answer.
func waitShared(t *testing.T, n *clusterNode, from string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; !strings.Contains(n.logText(), "the shared quotas answer again"); i++ {
		if time.Now().After(deadline) {
			t.Fatalf("%s does not use the shared quotas again:\n%s", n.id, tail(n.logText(), 2000))
		}
		request(t, http.MethodGet, n.URL+"/api/rooms/"+guessCode(i), from, "")
		time.Sleep(100 * time.Millisecond)
	}
}
