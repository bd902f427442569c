package bot

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// config is one scenario, as the flags describe it.
type config struct {
	URL        string   // --url as given: one node's base URL or several, comma-separated
	Nodes      []string // the base URLs of --url, in order, without a trailing slash
	Target     string
	MetricsURL string

	games      gameRegistry  // the games roombot plays
	Game       string        // a game the server runs and roombot plays
	Mode       string        // one of the server's modes of Game; "" is the adapter's default
	Level      string        // a game's own setting (see each adapter's help)
	Pile       int           // a game's own setting (see each adapter's help)
	Board      string        // snake's arena
	Speed      string        // snake's speed
	TimeLimit  time.Duration // snake's match time
	CrashHost  bool          // snake: the host never turns
	Rooms      int
	Players    int
	Spectators int
	AI         int

	Loop         string // open or closed
	Rate         float64
	Think        dist
	ThinkSet     bool // --think was given (a real-time game's players use it only then)
	Duration     time.Duration
	Ramp         float64
	JoinParallel int
	SetupTimeout time.Duration
	Drain        time.Duration
	MoveTimeout  time.Duration
	RematchDelay time.Duration
	CheckEvery   time.Duration
	EndResign    bool

	Chaos chaosConfig
	Stall stallConfig // --clock and --stall (stall.go)

	// RatedCfg is --rated's (rated.go).
	RatedCfg ratedConfig

	JSON       string
	HTML       string
	CPUProfile string
	MemProfile string
	Progress   time.Duration
	LogLevel   string
	Seed       uint64
	Label      string

	// CoarseTimers wakes the bots on the runtime's timers (bunched on its
	// whole milliseconds) instead of a timerfd.
	CoarseTimers bool
	// TimerSlack lets a bot's wake-up wait that long for others due after
	// it (finetimer.Clock.SetSlack).
	TimerSlack time.Duration
	// SocketGoroutines is accepted and ignored: each socket is read by a
	// goroutine of its own (--socket-goroutines, to go after one release).
	SocketGoroutines bool
}

// chaosConfig says which faults the bots inject on purpose.
type chaosConfig struct {
	Enabled   bool
	Drop      float64       // fraction of live sockets cut per second
	Resend    float64       // fraction of commands sent twice with the same id
	Malformed int           // malformed frames in all (bounded)
	Slow      int           // spectators that stop reading for a while
	Hold      time.Duration // how long a slow spectator stops reading
}

// Chaos defaults, used by --chaos for sub-options not given.
const (
	defaultChaosDrop      = 0.02
	defaultChaosResend    = 0.05
	defaultChaosMalformed = 20
	defaultChaosSlow      = 1
	defaultChaosHold      = 8 * time.Second
)

// dist is a think-time or gap distribution.
type dist struct {
	Kind   string // fixed, uniform, exp
	Mean   time.Duration
	Lo, Hi time.Duration // uniform with an explicit range
	Ranged bool
}

func (d dist) String() string {
	switch {
	case d.Ranged:
		return fmt.Sprintf("uniform:%s-%s", d.Lo, d.Hi)
	default:
		return fmt.Sprintf("%s:%s", d.Kind, d.Mean)
	}
}

// parseDist reads KIND[:MEAN] or uniform:A-B.
func parseDist(s string) (dist, error) {
	kind, arg, _ := strings.Cut(strings.TrimSpace(s), ":")
	d := dist{Kind: kind}
	switch kind {
	case "fixed", "uniform", "exp":
	case "none", "0":
		return dist{Kind: "fixed"}, nil
	default:
		return dist{}, fmt.Errorf("think %q: kind must be fixed, uniform or exp", s)
	}
	if arg == "" {
		return d, nil
	}
	if lo, hi, ok := strings.Cut(arg, "-"); ok && kind == "uniform" {
		a, err1 := time.ParseDuration(lo)
		b, err2 := time.ParseDuration(hi)
		if err1 != nil || err2 != nil || a < 0 || b < a {
			return dist{}, fmt.Errorf("think %q: want uniform:A-B with durations 0 <= A <= B", s)
		}
		d.Ranged, d.Lo, d.Hi, d.Mean = true, a, b, (a+b)/2
		return d, nil
	}
	m, err := time.ParseDuration(arg)
	if err != nil || m < 0 {
		return dist{}, fmt.Errorf("think %q: mean must be a duration such as 50ms", s)
	}
	d.Mean = m
	return d, nil
}

