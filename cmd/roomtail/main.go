// Command roomtail measures the spectator tail — one publisher, one room or
// channel, many spectators — against roomd or against Centrifugo, with the
// same clients for both, so that the two can be compared in one run:
//
//	roomtail --server roomd --url http://127.0.0.1:18840 --pid PID --spectators 5000 --rate 10 --duration 25s --warmup 5s
//	roomtail --server centrifugo --url http://127.0.0.1:18841 --api-key KEY --pid PID --spectators 5000 --rate 10 --duration 25s --warmup 5s
//
// Against roomd the publisher is the one player of a Minesweeper co-op room
// (expert board) that toggles flags, a move every 1/rate seconds (a flag
// toggle is always legal on a board where nothing is revealed, so the match
// never ends); the spectators watch the room (hello with "watch"). The
// mover's receipt names each move's revision, and a spectator's update
// names the revision it brings (`"to":`). Against Centrifugo the publisher
// POSTs `{"channel":CH,"data":{"seq":N}}` to /api/publish every 1/rate
// seconds, and the spectators are anonymous clients of its JSON protocol
// over /connection/websocket, subscribed to CH.
//
// Every spectator is a coder/websocket client on its own socket, read by a
// goroutine of its own; it notes each update's number and the instant it
// read it. A delivery's latency is from the publisher's send (just before
// the socket write or the HTTP request) to a spectator's read, on this
// process's monotonic clock. Deliveries of the updates sent inside the
// window (after --warmup, for --duration) are counted; the server's CPU is
// its utime+stime from /proc/PID/stat over the same window, divided by
// those deliveries. It prints one line (and JSON with --json, with the
// slowest updates' first and last delivery).
//
// The tool's own reading is part of that latency: at 5,000 spectators and
// 10 updates a second one core reads 50,000 frames a second (70–90 % of
// it), and a server that writes a fan-out faster than the tool reads it
// waits in the tool's queue. So each delivery is also timed to its arrival
// in the spectator's socket (arrival_p50, arrival_p99: the kernel's
// SO_TIMESTAMPNS time, on loopback that of the server's write, against the
// send's wall-clock time): the server's part alone. A frame read from a
// buffer that a later read refilled gets that later read's time, so
// arrival times err late, never early.
//
// Loopback servers only. cmd/roomtail/run.sh runs one round of the
// comparison end to end.
package main

import (
	"cmp"
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
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
	Server     string // roomd or centrifugo
	URL        string // http://HOST:PORT
	PID        int    // the server's process, for its CPU; 0: not measured
	APIKey     string // Centrifugo's HTTP API key
	Channel    string // Centrifugo's channel
	Spectators int
	Rate       float64 // updates per second
	Duration   time.Duration
	Warmup     time.Duration
	Drain      time.Duration
	Parallel   int
}

// run is main without the process: it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("roomtail", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	fs.StringVar(&cfg.Server, "server", "roomd", "the server: roomd or centrifugo")
	fs.StringVar(&cfg.URL, "url", "http://127.0.0.1:8080", "the server's base URL; loopback only")
	fs.IntVar(&cfg.PID, "pid", 0, "the server's process id, for its CPU from /proc (0: not measured)")
	fs.StringVar(&cfg.APIKey, "api-key", "", "Centrifugo's HTTP API key (X-API-Key)")
	fs.StringVar(&cfg.Channel, "channel", "tail", "Centrifugo's channel")
	fs.IntVar(&cfg.Spectators, "spectators", 500, "spectators, one socket and one goroutine each")
	fs.Float64Var(&cfg.Rate, "rate", 10, "updates per second, evenly spaced, from one publisher")
	fs.DurationVar(&cfg.Duration, "duration", 25*time.Second, "the measured window")
	fs.DurationVar(&cfg.Warmup, "warmup", 5*time.Second, "updates before the window, not measured")
	fs.DurationVar(&cfg.Drain, "drain", 3*time.Second, "how long to wait after the window for its deliveries")
	fs.IntVar(&cfg.Parallel, "parallel", 64, "spectators connected at once")
	jsonPath := fs.String("json", "", "also write the result as JSON to this file")
	cpuprofile := fs.String("cpuprofile", "", "write a pprof CPU profile of the tool to this file")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if err := cfg.check(); err != nil {
		fmt.Fprintf(stderr, "roomtail: %v\n", err)
		return 2
	}
	if *cpuprofile != "" {
		stop, err := profile.StartCPU(*cpuprofile)
		if err != nil {
			fmt.Fprintf(stderr, "roomtail: %v\n", err)
			return 2
		}
		defer stop()
	}
	res, err := measure(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "roomtail: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, res.line())
	if *jsonPath != "" {
		data, _ := json.MarshalIndent(res, "", "  ")
		if err := os.WriteFile(*jsonPath, append(data, '\n'), 0o644); err != nil {
			fmt.Fprintf(stderr, "roomtail: %v\n", err)
			return 1
		}
	}
	if res.Missing > 0 || res.Lost > 0 {
		fmt.Fprintf(stderr, "roomtail: failed: %d deliveries missing, %d sockets lost\n", res.Missing, res.Lost)
		return 1
	}
	return 0
}

