package bot

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// result is everything a run measured and checked; it is the JSON report.
type result struct {
	Label    string       `json:"label,omitempty"`
	Started  time.Time    `json:"started"`
	Scenario scenarioInfo `json:"scenario"`
	Setup    setupInfo    `json:"setup"`
	Window   windowInfo   `json:"window"`
	// Latency by kind: move (send → receipt and update, accepted moves),
	// refused (send → refusal), join, spectate (player's send → a
	// spectator's update), reconnect (socket lost → online again).
	Latency map[string]latencySummary `json:"latency"`
	Counts  map[string]int64          `json:"counts"`
	// Nodes counts, per node of --url, the rooms created and sockets
	// started through it, the connections online through it and the
	// moves (close 4009) it sent.
	Nodes      []nodeInfo    `json:"nodes"`
	Checks     checkInfo     `json:"checks"`
	Violations violationInfo `json:"violations"`
	Series     []point       `json:"series"`
	ExitCode   int           `json:"exitCode"`
}

type scenarioInfo struct {
	URL        string      `json:"url"`
	Game       string      `json:"game"`
	Mode       string      `json:"mode,omitempty"`
	Level      string      `json:"level,omitempty"`
	Pile       int         `json:"pile,omitempty"`
	Board      string      `json:"board,omitempty"`
	Speed      string      `json:"speed,omitempty"`
	TimeLimit  string      `json:"timeLimit,omitempty"`
	CrashHost  bool        `json:"crashHost,omitempty"`
	Rooms      int         `json:"rooms"`
	Players    int         `json:"players"`
	Spectators int         `json:"spectators"`
	AI         int         `json:"ai"`
	Loop       string      `json:"loop"`
	Rate       float64     `json:"ratePerPlayer,omitempty"`
	Think      string      `json:"think"`
	Duration   string      `json:"duration"`
	Ramp       float64     `json:"rampJoinsPerSec"`
	Chaos      chaosConfig `json:"chaos"`
	Seed       uint64      `json:"seed"`
	Args       []string    `json:"args"`
}

type setupInfo struct {
	Sockets     int     `json:"sockets"`
	Joined      int64   `json:"joined"`
	Failed      int64   `json:"failed"`
	Seconds     float64 `json:"seconds"`
	JoinsPerSec float64 `json:"joinsPerSec"`
}

type windowInfo struct {
	Seconds        float64  `json:"seconds"`
	Moves          int64    `json:"moves"`
	Sent           int64    `json:"sent"`
	MovesPerSec    float64  `json:"movesPerSec"`
	BotCPUSeconds  float64  `json:"botCpuSeconds"`
	BotCPUPerMove  float64  `json:"botCpuUsPerMove"`
	ServerCPU      *float64 `json:"serverCpuSeconds"`
	ServerCPUPerMv *float64 `json:"serverCpuUsPerMove"`
	ServerCPUNote  string   `json:"serverCpuNote,omitempty"`
	Refusals       int64    `json:"refusals"`
	Errors         int64    `json:"errors"`
	// Realtime is set for a real-time game (moves are then its inputs).
	Realtime *realtimeInfo `json:"realtime,omitempty"`
}

// realtimeInfo is what a real-time game's run measured in the window: the
// clients' side from the bots, the server's from its metrics.
type realtimeInfo struct {
	Clients int `json:"clients"`
	// Ticks received per client per second, and bytes: those read from the
	// sockets (WebSocket frames with their headers: what the server sent),
	// and those of the messages the transport handed over (a batched
	// frame's elements, without the array around them; messages it drops
	// at a gap are not handed over).
	Ticks                       int64   `json:"ticks"`
	TicksPerClientPerSec        float64 `json:"ticksPerClientPerSec"`
	WireBytesPerClientPerSec    float64 `json:"wireBytesPerClientPerSec"`
	MessageBytesPerClientPerSec float64 `json:"messageBytesPerClientPerSec"`
	// BotCPUPerTick is the bots' CPU per tick message received, µs.
	BotCPUPerTick float64 `json:"botCpuUsPerTick"`
	// The server's ticks of this game in the window (from /metrics):
	// ticks run (the count of roomd_tick_duration_seconds), their mean
	// duration, lateness percentiles from roomd_tick_lateness_seconds'
	// buckets (LatenessAbove: past the last finite bucket), ticks skipped,
	// and the server's CPU per room-tick run.
	Server *realtimeServer `json:"server,omitempty"`
	// ServerNote says why Server is missing.
	ServerNote string `json:"serverNote,omitempty"`
}

