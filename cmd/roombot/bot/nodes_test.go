package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/roomd/roomd/protocol"
)

// relayNode stands for a second node of one service in front of the real
// server at target: it relays every request and socket there, as a node
// that does not own a room relays to its owner, except the first socket,
// which it tells that the room moved to target (bye and close 4009).
func relayNode(t *testing.T, target string) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	var moved atomic.Bool
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != protocol.SocketPath || !moved.CompareAndSwap(false, true) {
			proxy.ServeHTTP(w, r)
			return
		}
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer ws.CloseNow()
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		if _, _, err := ws.Read(ctx); err != nil { // the hello
			return
		}
		bye, _ := json.Marshal(protocol.Bye{Type: protocol.TypeBye, Code: protocol.CloseMoved, Reason: "room moved",
			Reconnect: true, RetryAfterMs: 10, URL: target})
		_ = ws.Write(ctx, websocket.MessageText, bye)
		_ = ws.Close(protocol.CloseMoved, "room moved")
	}))
	t.Cleanup(hs.Close)
	return hs.URL
}

// TestSeveralNodes runs roombot against two nodes (--url A,B): rooms are
// created through both, each room's sockets go through both in turn, the
// socket told that its room moved (4009) goes where the bye says at once,
// every invariant holds, and the report counts it all per node.
func TestSeveralNodes(t *testing.T) {
	t.Parallel()
	a := startServer(t)
	b := relayNode(t, a)
	jsonPath := filepath.Join(t.TempDir(), "nodes.json")
	args := []string{"--url", a + "," + b + "/", "--game", "tictactoe", "--players", "2", "--spectators", "1", "--rooms", "4",
		"--duration", "2s", "--drain", "4s", "--loop", "open", "--rate", "20", "--think", "exp", "--progress", "0", "--seed", "3",
		"--log-level", "warn", "--json", jsonPath}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit status %d; stderr:\n%s\nstdout:\n%s", code, stderr.String(), stdout.String())
	}
	t.Logf("%s", stdout.String())
	data, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var res result
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	if res.Violations.Total != 0 || res.Setup.Joined != 12 || res.Window.Moves == 0 {
		t.Fatalf("violations %v, %d joins, %d moves", res.Violations.ByKind, res.Setup.Joined, res.Window.Moves)
	}
	// Room i through node i % 2; its host, guest and spectator through
	// nodes i, i+1, i+2: six sockets each.
	want := []nodeInfo{{URL: a, Rooms: 2, Sockets: 6, Moved: 0}, {URL: b, Rooms: 2, Sockets: 6, Moved: 1}}
	if len(res.Nodes) != 2 {
		t.Fatalf("nodes %+v", res.Nodes)
	}
	for i, n := range res.Nodes {
		w := want[i]
		if n.URL != w.URL || n.Rooms != w.Rooms || n.Sockets != w.Sockets || n.Moved != w.Moved || n.Online < 5 {
			t.Errorf("node %d: %+v, want %+v and at least 5 online", i+1, n, w)
		}
	}
	if res.Nodes[0].Online+res.Nodes[1].Online < 12 {
		t.Errorf("%d connections online in all, want at least the 12 joins", res.Nodes[0].Online+res.Nodes[1].Online)
	}
	if res.Counts["bye/4009"] != 1 || res.Counts["error/closed-4009"] != 0 {
		t.Errorf("counts %v", res.Counts)
	}
	if !bytes.Contains(stdout.Bytes(), []byte("moved")) {
		t.Errorf("the summary has no node table")
	}
}

func TestURLList(t *testing.T) {
	t.Parallel()
	c, err := parseFlags([]string{"--url", " http://127.0.0.1:1/, http://localhost:2,http://[::1]:3"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"http://127.0.0.1:1", "http://localhost:2", "http://[::1]:3"}; !slices.Equal(c.Nodes, want) {
		t.Errorf("nodes %q, want %q", c.Nodes, want)
	}
	if m := c.metricsURLs(); len(m) != 3 || m[2] != "http://[::1]:3/metrics" {
		t.Errorf("metrics %q: want every node's", m)
	}
	c, err = parseFlags([]string{"--url", "http://192.0.2.1:1,http://192.0.2.2:1", "--target", "192.0.2.1,192.0.2.2"}, &bytes.Buffer{})
	if err != nil || len(c.Nodes) != 2 {
		t.Errorf("two targets: %v %v", c.Nodes, err)
	}
	for _, args := range [][]string{
		{"--url", "http://127.0.0.1:1,http://127.0.0.1:1"},
		{"--url", "http://127.0.0.1:1,"},
		{"--url", "http://127.0.0.1:1,ftp://127.0.0.1:2"},
		{"--url", "http://127.0.0.1:1,http://192.0.2.1:1"},
		{"--url", "http://192.0.2.1:1,http://192.0.2.2:1", "--target", "192.0.2.1"},
		{"--url", "http://127.0.0.1:1", "--metrics", "http://127.0.0.1:1/metrics,http://192.0.2.1/metrics"},
	} {
		if _, err := parseFlags(args, &bytes.Buffer{}); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
}

func TestServerSamplesAdd(t *testing.T) {
	t.Parallel()
	var s serverSample
	s.add(serverSample{cpu: 1, hasCPU: true, ticksRun: 10, lateness: []bucket{{0.001, 5}, {1, 9}}})
	s.add(serverSample{cpu: 2, hasCPU: true, ticksRun: 5, lateness: []bucket{{0.0005, 1}, {1, 3}}})
	if s.cpu != 3 || s.ticksRun != 15 || !slices.Equal(s.lateness, []bucket{{0.0005, 1}, {0.001, 5}, {1, 12}}) {
		t.Errorf("sum %+v", s)
	}
}
