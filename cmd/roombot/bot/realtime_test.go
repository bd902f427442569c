package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/roomd/roomd/core/snake"
	"github.com/roomd/roomd/protocol"
)

// TestSnakeSmoke plays the real-time snake arena against a real roomd, as
// main does: rooms of two bots and a spectator whose host runs into a wall
// (matches end by the rules within seconds, and rematch), and a room where
// two bots play an AI seat; each without and with every chaos option. It
// fails on any invariant violation, and unless ticks, inputs, finished
// matches and the server's tick metrics were all seen.
func TestSnakeSmoke(t *testing.T) {
	t.Parallel()
	url := startServer(t)
	dir := t.TempDir()
	common := []string{"--url", url, "--game", "snake", "--board", "small", "--speed", "fast", "--time-limit", "30s",
		"--duration", "7s", "--drain", "4s", "--check-every", "1s", "--spectators", "1", "--progress", "0", "--seed", "11", "--log-level", "warn"}
	chaos := []string{"--chaos", "--chaos-drop", "0.5", "--chaos-resend", "0.5", "--chaos-malformed", "6", "--chaos-slow", "1", "--chaos-hold", "3s"}
	cases := []struct {
		name    string
		args    []string
		chaos   bool
		natural bool // matches end by the rules, not only by the host's resignation
	}{
		{"rooms", []string{"--rooms", "2", "--players", "2", "--crash-host"}, false, true},
		{"ai", []string{"--rooms", "1", "--players", "2", "--ai", "1"}, false, false},
		{"rooms-chaos", []string{"--rooms", "2", "--players", "2", "--crash-host"}, true, true},
		{"ai-chaos", []string{"--rooms", "1", "--players", "2", "--ai", "1"}, true, false},
	}
	// The scenarios run at once, whatever -parallel says: they wait on
	// the server's ticks far more than they compute.
	type outcome struct {
		code           int
		took           time.Duration
		stdout, stderr bytes.Buffer
	}
	outs := make([]outcome, len(cases))
	var wg sync.WaitGroup
	for i, tc := range cases {
		args := append(append([]string{}, common...), tc.args...)
		if tc.chaos {
			args = append(args, chaos...)
		}
		args = append(args, "--json", filepath.Join(dir, tc.name+".json"), "--label", tc.name)
		wg.Go(func() {
			start := time.Now()
			outs[i].code = run(context.Background(), args, &outs[i].stdout, &outs[i].stderr)
			outs[i].took = time.Since(start)
		})
	}
	wg.Wait()
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := &outs[i]
			t.Logf("%s in %v:\n%s", tc.name, out.took.Round(time.Millisecond), out.stdout.String())
			if out.code != 0 {
				t.Fatalf("exit status %d; stderr:\n%s", out.code, out.stderr.String())
			}
			var res result
			data, err := os.ReadFile(filepath.Join(dir, tc.name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &res); err != nil {
				t.Fatalf("JSON result: %v", err)
			}
			c, rt := res.Counts, res.Window.Realtime
			ended, natural := int64(0), int64(0)
			for k, n := range c {
				if status, ok := strings.CutPrefix(k, "matches/ended/"); ok {
					ended += n
					if status != "resigned" {
						natural += n
					}
				}
			}
			switch {
			case res.Violations.Total != 0:
				t.Errorf("violations: %v", res.Violations.ByKind)
			case rt == nil || rt.Ticks < 100 || rt.TicksPerClientPerSec < 5 || rt.WireBytesPerClientPerSec <= rt.MessageBytesPerClientPerSec*0.9:
				t.Errorf("ticks and bytes: %+v", rt)
			case rt.Server == nil || rt.Server.TicksRun < 50 || rt.Server.CPUPerRoomTickUs <= 0 || rt.Server.LatenessP99Ms <= 0:
				t.Errorf("the server's tick figures: %+v (%s)", rt.Server, rt.ServerNote)
			case res.Window.Moves == 0 || res.Latency[latMove].Count == 0:
				t.Errorf("no inputs: %+v", res.Window)
			case ended == 0 || (tc.natural && natural == 0):
				t.Errorf("matches ended: %d, %d by the rules: %v", ended, natural, c)
			case c["checks/final-view"] == 0 || res.Checks.ViewChecks == 0 || res.Checks.FinalViews == 0:
				t.Errorf("view checks: %+v %v", res.Checks, c)
			case res.Checks.LeakMatches == 0 || res.Checks.LeakFrames < rt.Ticks:
				t.Errorf("leak checks: %+v", res.Checks)
			case tc.chaos && (c["chaos/drops"] == 0 || c["reconnects"] == 0 || c["chaos/malformed"] != 6 || c["chaos/slow-holds"] != 1):
				t.Errorf("chaos: %v", c)
			case tc.chaos && c["chaos/resends"] > 0 && c["receipts/duplicate-expected"] == 0:
				t.Errorf("resends not answered: %v", c)
			}
		})
	}
}

