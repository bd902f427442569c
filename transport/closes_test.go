//go:build linux

package transport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gobwas/ws"
	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/room"
	"github.com/roomd/roomd/transport/admin"
)

// logBuffer is a slog destination the tests read while the server writes.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// closeLines are the "connection closed" lines logged so far.
func (b *logBuffer) closeLines() []map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	var lines []map[string]any
	for _, l := range strings.Split(b.buf.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["msg"] == "connection closed" {
			lines = append(lines, m)
		}
	}
	return lines
}

// closesServer is a wire server for path whose /metrics and logs (JSON, at
// debug) the test reads.
func closesServer(t *testing.T, path wirePath, opts ...serverOpt) (*testServer, string, *logBuffer) {
	t.Helper()
	reg := prometheus.NewRegistry()
	logs := &logBuffer{}
	opts = append([]serverOpt{func(_ *room.Config, c *Config) {
		c.SocketGoroutines = path.goroutines
		c.Metrics = NewMetrics(reg)
		c.Logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}}, opts...)
	s := startServerListener(t, func(*room.Manager) map[string]http.Handler { return maps.Clone(admin.MetricsRoutes(reg)) },
		HTTPConfig{}, func(ln net.Listener) net.Listener { return bufListener{ln} }, opts...)
	created := s.create("minesweeper", `{"mode":"coop","level":"expert"}`, "Ann")
	return s, created.Room, logs
}

// closes is roomd_closes_total by reason, from /metrics.
func (s *testServer) closes(t *testing.T) map[string]float64 {
	t.Helper()
	_, body := get(t, s.URL+"/metrics", "")
	got := map[string]float64{}
	for _, l := range strings.Split(string(body), "\n") {
		var reason string
		var n float64
		if _, err := fmt.Sscanf(l, "roomd_closes_total{reason=%q} %g", &reason, &n); err == nil && n > 0 {
			got[reason] = n
		}
	}
	return got
}

// closeLogged waits until a close of reason is logged, and returns its
// line.
func closeLogged(t *testing.T, logs *logBuffer, reason string) map[string]any {
	t.Helper()
	var line map[string]any
	waitFor(t, "a close logged with reason "+reason, func() bool {
		for _, l := range logs.closeLines() {
			if l["reason"] == reason {
				line = l
				return true
			}
		}
		return false
	})
	return line
}

// TestClosesCountedAndLogged: every way a connection ends — the client's
// close, its going away, each refusal, the hello's timeout — is counted
// once in roomd_closes_total under its reason and logged once with it, at
// the level its reason has, on every path.
func TestClosesCountedAndLogged(t *testing.T) {
	for _, path := range wirePaths[1:] { // after the hello: the poller, goroutines
		t.Run(path.name, func(t *testing.T) {
			t.Parallel()
			s, code, logs := closesServer(t, path, func(_ *room.Config, c *Config) { c.HelloTimeout = 300 * time.Millisecond })
			for _, tc := range []struct {
				reason string
				level  string
				hello  bool
				frames []byte // nil: the client hangs up
			}{
				{"peer_close", "DEBUG", true, maskedFrame(ws.OpClose, true, []byte{0x03, 0xe8}, peerKey, false)},
				{"peer_gone", "INFO", true, nil},
				{"protocol", "INFO", false, []byte{0x81, 2, '{', '}'}},
				{"invalid_utf8", "INFO", true, maskedFrame(ws.OpText, true, []byte("\xff"), peerKey, false)},
				{"too_big", "INFO", true, maskedFrame(ws.OpText, true, make([]byte, 17<<10), peerKey, false)},
				{"frame_flood", "INFO", false, bytes.Repeat(maskedFrame(ws.OpPong, true, nil, peerKey, false), 300)},
				{"hello_timeout", "INFO", false, []byte{}},
			} {
				p := wirePeer(t, s, code, wirePath{hello: tc.hello, goroutines: path.goroutines})
				if tc.frames == nil {
					p.conn.Close()
				} else {
					p.write(tc.frames)
				}
				line := closeLogged(t, logs, tc.reason)
				if line["level"] != tc.level || line["conn"] == "" || line["addr"] == "" || line["age"] == nil {
					t.Errorf("%s logged as %v; want level %s, with the conn, its address and its age", tc.reason, line, tc.level)
				}
				if tc.frames != nil {
					p.conn.Close()
				}
			}
			waitFor(t, "every socket released", func() bool { _, all := s.polled(); return all == 0 })
			got := s.closes(t)
			want := map[string]float64{"peer_close": 1, "peer_gone": 1, "protocol": 1, "invalid_utf8": 1, "too_big": 1, "frame_flood": 1, "hello_timeout": 1}
			if !maps.Equal(got, want) {
				t.Fatalf("roomd_closes_total = %v, want %v", got, want)
			}
			if n := len(logs.closeLines()); n != len(want) {
				t.Fatalf("%d close lines logged for %d closes", n, len(want))
			}
		})
	}
}