func (c *config) check() error {
	if c.Server != "roomd" && c.Server != "centrifugo" {
		return fmt.Errorf("--server %q: want roomd or centrifugo", c.Server)
	}
	u, err := neturl.Parse(c.URL)
	if err != nil || u.Scheme != "http" || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return fmt.Errorf("--url %q: want http://HOST:PORT", c.URL)
	}
	if ip := net.ParseIP(u.Hostname()); u.Hostname() != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("--url %q is not a loopback address", c.URL)
	}
	c.URL = "http://" + u.Host
	if c.Server == "centrifugo" && c.APIKey == "" {
		return errors.New("--server centrifugo needs --api-key")
	}
	if c.Spectators < 1 || c.Rate <= 0 || c.Duration <= 0 || c.Warmup < 0 || c.Parallel < 1 {
		return errors.New("--spectators, --rate, --duration and --parallel must be positive, --warmup not negative")
	}
	return nil
}

// A target is one server under the same measurement: it sets up the
// publisher, connects spectators and publishes update number seq.
type target interface {
	setup(ctx context.Context) error
	spectate(ctx context.Context, s *spectator) error
	publish(ctx context.Context, seq int) error
	// receipts ties each update number to the number spectators see (roomd:
	// the revision its receipt names); nil when they are the same.
	receipts() map[uint64]int
	close()
}

// spectator is one socket's deliveries: the update number seen and when.
type spectator struct {
	clock   *clock
	arrival func() int64 // the kernel's arrival time of the socket's last read (Unix ns), or 0
	got     []delivery
	lost    atomic.Bool
}

type delivery struct {
	num     uint64
	at      time.Duration // read, on the run's clock
	arrived int64         // in the socket, Unix ns (0: unknown)
}

// clock is the run's time, on the monotonic clock, from its start.
type clock struct{ t0 time.Time }

func (c *clock) now() time.Duration { return time.Since(c.t0) }

// note records a delivery of update number num, read now.
func (s *spectator) note(num uint64) {
	var arrived int64
	if s.arrival != nil {
		arrived = s.arrival()
	}
	s.got = append(s.got, delivery{num, s.clock.now(), arrived})
}