func TestSnakeBeatsDecode(t *testing.T) { // not parallel: testing.AllocsPerRun
	evs := []snake.Event{
		{Type: snake.EventTurn, Seat: 1, Dir: snake.Left},
		{Type: snake.EventGo},
		{Type: snake.EventMove, Moves: snake.Moves{N: 4, D: [snake.MaxSeats]byte{'r', 'l', '.', 'u'}}},
		{Type: snake.EventDie, Seat: 2, At: snake.Cell{15, 3}, Why: snake.WhyBody},
		{Type: snake.EventFood, At: snake.Cell{3, 17}},
		{Type: snake.EventOver, Winners: []snake.Seat{0, 3}, Why: snake.WhyTime},
		{Type: snake.EventOver, Winners: []snake.Seat{}, Why: snake.WhyDraw},
	}
	raw := []byte{'['}
	for i := range evs {
		if i > 0 {
			raw = append(raw, ',')
		}
		raw = evs[i].AppendJSON(raw)
	}
	raw = append(raw, ']')
	got, ok := decodeSnakeBeats(raw)
	if !ok {
		t.Fatalf("the fast path refused %s", raw)
	}
	var want []snake.Event
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fast path %+v\ngeneral   %+v", got, want)
	}
	if evs, ok := decodeSnakeBeats([]byte(`[]`)); !ok || evs != nil {
		t.Errorf("[]: %v %v", evs, ok)
	}
	if n := testing.AllocsPerRun(100, func() { decodeSnakeBeats([]byte(`[]`)) }); n != 0 {
		t.Errorf("[] allocates %v times", n)
	}
	// Anything else goes to the game's decoder: a wall off the arena,
	// spaces, another order, an unknown letter or type, trailing bytes.
	for _, s := range []string{
		`[{"t":"die","s":0,"at":[-1,4],"why":"wall"}]`,
		`[ {"t":"go"}]`,
		`[{"d":"r.","t":"move"}]`,
		`[{"t":"move","d":"x"}]`,
		`[{"t":"jump"}]`,
		`[{"t":"go"}] `,
		`[{"t":"turn","s":0,"d":"north"}]`,
	} {
		if _, ok := decodeSnakeBeats([]byte(s)); ok {
			t.Errorf("the fast path took %s", s)
		}
	}
	a := snakeAdapter{}
	if evs, err := a.decodeBeats([]byte(`[{"t":"die","s":0,"at":[-1,4],"why":"wall"}]`)); err != nil || len(evs) != 1 || evs[0].At != (snake.Cell{-1, 4}) {
		t.Errorf("a wall off the arena: %+v %v", evs, err)
	}
	if _, err := a.decodeBeats([]byte(`[{"t":"jump"}]`)); err == nil {
		t.Error("an unknown event passed")
	}
}