// draw returns one sample. mean overrides the distribution's mean when >= 0
// (open loop: the mean gap is 1/rate) — a ranged uniform is scaled to it.
func (d dist) draw(r *rand.Rand, mean time.Duration) time.Duration {
	m := d.Mean
	if mean >= 0 {
		m = mean
	}
	if m <= 0 && !(d.Ranged && mean < 0) {
		return 0
	}
	switch d.Kind {
	case "uniform":
		lo, hi := m/2, m+m/2
		if d.Ranged && mean < 0 {
			lo, hi = d.Lo, d.Hi
		}
		if hi <= lo {
			return lo
		}
		return lo + time.Duration(r.Int64N(int64(hi-lo)))
	case "exp":
		x := r.ExpFloat64() * float64(m)
		return time.Duration(math.Min(x, float64(20*m)))
	default:
		return m
	}
}

// usage is the -h text, with the games roombot can play.
func usage(games gameRegistry) string {
	return strings.Replace(usageText, "{{games}}", games.help(), 1)
}

const usageText = `roombot — bots that play roomd games over the real protocol, to load-test a
server and check its guarantees while they do.

Usage:
  roombot [flags]

Each room gets P players (the first is the host, who creates the room, starts
it and asks for a rematch whenever a match ends) and S spectators. Players
choose legal moves from their own view only, with the game's AI (see --game).
The run lasts --duration after the last bot joined, then the bots stop, drain,
check their views against the server's and report.

Every bot connects from this machine's address, and roomd's per-address quotas
(rooms, seats and sockets per minute, open sockets) are meant for one person:
start the server with --quotas=off (ROOMD_QUOTAS=off) for a load test from one
machine. Its global caps (--max-conns, --max-rooms, --max-spectators) stay; raise
them by flag for the largest scenarios.

Target:
  --url URL[,URL…]     roomd base URL (default http://127.0.0.1:8080), or the
                       nodes of one service, comma-separated (several roomd on
                       one Redis): room i is created through node i, and each
                       room's players and spectators connect through the nodes
                       in turn from there, so that one room's sockets go through
                       different nodes. Each socket moves to the next node when
                       it is lost, and follows a "room moved" close (4009). The
                       report counts rooms, sockets and moves per node.
  --target HOST[,HOST…]
                       allow a --url whose host is not loopback: each such host
                       must be named here exactly. Without it roombot talks to
                       127.0.0.0/8, [::1] and localhost only, so a mistyped URL
                       never loads someone else's machine.
  --metrics URL[,URL…] Prometheus endpoints read for the server's CPU
                       (process_cpu_seconds_total) at the start and end of the
                       measured window, and for a real-time game its ticks
                       (roomd_tick_duration_seconds, roomd_tick_lateness_seconds,
                       roomd_ticks_skipped_total), summed over the endpoints;
                       default <url>/metrics of every node, "off" to skip. A
                       server without it is fine: its figures are then "n/a".

Scenario:
  --game NAME          the game: one the server runs (GET /api/games) with the
                       rules version roombot was built with (default
                       minesweeper). roombot plays, with their own flags:
{{games}}  --mode MODE          one of the server's modes of the game, whose seat limits
                       --players + --ai must fit (default: the game's default
                       mode, listed above)
  --rooms R            rooms (default 10)
  --players P          human (bot) players per room, host included (default 2)
  --spectators S       spectators per room (default 1)
  --ai N               AI seats the host adds before starting, in a mode whose
                       seats the server can fill with its AI (default 0)

Pacing:
  --loop open|closed   closed: a player's next move waits for the previous
                       one's receipt and update, then --think; open: each
                       player moves every 1/--rate on average, whatever is
                       in flight (default closed). A real-time game (snake)
                       has a pace of its own: a player decides after each tick
                       that changed its view, and sends at most one input at a
                       time (until the tick it takes effect at has come, which
                       keeps it within the server's two inputs per seat and
                       tick); --loop and --rate do not apply, and --think,
                       only when given, is the least gap between two inputs
  --rate R             open loop: moves per second per player (default 1)
  --interval D         open loop: the same as --rate 1/D (e.g. 250ms)
  --think DIST         closed loop: pause before each next move; open loop: the
                       shape of the gaps between moves, whose mean is 1/--rate
                       (a mean given here is then ignored). DIST is fixed:D,
                       uniform:MEAN (±50%), uniform:A-B, exp:MEAN, or none
                       (default uniform:50ms)
  --duration D         measured play time after the last bot joined (default 30s)
  --ramp N             joins per second while the bots connect (default 500);
                       a join is one socket: create or join a room, open the
                       socket, get the first snapshot
  --join-parallel N    joins in flight at once (default 64)
  --coarse-timers      wake the bots for their moves on the Go runtime's
                       timers, which an idle process wakes for on whole
                       milliseconds, so that moves bunch at its wake-ups (as
                       roombot did before 2026-12-06); by default one timerfd
                       in the runtime's poller times every bot (Linux), each
                       move at its own instant, give or take --timer-slack
  --timer-slack D      a move due may wait up to D for the moves due after
                       it, so that they go out on one wake-up of the process
                       (default 0: each at its instant). 1ms costs the bots
                       about a sixth less, as --coarse-timers does, but
                       bunches the moves, which costs the server less too
  --socket-goroutines  accepted and ignored (goes in the next release): each
                       bot's socket is read by a goroutine of its own
  --setup-timeout D    give up joining after this long (default 60s)
  --drain D            after the play time, each final step (receipts in
                       flight, the view checks, the last match's seed, the
                       last receipts) waits at most half of this and ends as
                       soon as it is done (default 10s)
  --move-timeout D     a move without an answer for this long is counted as a
                       timeout and the player moves on (default 10s)
  --rematch-delay D    the host waits this long after a match ends before it
                       sends rematch (default 100ms)
  --check-every D      each bot asks for a resync this often and compares the
                       snapshot with the view it follows (default 5s; 0: only
                       at the end)
  --end-resign         at the end the host resigns a running match so that its
                       seed is published and its frames can be checked for
                       leaks (default true)

Chaos (off unless --chaos; giving a sub-option also turns it on):
  --chaos              inject faults with the defaults below
  --chaos-drop F       fraction of live sockets cut each second, without a
                       close, as a network failure; they reconnect, rejoin
                       with their token and resend what had no receipt
                       (default 0.02)
  --chaos-resend F     fraction of commands sent a second time with the same
                       action id; each must get the same receipt and apply
                       once (default 0.05)
  --chaos-malformed N  malformed frames in all, spread over the players, at
                       most 5 per socket (default 20)
  --chaos-slow N       spectators that become slow consumers a fifth into the
                       run: each reconnects with a tiny receive buffer and
                       stops reading its events until the room's presence
                       shows the server dropped it, --chaos-hold passes, or
                       play ends. The server closes it with 4008 and it must
                       come back and resync (default 1). A room too quiet to
                       fill the server's outbox within the hold is counted
                       (chaos/slow-not-dropped), not an error: the bot then
                       reconnects it itself
  --chaos-hold D       the longest a slow spectator stops reading (default 8s)
  --stall P            with --clock: each player bot, with probability P per
                       match, stops moving for that match, then checks that
                       the match ends on its clock — one update with
                       result.status "timeout" naming its seat in
                       result.timedOut, within 100 ms of the deadline it was
                       last shown (on its own clock, from the receipt of the
                       turn clock that showed its seat running). The lateness
                       is the "stall-timeout" latency (max: the worst); stall/…
                       counts say how the stalled matches ended. Not turned on
                       by --chaos (default 0)
  --stall-tolerance D  how far from the deadline a stalled seat's timeout may
                       land (default 100ms: an idle server's)

Turn clock:
  --clock C            create the rooms with a turn clock (settings.clock), in
                       a game that offers one: D, a limit per move (e.g. 3s;
                       1s to 1h), or B+I, a chess clock of B for the match
                       plus I after each turn (e.g. 3m+2s; B 1s to 3h, I 0 to
                       10m). Default none

Rated quick play (PROTOCOL.md §2.13; --rated replaces the rooms above):
  --rated              N bots sign in with tokens roombot mints, queue for rated
                       quick play of --game (default tictactoe) and --mode, wait
                       on their tickets, play the match they are paired into and
                       queue again until --duration ends. Each match's winner is
                       drawn from the two strengths (Elo's expectation); the
                       loser resigns at its second turn. Reports the time to
                       match (p50, p99), the rating difference of pairs at
                       pairing, and Spearman's rho of the ratings the bots last
                       queued with against their strengths; exits 3 when a
                       pair's ratings were further apart than the window
  --jwt-secret S       the server's --jwt-secret (HS256), to mint each bot's
                       token (sub and name bot-N)
  --bots N             bots (default 8)
  --strengths LIST     the bots' strengths: 1200,1500,1800 (bot i has the
                       (i mod 3)th) or a spread 1200-1800 (default 1200-1800)
  --clock C            as above: the pool of that turn clock

Output:
  --json FILE          write the result as JSON
  --html FILE          write a self-contained HTML report (inline SVG charts:
                       latency over time, latency percentiles, moves/s,
                       connections, errors)
  --cpuprofile FILE    write the bots' own CPU profile of the measured window
                       (go tool pprof FILE): what their CPU per move is spent on
  --memprofile FILE    write the bots' heap profile at the end of play
  --progress D         live progress: a line redrawn every second on a
                       terminal; otherwise a log line every D (default 10s;
                       0: none)
  --log-level LEVEL    debug, info, warn or error (default info)
  --seed N             seed of the bots' own random choices (default: random)
  --label TEXT         a name for this run in the reports

Latency is measured from a move's send to the arrival of both its receipt and
its update (in a real-time game, of its receipt and the tick it takes effect
at). Spectator delivery latency is from a player's send to a
spectator's receipt of that update (one process clock). The summary's move
and spectator latencies cover the measured window only; the per-second
series in the HTML report covers the whole run.

For a real-time game the summary (and --json's window.realtime) adds the
ticks each client received per second; the bytes each received per second,
read from its socket (WebSocket frames and their headers) and in the messages
its transport handed over (a batched frame's elements without the array
around them, and without a message dropped at a gap); the bots' CPU per tick
received; and from --metrics the server's room-ticks run, their mean duration
(roomd_tick_duration_seconds), tick lateness p50 and p99 (interpolated in the
buckets of roomd_tick_lateness_seconds counted during the window), ticks
skipped (roomd_ticks_skipped_total) and its CPU per room-tick run. The tick
figures are the played game's; the CPU is the whole server's.

The bots run with Go's default GOGC=100: a larger heap (400) cost them about
a tenth more CPU per move — fresh memory out of cache on every message — and
bought no lower latency (BENCHMARKS.md, "roombot's own CPU"). Pin roomd and
roombot to different CPUs (taskset) for steadier figures.

Exit status: 0 when every invariant held, 3 when any was violated, 1 when the
run could not be done (no server, other rules, nobody joined), 2 for bad flags
(a game, mode or seat count the server does not offer included).

Examples:
  # 100 rooms of 2 co-op players, closed loop, 20 s, with a report
  roombot --rooms 100 --players 2 --spectators 0 --loop closed --think none \
          --duration 20s --json out.json --html out.html

  # 1,000 rooms of 2 players at 1 move/s each (open loop, Poisson gaps)
  roombot --rooms 1000 --players 2 --loop open --rate 1 --think exp --duration 30s

  # one room, 4 players at 10 moves/s, 300 spectators watching
  roombot --rooms 1 --players 4 --spectators 300 --loop open --rate 10 --duration 30s

  # Nim against the server's AI, with every chaos option on
  roombot --game nim --players 1 --ai 1 --rooms 20 --chaos --duration 15s

  # 200 snake arenas of 4 players on the large board, with the server's tick
  # lateness, skipped ticks and CPU per room-tick from its /metrics
  roombot --game snake --rooms 200 --players 4 --spectators 0 --board large \
          --time-limit 600s --duration 60s

  # a race on expert boards against a host that is not loopback (explicit)
  roombot --url http://10.0.0.5:8080 --target 10.0.0.5 --mode race --level expert

  # three nodes of one service, with chaos (drops move sockets between nodes)
  roombot --url http://127.0.0.1:8081,http://127.0.0.1:8082,http://127.0.0.1:8083 \
          --rooms 30 --chaos --duration 30s
`

