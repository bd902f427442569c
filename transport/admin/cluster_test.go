package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/internal/ids"
	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/memstore"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const token = "s3cret"

// testCluster is several nodes in this process on one memory store, each
// with a real room.Manager owning its rooms by leases and its admin API
// on a real loopback server. Its nodes are the admin API's Cluster (the
// part transport implements: here requests between nodes are plain HTTP).
type testCluster struct {
	t      *testing.T
	mem    *memstore.Memory
	client *http.Client

	mu    sync.Mutex
	nodes []*testNode
	calls []peerCall // requests between nodes, in order
}

type peerCall struct{ from, to, method, path string }

type testNode struct {
	cl       *testCluster
	id       string
	token    string
	rooms    *room.Manager
	api      *API
	srv      *httptest.Server
	draining bool
	// owners overrides what RoomOwner says (a view of the owner that
	// differs from the store's).
	owners map[string]string
	// hook, when set, sees every request first; true when it answered.
	hook func(w http.ResponseWriter, r *http.Request) bool
}

func newTestCluster(t *testing.T) *testCluster {
	tr := &http.Transport{}
	cl := &testCluster{t: t, mem: memstore.New(), client: &http.Client{Transport: tr}}
	t.Cleanup(tr.CloseIdleConnections)
	return cl
}

// add starts node id with the admin token tok and cfg's other fields.
func (cl *testCluster) add(id, tok string, cfg Config) *testNode {
	t := cl.t
	t.Helper()
	m, err := room.NewManager(room.Config{Games: session.NewRegistry(nim.Game), Store: cl.mem, Cluster: cl.mem,
		Node: id, AIDelay: -1})
	if err != nil {
		t.Fatal(err)
	}
	n := &testNode{cl: cl, id: id, token: tok, rooms: m}
	cfg.Rooms, cfg.Token, cfg.Cluster = m, tok, n
	n.api = NewAPI(cfg)
	mux := http.NewServeMux()
	for pattern, h := range n.api.Routes() {
		mux.Handle(pattern, h)
	}
	n.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.hook != nil && n.hook(w, r) {
			return
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		n.srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := m.Shutdown(ctx); err != nil {
			t.Error(err)
		}
	})
	cl.mu.Lock()
	cl.nodes = append(cl.nodes, n)
	cl.mu.Unlock()
	return n
}

func (cl *testCluster) node(id string) *testNode {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	for _, n := range cl.nodes {
		if n.id == id {
			return n
		}
	}
	return nil
}

func (cl *testCluster) peerCalls() []peerCall {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return slices.Clone(cl.calls)
}

func (n *testNode) NodeID() string { return n.id }

func (n *testNode) Nodes() []store.Node {
	n.cl.mu.Lock()
	defer n.cl.mu.Unlock()
	var out []store.Node
	for _, o := range n.cl.nodes {
		out = append(out, store.Node{ID: o.id, URL: o.srv.URL, PeerURL: o.srv.URL, Rooms: len(o.rooms.Rooms()), Draining: o.draining})
	}
	return out
}

func (n *testNode) RoomOwner(ctx context.Context, code string) (string, error) {
	if o, ok := n.owners[code]; ok {
		return o, nil
	}
	if _, ok := n.rooms.Lookup(code); ok {
		return n.id, nil
	}
	owner, _, err := n.cl.mem.Owner(ctx, code)
	return owner, err
}

// MoveRoom does what transport's does: the room stops here, handing its
// lease to the target, which loads it.
func (n *testNode) MoveRoom(ctx context.Context, code, to string) error {
	target := n.cl.node(to)
	switch {
	case target == nil:
		return fmt.Errorf("no live node %q", to) // as transport's MoveRoom says it
	case target.draining:
		return io.ErrUnexpectedEOF // the admin API checked already: never here in these tests
	}
	if err := n.rooms.Move(ctx, code, store.Node{ID: to, URL: target.srv.URL, PeerURL: target.srv.URL}); err != nil {
		return err
	}
	_, err := target.rooms.Get(ctx, code)
	return err
}