// TestSnakeFollower: a followed view moves with the beats as the server's
// does, and a clone kept for the leak checks does not move with it.
func TestSnakeFollower(t *testing.T) {
	t.Parallel()
	start := json.RawMessage(`{"rows":16,"cols":16,"movesEvery":2,"start":60,"end":660,"phase":"countdown","snakes":[` +
		`{"body":[[4,4],[4,3],[4,2]],"dir":"right","alive":true,"score":0},{"body":[[11,11],[11,12],[11,13]],"dir":"left","alive":true,"score":0}],"food":[[4,5]]}`)
	f := gameFor(t, "snake").newFollower()
	v, err := f.decodeView(start)
	if err != nil {
		t.Fatal(err)
	}
	f.setDecoded(v)
	for _, beats := range []string{`[{"t":"turn","s":0,"d":"up"}]`, `[{"t":"go"}]`, `[{"t":"move","d":"ul"},{"t":"food","at":[0,0]}]`} {
		if err := applyBeats(f, json.RawMessage(beats)); err != nil {
			t.Fatal(err)
		}
	}
	want := json.RawMessage(`{"rows":16,"cols":16,"movesEvery":2,"start":60,"end":660,"phase":"running","snakes":[` +
		`{"body":[[3,4],[4,4],[4,3]],"dir":"up","alive":true,"score":0},{"body":[[11,10],[11,11],[11,12]],"dir":"left","alive":true,"score":0}],"food":[[0,0],[4,5]]}`)
	if eq, _, detail, err := f.compare(want); !eq || err != nil {
		t.Fatalf("followed view differs: %s %v", detail, err)
	}
	if got := string(snakeAdapter{}.encode(v.(snake.View))); got != string(start) {
		t.Errorf("the decoded view moved with the followed one:\n%s", got)
	}
	if cmd, ok := f.choose(0); ok {
		var mv snake.Move
		if err := json.Unmarshal(cmd, &mv); err != nil {
			t.Errorf("chose %s: %v", cmd, err)
		}
	}
}

func TestSnakeLeaks(t *testing.T) {
	t.Parallel()
	leaks := gameFor(t, "snake").checkLeaks
	res := protocol.Result{Match: 1, Seed: json.RawMessage(`"` + strings.Repeat("ab", 32) + `"`)}
	tick := func(beats string) []byte {
		return []byte(`{"type":"tick","from":3,"to":4,"tick":9,"beats":` + beats + `}`)
	}
	view := func(q0, q1 string) []byte {
		return []byte(`{"type":"snapshot","epoch":"e","rev":3,"seat":0,"tick":9,"view":{"rows":16,"cols":16,"movesEvery":2,"start":60,"end":660,"phase":"countdown","snakes":[` +
			`{"body":[[4,4],[4,3],[4,2]],"dir":"right","alive":true,"score":0` + q0 + `},{"body":[[11,11],[11,12],[11,13]],"dir":"left","alive":true,"score":0` + q1 + `}],"food":[]},"room":{"code":"X","phase":"running"}}`)
	}
	cases := []struct {
		name  string
		frame []byte
		seat  int
		leak  bool
	}{
		{"own turn", tick(`[{"t":"turn","s":0,"d":"up"}]`), 0, false},
		{"another seat's turn", tick(`[{"t":"turn","s":1,"d":"up"}]`), 0, true},
		{"a spectator hears a turn", tick(`[{"t":"turn","s":0,"d":"up"}]`), -1, true},
		{"own queue", view(`,"queue":["up"]`, ""), 0, false},
		{"another seat's queue", view("", `,"queue":["up"]`), 0, true},
		{"a spectator sees a queue", view(`,"queue":["up"]`, ""), -1, true},
	}
	for _, tc := range cases {
		fs := leaks(snakeFrames(t, tc.frame), res, tc.seat)
		if k := kinds(fs); (k[vLeakTurn] > 0) != tc.leak || len(k) > k[vLeakTurn] {
			t.Errorf("%s: findings %v, want a turn leak %v", tc.name, fs, tc.leak)
		}
		// Tick frames are checked as they come: the same finding.
		if bytes.Contains(tc.frame, []byte(`"tick","from"`)) {
			f := snakeFrames(t, tc.frame)[0]
			if got := len(gameFor(t, "snake").checkTick(f.beats, tc.seat)) > 0; got != tc.leak {
				t.Errorf("%s: the tick check says %v", tc.name, got)
			}
		}
	}
	// Of a real-time match's frames only their runs of hex digits are kept
	// for the seed check: the seed is found in them, each run kept once.
	seeded := tick(`[{"t":"food","at":[1,1]}],"x":"` + strings.Repeat("AB", 32) + `"`)
	var m matchFrames
	m.addRuns(seeded)
	m.addRuns(seeded)
	m.addRuns(tick(`[{"t":"move","d":"rl"},{"t":"food","at":[12,15]}]`))
	if len(m.frames) != 1 || string(m.frames[0].raw) != " "+strings.Repeat("ab", 32)+" " {
		t.Fatalf("runs kept: %q", m.frames)
	}
	if k := kinds(leaks(m.frames, res, 0)); k[vLeakSeed] == 0 {
		t.Errorf("the seed was not caught in the runs: %v", k)
	}
	if got := hexRuns([]byte(`{"rev":1234567,"tick":123456,"c":"0123456789abcdefXYZdeadbeef"}`)); len(got) != 3 ||
		string(got[0]) != "1234567" || string(got[1]) != "0123456789abcdef" || string(got[2]) != "deadbeef" {
		t.Errorf("hexRuns: %q", got)
	}
}