// newFlagSet defines every flag on c; the strings receive the flags that
// need parsing after.
func newFlagSet(c *config, think, interval, seed *string) *flag.FlagSet {
	fs := flag.NewFlagSet("roombot", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&c.URL, "url", "http://127.0.0.1:8080", "")
	fs.StringVar(&c.Target, "target", "", "")
	fs.StringVar(&c.MetricsURL, "metrics", "", "")
	fs.StringVar(&c.Game, "game", "minesweeper", "")
	fs.StringVar(&c.Mode, "mode", "", "")
	fs.StringVar(&c.Level, "level", "beginner", "")
	fs.IntVar(&c.Pile, "pile", 21, "")
	fs.StringVar(&c.Board, "board", "medium", "")
	fs.StringVar(&c.Speed, "speed", "normal", "")
	fs.DurationVar(&c.TimeLimit, "time-limit", 120*time.Second, "")
	fs.BoolVar(&c.CrashHost, "crash-host", false, "")
	fs.IntVar(&c.Rooms, "rooms", 10, "")
	fs.IntVar(&c.Players, "players", 2, "")
	fs.IntVar(&c.Spectators, "spectators", 1, "")
	fs.IntVar(&c.AI, "ai", 0, "")
	fs.StringVar(&c.Loop, "loop", "closed", "")
	fs.Float64Var(&c.Rate, "rate", 1, "")
	fs.StringVar(interval, "interval", "", "")
	fs.StringVar(think, "think", "uniform:50ms", "")
	fs.DurationVar(&c.Duration, "duration", 30*time.Second, "")
	fs.Float64Var(&c.Ramp, "ramp", 500, "")
	fs.IntVar(&c.JoinParallel, "join-parallel", 64, "")
	fs.DurationVar(&c.SetupTimeout, "setup-timeout", 60*time.Second, "")
	fs.DurationVar(&c.Drain, "drain", 10*time.Second, "")
	fs.DurationVar(&c.MoveTimeout, "move-timeout", 10*time.Second, "")
	fs.DurationVar(&c.RematchDelay, "rematch-delay", 100*time.Millisecond, "")
	fs.DurationVar(&c.CheckEvery, "check-every", 5*time.Second, "")
	fs.BoolVar(&c.EndResign, "end-resign", true, "")
	fs.BoolVar(&c.Chaos.Enabled, "chaos", false, "")
	fs.Float64Var(&c.Chaos.Drop, "chaos-drop", defaultChaosDrop, "")
	fs.Float64Var(&c.Chaos.Resend, "chaos-resend", defaultChaosResend, "")
	fs.IntVar(&c.Chaos.Malformed, "chaos-malformed", defaultChaosMalformed, "")
	fs.IntVar(&c.Chaos.Slow, "chaos-slow", defaultChaosSlow, "")
	fs.DurationVar(&c.Chaos.Hold, "chaos-hold", defaultChaosHold, "")
	fs.StringVar(&c.JSON, "json", "", "")
	fs.StringVar(&c.HTML, "html", "", "")
	fs.StringVar(&c.CPUProfile, "cpuprofile", "", "")
	fs.BoolVar(&c.CoarseTimers, "coarse-timers", false, "")
	fs.BoolVar(&c.SocketGoroutines, "socket-goroutines", false, "")
	fs.DurationVar(&c.TimerSlack, "timer-slack", 0, "")
	fs.StringVar(&c.MemProfile, "memprofile", "", "")
	fs.DurationVar(&c.Progress, "progress", 10*time.Second, "")
	fs.StringVar(&c.LogLevel, "log-level", "info", "")
	fs.StringVar(seed, "seed", "", "")
	fs.StringVar(&c.Label, "label", "", "")
	fs.BoolVar(&c.RatedCfg.Enabled, "rated", false, "")
	fs.StringVar(&c.RatedCfg.JWTSecret, "jwt-secret", "", "")
	fs.IntVar(&c.RatedCfg.Bots, "bots", 8, "")
	stallFlags(fs, &c.Stall)
	return fs
}

