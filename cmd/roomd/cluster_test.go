package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/roomd/roomd/internal/testredis"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/transport/client"
)

// The scale-out scenario with real processes: three roomd nodes on one
// Redis (or a 3-master Redis Cluster), co-op Minesweeper rooms created on
// two of them, and two players per room each connected through another
// node. Node A is killed (-9) while they play, node B is paused (SIGSTOP)
// past its leases and resumed, node C is drained (SIGTERM); the players
// carry on through it all. Checked: every acknowledged flag is on the
// final board and nothing unsent is; no revision was acknowledged twice
// (two writers would); each room is playable again within the lease TTL
// plus 2 s of its node's death or pause.

// clusterTTL is the lease TTL of the scenario's nodes; clusterAdmin their
// admin token.
const (
	clusterTTL   = 2 * time.Second
	clusterAdmin = "cluster-admin-token"
)

// admin calls node n's admin API.
func (n *clusterNode) admin(t testing.TB, method, path, body string, out any) int {
	t.Helper()
	req, _ := http.NewRequest(method, n.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+clusterAdmin)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
	}
	return resp.StatusCode
}

func TestClusterRedis(t *testing.T) {
	t.Parallel()
	rs := testredis.Start(t)
	runCluster(t, "--redis", rs.URL())
}

func TestClusterRedisCluster(t *testing.T) {
	t.Parallel()
	rc := testredis.StartCluster(t)
	runCluster(t, "--redis", rc.URL(), "--redis-cluster")
}

// clusterNode is one roomd node of the scenario.
type clusterNode struct {
	*proc
	id string
}

func startClusterNode(t testing.TB, id string, store ...string) *clusterNode {
	t.Helper()
	return startNodeTTL(t, id, clusterTTL, store...)
}

func startNodeTTL(t testing.TB, id string, ttl time.Duration, store ...string) *clusterNode {
	t.Helper()
	addr := freeAddr(t)
	p := startRoomd(t, addr, append([]string{"--node-id", id, "--public-url", "http://" + addr, "--lease-ttl", ttl.String(),
		"--shutdown-timeout", "10s", "--admin-token", clusterAdmin}, store...)...)
	return &clusterNode{proc: p, id: id}
}

// owner asks node n for the node that owns room (X-Roomd-Node). A node
// may answer 502 or 503 for a moment, while the room's lease passes from a
// dead node: it asks again then.
func (n *clusterNode) owner(t *testing.T, room string) string {
	t.Helper()
	deadline := time.Now().Add(clusterTTL + 3*time.Second)
	for {
		resp, err := http.Get(n.URL + "/api/rooms/" + room)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusOK:
			return resp.Header.Get("X-Roomd-Node")
		case resp.StatusCode >= 500 && time.Now().Before(deadline):
			time.Sleep(100 * time.Millisecond)
		default:
			t.Fatalf("room %s through node %s: %s", room, n.id, resp.Status)
		}
	}
}

// seatPlayer plays one seat: it flags cell after cell, each action waiting
// for its receipt, and records what it sent and what was acknowledged.
type seatPlayer struct {
	b     *bot
	name  string
	cells []int // the cells this seat flags, in order

	// pause is the wait after a refused action (storage unavailable, say),
	// as a client told to try again shortly waits. Zero means 60 ms, the
	// wait after any action.
	pause time.Duration

	mu    sync.Mutex
	sent  map[int]bool
	acked map[int]uint64 // cell → revision
	oks   []okAt         // the ok receipts, in order
	stop  chan struct{}
	done  chan struct{}
}

func startSeatPlayer(t testing.TB, name string, urls []string, room, token string, cells []int) *seatPlayer {
	b := dialConfig(t, client.Config{URLs: urls, Room: room, Token: token, Game: msPin,
		Backoff: func(int) time.Duration { return 100 * time.Millisecond }}, nil)
	return &seatPlayer{b: b, name: name, cells: cells, sent: map[int]bool{}, acked: map[int]uint64{},
		stop: make(chan struct{}), done: make(chan struct{})}
}

func (f *seatPlayer) run() {
	defer close(f.done)
	for _, k := range f.cells {
		var id string
		var sentAt time.Time
		for id == "" {
			select {
			case <-f.stop:
				return
			default:
			}
			sentAt = time.Now()
			if id = f.b.send(protocol.Action{Type: protocol.TypeCommand, Command: flagCmd(k)}); id == "" {
				time.Sleep(20 * time.Millisecond) // offline: reconnecting
			}
		}
		f.mu.Lock()
		f.sent[k] = true
		f.mu.Unlock()
		wait := 60 * time.Millisecond // within the rate limit (20 a second)
		for {
			ok, _, got := f.b.waitReceipt(id, 200*time.Millisecond)
			if got {
				if !ok && f.pause > 0 {
					wait = f.pause
				}
				if ok {
					f.b.mu.Lock()
					rev := f.b.acked[id]
					f.b.mu.Unlock()
					f.mu.Lock()
					f.acked[k], f.oks = rev, append(f.oks, okAt{sent: sentAt, got: time.Now()})
					f.mu.Unlock()
				}
				break
			}
			select {
			case <-f.stop:
				return
			default:
			}
		}
		time.Sleep(wait)
	}
}