// measure runs one measurement against cfg's server.
func measure(ctx context.Context, cfg config) (*result, error) {
	clk := &clock{t0: time.Now()}
	var t target
	switch cfg.Server {
	case "roomd":
		t = newRoomd(cfg)
	default:
		t = newCentrifugo(cfg)
	}
	defer t.close()
	if err := t.setup(ctx); err != nil {
		return nil, fmt.Errorf("set up the publisher: %w", err)
	}
	total := int(cfg.Rate*(cfg.Warmup+cfg.Duration).Seconds()) + 1
	specs := make([]*spectator, cfg.Spectators)
	setupStart := time.Now()
	sem := make(chan struct{}, cfg.Parallel)
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	for i := range specs {
		specs[i] = &spectator{clock: clk, got: make([]delivery, 0, total+total/4)}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := t.spectate(ctx, specs[i]); err != nil {
				mu.Lock()
				first = firstErr(first, fmt.Errorf("spectator %d: %w", i, err))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	setup := time.Since(setupStart)

	// The publisher: update seq at start + seq/rate.
	period := time.Duration(float64(time.Second) / cfg.Rate)
	sent := make([]time.Duration, total)
	sentWall := make([]int64, total) // Unix ns, for the kernel's arrival times
	start := clk.now() + 100*time.Millisecond
	winFirst := int(cfg.Warmup / period) // the first update of the window
	var cpu0, cpu1 float64
	var rus0, rus1 syscall.Rusage
	for seq := range total {
		at := start + time.Duration(seq)*period
		if d := at - clk.now(); d > 0 {
			select {
			case <-time.After(d):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if seq == winFirst {
			cpu0 = procCPU(cfg.PID)
			syscall.Getrusage(syscall.RUSAGE_SELF, &rus0)
		}
		sent[seq], sentWall[seq] = clk.now(), time.Now().UnixNano()
		if err := t.publish(ctx, seq); err != nil {
			return nil, fmt.Errorf("publish %d: %w", seq, err)
		}
	}
	// The window ends one period after its last update went out.
	if d := start + time.Duration(total)*period - clk.now(); d > 0 {
		time.Sleep(d)
	}
	cpu1 = procCPU(cfg.PID)
	syscall.Getrusage(syscall.RUSAGE_SELF, &rus1)
	select {
	case <-time.After(cfg.Drain):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	t.close() // the readers stop; their slices are theirs no more
	return report(cfg, specs, sent, sentWall, winFirst, t.receipts(), setup, cpu1-cpu0, rusCPU(&rus1)-rusCPU(&rus0)), nil
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// procCPU is pid's utime+stime in seconds (0 when pid is 0 or unreadable).
func procCPU(pid int) float64 {
	if pid == 0 {
		return 0
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The fields after the command (which may hold spaces) in parentheses.
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100 // USER_HZ
}

func rusCPU(r *syscall.Rusage) float64 {
	return float64(r.Utime.Nano()+r.Stime.Nano()) / 1e9
}

// result is one run's figures.
type result struct {
	Server        string  `json:"server"`
	Spectators    int     `json:"spectators"`
	Rate          float64 `json:"ratePerSecond"`
	WindowS       float64 `json:"windowSeconds"`
	SetupS        float64 `json:"setupSeconds"`
	Updates       int     `json:"updates"`    // sent in the window
	Deliveries    int     `json:"deliveries"` // of those, to spectators
	Missing       int     `json:"missing"`    // updates × spectators − deliveries
	Lost          int     `json:"socketsLost"`
	P50, P90, P99 float64 // ms, send → a spectator's read
	Max           float64
	ServerCPUS    float64  `json:"serverCpuSeconds"`
	CPUPerDelUs   float64  `json:"serverCpuPerDeliveryUs"`
	ToolCPUS      float64  `json:"toolCpuSeconds"`
	Worst         []update `json:"worstUpdates"` // the updates whose last delivery came latest
	Arrival       arrival  `json:"arrival"`      // send → in the spectator's socket (kernel time)
}

// arrival is the deliveries' latency from the send to their arrival in the
// spectator's socket (SO_TIMESTAMPNS), without the tool's delay in reading
// them: the server's part (ms).
type arrival struct {
	Count         int
	P50, P99, Max float64
}

// update is one update's deliveries: when it was sent (s from the run's
// start) and its first and last delivery's latency (ms).
type update struct {
	Seq   int     `json:"seq"`
	SentS float64 `json:"sentS"`
	First float64 `json:"firstMs"`
	Last  float64 `json:"lastMs"`
}

func report(cfg config, specs []*spectator, sent []time.Duration, sentWall []int64, winFirst int, rev map[uint64]int, setup time.Duration, serverCPU, toolCPU float64) *result {
	inWindow := func(seq int) bool { return seq >= winFirst && seq < len(sent) }
	var lat, arr []time.Duration
	first := make([]time.Duration, len(sent))
	last := make([]time.Duration, len(sent))
	lost := 0
	for _, s := range specs {
		if s.lost.Load() {
			lost++
		}
		for _, d := range s.got {
			seq := int(d.num)
			if rev != nil {
				n, ok := rev[d.num]
				if !ok {
					continue // an update of no move of ours (the match's start)
				}
				seq = n
			}
			if inWindow(seq) {
				l := d.at - sent[seq]
				lat = append(lat, l)
				if d.arrived != 0 {
					arr = append(arr, time.Duration(d.arrived-sentWall[seq]))
				}
				if first[seq] == 0 || l < first[seq] {
					first[seq] = l
				}
				last[seq] = max(last[seq], l)
			}
		}
	}
	slices.Sort(lat)
	slices.Sort(arr)
	q := func(lat []time.Duration, p float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))]) / 1e6
	}
	updates := len(sent) - winFirst
	r := &result{Server: cfg.Server, Spectators: cfg.Spectators, Rate: cfg.Rate,
		WindowS: float64(updates) / cfg.Rate, SetupS: setup.Seconds(),
		Updates: updates, Deliveries: len(lat), Missing: updates*len(specs) - len(lat), Lost: lost,
		P50: q(lat, 0.50), P90: q(lat, 0.90), P99: q(lat, 0.99), Max: q(lat, 1),
		Arrival: arrival{Count: len(arr), P50: q(arr, 0.50), P99: q(arr, 0.99), Max: q(arr, 1)}, ServerCPUS: serverCPU, ToolCPUS: toolCPU}
	for seq := winFirst; seq < len(sent); seq++ {
		r.Worst = append(r.Worst, update{Seq: seq, SentS: sent[seq].Seconds(),
			First: float64(first[seq]) / 1e6, Last: float64(last[seq]) / 1e6})
	}
	slices.SortFunc(r.Worst, func(a, b update) int { return cmp.Compare(b.Last, a.Last) })
	r.Worst = r.Worst[:min(len(r.Worst), 10)]
	if len(lat) > 0 {
		r.CPUPerDelUs = serverCPU / float64(len(lat)) * 1e6
	}
	return r
}

func (r *result) line() string {
	return fmt.Sprintf("%s spectators=%d rate=%g/s window=%.1fs updates=%d deliveries=%d missing=%d lost=%d "+
		"p50=%.2fms p90=%.2fms p99=%.2fms max=%.2fms arrival_p50=%.2fms arrival_p99=%.2fms arrival_max=%.2fms server_cpu=%.2fs (%.1f%% of a core) server_cpu_per_delivery=%.2fus tool_cpu=%.2fs (%.1f%% of a core) setup=%.1fs",
		r.Server, r.Spectators, r.Rate, r.WindowS, r.Updates, r.Deliveries, r.Missing, r.Lost,
		r.P50, r.P90, r.P99, r.Max, r.Arrival.P50, r.Arrival.P99, r.Arrival.Max, r.ServerCPUS, 100*r.ServerCPUS/r.WindowS, r.CPUPerDelUs,
		r.ToolCPUS, 100*r.ToolCPUS/r.WindowS, r.SetupS)
}
