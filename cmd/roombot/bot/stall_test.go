package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// --clock reads a limit per move or a chess clock within the server's
// bounds, --stall needs it, and the clock joins the game's own settings.
func TestStallFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, want string
	}{
		{"3s", `{"moveMs":3000}`},
		{"1m", `{"moveMs":60000}`},
		{"3m+2s", `{"baseMs":180000,"incrementMs":2000}`},
		{"10m+0s", `{"baseMs":600000,"incrementMs":0}`},
		{"999ms", ""},
		{"2h", ""},
		{"3m+11m", ""},
		{"3m+", ""},
		{"1.5ms", ""},
		{"soon", ""},
	} {
		got, err := parseClock(tc.in)
		if tc.want == "" {
			if err == nil {
				t.Errorf("--clock %s accepted: %s", tc.in, got)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("--clock %s: %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	for _, args := range [][]string{{"--stall", "0.5"}, {"--clock", "3s", "--stall", "1.5"}, {"--clock", "3s", "--stall", "-1"}} {
		if _, err := parseFlags(args, &bytes.Buffer{}); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
	c, err := parseFlags([]string{"--clock", "3m+2s", "--stall", "0.25"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Stall.withClock(json.RawMessage(`{"mode":"classic","pile":21}`))
	var m map[string]any
	if err != nil || json.Unmarshal(got, &m) != nil || m["mode"] != "classic" || m["pile"] != 21.0 ||
		m["clock"].(map[string]any)["baseMs"] != 180000.0 {
		t.Errorf("settings with the clock: %s, %v", got, err)
	}
	if got, err := c.Stall.withClock(nil); err != nil || string(got) != `{"clock":{"baseMs":180000,"incrementMs":2000}}` {
		t.Errorf("no settings of the game's: %s, %v", got, err)
	}
}

// TestStallTimeout plays tic-tac-toe and Nim rooms with a 1 s clock per
// move on a real server, where each player stalls a match at random: every
// stalled match the bots could time must end with one update, status
// "timeout" naming the stalled seat, near the deadline the bot was shown —
// within 1 s here, as the socket test has it (the machine running
// the tests is shared and -race slows it; roombot's own default, 100 ms,
// is for an idle server, and the lateness is logged); no invariant may
// fail.
func TestStallTimeout(t *testing.T) {
	t.Parallel()
	url := startServer(t)
	dir := t.TempDir()
	for _, game := range []string{"tictactoe", "nim"} {
		t.Run(game, func(t *testing.T) {
			t.Parallel()
			jsonPath := filepath.Join(dir, game+".json")
			args := []string{"--url", url, "--game", game, "--rooms", "3", "--players", "2", "--spectators", "1",
				"--clock", "1s", "--stall", "0.4", "--stall-tolerance", "1s", "--duration", "4s", "--loop", "closed", "--think", "uniform:10ms",
				"--drain", "4s", "--check-every", "1s", "--progress", "0", "--seed", "11", "--log-level", "warn", "--json", jsonPath}
			var stdout, stderr bytes.Buffer
			start := time.Now()
			code := run(context.Background(), args, &stdout, &stderr)
			t.Logf("%s in %v:\n%s", game, time.Since(start).Round(time.Millisecond), stdout.String())
			if code != 0 {
				t.Fatalf("exit status %d; stderr:\n%s", code, stderr.String())
			}
			data, err := os.ReadFile(jsonPath)
			if err != nil {
				t.Fatal(err)
			}
			var res result
			if err := json.Unmarshal(data, &res); err != nil {
				t.Fatal(err)
			}
			c, lat := res.Counts, res.Latency[latStall]
			switch {
			case res.Violations.Total != 0:
				t.Errorf("violations: %v %v", res.Violations.ByKind, res.Violations.Examples)
			case c["stall/matches"] == 0 || c["stall/timeouts"] == 0:
				t.Errorf("no stalled match timed out: %v", c)
			case lat.Count == 0 || lat.Count != c["stall/timeouts"]-c["stall/timeouts-unmeasured"]:
				t.Errorf("%d timeouts timed, %d in all (%d unmeasured)", lat.Count, c["stall/timeouts"], c["stall/timeouts-unmeasured"])
			case lat.Max > 1000:
				t.Errorf("a timeout %.1f ms late", lat.Max)
			case res.Window.Moves < 20:
				t.Errorf("only %d moves: the stalls stopped the rooms", res.Window.Moves)
			}
			t.Logf("%d stalled matches, %d timeouts, lateness p50 %.2f ms, max %.2f ms", c["stall/matches"], c["stall/timeouts"], lat.P50, lat.Max)
		})
	}
}