// parseFlags reads args into a config for roombot's built-in games. It
// returns flag.ErrHelp for -h.
func parseFlags(args []string, stderr io.Writer) (config, error) {
	return parseFlagsFor(roombotGames, args, stderr)
}

// parseFlagsFor reads args into a config for games.
func parseFlagsFor(games gameRegistry, args []string, stderr io.Writer) (config, error) {
	c := config{games: games}
	var think, interval, seed string
	strengths := "1200-1800"
	fs := newFlagSet(&c, &think, &interval, &seed)
	fs.StringVar(&strengths, "strengths", strengths, "")
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stderr, usage(games))
		return c, flag.ErrHelp
	}
	if err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q (flags only; see -h)", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, name := range []string{"chaos-drop", "chaos-resend", "chaos-malformed", "chaos-slow", "chaos-hold"} {
		if set[name] {
			c.Chaos.Enabled = true
		}
	}
	if !c.Chaos.Enabled {
		c.Chaos = chaosConfig{}
	} else {
		// With --chaos alone every kind is on; naming some sub-options
		// without --chaos turns on only those.
		if !set["chaos"] {
			if !set["chaos-drop"] {
				c.Chaos.Drop = 0
			}
			if !set["chaos-resend"] {
				c.Chaos.Resend = 0
			}
			if !set["chaos-malformed"] {
				c.Chaos.Malformed = 0
			}
			if !set["chaos-slow"] {
				c.Chaos.Slow = 0
			}
		}
	}
	if c.RatedCfg.Enabled {
		if err := c.RatedCfg.check(strengths); err != nil {
			return c, err
		}
		if !set["game"] {
			c.Game = "tictactoe"
		}
	}
	if c.Think, err = parseDist(think); err != nil {
		return c, err
	}
	c.ThinkSet = set["think"]
	if interval != "" {
		if set["rate"] {
			return c, errors.New("give --rate or --interval, not both")
		}
		d, err := time.ParseDuration(interval)
		if err != nil || d <= 0 {
			return c, fmt.Errorf("--interval %q: want a positive duration", interval)
		}
		c.Rate = float64(time.Second) / float64(d)
	}
	if seed != "" {
		if c.Seed, err = strconv.ParseUint(seed, 10, 64); err != nil {
			return c, fmt.Errorf("--seed %q: want a non-negative integer", seed)
		}
	} else {
		c.Seed = rand.Uint64()
	}
	return c, c.validate()
}