// okAfter waits until the seat has an ok receipt for an action sent after
// at, and returns how long after at it came.
func (f *seatPlayer) okAfter(t testing.TB, at time.Time, within time.Duration) time.Duration {
	t.Helper()
	deadline := time.Now().Add(within + 5*time.Second)
	for time.Now().Before(deadline) {
		f.mu.Lock()
		i := slices.IndexFunc(f.oks, func(ok okAt) bool { return ok.sent.After(at) })
		var when time.Time
		if i >= 0 {
			when = f.oks[i].got
		}
		f.mu.Unlock()
		if i >= 0 {
			return when.Sub(at)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s: no acknowledged action within %v of %v (state %s, closes %v)", f.name, within+5*time.Second, at.Format(time.TimeOnly), f.b.tr.State(), f.closes())
	return 0
}

func (f *seatPlayer) closes() []int {
	f.b.mu.Lock()
	defer f.b.mu.Unlock()
	return slices.Clone(f.b.closes)
}

// okAt is when an acknowledged action was sent and when its receipt came.
type okAt struct{ sent, got time.Time }

type clusterRoom struct {
	code    string
	players [2]*seatPlayer
}

func runCluster(t *testing.T, store ...string) {
	a, b, c := startClusterNode(t, "node-a", store...), startClusterNode(t, "node-b", store...), startClusterNode(t, "node-c", store...)
	nodes := map[string]*clusterNode{"node-a": a, "node-b": b, "node-c": c}
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		for _, n := range []*clusterNode{a, b, c} {
			var lines []string
			for _, l := range strings.Split(n.logText(), "\n") {
				if strings.Contains(l, `"level":"WARN"`) || strings.Contains(l, `"level":"ERROR"`) || strings.Contains(l, "drain") || strings.Contains(l, "adopt") {
					lines = append(lines, l)
				}
			}
			t.Logf("node %s warnings:\n%s", n.id, tail(strings.Join(lines, "\n"), 6000))
			if dir := os.Getenv("ROOMD_CLUSTER_LOGS"); dir != "" {
				_ = os.WriteFile(filepath.Join(dir, n.id+".log"), []byte(n.logText()), 0o644)
			}
		}
	})
	// Three rooms on A, three on B (a node keeps the rooms created through
	// it while it is not much busier than the others).
	var rooms []*clusterRoom
	for i := range 6 {
		home, other1, other2 := a, b, c
		if i%2 == 1 {
			home, other1, other2 = b, c, a
		}
		code, host := createGame(t, home.URL, "minesweeper", "p1", `{"mode":"coop","level":"expert"}`)
		joined := joinRoom(t, other1.URL, code, "p2")
		if got := other2.owner(t, code); got != home.id {
			t.Fatalf("room %s created through %s is owned by %q", code, home.id, got)
		}
		r := &clusterRoom{code: code}
		// Each seat plays every other cell, through another node than the
		// room's; the second seat of B's rooms talks to B alone (the
		// fencing check below).
		var even, odd []int
		for k := range 480 {
			if k%2 == 0 {
				even = append(even, k)
			} else {
				odd = append(odd, k)
			}
		}
		r.players[0] = startSeatPlayer(t, code+"/p1", []string{other1.URL, other2.URL, home.URL}, code, host, even)
		urls2 := []string{other2.URL, other1.URL, home.URL}
		if home == b {
			urls2 = []string{b.URL}
		}
		r.players[1] = startSeatPlayer(t, code+"/p2", urls2, code, joined, odd)
		rooms = append(rooms, r)
	}
	for _, r := range rooms {
		var last uint64
		for _, p := range r.players {
			p.b.until("online", 10*time.Second, func() bool { return p.b.tr.State() == client.StateOnline })
			id := p.b.send(protocol.Action{Type: protocol.TypeControl, Control: &protocol.Control{Op: protocol.ControlReady, Ready: true}})
			if ok, code, _ := p.b.waitReceipt(id, 10*time.Second); !ok {
				t.Fatalf("%s: ready refused: %s", p.name, code)
			}
			p.b.mu.Lock()
			last = max(last, p.b.acked[id])
			p.b.mu.Unlock()
		}
		host := r.players[0].b
		host.until("the second seat's ready", 10*time.Second, func() bool { _, rev := host.tr.Position(); return rev >= last })
		id := host.send(protocol.Action{Type: protocol.TypeControl, Control: &protocol.Control{Op: protocol.ControlStart}})
		if ok, code, _ := host.waitReceipt(id, 10*time.Second); !ok {
			t.Fatalf("room %s: start refused: %s", r.code, code)
		}
		for _, p := range r.players {
			go p.run()
		}
	}
	// The admin API of any node lists every node's rooms with its owner,
	// and moves a room (here through node B, forwarded to A, the owner).
	var list struct {
		Rooms []struct{ Code, Node string }
		Nodes []struct {
			ID    string
			Error string
		}
	}
	if code := b.admin(t, "GET", "/api/admin/rooms", "", &list); code != http.StatusOK || len(list.Rooms) != len(rooms) {
		t.Fatalf("admin rooms through B: %d, %d rooms %+v, want %d", code, len(list.Rooms), list, len(rooms))
	}
	for _, row := range list.Rooms {
		if want := rooms[slices.IndexFunc(rooms, func(r *clusterRoom) bool { return r.code == row.Code })]; want == nil || (row.Node != "node-a" && row.Node != "node-b") {
			t.Errorf("admin row %+v", row)
		}
	}
	moved := rooms[0].code // on A
	var answer map[string]any
	if code := b.admin(t, "POST", "/api/admin/rooms/"+moved+"/move", `{"to":"node-c"}`, &answer); code != http.StatusOK {
		t.Fatalf("admin move of %s to node-c through B: %d %v", moved, code, answer)
	}
	if got := a.owner(t, moved); got != "node-c" {
		t.Fatalf("room %s is on %q after the move, want node-c", moved, got)
	}
	for _, p := range rooms[0].players {
		p.okAfter(t, time.Now(), clusterTTL)
	}
	stopAll := func() {
		for _, r := range rooms {
			for _, p := range r.players {
				select {
				case <-p.stop:
				default:
					close(p.stop)
				}
				<-p.done
			}
		}
	}
	defer stopAll()
	time.Sleep(1500 * time.Millisecond)

	// kill -9 of A, which owns half the rooms: they are taken over by the
	// node their players reach, within the TTL + 2 s.
	killed := time.Now()
	a.kill9()
	bound := clusterTTL + 2*time.Second
	var gaps []time.Duration
	for _, r := range everyOther(rooms, 0) {
		gap := r.players[0].okAfter(t, killed, bound)
		gaps = append(gaps, gap)
		if gap > bound {
			t.Errorf("room %s played again %v after its node's kill -9, more than the TTL + 2 s", r.code, gap)
		}
	}
	t.Logf("kill -9: rooms playable again after %v", gaps)

	// SIGSTOP of B past its leases: its rooms are taken over by C (their
	// first seats play through C and A); on SIGCONT, B finds its writes
	// fenced and its leases gone, and its own clients are sent on.
	paused := time.Now()
	b.cmd.Process.Signal(syscall.SIGSTOP)
	gaps = gaps[:0]
	for _, r := range everyOther(rooms, 1) {
		gap := r.players[0].okAfter(t, paused, bound+clusterTTL)
		gaps = append(gaps, gap)
	}
	t.Logf("SIGSTOP: rooms playable again after %v", gaps)
	resumed := time.Now()
	b.cmd.Process.Signal(syscall.SIGCONT)
	for _, r := range everyOther(rooms, 1) {
		r.players[1].okAfter(t, resumed, bound)
	}
	if logs := b.logText(); !strings.Contains(logs, "another node") && !strings.Contains(logs, "lost the room's lease") {
		t.Errorf("node B never noticed it lost its leases:\n%s", tail(logs, 3000))
	}

	// SIGTERM of C under load: its rooms go to B, the players follow.
	before := map[string]string{}
	for _, r := range rooms {
		before[r.code] = b.owner(t, r.code)
	}
	drained := time.Now()
	c.term()
	for _, r := range rooms {
		for _, p := range r.players {
			p.okAfter(t, drained, bound)
		}
		if got := b.owner(t, r.code); got != "node-b" {
			t.Errorf("room %s is owned by %q after C's drain, want node-b", r.code, got)
		}
	}
	t.Logf("owners before the drain: %v", before)
	stopAll()

	checkAcked(t, b.URL, rooms)
	for _, n := range nodes {
		if strings.Contains(n.logText(), "panic") {
			t.Errorf("node %s panicked:\n%s", n.id, tail(n.logText(), 3000))
		}
	}
}