func (n *testNode) PeerRequest(ctx context.Context, id, method, path string, header http.Header, body []byte) (*http.Response, error) {
	target := n.cl.node(id)
	if target == nil {
		return nil, io.ErrUnexpectedEOF
	}
	n.cl.mu.Lock()
	n.cl.calls = append(n.cl.calls, peerCall{from: n.id, to: id, method: method, path: path})
	n.cl.mu.Unlock()
	req, err := http.NewRequestWithContext(ctx, method, target.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = header.Clone()
	req.Header.Set("X-Test-From", n.id)
	return n.cl.client.Do(req)
}

// create makes a nim room on node n and returns its code.
func (n *testNode) create(t *testing.T) string {
	t.Helper()
	res, err := n.rooms.Create(context.Background(), room.CreateRequest{Game: "nim", Name: "Ann"})
	if err != nil {
		t.Fatal(err)
	}
	return res.Room
}

// do sends a request to node n with the admin token tok and decodes the
// JSON answer into v (when not nil).
func (n *testNode) do(t *testing.T, method, path, tok, body string, v any) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, n.srv.URL+path, strings.NewReader(body))
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := n.cl.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Errorf("%s %s: Content-Type %q", method, path, resp.Header.Get("Content-Type"))
	}
	if v != nil && resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s %s: %v in %s", method, path, err, b)
		}
	}
	return resp.StatusCode, string(b)
}

// where returns the nodes that have room code loaded.
func (cl *testCluster) where(code string) []string {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	var out []string
	for _, n := range cl.nodes {
		if _, ok := n.rooms.Lookup(code); ok {
			out = append(out, n.id)
		}
	}
	return out
}

type listAnswer struct {
	Node  string
	Rooms []struct {
		Code, Game, Node string
	}
	Nodes []struct {
		ID, PeerURL, Error string
		Rooms              int
		Draining           bool
	}
	Partial bool
}

func (l listAnswer) rows() map[string]string {
	out := map[string]string{}
	for _, r := range l.Rooms {
		out[r.Code] = r.Node
	}
	return out
}

// TestClusterListsEveryNode: one node's list has every node's rooms, each
// with its node; nodes that do not answer (gone, stalled past the bound,
// with another admin token) are reported with an error, not failing the
// list; the other nodes are asked at once; ?local=1 lists one node's.
func TestClusterListsEveryNode(t *testing.T) {
	cl := newTestCluster(t)
	cfg := Config{PeerTimeout: 2 * time.Second}
	a := cl.add("a", token, cfg)
	b := cl.add("b", token, cfg)
	c := cl.add("c", token, cfg)
	gone := cl.add("gone", token, cfg)
	gone.srv.Close() // registered still, as a node just killed is
	cl.add("other-token", "not-the-same", cfg)
	stalled := cl.add("stalled", token, cfg)
	stalled.hook = func(w http.ResponseWriter, r *http.Request) bool { <-r.Context().Done(); return true }
	// b and c answer only once both were asked: a list that asked one
	// after the other would time out on the first.
	var mu sync.Mutex
	asked := map[string]bool{}
	both := make(chan struct{})
	gate := func(w http.ResponseWriter, r *http.Request) bool {
		if r.Header.Get("X-Test-From") != "" { // a node's request: the test's own pass
			mu.Lock()
			if !asked[r.Host] {
				asked[r.Host] = true
				if len(asked) == 2 {
					close(both)
				}
			}
			mu.Unlock()
			select {
			case <-both:
			case <-r.Context().Done():
			}
		}
		return false
	}
	b.hook, c.hook = gate, gate

	ra, rb1, rb2, rc := a.create(t), b.create(t), b.create(t), c.create(t)
	var list listAnswer
	start := time.Now()
	code, body := a.do(t, "GET", "/api/admin/rooms", token, "", &list)
	took := time.Since(start)
	if code != http.StatusOK {
		t.Fatalf("list: %d %s", code, body)
	}
	want := map[string]string{ra: "a", rb1: "b", rb2: "b", rc: "c"}
	if got := list.rows(); !mapsEqual(got, want) {
		t.Errorf("rooms by node %v, want %v", got, want)
	}
	if list.Node != "a" || !list.Partial {
		t.Errorf("node %q, partial %v: want a, true", list.Node, list.Partial)
	}
	errs := map[string]string{}
	var ids []string
	for _, n := range list.Nodes {
		ids = append(ids, n.ID)
		errs[n.ID] = n.Error
		if n.PeerURL == "" {
			t.Errorf("node %s without its peer URL", n.ID)
		}
	}
	if !slices.Equal(ids, []string{"a", "b", "c", "gone", "other-token", "stalled"}) {
		t.Errorf("nodes %v", ids)
	}
	for id, want := range map[string]string{"a": "", "b": "", "c": "", "gone": "did not answer",
		"other-token": "401", "stalled": "did not answer within 2s"} {
		if got := errs[id]; (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("node %s: error %q, want one with %q", id, got, want)
		}
	}
	if took > 4*time.Second {
		t.Errorf("the list took %v: the bound is 2 s", took)
	}

	// ?local=1: one node's rooms, no other node asked.
	before := len(cl.peerCalls())
	var local listAnswer
	if code, body := b.do(t, "GET", "/api/admin/rooms?local=1", token, "", &local); code != http.StatusOK {
		t.Fatalf("local list: %d %s", code, body)
	}
	if got := local.rows(); !mapsEqual(got, map[string]string{rb1: "b", rb2: "b"}) || local.Node != "b" || local.Nodes != nil {
		t.Errorf("b's local list: %+v", local)
	}
	if n := len(cl.peerCalls()) - before; n != 0 {
		t.Errorf("a local list asked %d other nodes", n)
	}
	if code, _ := a.do(t, "GET", "/api/admin/rooms?local=maybe", token, "", nil); code != http.StatusBadRequest {
		t.Errorf("?local=maybe: %d, want 400", code)
	}
	// The token guards the list as before.
	for _, tok := range []string{"", "wrong"} {
		if code, _ := a.do(t, "GET", "/api/admin/rooms", tok, "", nil); code != http.StatusUnauthorized {
			t.Errorf("list with token %q: %d, want 401", tok, code)
		}
	}
}