type realtimeServer struct {
	TicksRun           float64 `json:"ticksRun"`
	RoomTicksPerSec    float64 `json:"roomTicksPerSec"`
	TickDurationMeanUs float64 `json:"tickDurationMeanUs"`
	LatenessP50Ms      float64 `json:"tickLatenessP50Ms"`
	LatenessP99Ms      float64 `json:"tickLatenessP99Ms"`
	LatenessAbove      bool    `json:"tickLatenessAboveBuckets,omitempty"`
	TicksSkipped       float64 `json:"ticksSkipped"`
	CPUPerRoomTickUs   float64 `json:"serverCpuUsPerRoomTick"`
}

type checkInfo struct {
	FinalViews      int   `json:"finalViewsVerified"`
	FinalUnverified int   `json:"finalViewsUnverified"`
	ViewChecks      int64 `json:"viewChecks"`
	LeakMatches     int64 `json:"leakCheckedMatches"`
	LeakFrames      int64 `json:"leakCheckedFrames"`
	LeakUnchecked   int   `json:"leakUncheckedMatches"`
}

type violationInfo struct {
	Total    int64               `json:"total"`
	ByKind   map[string]int64    `json:"byKind"`
	Examples map[string][]string `json:"examples,omitempty"`
}

// fill completes the result from the measurements.
func (sc *scenario) fill(res *result, start, end measure) {
	cfg := sc.cfg
	res.Label, res.Started = cfg.Label, sc.st.start
	res.Scenario = scenarioInfo{URL: cfg.URL, Game: cfg.Game, Rooms: cfg.Rooms, Players: cfg.Players, Spectators: cfg.Spectators,
		AI: cfg.AI, Loop: cfg.Loop, Think: cfg.Think.String(), Duration: cfg.Duration.String(), Ramp: cfg.Ramp, Chaos: cfg.Chaos, Seed: cfg.Seed}
	sc.play.game.describe(&cfg, &res.Scenario)
	if sc.play.game.realtime {
		// Players act on ticks (see realtimeMove).
		res.Scenario.Loop = "tick"
		if !cfg.ThinkSet {
			res.Scenario.Think = "none"
		}
	}
	if cfg.Loop == "open" {
		res.Scenario.Rate = cfg.Rate
	}
	res.Setup = setupInfo{Sockets: cfg.Rooms * (cfg.Players + cfg.Spectators), Joined: sc.st.joins.Load(), Failed: sc.joinFailed.Load()}
	if d := sc.joinLast.Sub(sc.joinFirst).Seconds(); d > 0 {
		res.Setup.Seconds = d
		res.Setup.JoinsPerSec = float64(res.Setup.Joined) / d
	}
	w := &res.Window
	w.Seconds = end.at.Sub(start.at).Seconds()
	w.Moves, w.Sent = end.moves-start.moves, end.sent-start.sent
	if w.Seconds > 0 {
		w.MovesPerSec = float64(w.Moves) / w.Seconds
	}
	w.BotCPUSeconds = end.botCPU - start.botCPU
	if w.Moves > 0 {
		w.BotCPUPerMove = w.BotCPUSeconds / float64(w.Moves) * 1e6
	}
	switch {
	case start.serverErr != nil:
		w.ServerCPUNote = "n/a: " + start.serverErr.Error()
	case end.serverErr != nil:
		w.ServerCPUNote = "n/a: " + end.serverErr.Error()
	default:
		d := end.server.cpu - start.server.cpu
		w.ServerCPU = &d
		if w.Moves > 0 {
			per := d / float64(w.Moves) * 1e6
			w.ServerCPUPerMv = &per
		}
	}
	if sc.play.game.realtime {
		w.Realtime = realtimeFigures(w.Seconds, int(res.Setup.Joined), start, end)
	}
	res.Latency = sc.st.summaries()
	res.Counts = sc.st.counts()
	res.Nodes = sc.nodes.list()
	w.Refusals, w.Errors = sc.st.refusals.Load(), sc.st.errors.Load()
	res.Checks.ViewChecks = res.Counts["checks/view"]
	res.Checks.LeakMatches = res.Counts["checks/leak-matches"]
	res.Checks.LeakFrames = res.Counts["checks/leak-frames"] + sc.st.rtLeakFrames.Load()
	res.Violations.ByKind, res.Violations.Examples = sc.viol.snapshot()
	res.Violations.Total = sc.viol.total()
	res.Series = sc.st.timeSeries()
	if res.Violations.Total > 0 {
		res.ExitCode = 3
	}
}

