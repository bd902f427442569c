package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/roomd/roomd/core/games"
	"github.com/roomd/roomd/internal/testpar"
	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/store/memstore"
	"github.com/roomd/roomd/transport"
	"github.com/roomd/roomd/transport/admin"
)

func TestMain(m *testing.M) {
	// Four tests at once: each runs its own server and bots, which mostly wait
	// on think times, ticks and sockets.
	testpar.Default(4)
	goleak.VerifyTestMain(m)
}

// startServer runs a real roomd on a loopback port: a room manager with a
// memory store and every game roombot plays, behind the WebSocket front,
// with its Prometheus metrics on /metrics as roomd serves them.
func startServer(t *testing.T) string {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	rooms, err := room.NewManager(room.Config{Games: games.Registry(),
		Store: memstore.New(), Metrics: room.NewMetrics(reg), AIDelay: 5 * time.Millisecond, RetryAfter: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	// A small outbox, so that a spectator that stops reading for a second
	// or two overflows it and is closed with 4008.
	front, err := transport.NewServer(transport.Config{Rooms: rooms, OutboxSize: 8, RateLimit: 1000, RateBurst: 1000, Quotas: transport.Quotas{Off: true},
		Routes: admin.MetricsRoutes(reg)})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(front.Handler())
	hs.Listener = smallSendBuffers{hs.Listener}
	hs.Start()
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

// smallSendBuffers bounds each accepted socket's kernel send buffer. Linux
// otherwise grows it to several megabytes on loopback, which a stalled
// reader would have to fill before the server's outbox even starts to.
type smallSendBuffers struct{ net.Listener }

func (l smallSendBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(1024) // the kernel's minimum, about 4.5 KiB
	}
	return c, err
}

// TestSmoke runs short scenarios with every chaos option on through the
// same entry point as main, and fails on any invariant violation.
func TestSmoke(t *testing.T) {
	t.Parallel()
	url := startServer(t)
	dir := t.TempDir()
	common := []string{"--url", url, "--duration", "4s", "--rooms", "4", "--spectators", "1", "--drain", "6s",
		"--check-every", "1s", "--chaos", "--chaos-drop", "0.1", "--chaos-resend", "0.2", "--chaos-malformed", "12",
		"--chaos-slow", "1", "--chaos-hold", "10s", "--progress", "0", "--seed", "7", "--log-level", "warn"}
	cases := []struct {
		name string
		args []string
	}{
		{"baba", []string{"--game", "baba", "--players", "2", "--loop", "open", "--rate", "40", "--think", "exp"}},
		{"cards", []string{"--game", "cards", "--players", "2", "--loop", "open", "--rate", "40", "--think", "exp"}},
		{"minesweeper-coop", []string{"--game", "minesweeper", "--mode", "coop", "--players", "2", "--loop", "closed", "--think", "uniform:2ms",
			"--cpuprofile", filepath.Join(dir, "minesweeper-coop.prof")}},
		{"nim", []string{"--game", "nim", "--players", "2", "--ai", "1", "--loop", "open", "--rate", "40", "--think", "exp"}},
		{"spellgrid", []string{"--game", "spellgrid", "--players", "1", "--loop", "open", "--rate", "40", "--think", "exp"}},
		{"tictactoe", []string{"--game", "tictactoe", "--players", "2", "--loop", "open", "--rate", "40", "--think", "exp"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			jsonPath, htmlPath := filepath.Join(dir, tc.name+".json"), filepath.Join(dir, tc.name+".html")
			args := append(append(append([]string{}, common...), tc.args...), "--json", jsonPath, "--html", htmlPath, "--label", tc.name)
			var stdout, stderr bytes.Buffer
			start := time.Now()
			code := run(context.Background(), args, &stdout, &stderr)
			t.Logf("%s in %v:\n%s", tc.name, time.Since(start).Round(time.Millisecond), stdout.String())
			if code != 0 {
				t.Fatalf("exit status %d; stderr:\n%s", code, stderr.String())
			}
			var res result
			data, err := os.ReadFile(jsonPath)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &res); err != nil {
				t.Fatalf("JSON result: %v", err)
			}
			c := res.Counts
			if c["chaos/slow-closed-4008"] == 0 {
				t.Logf("the slow spectator's room sent %d frames during the hold: too few to overflow", c["chaos/slow-hold-room-frames"])
			}
			switch {
			case res.Violations.Total != 0:
				t.Errorf("violations: %v", res.Violations.ByKind)
			case res.Window.Moves < 50:
				t.Errorf("only %d moves", res.Window.Moves)
			case res.Latency[latMove].Count == 0 || res.Latency[latMove].P99 <= 0 || res.Latency[latJoin].Count != smokeJoins(tc.args):
				t.Errorf("latency: %+v", res.Latency)
			case res.Latency[latSpectate].Count == 0:
				t.Errorf("no spectator delivery latency")
			case c["chaos/drops"] == 0 || c["reconnects"] == 0:
				t.Errorf("no drops and reconnects: %v", c)
			case c["chaos/resends"] == 0 || c["receipts/duplicate-expected"] == 0:
				t.Errorf("no resends answered: %v", c)
			case c["chaos/malformed"] != 12 || c["notice/invalid-message"]+c["notice/unknown-type"] == 0:
				t.Errorf("malformed frames: %v", c)
			case c["chaos/slow-holds"] != 1:
				t.Errorf("the slow spectator was not held: %v", c)
			case c["chaos/slow-hold-room-frames"] >= 200 && (c["chaos/slow-closed-4008"] != 1 || c["chaos/slow-recovered"] != 1):
				// A few dozen frames fill the buffers of this server; a
				// room this busy must have overflowed the outbox.
				t.Errorf("the slow spectator was not closed with 4008 and back: %v", c)
			case int64(res.Checks.FinalViews) < min(10, smokeJoins(tc.args)) || res.Checks.ViewChecks < int64(res.Checks.FinalViews):
				t.Errorf("view checks: %+v", res.Checks)
			case res.Checks.LeakMatches == 0 || res.Checks.LeakFrames == 0:
				t.Errorf("no leak checks: %+v", res.Checks)
			case res.Setup.Joined != smokeJoins(tc.args):
				t.Errorf("joins: %+v", res.Setup)
			}
			if i := slices.Index(tc.args, "--cpuprofile"); i >= 0 {
				// The profile of the measured window: gzipped protobuf.
				if prof, err := os.ReadFile(tc.args[i+1]); err != nil || len(prof) < 100 || prof[0] != 0x1f || prof[1] != 0x8b {
					t.Errorf("cpu profile: %d bytes, %v", len(prof), err)
				}
			}
			page, err := os.ReadFile(htmlPath)
			if err != nil {
				t.Fatal(err)
			}
			checkSelfContained(t, string(page))
		})
	}
}

// smokeJoins is how many joins a smoke case makes: each of its 4 rooms'
// players (--players, the AI's seats included) and its one spectator.
func smokeJoins(args []string) int64 {
	i := slices.Index(args, "--players")
	if i < 0 || i+1 >= len(args) {
		panic("a smoke case without --players")
	}
	n, err := strconv.Atoi(args[i+1])
	if err != nil {
		panic(err)
	}
	return int64(4 * (n + 1))
}

// TestGameNotServed: a game the server does not run is a bad flag, and
// the message lists the games it does run.
func TestGameNotServed(t *testing.T) {
	t.Parallel()
	url := startServer(t)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--url", url, "--game", "chess", "--duration", "1s", "--progress", "0"}, &stdout, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), `--game "chess": the server at `+url+` does not run it; it runs baba, cards, minesweeper, nim, snake, spellgrid, tictactoe`) {
		t.Errorf("status %d: %s", code, stderr.String())
	}
}

// TestCPUProfileUnwritable: a --cpuprofile that cannot be created fails
// the run before any bot joins.
func TestCPUProfileUnwritable(t *testing.T) {
	t.Parallel()
	url := startServer(t)
	var stdout, stderr bytes.Buffer
	path := filepath.Join(t.TempDir(), "no-such-dir", "cpu.prof")
	code := run(context.Background(), []string{"--url", url, "--rooms", "1", "--duration", "1s", "--progress", "0", "--cpuprofile", path}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "no-such-dir") || strings.Contains(stderr.String(), "joined") {
		t.Errorf("status %d: %s", code, stderr.String())
	}
}

var external = regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?\s*(https?:)?//`)

func checkSelfContained(t *testing.T, page string) {
	t.Helper()
	if !strings.HasPrefix(page, "<!doctype html>") || !strings.Contains(page, "<svg") || !strings.Contains(page, "</html>") {
		t.Errorf("not a complete HTML page with charts")
	}
	if m := external.FindString(page); m != "" {
		t.Errorf("the report loads something from outside: %q", m)
	}
	for _, s := range []string{"http://", "https://", "<script src", "<link", "@import", "url("} {
		if strings.Contains(page, s) {
			t.Errorf("the report contains %q", s)
		}
	}
}