func mapsEqual(x, y map[string]string) bool {
	if len(x) != len(y) {
		return false
	}
	for k, v := range x {
		if w, ok := y[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestClusterNodes: GET /api/admin/nodes lists the live nodes by id.
func TestClusterNodes(t *testing.T) {
	cl := newTestCluster(t)
	b := cl.add("b", token, Config{})
	a := cl.add("a", token, Config{})
	b.draining = true
	a.create(t)
	var got struct {
		Node  string
		Nodes []store.Node
	}
	if code, body := b.do(t, "GET", "/api/admin/nodes", token, "", &got); code != http.StatusOK {
		t.Fatalf("nodes: %d %s", code, body)
	}
	if got.Node != "b" || len(got.Nodes) != 2 || got.Nodes[0].ID != "a" || got.Nodes[0].Rooms != 1 || got.Nodes[0].Draining ||
		got.Nodes[1].ID != "b" || !got.Nodes[1].Draining || got.Nodes[0].PeerURL != a.srv.URL {
		t.Errorf("nodes %+v", got)
	}
	if code, _ := b.do(t, "GET", "/api/admin/nodes", "", "", nil); code != http.StatusUnauthorized {
		t.Errorf("nodes without a token: %d", code)
	}
}

// TestClusterMove: a room moves from the node that runs it, and a move
// asked of another node is forwarded, once, to the room's node, which
// answers; bad moves get clear errors.
func TestClusterMove(t *testing.T) {
	cl := newTestCluster(t)
	a := cl.add("a", token, Config{})
	cl.add("b", token, Config{})
	c := cl.add("c", token, Config{})
	d := cl.add("d", token, Config{})
	d.draining = true
	code := a.create(t)

	type moved struct{ Moved, From, To string }
	var m moved
	if st, body := a.do(t, "POST", "/api/admin/rooms/"+code+"/move", token, `{"to":"b"}`, &m); st != http.StatusOK {
		t.Fatalf("move here: %d %s", st, body)
	}
	if m != (moved{code, "a", "b"}) || !slices.Equal(cl.where(code), []string{"b"}) {
		t.Fatalf("moved %+v; the room is on %v", m, cl.where(code))
	}
	if n := len(cl.peerCalls()); n != 0 {
		t.Errorf("a move of a room here made %d requests to other nodes", n)
	}

	// Asked of c, which does not run it: c forwards to b, which moves it
	// (lower-case code: any node normalises it).
	m = moved{}
	if st, body := c.do(t, "POST", "/api/admin/rooms/"+strings.ToLower(code)+"/move", token, `{"to":"c"}`, &m); st != http.StatusOK {
		t.Fatalf("forwarded move: %d %s", st, body)
	}
	if m != (moved{code, "b", "c"}) || !slices.Equal(cl.where(code), []string{"c"}) {
		t.Fatalf("moved %+v; the room is on %v", m, cl.where(code))
	}
	calls := cl.peerCalls()
	if len(calls) != 1 || calls[0] != (peerCall{"c", "b", "POST", "/api/admin/rooms/" + code + "/move?forwarded=1"}) {
		t.Errorf("requests between nodes %+v, want one from c to b", calls)
	}

	// A node with another token refuses what it is forwarded.
	e := cl.add("e", "not-the-same", Config{})
	other := e.create(t)
	if st, body := a.do(t, "POST", "/api/admin/rooms/"+other+"/move", token, `{"to":"a"}`, nil); st != http.StatusUnauthorized {
		t.Errorf("a move forwarded to a node with another token: %d %s, want 401", st, body)
	}

	unknown := ids.Code()
	for _, tc := range []struct {
		name, node, code, tok, body string
		status                      int
		says                        string
	}{
		{"no token", "a", code, "", `{"to":"b"}`, http.StatusUnauthorized, "token"},
		{"wrong token", "c", code, "wrong", `{"to":"b"}`, http.StatusUnauthorized, "token"},
		{"unknown node", "c", code, token, `{"to":"zz"}`, http.StatusConflict, `no live node \"zz\"`},
		{"draining node", "c", code, token, `{"to":"d"}`, http.StatusConflict, "draining"},
		{"already there", "c", code, token, `{"to":"c"}`, http.StatusConflict, "already on node c"},
		{"already there, asked elsewhere", "a", code, token, `{"to":"c"}`, http.StatusConflict, "already on node c"},
		{"bad JSON", "a", code, token, `{"to":`, http.StatusBadRequest, "invalid JSON"},
		{"no body", "a", code, token, ``, http.StatusBadRequest, "is required"},
		{"unknown field", "a", code, token, `{"node":"b"}`, http.StatusBadRequest, "unknown field"},
		{"no target", "a", code, token, `{"to":" "}`, http.StatusBadRequest, `\"to\" must name`},
		{"too large", "a", code, token, `{"to":"` + strings.Repeat("b", 5000) + `"}`, http.StatusRequestEntityTooLarge, "larger"},
		{"unknown room", "a", unknown, token, `{"to":"b"}`, http.StatusNotFound, "no live room " + unknown},
		{"not a room code", "a", "x%2F..", token, `{"to":"b"}`, http.StatusNotFound, "no live room"},
		{"bad forwarded flag", "a", code, token, `{"to":"b"}`, http.StatusBadRequest, "forwarded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := "/api/admin/rooms/" + tc.code + "/move"
			if tc.name == "bad forwarded flag" {
				path += "?forwarded=perhaps"
			}
			before := len(cl.peerCalls())
			st, body := cl.node(tc.node).do(t, "POST", path, tc.tok, tc.body, nil)
			if st != tc.status || !strings.Contains(body, tc.says) {
				t.Errorf("%d %s, want %d saying %q", st, body, tc.status, tc.says)
			}
			if n := len(cl.peerCalls()) - before; n != 0 {
				t.Errorf("%d requests to other nodes", n)
			}
		})
	}
	if !slices.Equal(cl.where(code), []string{"c"}) {
		t.Errorf("after refused moves the room is on %v", cl.where(code))
	}
}

// TestClusterForwardsOnce: nodes whose views of a room's owner disagree
// (each thinks the other runs it) forward a move or close once, and the
// second answers 409 instead of sending it back.
func TestClusterForwardsOnce(t *testing.T) {
	cl := newTestCluster(t)
	a := cl.add("a", token, Config{})
	b := cl.add("b", token, Config{})
	c := cl.add("c", token, Config{})
	code := a.create(t)
	b.owners = map[string]string{code: "c"}
	c.owners = map[string]string{code: "b"}
	for _, action := range []struct{ path, body string }{{"/move", `{"to":"a"}`}, {"/close", ``}} {
		before := len(cl.peerCalls())
		st, body := b.do(t, "POST", "/api/admin/rooms/"+code+action.path, token, action.body, nil)
		if st != http.StatusConflict || !strings.Contains(body, "moved to node b meanwhile") {
			t.Errorf("%s: %d %s, want 409 from c", action.path, st, body)
		}
		if calls := cl.peerCalls()[before:]; len(calls) != 1 || calls[0].from != "b" || calls[0].to != "c" {
			t.Errorf("%s: requests between nodes %+v, want one from b to c", action.path, calls)
		}
	}
	// A request that says it was forwarded is not forwarded again.
	before := len(cl.peerCalls())
	if st, _ := b.do(t, "POST", "/api/admin/rooms/"+code+"/close?forwarded=1", token, "", nil); st != http.StatusConflict {
		t.Errorf("a forwarded close of a room not here: %d, want 409", st)
	}
	if n := len(cl.peerCalls()) - before; n != 0 {
		t.Errorf("a forwarded close was sent on to %d nodes", n)
	}
	if !slices.Equal(cl.where(code), []string{"a"}) {
		t.Errorf("the room is on %v", cl.where(code))
	}
}

// TestClusterClose: a close asked of any node closes the room on its own.
func TestClusterClose(t *testing.T) {
	cl := newTestCluster(t)
	a := cl.add("a", token, Config{})
	b := cl.add("b", token, Config{})
	code := b.create(t)
	rm, _ := b.rooms.Lookup(code)
	var closed struct{ Closed, Node string }
	if st, body := a.do(t, "POST", "/api/admin/rooms/"+code+"/close", token, "", &closed); st != http.StatusOK {
		t.Fatalf("close: %d %s", st, body)
	}
	if closed.Closed != code || closed.Node != "b" {
		t.Errorf("closed %+v", closed)
	}
	select {
	case <-rm.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the room did not stop")
	}
	if st, body := a.do(t, "POST", "/api/admin/rooms/"+code+"/close", token, "", nil); st != http.StatusNotFound || !strings.Contains(body, "no live room") {
		t.Errorf("close of a closed room: %d %s", st, body)
	}
	if st, _ := a.do(t, "POST", "/api/admin/rooms/"+code+"/close", "wrong", "", nil); st != http.StatusUnauthorized {
		t.Errorf("close with a wrong token: %d", st)
	}
}

// TestClusterSetLater: an API built before its cluster (as roomd builds
// the routes before the server) acts alone until SetCluster, and a
// cluster whose node id is empty (a transport.Server alone) changes
// nothing.
func TestClusterSetLater(t *testing.T) {
	cl := newTestCluster(t)
	a := cl.add("a", token, Config{})
	b := cl.add("b", token, Config{})
	code := a.create(t)
	b.create(t)
	a.api.SetCluster(nil)
	list := func() string {
		_, body := a.do(t, "GET", "/api/admin/rooms", token, "", nil)
		return body
	}
	if body := list(); strings.Contains(body, `"node"`) || strings.Count(body, `"code"`) != 1 {
		t.Errorf("alone, the list is %s", body)
	}
	if st, body := a.do(t, "POST", "/api/admin/rooms/"+code+"/move", token, `{"to":"b"}`, nil); st != http.StatusNotFound || !strings.Contains(body, "alone") {
		t.Errorf("a move alone: %d %s", st, body)
	}
	if _, body := a.do(t, "GET", "/api/admin/nodes", token, "", nil); strings.TrimSpace(body) != `{"nodes":[]}` {
		t.Errorf("nodes alone: %s", body)
	}
	a.api.SetCluster(alone{})
	if body := list(); strings.Contains(body, `"node"`) {
		t.Errorf("with a cluster of no id, the list is %s", body)
	}
	a.api.SetCluster(a)
	if body := list(); strings.Count(body, `"code"`) != 2 || !strings.Contains(body, `"node":"b"`) {
		t.Errorf("with the cluster set, the list is %s", body)
	}
}

// alone is a Cluster of a server alone, as transport.Server without one.
type alone struct{ Cluster }

func (alone) NodeID() string { return "" }