// checkAcked checks, through the node at base, that every acknowledged flag
// of the rooms is on the board, nothing unsent is, and no revision was
// acknowledged twice (two writers would).
func checkAcked(t *testing.T, base string, rooms []*clusterRoom) {
	t.Helper()
	for _, r := range rooms {
		spec := dialConfig(t, client.Config{URL: base, Room: r.code, Watch: true, Game: msPin,
			Backoff: func(int) time.Duration { return 100 * time.Millisecond }}, nil)
		spec.until("snapshot", 10*time.Second, func() bool { return spec.snapshot != nil })
		spec.mu.Lock()
		flagged := flaggedCells(t, spec.snapshot)
		spec.mu.Unlock()
		revs := map[uint64]string{}
		acked := 0
		for _, p := range r.players {
			p.mu.Lock()
			for k, rev := range p.acked {
				acked++
				if !flagged[string(flagCmd(k))] {
					t.Errorf("room %s: %s's acknowledged flag %d is not on the board", r.code, p.name, k)
				}
				if other, dup := revs[rev]; dup {
					t.Errorf("room %s: revision %d acknowledged twice (%s and %s/%d): two writers", r.code, rev, other, p.name, k)
				}
				revs[rev] = fmt.Sprintf("%s/%d", p.name, k)
			}
			p.mu.Unlock()
		}
		sent := 0
		for _, p := range r.players {
			p.mu.Lock()
			sent += len(p.sent)
			p.mu.Unlock()
		}
		if len(flagged) > sent || len(flagged) < acked {
			t.Errorf("room %s: %d flags on the board, %d acknowledged, %d sent", r.code, len(flagged), acked, sent)
		}
		t.Logf("room %s: %d sent, %d acknowledged, %d on the board", r.code, sent, acked, len(flagged))
	}
}