// snakeFrames decodes frames, ticks included, as a bot records them.
func snakeFrames(t *testing.T, raws ...[]byte) []matchFrame {
	t.Helper()
	var out []matchFrame
	for _, raw := range raws {
		msg, err := protocol.DecodeServer(raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if msg.Tick == nil {
			out = append(out, frames(t, "snake", raw)...)
			continue
		}
		evs, err := gameFor(t, "snake").newFollower().decodeBeats(viewOf(msg.Tick.Beats))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, matchFrame{raw: raw, beats: evs})
	}
	return out
}

func TestTickContinuity(t *testing.T) {
	t.Parallel()
	tr := revTrack{realtime: true}
	tk := func(tick, from, to uint64) *protocol.Tick {
		return &protocol.Tick{Tick: tick, From: from, To: to}
	}
	if p := tr.tickMsg(tk(1, 0, 0)); p == "" {
		t.Error("a tick before any snapshot passed")
	}
	tr = revTrack{realtime: true}
	steps := []string{
		tr.snapshot(&protocol.Snapshot{Epoch: "e", Rev: 10, Tick: 5}),
		tr.tickMsg(tk(6, 10, 12)), // two inputs since tick 5
		tr.tickMsg(tk(7, 12, 12)),
		tr.update(&protocol.Update{Epoch: "e", From: 12, To: 14}), // an update after an input
		tr.tickMsg(tk(8, 14, 14)),
		tr.update(&protocol.Update{Epoch: "e", From: 14, To: 15, View: json.RawMessage(`{}`)}), // a match starts: ticks from 1
		tr.tickMsg(tk(1, 15, 15)),
	}
	for i, p := range steps {
		if p != "" {
			t.Errorf("step %d refused: %s", i, p)
		}
	}
	if p := tr.tickMsg(tk(3, 15, 15)); !strings.Contains(p, "tick 3 after tick 1") {
		t.Errorf("a skipped tick: %q", p)
	}
	if p := tr.tickMsg(tk(4, 14, 15)); !strings.Contains(p, "after revision 15") {
		t.Errorf("a tick that does not follow the revision: %q", p)
	}
	strict := revTrack{}
	strict.snapshot(&protocol.Snapshot{Epoch: "e", Rev: 3})
	if p := strict.update(&protocol.Update{Epoch: "e", From: 3, To: 5}); p == "" {
		t.Error("a turn-based game's update of two revisions passed")
	}

	// A snapshot of a running real-time match is compared at the same tick,
	// even when inputs since moved its revision.
	tr = revTrack{realtime: true}
	tr.snapshot(&protocol.Snapshot{Epoch: "e", Rev: 10, Tick: 5})
	running := func(rev, tick uint64) *protocol.Snapshot {
		return &protocol.Snapshot{Epoch: "e", Rev: rev, Tick: tick, Room: protocol.Room{Phase: protocol.PhaseRunning}}
	}
	if !tr.inSync(running(12, 5)) || tr.inSync(running(12, 6)) || tr.inSync(running(9, 5)) {
		t.Error("inSync")
	}
}