// TestSlowClientRules: a slow or silent client is closed by one of three
// documented rules (PROTOCOL.md §2.3), each counted and logged at warn with
// its reason, on both paths: its outbox overflows (4008, after a bye), a
// write waits past the write timeout (cut, no close frame), a ping goes
// unanswered for a heartbeat (cut).
func TestSlowClientRules(t *testing.T) {
	// Resyncs asked for faster than snapshots come: each gets a receipt,
	// some 130 bytes, thousands more than the socket's buffers hold.
	var resyncs []byte
	for i := range 3000 {
		resyncs = append(resyncs, text(fmt.Sprintf(`{"type":"resync","id":"r%d","rev":0}`, i))...)
	}
	for _, path := range wirePaths[1:] {
		for _, tc := range []struct {
			name, reason string
			opt          serverOpt
			flood        bool
			code         int // the close code the client reads; 0: cut without one
		}{
			{"outbox overflow", "slow", func(_ *room.Config, c *Config) {
				c.RateLimit, c.RateBurst, c.OutboxSize = 10_000, 10_000, 16
			}, true, protocol.CloseSlow},
			{"write timeout", "write_timeout", func(_ *room.Config, c *Config) {
				c.WriteTimeout = 300 * time.Millisecond
				c.RateLimit, c.RateBurst = 10_000, 10_000
				c.OutboxSize, c.OutboxBytes = 100_000, 1<<30 // the write times out first
			}, true, 0},
			{"heartbeat", "ping_timeout", func(rc *room.Config, _ *Config) { rc.Heartbeat = 100 * time.Millisecond }, false, 0},
		} {
			t.Run(path.name+", "+tc.name, func(t *testing.T) {
				t.Parallel()
				s, code, logs := closesServer(t, path, tc.opt)
				p := wirePeer(t, s, code, path)
				start := time.Now()
				if tc.flood {
					p.write(resyncs) // and read nothing
				}
				var c closing
				if tc.code != 0 {
					// The client reads again once it was found slow, and
					// answers the server's close, as a client does.
					waitFor(t, "the client found slow", func() bool {
						_, b := get(t, s.URL+"/metrics", "")
						return bytes.Contains(b, []byte("roomd_slow_closes_total 1"))
					})
					c.code = p.expectClose(true)
				}
				line := closeLogged(t, logs, tc.reason)
				t.Logf("%s: closed after %v (%s)", tc.name, time.Since(start).Round(time.Millisecond), line["detail"])
				if line["level"] != "WARN" {
					t.Errorf("%s logged at %v, want WARN", tc.reason, line["level"])
				}
				if tc.code == 0 {
					if c = p.awaitClose(time.Now(), 5*time.Second); !c.ended {
						t.Fatalf("%v; want the connection ended", c)
					}
				}
				if c.code != tc.code {
					t.Fatalf("closed with %d, want %d", c.code, tc.code)
				}
				if got := s.closes(t); got[tc.reason] != 1 || len(got) != 1 {
					t.Fatalf("roomd_closes_total = %v, want one %s", got, tc.reason)
				}
			})
		}
	}
}

// TestHeartbeatKeepsAnsweringClients: a client that answers the server's
// pings is never cut, on either path.
func TestHeartbeatKeepsAnsweringClients(t *testing.T) {
	for _, path := range wirePaths[1:] {
		t.Run(path.name, func(t *testing.T) {
			t.Parallel()
			s, code, _ := closesServer(t, path, func(rc *room.Config, _ *Config) { rc.Heartbeat = 60 * time.Millisecond })
			p := wirePeer(t, s, code, path)
			pings := 0
			deadline := time.Now().Add(700 * time.Millisecond)
			for time.Now().Before(deadline) {
				_ = p.conn.SetReadDeadline(deadline)
				b0, b, err := p.next()
				if err != nil {
					if ended(err) {
						t.Fatalf("cut after %d pings, answered", pings)
					}
					break
				}
				if b0 == 0x80|byte(ws.OpPing) {
					pings++
					p.write(maskedFrame(ws.OpPong, true, b, peerKey, false))
				}
			}
			if pings < 3 {
				t.Fatalf("%d pings in 700 ms at a 60 ms heartbeat", pings)
			}
			if got := s.closes(t); len(got) != 0 {
				t.Fatalf("closes %v while the client answered", got)
			}
		})
	}
}

// TestCloseLogRateLimited: each reason's lines come at most closeLogBurst
// at once, then one a second, and the next line says how many were left
// out.
func TestCloseLogRateLimited(t *testing.T) {
	var l closeLog
	l.init(nil)
	now := time.Unix(1000, 0)
	logged := 0
	for range 50 {
		if ok, _ := l.allow(whySlow, now); ok {
			logged++
		}
	}
	if ok, _ := l.allow(whyPingTimeout, now); !ok || logged != closeLogBurst {
		t.Fatalf("%d of 50 slow closes logged at once (want %d), another reason's: %v", logged, closeLogBurst, ok)
	}
	ok, skipped := l.allow(whySlow, now.Add(1100*time.Millisecond))
	if !ok || skipped != 50-closeLogBurst {
		t.Fatalf("a second later: logged %v, %d left out before it; want true, %d", ok, skipped, 50-closeLogBurst)
	}
}
