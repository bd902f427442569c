package session_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/roomd/roomd/core/session"
)

func TestFixedStepAccumulator(t *testing.T) {
	f := session.NewFixedStep(session.Rate{Hz: 20}) // 50 ms steps, catch-up 2
	if n, _ := f.Advance(1000); n != 0 || f.Running() {
		t.Fatal("a paused runner stepped")
	}
	f.Resume(0)
	if n, _ := f.Advance(49); n != 0 {
		t.Fatalf("49 ms: %d steps", n)
	}
	if n, _ := f.Advance(50); n != 1 {
		t.Fatalf("50 ms: %d steps", n)
	}
	if n, _ := f.Advance(110); n != 1 || math.Abs(f.Alpha()-0.2) > 1e-9 || math.Abs(f.Until()-40) > 1e-9 {
		t.Fatalf("110 ms: %d steps, alpha %v, next in %v", n, f.Alpha(), f.Until())
	}
	// A stall of a second: only the catch-up bound runs, the rest is skipped.
	n, skipped := f.Advance(1110)
	if n != 2 || skipped != 18 || f.Skipped() != 18 {
		t.Fatalf("after a 1 s stall: %d steps, %d skipped (total %d)", n, skipped, f.Skipped())
	}
	// A clock that goes back adds nothing.
	if n, _ := f.Advance(500); n != 0 {
		t.Fatalf("clock went back: %d steps", n)
	}
	// Paused time never becomes ticks.
	f.Pause()
	f.Resume(60_000)
	if n, _ := f.Advance(60_049); n != 0 {
		t.Fatalf("after a pause: %d steps", n)
	}
	if n, _ := f.Advance(60_100); n != 2 {
		t.Fatalf("100 ms after resuming: %d steps", n)
	}
}

// drift is a test-only real-time game (seed 001's "drifting point"): each
// seat is a point on a line that moves by its velocity every tick; an input
// sets the velocity (-3 to 3). The start positions come from the seed. The
// match ends at tick 1000, or when a point reaches 10,000; the farthest
// point wins and its position is the score.
type (
	driftConfig struct{}
	driftState  struct {
		Pos, Vel []int
		Tick     uint64
	}
	driftMove struct {
		V int `json:"v"`
	}
	driftEvent struct {
		Seat, Pos int
	}
	driftRules struct{}
)

func (m *driftMove) Validate() error {
	if m.V < -3 || m.V > 3 {
		return session.Malformed(session.CodeInvalidMove, "v must be -3 to 3")
	}
	return nil
}

func (driftRules) Init(seed session.Seed, _ driftConfig, seats int) (*driftState, error) {
	src := seed.Source()
	s := &driftState{Pos: make([]int, seats), Vel: make([]int, seats)}
	for i := range s.Pos {
		s.Pos[i] = session.Intn(src, 100)
	}
	return s, nil
}

func (driftRules) Step(s *driftState, tick uint64, inputs []session.Input[driftMove]) (*driftState, []driftEvent) {
	for _, in := range inputs {
		s.Vel[in.Seat] = in.Move.V
	}
	var evs []driftEvent
	for i := range s.Pos {
		if s.Vel[i] != 0 {
			s.Pos[i] += s.Vel[i]
			evs = append(evs, driftEvent{Seat: i, Pos: s.Pos[i]})
		}
	}
	s.Tick = tick
	return s, evs
}

func (driftRules) Status(s *driftState) session.Status {
	st := session.Status{Phase: "running", Started: s.Tick > 0}
	best := 0
	for i, p := range s.Pos {
		if p >= 10_000 {
			st.Over = true
		}
		if p > s.Pos[best] {
			best = i
		}
	}
	if s.Tick >= 1000 {
		st.Over = true
	}
	if st.Over {
		st.Phase = "over"
		st.Outcome = session.Outcome{Winners: []session.Seat{best}, Ranked: true, Score: float64(s.Pos[best])}
	}
	return st
}

func (driftRules) Pending(*driftState) []session.Seat               { return nil }
func (driftRules) Project(s *driftState, _ session.Seat) driftState { return *s }
func (driftRules) Audience(*driftState, session.Seat) int           { return 0 }
func (driftRules) Checkpoint(s *driftState) ([]byte, error)         { return json.Marshal(s) }
func (driftRules) ProjectEvents(_ *driftState, evs []driftEvent, _ session.Seat) []driftEvent {
	return evs
}

func (driftRules) Resume(_ session.Seed, _ driftConfig, _ int, data []byte) (*driftState, error) {
	var s driftState
	return &s, json.Unmarshal(data, &s)
}

var driftInfo = session.Info{ID: "drift", Name: "Drift", RulesVersion: "drift/1",
	Modes:   []session.Mode{{ID: "any", Name: "Any", MinSeats: 1, MaxSeats: 4}},
	Ranking: &session.Ranking{By: session.RankScore, Higher: true},
	Tick:    &session.Rate{Hz: 20}}

var drift = session.Define(session.Definition[driftConfig, *driftState, driftMove, driftEvent, driftState]{
	Info: driftInfo, Rules: driftRules{},
	Setup: func(driftConfig) (session.Setup, error) {
		return session.Setup{Mode: driftInfo.Modes[0], Board: "any"}, nil
	},
})