// TestInputReceipts: copies of an input must take effect at the same tick,
// an input's tick must be one the client had not seen, and a tick may not
// show more of a seat's inputs than took effect at it.
func TestInputReceipts(t *testing.T) {
	t.Parallel()
	v := newViolations()
	l := newLedger("p")
	l.sent("a", kindCommand)
	l.resent("a")
	rc := okReceipt("a", 5)
	rc.Tick = 40
	l.receipt(rc, v)
	again := *rc
	again.Tick = 41
	l.receipt(&again, v)
	wantOnly(t, v, vReceiptMismatch, 1)

	sc := &scenario{viol: newViolations(), st: newStats()}
	b := &bot{sc: sc, name: "p", seat: 0, rtAccepted: map[uint64]int{}}
	rc = okReceipt("b", 7)
	rc.Tick = 12
	b.inputReceipt(&move{tick: 12}, rc) // tick 12 had come
	rc = okReceipt("c", 8)
	b.inputReceipt(&move{tick: 11}, rc) // no tick
	wantOnly(t, sc.viol, vInputTick, 2)

	sc.viol = newViolations()
	rc = okReceipt("d", 9)
	rc.Tick = 13
	b.inputReceipt(&move{tick: 12}, rc)
	b.checkApplied(13, 1)
	b.checkApplied(14, 1) // an input shown again a tick later
	wantOnly(t, sc.viol, vAppliedTwice, 1)
}

func TestServerMetrics(t *testing.T) {
	t.Parallel()
	page := func(cpu, count, sum, skipped float64, buckets [4]float64) string {
		return strings.Join([]string{
			"# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.",
			"# TYPE process_cpu_seconds_total counter",
			"process_cpu_seconds_total " + ftoa(cpu),
			`roomd_tick_duration_seconds_sum{game="snake"} ` + ftoa(sum),
			`roomd_tick_duration_seconds_count{game="snake"} ` + ftoa(count),
			`roomd_tick_duration_seconds_count{game="other"} 999`,
			`roomd_ticks_skipped_total{game="snake"} ` + ftoa(skipped),
			`roomd_tick_lateness_seconds_bucket{game="snake",le="0.001"} ` + ftoa(buckets[0]),
			`roomd_tick_lateness_seconds_bucket{game="snake",le="0.002"} ` + ftoa(buckets[1]),
			`roomd_tick_lateness_seconds_bucket{game="snake",le="0.005"} ` + ftoa(buckets[2]),
			`roomd_tick_lateness_seconds_bucket{game="snake",le="+Inf"} ` + ftoa(buckets[3]),
		}, "\n") + "\n"
	}
	parse := func(text string) serverSample {
		t.Helper()
		s, err := parseMetrics(strings.NewReader(text), "snake")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a := parse(page(10, 1000, 0.02, 3, [4]float64{900, 1000, 1000, 1000}))
	b := parse(page(12, 3000, 0.06, 5, [4]float64{1900, 2900, 2980, 3000}))
	rt := realtimeFigures(10, 4, measure{server: a, ticks: 100}, measure{server: b, ticks: 900, botCPU: 0.08})
	s := rt.Server
	if s == nil || s.TicksRun != 2000 || s.TicksSkipped != 2 || math.Abs(s.TickDurationMeanUs-20) > 1e-6 || math.Abs(s.CPUPerRoomTickUs-1000) > 1e-6 {
		t.Fatalf("figures: %+v", s)
	}
	// 1000 of 2000 within 1 ms, 1900 within 2 ms: p50 is 1 ms, p99 in the
	// 2-5 ms bucket (80 of it) at 2 + 3·(1980-1900)/80 = 5 ms.
	if math.Abs(s.LatenessP50Ms-1) > 1e-9 || math.Abs(s.LatenessP99Ms-5) > 1e-9 || s.LatenessAbove {
		t.Errorf("lateness p50 %v p99 %v above %v", s.LatenessP50Ms, s.LatenessP99Ms, s.LatenessAbove)
	}
	if rt.TicksPerClientPerSec != 20 || math.Abs(rt.BotCPUPerTick-100) > 1e-9 {
		t.Errorf("client figures: %+v", rt)
	}
	if _, _, ok := histQuantile(a.lateness, a.lateness, 0.5); ok {
		t.Error("a quantile of nothing")
	}
}

func ftoa(v float64) string {
	b, _ := json.Marshal(v)
	return string(b)
}
