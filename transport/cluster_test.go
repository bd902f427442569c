package transport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/roomd/roomd/core/grid"
	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/memstore"
	"github.com/roomd/roomd/transport/client"
)

// startNode starts one node of a cluster on st: its own manager and
// server, as a separate roomd process would have, on a loopback port.
func startNode(t testing.TB, st *memstore.Memory, id string, ttl time.Duration) *testServer {
	t.Helper()
	return startNodeRegistry(t, st, st, id, ttl)
}

// startNodeRegistry is startNode with the node registry (and owners) the
// server reads through reg.
func startNodeRegistry(t testing.TB, st *memstore.Memory, reg store.Cluster, id string, ttl time.Duration) *testServer {
	t.Helper()
	rooms, err := room.NewManager(room.Config{Games: session.NewRegistry(minesweeper.Game, nim.Game), Store: st, AIDelay: -1,
		PresenceInterval: 5 * time.Millisecond, RetryAfter: 50 * time.Millisecond, Cluster: st, Node: id, LeaseTTL: ttl, Claims: st})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(nil)
	url := "http://" + hs.Listener.Addr().String()
	front, err := NewServer(Config{Rooms: rooms, Quotas: Quotas{Off: true}, RateLimit: 1e9, RateBurst: 1e9,
		Cluster: &ClusterConfig{Store: reg, Claims: st, TTL: ttl, Self: store.Node{ID: id, URL: url, PeerURL: url}}})
	if err != nil {
		t.Fatal(err)
	}
	hs.Config = NewHTTPServer(front.Handler(), HTTPConfig{})
	hs.Start()
	s := &testServer{t: t, rooms: rooms, front: front, http: hs, store: st, URL: hs.URL}
	t.Cleanup(s.stop)
	return s
}

// waitNodes waits until node s sees n live nodes.
func waitNodes(t *testing.T, s *testServer, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(s.front.Nodes()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("node sees %d nodes, want %d", len(s.front.Nodes()), n)
		}
		s.front.register(context.Background())
		time.Sleep(10 * time.Millisecond)
	}
}

// flag sends a flag toggle at cell and checks its receipt.
func (p *tclient) flag(cell grid.Coord) {
	p.t.Helper()
	if rc := p.command(fmt.Sprintf(`{"type":"flag","r":%d,"c":%d}`, cell[0], cell[1])); !rc.OK {
		p.t.Fatalf("%s: flag %v: %+v", p.name, cell, rc.Notice)
	}
}

// flags returns the flagged cells of p's view, after a resync.
func (p *tclient) flags() map[grid.Coord]bool {
	p.t.Helper()
	var v minesweeper.View
	b, _ := json.Marshal(p.resync().View)
	if err := json.Unmarshal(b, &v); err != nil {
		p.t.Fatal(err)
	}
	got := map[grid.Coord]bool{}
	for _, c := range v.Cells {
		if c.Status == minesweeper.Flagged {
			got[grid.Coord{c.R, c.C}] = true
		}
	}
	return got
}