// playDrift runs ticks [from, to) of s with the inputs rng draws.
func playDrift(t *testing.T, s *session.GameSession, rng *rand.Rand, to uint64) {
	t.Helper()
	for s.Tick() < to {
		for range rng.IntN(3) {
			v := rng.IntN(7) - 3
			tick, err := s.Input(rng.IntN(2), json.RawMessage(fmt.Sprintf(`{"v":%d}`, v)), float64(s.Tick())*50)
			if err != nil || tick != s.Tick()+1 {
				t.Fatalf("input at tick %d: took effect at %d, %v", s.Tick(), tick, err)
			}
		}
		if _, err := s.Advance(); err != nil {
			t.Fatal(err)
		}
	}
}

func driftView(t *testing.T, s *session.GameSession) string {
	t.Helper()
	b, err := json.Marshal(s.Match().View(0))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFixedStepSession: inputs take effect at the next tick; running 500
// ticks, saving, restoring and running 500 more equals running 1,000; a
// match restores from its checkpoint or from its whole log to the same
// world, and replays to the same outcome.
func TestFixedStepSession(t *testing.T) {
	seed := session.IntSeed(99)
	whole, err := session.NewSession(drift, seed, nil, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := whole.ApplyAt(0, json.RawMessage(`{"v":1}`), 0); err == nil {
		t.Fatal("a fixed-step game applied a command outside its tick")
	}
	if _, err := whole.Input(0, json.RawMessage(`{"v":9}`), 0); err == nil || len(whole.Log()) != 0 {
		t.Fatal("an invalid input was queued")
	}
	playDrift(t, whole, rand.New(rand.NewPCG(1, 2)), 1000)

	half, _ := session.NewSession(drift, seed, nil, 2, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	playDrift(t, half, rng, 500)
	cp, err := half.Save()
	if err != nil || cp == nil || cp.Tick != 500 {
		t.Fatalf("save at 500: %+v %v", cp, err)
	}
	resumed, err := session.Restore(drift, half.Header(), cp, half.Log(), 500, nil)
	if err != nil {
		t.Fatal(err)
	}
	playDrift(t, resumed, rng, 1000)
	if a, b := driftView(t, whole), driftView(t, resumed); a != b {
		t.Fatalf("500 + save + restore + 500 = %s, 1,000 = %s", b, a)
	}
	fromLog, err := session.Restore(drift, whole.Header(), nil, whole.Log(), 1000, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := driftView(t, whole), driftView(t, fromLog); a != b {
		t.Fatalf("restored from the log: %s, want %s", b, a)
	}
	res, over := whole.Result()
	// Time is ticks: from the tick that started the match (1) to the one
	// that ended it (1000).
	if !over || res.Time != 999*50 || !res.Outcome.Ranked || len(res.Outcome.Winners) != 1 {
		t.Fatalf("result %s after %v ms, outcome %+v, over %v", res.Status, res.Time, res.Outcome, over)
	}
	v := session.Replay(drift, session.Record{Seed: seed, Seats: 2, Log: whole.Log(), Ticks: 1000})
	if !v.Valid || v.Time != res.Time || v.Status != "over" {
		t.Fatalf("replay %+v", v)
	}
	bad := append([]session.Entry(nil), whole.Log()...)
	bad[1].Tick = bad[0].Tick - 1
	if v := session.Replay(drift, session.Record{Seed: seed, Seats: 2, Log: bad, Ticks: 1000}); v.Valid {
		t.Fatal("a log whose ticks go back replayed as valid")
	}
}

func TestDefineChecksTheContract(t *testing.T) {
	for name, info := range map[string]session.Info{
		"a Stepper without a tick": {ID: "x"},
		"a zero rate":              {ID: "x", Tick: &session.Rate{}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Define did not panic", name)
				}
			}()
			session.Define(session.Definition[driftConfig, *driftState, driftMove, driftEvent, driftState]{Info: info, Rules: driftRules{}})
		}()
	}
}

func TestSeedJSON(t *testing.T) {
	for _, n := range []int64{0, -1, 1 << 40, 2147483646} {
		s := session.IntSeed(n)
		b, err := json.Marshal(s)
		if err != nil || string(b) != fmt.Sprint(n) {
			t.Fatalf("IntSeed(%d) encodes as %s (%v)", n, b, err)
		}
		var back session.Seed
		if err := json.Unmarshal(b, &back); err != nil || back != s {
			t.Fatalf("%s decodes to %v (%v)", b, back, err)
		}
		if got, want := s.Source().Uint32(), session.NewRNG(n).Uint32(); got != want {
			t.Fatalf("IntSeed(%d) source %d, mulberry32 %d", n, got, want)
		}
	}
	for _, bad := range []string{`1.5`, `"7"`, `null`, `{}`, `99999999999999999999`} {
		var s session.Seed
		if err := json.Unmarshal([]byte(bad), &s); err == nil {
			t.Errorf("seed %s decoded", bad)
		}
	}
}