// validate checks the scenario's numbers and the target. The game, its
// mode and seats are checked against the server's games at the start of
// the run (see choosePlay).
func (c *config) validate() error {
	if c.Game == "" {
		return errors.New("--game must name a game")
	}
	switch {
	case c.Rooms < 1 || c.Rooms > 100000:
		return errors.New("--rooms must be 1 to 100000")
	case c.Players < 1:
		return errors.New("--players must be at least 1")
	case c.Spectators < 0 || c.AI < 0:
		return errors.New("--spectators and --ai must not be negative")
	case c.TimerSlack < 0 || c.TimerSlack > time.Second:
		return errors.New("--timer-slack must be 0 to 1s")
	case c.Loop != "open" && c.Loop != "closed":
		return fmt.Errorf("--loop %q: want open or closed", c.Loop)
	case c.Loop == "open" && (c.Rate <= 0 || c.Rate > 1000):
		return errors.New("--rate must be above 0 and at most 1000 moves/s per player")
	case c.Duration <= 0 || c.Duration > 24*time.Hour:
		return errors.New("--duration must be positive and at most 24h")
	case c.Ramp <= 0:
		return errors.New("--ramp must be positive")
	case c.JoinParallel < 1:
		return errors.New("--join-parallel must be at least 1")
	case c.SetupTimeout <= 0 || c.Drain <= 0 || c.MoveTimeout <= 0:
		return errors.New("--setup-timeout, --drain and --move-timeout must be positive")
	case c.Chaos.Drop < 0 || c.Chaos.Drop > 1 || c.Chaos.Resend < 0 || c.Chaos.Resend > 1:
		return errors.New("--chaos-drop and --chaos-resend are fractions from 0 to 1")
	case c.Chaos.Malformed < 0 || c.Chaos.Slow < 0 || c.Chaos.Hold < 0:
		return errors.New("chaos counts and --chaos-hold must not be negative")
	case c.Chaos.Slow > c.Rooms*c.Spectators:
		return fmt.Errorf("--chaos-slow %d: only %d spectators in all", c.Chaos.Slow, c.Rooms*c.Spectators)
	}
	if _, err := slogLevel(c.LogLevel); err != nil {
		return err
	}
	if err := c.Stall.parse(); err != nil {
		return err
	}
	return c.checkTarget()
}

