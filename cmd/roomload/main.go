// Command roomload measures a server's CPU per move with raw clients: the
// same clients, built to cost little themselves, against roomd or against
// cmd/roomfloor (the bare relay that is roomd's performance floor), so that
// the two can be compared in one run:
//
//	roomload --url http://127.0.0.1:18092 --rooms 1000 --players 2 --rate 1 --duration 30s --warmup 5s [--json out.json]
//
// --url may list several nodes of one service, comma-separated (roomd nodes
// sharing one Redis): room i is created through node i, and its sockets go
// through the nodes in turn from there; the server's CPU is the sum of every
// node's. The sockets do not reconnect: one lost, to a node that stops or
// moves its rooms, counts as lost.
//
// Each room is a Minesweeper co-op room on an expert board, created and
// joined over HTTP, with one socket per player; the host starts the match
// once the others are ready. Then every player sends flag toggles (always
// legal on a board where nothing is revealed) as an open loop at --rate per
// second with exponential think times. Over the window after the warm-up it
// counts moves sent, receipts (accepted or refused: a refusal is a failure)
// and each move's own update, the latency send → receipt and send → update,
// the server's CPU seconds from its /metrics process_cpu_seconds_total, and
// its own CPU from getrusage. It prints one line (and JSON with --json),
// and exits 1 when a move was refused or went unanswered.
//
// Spectators (--spectators) only read, each socket on a goroutine of its
// own (coder/websocket), as the players' are. The tool's own delay is part
// of every delivery time it reports.
//
// Loopback servers only. Unlike cmd/roombot it follows no view and checks no
// invariant: it scans frames for "type":"receipt" and "type":"update" only.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	neturl "net/url"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/roomd/roomd/internal/profile"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// config is one run's parameters; see the flags for each field's meaning.
type config struct {
	URL          string   // --url as given: one base URL, or several comma-separated
	Nodes        []string // the base URLs of URL, scheme://host
	Rooms        int
	Players      int
	Spectators   int     // per room
	Rate         float64 // moves per player per second
	CoarseTimers bool    // send on the runtime's timers (as before 2026-12-06's change)
	Duration     time.Duration
	Warmup       time.Duration
	Drain        time.Duration
	Parallel     int
	SetupTimeout time.Duration
}

// run is main without the process: it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("roomload", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	fs.StringVar(&cfg.URL, "url", "http://127.0.0.1:8080", "the server (roomd or roomfloor), or several nodes of one service, comma-separated; loopback only")
	fs.IntVar(&cfg.Rooms, "rooms", 100, "rooms")
	fs.IntVar(&cfg.Players, "players", 2, "players per room, one socket each (co-op takes 1 to 4)")
	fs.IntVar(&cfg.Spectators, "spectators", 0, "spectators per room, one socket each: they read, and their updates are timed from the move's send")
	fs.Bool("watch-poll", false, "accepted and ignored, goes in the next release: the spectators' sockets are read by a goroutine each")
	fs.Float64Var(&cfg.Rate, "rate", 1, "moves per player per second (open loop, exponential think times)")
	fs.BoolVar(&cfg.CoarseTimers, "coarse-timers", false, "time the sends with the Go runtime's timers, which an idle process wakes for on whole milliseconds, so that sends bunch at its wake-ups (as roomload did before 2026-12-06); false: one timerfd for every player (a finetimer.Clock), each send at its own instant (Linux)")
	fs.DurationVar(&cfg.Duration, "duration", 30*time.Second, "the measured window")
	fs.DurationVar(&cfg.Warmup, "warmup", 5*time.Second, "moves before the window, not measured")
	fs.DurationVar(&cfg.Drain, "drain", 5*time.Second, "how long to wait after the window for its moves' receipts and updates")
	fs.IntVar(&cfg.Parallel, "parallel", 64, "rooms set up at once")
	fs.DurationVar(&cfg.SetupTimeout, "setup-timeout", 2*time.Minute, "how long creating, joining, connecting and starting every room may take")
	jsonPath := fs.String("json", "", "also write the result as JSON to this file")
	cpuprofile := fs.String("cpuprofile", "", "write a pprof CPU profile of the tool to this file")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if err := cfg.check(); err != nil {
		fmt.Fprintf(stderr, "roomload: %v\n", err)
		return 2
	}
	if perRoom := cfg.Rate * float64(cfg.Players) * (cfg.Warmup + cfg.Duration).Seconds(); perRoom > 9000 {
		fmt.Fprintf(stderr, "roomload: warning: about %.0f moves per room; roomd refuses a match's moves after 10,000 (match-full)\n", perRoom)
	}
	if *cpuprofile != "" {
		stop, err := profile.StartCPU(*cpuprofile)
		if err != nil {
			fmt.Fprintf(stderr, "roomload: %v\n", err)
			return 2
		}
		defer stop()
	}
	res, err := load(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "roomload: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, res.line())
	if *jsonPath != "" {
		data, _ := json.MarshalIndent(res, "", "  ")
		if err := os.WriteFile(*jsonPath, append(data, '\n'), 0o644); err != nil {
			fmt.Fprintf(stderr, "roomload: %v\n", err)
			return 1
		}
	}
	if f := res.failures(); f != "" {
		fmt.Fprintf(stderr, "roomload: failed: %s\n", f)
		return 1
	}
	return 0
}

func (c *config) check() error {
	c.Nodes = nil
	for _, raw := range strings.Split(c.URL, ",") {
		raw = strings.TrimSpace(raw)
		u, err := neturl.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return fmt.Errorf("--url %q: want http://HOST:PORT, or several separated by commas", raw)
		}
		if !isLoopback(u.Hostname()) {
			return fmt.Errorf("--url %q is not a loopback address; roomload only loads 127.0.0.0/8, [::1] and localhost", raw)
		}
		base := u.Scheme + "://" + u.Host
		if slices.Contains(c.Nodes, base) {
			return fmt.Errorf("--url names %s twice", base)
		}
		c.Nodes = append(c.Nodes, base)
	}
	switch {
	case c.Rooms < 1 || c.Players < 1 || c.Players > 4 || c.Spectators < 0:
		return errors.New("--rooms must be at least 1, --players 1 to 4 and --spectators not negative")
	case c.Rate <= 0 || c.Duration <= 0 || c.Warmup < 0 || c.Drain < 0:
		return errors.New("--rate and --duration must be positive, --warmup and --drain not negative")
	case c.Parallel < 1 || c.SetupTimeout <= 0:
		return errors.New("--parallel and --setup-timeout must be positive")
	}
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