// TestClusterRelay: a room created through node A is played by clients
// connected through nodes B and C (their sockets relayed to A, their HTTP
// join proxied), and it runs on A only.
func TestClusterRelay(t *testing.T) {
	st := memstore.New()
	a, b, c := startNode(t, st, "node-a", 5*time.Second), startNode(t, st, "node-b", 5*time.Second), startNode(t, st, "node-c", 5*time.Second)
	waitNodes(t, a, 3)
	created := a.create("minesweeper", `{"mode":"coop","level":"expert"}`, "Ann")
	var joined room.JoinResult
	if code := c.post("/api/rooms/"+created.Room+"/join", map[string]string{"name": "Bob"}, &joined); code != http.StatusOK || joined.Token == "" {
		t.Fatalf("join through node C: %d %+v", code, joined)
	}
	resp, err := http.Get(b.URL + "/api/rooms/" + created.Room)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("room info through node B: %v %v", resp, err)
	}
	resp.Body.Close()
	ann := b.dial("ann", client.Config{Room: created.Room, Token: created.Token, Game: msPin})
	bob := c.dial("bob", client.Config{Room: created.Room, Token: joined.Token, Game: msPin})
	ann.waitOnline()
	bob.waitOnline()
	var last uint64
	for _, p := range []*tclient{ann, bob} {
		rc := p.control(protocol.Control{Op: protocol.ControlReady, Ready: true})
		if !rc.OK {
			t.Fatalf("%s: ready: %+v", p.name, rc.Notice)
		}
		last = max(last, rc.Rev)
	}
	ann.waitFor("Bob's ready", func([]client.Event) bool { _, rev := ann.tr.Position(); return rev >= last })
	started := ann.control(protocol.Control{Op: protocol.ControlStart})
	if !started.OK {
		t.Fatalf("start: %+v", started.Notice)
	}
	bob.waitFor("the start", func([]client.Event) bool { _, rev := bob.tr.Position(); return rev >= started.Rev })
	want := map[grid.Coord]bool{}
	for i := range 10 {
		p := ann
		if i%2 == 1 {
			p = bob
		}
		cell := grid.Coord{i, (i * 7) % 30}
		p.flag(cell)
		want[cell] = true
	}
	for _, p := range []*tclient{ann, bob} {
		if got := p.flags(); len(got) != len(want) {
			t.Fatalf("%s sees %d flags, want %d", p.name, len(got), len(want))
		}
		p.checkContinuity()
	}
	if _, ok := a.rooms.Lookup(created.Room); !ok {
		t.Fatal("the room is not on node A")
	}
	for _, n := range []*testServer{b, c} {
		if _, ok := n.rooms.Lookup(created.Room); ok {
			t.Fatal("a relaying node loaded the room too")
		}
	}
}

// TestClusterDrain: node A shuts down while clients play its room through
// B and C: the room passes to another node with everything acknowledged,
// the clients are told it moved and carry on there.
func TestClusterDrain(t *testing.T) {
	st := memstore.New()
	a, b, c := startNode(t, st, "node-a", 5*time.Second), startNode(t, st, "node-b", 5*time.Second), startNode(t, st, "node-c", 5*time.Second)
	waitNodes(t, a, 3)
	created := a.create("minesweeper", `{"mode":"solo","level":"expert"}`, "Ann")
	ann := b.dial("ann", client.Config{Room: created.Room, Token: created.Token, Game: msPin})
	spec := c.dial("spec", client.Config{Room: created.Room, Watch: true, Game: msPin})
	ann.waitOnline()
	spec.waitOnline()
	if rc := ann.control(protocol.Control{Op: protocol.ControlStart}); !rc.OK {
		t.Fatalf("start: %+v", rc.Notice)
	}
	for i := range 5 {
		ann.flag(grid.Coord{i, i})
	}
	a.stop() // SIGTERM: drain
	// The room is on B or C now, with all five flags; Ann goes on.
	owner, _, err := st.Owner(context.Background(), created.Room)
	if err != nil || (owner != "node-b" && owner != "node-c") {
		t.Fatalf("owner after the drain = %q, %v", owner, err)
	}
	for i := 5; i < 8; i++ {
		ann.waitOnline()
		ann.flag(grid.Coord{i, i})
	}
	if got := ann.flags(); len(got) != 8 {
		t.Fatalf("Ann sees %d flags after the drain, want 8", len(got))
	}
	spec.waitFor("the spectator's view of the eighth flag", func([]client.Event) bool {
		_, rev := spec.tr.Position()
		return rev >= 9
	})
	ann.checkContinuity()
	moved := 0
	for _, ev := range ann.snapshotEvents() {
		if ev.Kind == client.EventState && ev.Close == protocol.CloseMoved {
			moved++
		}
	}
	if moved == 0 {
		t.Error("Ann's socket was not closed with 4009 (moved)")
	}
}