// checkTarget reads the nodes of --url and refuses a non-loopback one
// unless --target names its host.
func (c *config) checkTarget() error {
	c.Nodes = nil
	for _, raw := range strings.Split(c.URL, ",") {
		raw = strings.TrimSpace(raw)
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("--url %q: want http(s)://host:port, or several separated by commas", raw)
		}
		if err := c.allowed(u.Hostname()); err != nil {
			return fmt.Errorf("--url %q %w", raw, err)
		}
		base := strings.TrimSuffix(raw, "/")
		if slices.Contains(c.Nodes, base) {
			return fmt.Errorf("--url names %s twice", base)
		}
		c.Nodes = append(c.Nodes, base)
	}
	for _, m := range c.metricsURLs() {
		mu, err := url.Parse(m)
		if err != nil || mu.Host == "" {
			return fmt.Errorf("--metrics %q: want a URL or off", c.MetricsURL)
		}
		if c.allowed(mu.Hostname()) != nil {
			return fmt.Errorf("--metrics %q is not a loopback address and --target does not name it", m)
		}
	}
	return nil
}

// allowed says whether roombot may load host: a loopback one, or one
// --target names.
func (c *config) allowed(host string) error {
	if isLoopback(host) {
		return nil
	}
	if c.Target == "" {
		return fmt.Errorf("is not a loopback address; roombot only loads 127.0.0.0/8, [::1] and localhost unless --target %s names the host explicitly", host)
	}
	for _, t := range strings.Split(c.Target, ",") {
		if strings.EqualFold(strings.TrimSpace(t), host) {
			return nil
		}
	}
	return fmt.Errorf("has a host (%s) that --target %q does not name", host, c.Target)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// metricsURLs are where the servers' Prometheus metrics are read: every
// node's by default, none for "off".
func (c *config) metricsURLs() []string {
	var out []string
	switch c.MetricsURL {
	case "off", "none":
	case "":
		for _, n := range c.Nodes {
			out = append(out, n+"/metrics")
		}
	default:
		for _, m := range strings.Split(c.MetricsURL, ",") {
			out = append(out, strings.TrimSpace(m))
		}
	}
	return out
}