// realtimeFigures computes a real-time game's figures over a window of
// secs seconds with clients bots.
func realtimeFigures(secs float64, clients int, start, end measure) *realtimeInfo {
	rt := &realtimeInfo{Clients: clients, Ticks: end.ticks - start.ticks}
	if secs > 0 && clients > 0 {
		per := secs * float64(clients)
		rt.TicksPerClientPerSec = float64(rt.Ticks) / per
		rt.WireBytesPerClientPerSec = float64(end.wireBytes-start.wireBytes) / per
		rt.MessageBytesPerClientPerSec = float64(end.msgBytes-start.msgBytes) / per
	}
	if rt.Ticks > 0 {
		rt.BotCPUPerTick = (end.botCPU - start.botCPU) / float64(rt.Ticks) * 1e6
	}
	switch {
	case start.serverErr != nil:
		rt.ServerNote = "n/a: " + start.serverErr.Error()
		return rt
	case end.serverErr != nil:
		rt.ServerNote = "n/a: " + end.serverErr.Error()
		return rt
	}
	a, b := start.server, end.server
	srv := &realtimeServer{TicksRun: b.ticksRun - a.ticksRun, TicksSkipped: b.skipped - a.skipped}
	if secs > 0 {
		srv.RoomTicksPerSec = srv.TicksRun / secs
	}
	if srv.TicksRun > 0 {
		srv.TickDurationMeanUs = (b.tickSecs - a.tickSecs) / srv.TicksRun * 1e6
		srv.CPUPerRoomTickUs = (b.cpu - a.cpu) / srv.TicksRun * 1e6
	}
	p50, above50, ok50 := histQuantile(a.lateness, b.lateness, 0.5)
	p99, above99, ok99 := histQuantile(a.lateness, b.lateness, 0.99)
	if ok50 && ok99 {
		srv.LatenessP50Ms, srv.LatenessP99Ms, srv.LatenessAbove = p50*1000, p99*1000, above50 || above99
	}
	if srv.TicksRun == 0 && len(b.lateness) == 0 {
		rt.ServerNote = "n/a: the server's metrics have no ticks of this game"
		return rt
	}
	rt.Server = srv
	return rt
}

