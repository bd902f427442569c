package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.uber.org/goleak"

	"github.com/roomd/roomd/cmd/roomfloor/floor"
	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/store/memstore"
	"github.com/roomd/roomd/transport"
	"github.com/roomd/roomd/transport/admin"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// startFloor runs the bare relay on a loopback port.
func startFloor(t *testing.T, cfg floor.Config) string {
	t.Helper()
	f := floor.New(cfg)
	hs := httptest.NewServer(f.Handler())
	t.Cleanup(func() {
		f.Close()
		hs.Close()
	})
	return hs.URL
}

// startRoomd runs a real roomd on a loopback port: a room manager with a
// memory store behind the WebSocket front, quotas off, /metrics as
// cmd/roomd serves it.
func startRoomd(t *testing.T) string {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	rooms, err := room.NewManager(room.Config{Games: session.NewRegistry(minesweeper.Game), Store: memstore.New(), Metrics: room.NewMetrics(reg)})
	if err != nil {
		t.Fatal(err)
	}
	front, err := transport.NewServer(transport.Config{Rooms: rooms, Quotas: transport.Quotas{Off: true},
		Metrics: transport.NewMetrics(reg), Routes: admin.MetricsRoutes(reg)})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(front.Handler())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := front.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		hs.Close()
	})
	return hs.URL
}

// TestTinyLoad runs 2 rooms × 2 players (and 2 spectators) for a second against the
// floor (both ways of writing the mover's frames) and against a real roomd,
// which proves the tool speaks roomd's protocol: every move is accepted and
// answered with its receipt and its update.
func TestTinyLoad(t *testing.T) {
	cases := []struct {
		name      string
		start     func(*testing.T) string
		frames    float64 // frames received per move: the mover's, then the other player's
		tolerance float64
	}{
		{"floor", func(t *testing.T) string { return startFloor(t, floor.Config{}) }, 2, 0.3},
		{"floor-separate-receipt", func(t *testing.T) string { return startFloor(t, floor.Config{SeparateReceipt: true}) }, 3, 0.3},
		{"roomd", startRoomd, 2, 0.5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			url := tc.start(t)
			cfg := config{URL: url, Rooms: 2, Players: 2, Spectators: 2, Rate: 10, Duration: time.Second, Warmup: 100 * time.Millisecond,
				Drain: 5 * time.Second, Parallel: 2, SetupTimeout: 10 * time.Second}
			if err := cfg.check(); err != nil {
				t.Fatal(err)
			}
			res, err := load(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Log(res.line())
			switch {
			case res.Sent < 2:
				// About 36 are planned; a loaded machine (other tests beside
				// this one) may starve the tool: what is checked is that each
				// move sent is answered.
				t.Errorf("only %d moves sent", res.Sent)
			case res.Receipts != res.Sent || res.OwnUpdates != res.Sent:
				t.Errorf("%d moves sent, %d receipts, %d own updates", res.Sent, res.Receipts, res.OwnUpdates)
			case res.failures() != "":
				t.Errorf("failed: %s", res.failures())
			case res.Receipt.Count != res.Sent || res.Update.Count != res.Sent || res.Receipt.P50 <= 0:
				t.Errorf("latency: receipts %+v, updates %+v", res.Receipt, res.Update)
			case res.FramesPerMov < tc.frames-tc.tolerance || res.FramesPerMov > tc.frames+tc.tolerance:
				t.Errorf("%.2f frames per move, want about %g", res.FramesPerMov, tc.frames)
			case float64(res.SpecDeliveries) < 1.5*float64(res.Sent) || res.Spectate.Count < res.SpecDeliveries*3/4 || res.Spectate.Count > res.SpecDeliveries:
				// Two spectators a room see every move's update; nearly all
				// are timed (a control's update is not: no move sent it).
				t.Errorf("%d moves, %d spectator deliveries, %d timed", res.Sent, res.SpecDeliveries, res.Spectate.Count)
			}
		})
	}
}

// relay stands for a second node of one service in front of the server
// at target, relaying every request and socket there (as a node relays to
// a room's owner); it counts the sockets it relayed.
func relay(t *testing.T, target string, sockets *atomic.Int64) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ws" {
			sockets.Add(1)
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	return hs.URL
}

// TestTwoNodes runs roomload with --url listing two nodes: rooms created
// through each, each room's sockets through both in turn, every move
// answered.
func TestTwoNodes(t *testing.T) {
	a := startRoomd(t)
	var relayed atomic.Int64
	b := relay(t, a, &relayed)
	cfg := config{URL: a + ", " + b + "/", Rooms: 2, Players: 2, Spectators: 1, Rate: 10, Duration: 500 * time.Millisecond,
		Warmup: 100 * time.Millisecond, Drain: 5 * time.Second, Parallel: 2, SetupTimeout: 10 * time.Second}
	if err := cfg.check(); err != nil {
		t.Fatal(err)
	}
	if len(cfg.Nodes) != 2 || cfg.Nodes[1] != b {
		t.Fatalf("nodes %q", cfg.Nodes)
	}
	res, err := load(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res.line())
	if res.Sent < 4 || res.failures() != "" {
		t.Errorf("%d moves sent; failures: %s", res.Sent, res.failures())
	}
	// Room 0: host on node 0, guest on node 1, spectator on node 0; room
	// 1 the other way round: three of the six sockets through b.
	if n := relayed.Load(); n != 3 {
		t.Errorf("%d sockets through the second node, want 3", n)
	}
}

// TestScan: receipts and updates found in batched frames, a refusal
// counted by its code, and an update matched to the seat's oldest move
// still waiting for one that was not refused.
func TestScan(t *testing.T) {
	st := newStats()
	st.winEnd = time.Hour
	l := &loader{st: st}
	p := &player{st: st, seat: 1}
	p.moves = []move{{state: inWindow}, {state: inWindow}, {state: inWindow}}
	st.sent.Store(3)
	p.scan([]byte(`{"type":"receipt","id":"m0","ok":false,"notice":{"code":"stale","message":"x"}}`), time.Millisecond)
	p.scan([]byte(`[{"type":"update","epoch":"E","from":12,"to":13,"by":0,"beats":[{"type":"flag","r":1,"c":2,"flagged":true}]},`+
		`{"type":"update","epoch":"E","from":13,"to":14,"by":1,"beats":[]},{"type":"receipt","id":"m1","ok":true,"rev":14}]`), 2*time.Millisecond)
	p.scan([]byte(`{"type":"update","epoch":"E","from":14,"to":15,"by":null}`), 3*time.Millisecond)
	res := l.result(1, 0, 0, 0)
	if res.Receipts != 2 || res.Refused != 1 || res.Refusals["stale"] != 1 || res.OwnUpdates != 1 || res.Unanswered != 1 || p.rev.Load() != 15 {
		t.Errorf("%+v, rev %d", res, p.rev.Load())
	}
	if p.moves[1].state != inWindow|receipted|updated || p.moves[2].state != inWindow {
		t.Errorf("states %v", p.moves)
	}
}

func TestFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--url", "http://192.0.2.1:8080"},
		{"--url", "http://example.com"},
		{"--url", "ftp://127.0.0.1:21"},
		{"--url", "http://127.0.0.1:1,http://192.0.2.1:8080"},
		{"--url", "http://127.0.0.1:1,http://127.0.0.1:1/"},
		{"--players", "5"},
		{"--rate", "0"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != 2 || !strings.HasPrefix(stderr.String(), "roomload: ") {
			t.Errorf("%v: status %d, %q", args, code, stderr.String())
		}
	}
}