// TestClusterPublicRooms: the public room list of any node shows every
// node's public rooms, and its pages, cursor included, run across nodes.
func TestClusterPublicRooms(t *testing.T) {
	st := memstore.New()
	a, b := startNode(t, st, "node-a", 5*time.Second), startNode(t, st, "node-b", 5*time.Second)
	waitNodes(t, a, 2)
	waitNodes(t, b, 2)
	want := map[string]bool{}
	for i, n := range []*testServer{a, b, a, b} {
		var res room.JoinResult
		if code := n.post("/api/rooms", map[string]any{"game": "nim", "name": fmt.Sprintf("host%d", i), "public": true}, &res); code != http.StatusCreated {
			t.Fatalf("create: %d", code)
		}
		want[res.Room] = true
	}
	if na, nb := len(a.rooms.Rooms()), len(b.rooms.Rooms()); na != 2 || nb != 2 {
		t.Fatalf("rooms on the nodes: %d and %d, want 2 each", na, nb)
	}
	for _, n := range []*testServer{a, b} {
		seen := map[string]bool{}
		cursor := ""
		for page := 0; ; page++ {
			var got room.ListPage
			resp, err := http.Get(n.URL + "/api/rooms?limit=1&cursor=" + cursor)
			if err != nil {
				t.Fatal(err)
			}
			err = json.NewDecoder(resp.Body).Decode(&got)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("page %d: %d %v", page, resp.StatusCode, err)
			}
			for _, r := range got.Rooms {
				if seen[r.Code] {
					t.Fatalf("room %s listed twice", r.Code)
				}
				seen[r.Code] = true
			}
			if got.Next == "" || page > 10 {
				break
			}
			cursor = got.Next
		}
		if len(seen) != len(want) {
			t.Errorf("through %s: listed %v, want %v", n.URL, seen, want)
		}
	}
}

// downRegistry is a store whose node registry is unreachable while down is
// set: Register and Nodes fail, as on a Redis whose registry's master
// fails over.
type downRegistry struct {
	store.Cluster
	down atomic.Bool
}

var errRegistryDown = errors.New("registry unreachable")

func (d *downRegistry) Register(ctx context.Context, n store.Node, ttl time.Duration) error {
	if d.down.Load() {
		return errRegistryDown
	}
	return d.Cluster.Register(ctx, n, ttl)
}

func (d *downRegistry) Nodes(ctx context.Context) ([]store.Node, error) {
	if d.down.Load() {
		return nil, errRegistryDown
	}
	return d.Cluster.Nodes(ctx)
}

// TestClusterRegistryOutage: the node registry is unreachable for longer
// than the TTL, so every registration lapses. Once it is back, each node
// registers again within registerRetry (not at its next third of the
// TTL), and no node takes another for dead meanwhile: a socket relayed
// through node B to the room on node A stays open and plays on.
func TestClusterRegistryOutage(t *testing.T) {
	t.Parallel()
	const ttl = 3 * time.Second
	st := memstore.New()
	reg := &downRegistry{Cluster: st}
	a, b := startNodeRegistry(t, st, reg, "node-a", ttl), startNodeRegistry(t, st, reg, "node-b", ttl)
	waitNodes(t, a, 2)
	waitNodes(t, b, 2)
	created := a.create("minesweeper", `{"mode":"solo","level":"expert"}`, "Ann")
	ann := b.dial("ann", client.Config{Room: created.Room, Token: created.Token, Game: msPin})
	ann.waitOnline()
	if rc := ann.control(protocol.Control{Op: protocol.ControlStart}); !rc.OK {
		t.Fatalf("start: %+v", rc.Notice)
	}
	ann.flag(grid.Coord{0, 0})

	reg.down.Store(true)
	time.Sleep(ttl + 500*time.Millisecond)
	if nodes, _ := st.Nodes(context.Background()); len(nodes) != 0 {
		t.Fatalf("registrations did not lapse in the outage: %v", nodes)
	}
	back := time.Now()
	reg.down.Store(false)
	for {
		nodes, err := st.Nodes(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(nodes) == 2 {
			break
		}
		if time.Since(back) > registerRetry+time.Second/2 {
			t.Fatalf("%d nodes registered %v after the registry came back, want both within %v", len(nodes), time.Since(back), registerRetry)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("both nodes registered again %v after the registry came back", time.Since(back).Round(time.Millisecond))
	time.Sleep(ttl / 3) // every node's next registration, and its sweep of relays
	ann.flag(grid.Coord{1, 1})
	for _, ev := range ann.snapshotEvents() {
		if ev.Kind == client.EventState && ev.Close != 0 {
			t.Errorf("Ann's relayed socket was closed (%d) around the registry's outage", ev.Close)
		}
	}
	if got := ann.flags(); len(got) != 2 {
		t.Fatalf("Ann sees %d flags, want 2", len(got))
	}
}