func writeJSONFile(path string, res *result) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func ms(v float64) string {
	switch {
	case v == 0:
		return "-"
	case v < 1:
		return fmt.Sprintf("%.3f", v)
	case v < 100:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

// printSummary writes the end-of-run table.
func printSummary(w io.Writer, res *result) {
	s := res.Scenario
	what := s.Game
	if s.Mode != "" {
		what += " " + s.Mode
	}
	if s.Level != "" {
		what += "/" + s.Level
	}
	if s.Board != "" {
		what += fmt.Sprintf(" (%s board, %s speed, %s)", s.Board, s.Speed, s.TimeLimit)
	}
	loop := s.Loop
	if s.Loop == "open" {
		loop += fmt.Sprintf(" at %g moves/s/player", s.Rate)
	}
	fmt.Fprintf(w, "\nroombot: %s — %d rooms × %d players + %d spectators (+%d AI), %s loop, think %s, %s\n",
		what, s.Rooms, s.Players, s.Spectators, s.AI, loop, s.Think, s.Duration)
	if s.Chaos.Enabled {
		fmt.Fprintf(w, "chaos: drop %.3g/s, resend %.3g, %d malformed, %d slow spectators held %s\n",
			s.Chaos.Drop, s.Chaos.Resend, s.Chaos.Malformed, s.Chaos.Slow, s.Chaos.Hold)
	}
	tw := tabwriter.NewWriter(w, 2, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\njoins\t%d of %d sockets in %.2fs\t%.0f joins/s\t(%d failed)\n", res.Setup.Joined, res.Setup.Sockets,
		res.Setup.Seconds, res.Setup.JoinsPerSec, res.Setup.Failed)
	win := res.Window
	fmt.Fprintf(tw, "window\t%.1fs\t%d moves accepted (%d sent)\t%.0f moves/s\n", win.Seconds, win.Moves, win.Sent, win.MovesPerSec)
	fmt.Fprintf(tw, "refusals\t%d expected (stale views)\t%d errors\t\n", win.Refusals, win.Errors)
	srv := win.ServerCPUNote
	if win.ServerCPU != nil {
		srv = fmt.Sprintf("%.2fs", *win.ServerCPU)
		if win.ServerCPUPerMv != nil {
			srv += fmt.Sprintf(" = %.1f µs/move", *win.ServerCPUPerMv)
		}
	}
	fmt.Fprintf(tw, "cpu\tserver %s\tbots %.2fs = %.1f µs/move\t\n", srv, win.BotCPUSeconds, win.BotCPUPerMove)
	if rt := win.Realtime; rt != nil {
		fmt.Fprintf(tw, "ticks\t%d received = %.2f per client per second (%d clients)\tbots %.1f µs CPU per tick\t\n",
			rt.Ticks, rt.TicksPerClientPerSec, rt.Clients, rt.BotCPUPerTick)
		fmt.Fprintf(tw, "bytes\t%.0f B/s per client from the socket\t%.0f B/s per client in messages\t\n",
			rt.WireBytesPerClientPerSec, rt.MessageBytesPerClientPerSec)
		if s := rt.Server; s != nil {
			above := ""
			if s.LatenessAbove {
				above = " (past the last bucket)"
			}
			fmt.Fprintf(tw, "server ticks\t%.0f run = %.0f room-ticks/s, %.1f µs each\tlateness p50 %.3f ms, p99 %.3f ms%s\t%.0f skipped\t\n",
				s.TicksRun, s.RoomTicksPerSec, s.TickDurationMeanUs, s.LatenessP50Ms, s.LatenessP99Ms, above, s.TicksSkipped)
			fmt.Fprintf(tw, "server cpu\t%.1f µs per room-tick\t\t\n", s.CPUPerRoomTickUs)
		} else {
			fmt.Fprintf(tw, "server ticks\t%s\t\t\n", rt.ServerNote)
		}
	}
	tw.Flush()

	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 2, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "latency (ms)\tcount\tmean\tp50\tp90\tp99\tp99.9\tmax\t")
	for _, k := range latKinds {
		l := res.Latency[k]
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", k, l.Count, ms(l.Mean), ms(l.P50), ms(l.P90), ms(l.P99), ms(l.P999), ms(l.Max))
	}
	tw.Flush()

	if len(res.Nodes) > 1 || (len(res.Nodes) == 1 && res.Nodes[0].Moved > 0) {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 2, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "node\trooms\tsockets\tonline\tmoved\t")
		for _, n := range res.Nodes {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t\n", n.URL, n.Rooms, n.Sockets, n.Online, n.Moved)
		}
		tw.Flush()
	}

	fmt.Fprintln(w)
	keys := slices.Sorted(maps.Keys(res.Counts))
	tw = tabwriter.NewWriter(w, 2, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "counts\t\t")
	for _, k := range keys {
		fmt.Fprintf(tw, "  %s\t%d\t\n", k, res.Counts[k])
	}
	tw.Flush()

	c := res.Checks
	fmt.Fprintf(w, "\nchecks: %d view comparisons, %d final views verified (%d not), %d matches / %d frames scanned for leaks (%d matches without a seed)\n",
		c.ViewChecks, c.FinalViews, c.FinalUnverified, c.LeakMatches, c.LeakFrames, c.LeakUnchecked)
	if res.Violations.Total == 0 {
		fmt.Fprintln(w, "invariants: all held")
		return
	}
	fmt.Fprintf(w, "INVARIANTS VIOLATED: %d\n", res.Violations.Total)
	for _, k := range slices.Sorted(maps.Keys(res.Violations.ByKind)) {
		fmt.Fprintf(w, "  %s: %d\n", k, res.Violations.ByKind[k])
		for _, e := range res.Violations.Examples[k] {
			fmt.Fprintf(w, "    - %s\n", strings.ReplaceAll(e, "\n", "\n      "))
		}
	}
}