// joinRoom takes a seat in room through base.
func joinRoom(t *testing.T, base, room, name string) string {
	t.Helper()
	resp, err := http.Post(base+"/api/rooms/"+room+"/join", "application/json", strings.NewReader(fmt.Sprintf(`{"name":%q}`, name)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var res struct{ Token string }
	if err := json.NewDecoder(resp.Body).Decode(&res); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("join %s through %s: %d %v", room, base, resp.StatusCode, err)
	}
	return res.Token
}

// everyOther returns rooms[from], rooms[from+2], ...: the rooms of one node.
func everyOther(rooms []*clusterRoom, from int) []*clusterRoom {
	var out []*clusterRoom
	for i := from; i < len(rooms); i += 2 {
		out = append(out, rooms[i])
	}
	return out
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

var benchTTL = flag.Duration("lease-ttl", 2*time.Second, "BenchmarkTakeover: the nodes' --lease-ttl")

// BenchmarkTakeover measures takeovers after a kill -9, b.N times: a solo
// room on a fresh node A, its player connected through node B; A is
// killed and the player plays on; each takeover's time is from the kill
// to the receipt of the first action sent after it. Reports p50 and max.
//
//	go test -run '^$' -bench Takeover -benchtime 20x ./cmd/roomd -args -lease-ttl 2s
func BenchmarkTakeover(b *testing.B) {
	rs := testredis.Start(b)
	store := []string{"--redis", rs.URL()}
	nb := startNodeTTL(b, "node-b", *benchTTL, store...)
	var gaps []time.Duration
	i := 0
	for b.Loop() {
		i++
		a := startNodeTTL(b, fmt.Sprintf("node-a%d", i), *benchTTL, store...)
		code, host := createGame(b, a.URL, "minesweeper", "p", `{"mode":"solo","level":"expert"}`)
		cells := make([]int, 480)
		for k := range cells {
			cells[k] = k
		}
		p := startSeatPlayer(b, code, []string{nb.URL}, code, host, cells)
		p.b.until("online", 10*time.Second, func() bool { return p.b.tr.State() == client.StateOnline })
		id := p.b.send(protocol.Action{Type: protocol.TypeControl, Control: &protocol.Control{Op: protocol.ControlStart}})
		if ok, why, _ := p.b.waitReceipt(id, 10*time.Second); !ok {
			b.Fatalf("start: %s", why)
		}
		go p.run()
		p.okAfter(b, time.Now(), 5*time.Second)
		killed := time.Now()
		a.kill9()
		gaps = append(gaps, p.okAfter(b, killed, *benchTTL+5*time.Second))
		close(p.stop)
		<-p.done
		p.b.close()
	}
	slices.Sort(gaps)
	b.ReportMetric(float64(gaps[len(gaps)/2].Milliseconds()), "p50-ms")
	b.ReportMetric(float64(gaps[len(gaps)-1].Milliseconds()), "max-ms")
	b.Logf("lease TTL %v, %d takeovers: %v", *benchTTL, len(gaps), gaps)
}
