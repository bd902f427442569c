package snake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/session/sessiontest"
	"pgregory.net/rapid"
)

// script is a match to play: its seed, config, seats, and the inputs of
// each tick (ticks[0] is tick 1's).
type script struct {
	seed  int64
	cfg   Config
	seats int
	ticks [][]session.Input[Move]
}

// drawScript draws a config (short time limits, so that matches run to
// their end quickly), a seat count and the source of the inputs.
func drawScript(t *rapid.T) (script, *rand.Rand, float64, float64) {
	b := rapid.SampledFrom(Boards()).Draw(t, "board")
	sc := script{
		seed: rapid.Int64().Draw(t, "seed"),
		cfg: Config{
			Board:     b.ID,
			Speed:     rapid.SampledFrom([]string{SpeedSlow, SpeedNormal, SpeedFast}).Draw(t, "speed"),
			TimeLimit: rapid.IntRange(MinTimeLimit, MinTimeLimit+15).Draw(t, "timeLimit"),
			Food:      rapid.IntRange(1, MaxFood).Draw(t, "food"),
		},
		seats: rapid.IntRange(MinSeats, b.MaxSeats).Draw(t, "seats"),
	}
	rng := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "inputs"), 1))
	ai := rapid.SampledFrom([]float64{0, 0.3, 0.8, 1}).Draw(t, "ai")                // the chance the AI steers a seat at a tick
	noise := rapid.SampledFrom([]float64{0, 0.01, 0.05, 0.3, 1.5}).Draw(t, "noise") // random inputs a tick
	return sc, rng, ai, noise
}

// inputs draws one tick's inputs: the AI's turn for some seats, from their
// followed views, then random turns from random seats (dead ones too).
func inputs(rng *rand.Rand, ai, noise float64, seats int, views []View) []session.Input[Move] {
	var out []session.Input[Move]
	for seat := range seats {
		if rng.Float64() < ai {
			if m, ok := (Rules{}).Choose(views[seat], seat, session.IntSeed(7).Source()); ok {
				out = append(out, session.Input[Move]{Seat: seat, Move: m})
			}
		}
	}
	n := int(noise)
	if rng.Float64() < noise-float64(n) {
		n++
	}
	for range n {
		out = append(out, session.Input[Move]{Seat: rng.IntN(seats), Move: Move{Dir: Dir(1 + rng.IntN(4))}})
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// transcript appends a step's events, as every viewer gets them, to b.
func transcript(b []byte, s *State, tick uint64, events []Event) []byte {
	b = fmt.Appendf(b, "%d:", tick)
	for v := session.Spectator; v < len(s.snakes); v++ {
		for _, e := range (Rules{}).ProjectEvents(s, events, v) {
			b = e.AppendJSON(b)
		}
		b = append(b, '|')
	}
	return append(b, '\n')
}

// finalWorld is everything a match shows, and its checkpoint. (Audiences
// are left out: they also depend on the last step's events, which a
// resumed state has not run.)
func finalWorld(t tb, s *State) string {
	t.Helper()
	rules := Rules{}
	cp, err := rules.Checkpoint(s)
	if err != nil {
		t.Fatalf("checkpoint: %v", err)
	}
	out := encode(t, rules.Status(s)) + encode(t, rules.Pending(s)) + string(cp)
	for v := session.Spectator; v < len(s.snakes); v++ {
		out += fmt.Sprintf("|%d:%s", v, encode(t, rules.Project(s, v)))
	}
	return out
}

// Random matches, played to their end with AI and random inputs: after
// every step, every viewer's view followed through its events equals its
// projection byte for byte; viewers of one audience see the same; the
// arena holds the snakes and the food; and the match ends by its last
// tick. The same seed and inputs play the same match again, and a
// checkpoint taken at any tick, resumed, and played on, ends in the same
// world.
func TestRandomMatches(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sc, rng, ai, noise := drawScript(t)
		rules := Rules{}
		s := initState(t, sc.seed, sc.cfg, sc.seats)
		viewers := sessiontest.Viewers(sc.seats)
		followed := make([]View, len(viewers))
		followedJSON := make([]string, len(viewers))
		for i, v := range viewers {
			followed[i] = rules.Project(s, v)
			followedJSON[i] = encode(t, followed[i])
		}
		var log []byte
		for tick := uint64(1); !rules.Status(s).Over; tick++ {
			if tick > s.end {
				t.Fatalf("no end at tick %d, the last", s.end)
			}
			in := inputs(rng, ai, noise, sc.seats, followed)
			sc.ticks = append(sc.ticks, in)
			_, events := rules.Step(s, tick, in)
			log = transcript(log, s, tick, events)
			checkStep(t, s, tick, events, viewers, followed, followedJSON)
		}
		over := finalWorld(t, s)
		for tick := s.tick + 1; tick < s.tick+5; tick++ {
			if _, events := rules.Step(s, tick, []session.Input[Move]{turn(0, Up), turn(0, Left)}); len(events) != 0 {
				t.Fatalf("tick %d after the end: %s", tick, eventsJSON(t, events))
			}
		}
		if again := finalWorld(t, s); again != over {
			t.Fatalf("the match changed after its end:\n%s\nwas\n%s", again, over)
		}

		// The same seed and inputs: the same match.
		again := initState(t, sc.seed, sc.cfg, sc.seats)
		var log2 []byte
		for i, in := range sc.ticks {
			_, events := rules.Step(again, uint64(i+1), in)
			log2 = transcript(log2, again, uint64(i+1), events)
		}
		if !bytes.Equal(log, log2) {
			t.Fatalf("the same seed and inputs played another match")
		}
		if w := finalWorld(t, again); w != over {
			t.Fatalf("replayed:\n%s\nplayed:\n%s", w, over)
		}

		// A checkpoint at any tick, resumed, then the rest.
		at := rapid.IntRange(0, len(sc.ticks)).Draw(t, "checkpoint")
		part := initState(t, sc.seed, sc.cfg, sc.seats)
		var log3 []byte
		for i, in := range sc.ticks[:at] {
			_, events := rules.Step(part, uint64(i+1), in)
			log3 = transcript(log3, part, uint64(i+1), events)
		}
		cp, err := rules.Checkpoint(part)
		if err != nil {
			t.Fatal(err)
		}
		resumed, err := rules.Resume(session.IntSeed(sc.seed+1), sc.cfg, sc.seats, cp) // the key is in the checkpoint
		if err != nil {
			t.Fatalf("resume at tick %d: %v\n%s", at, err, cp)
		}
		if again, _ := rules.Checkpoint(resumed); !bytes.Equal(again, cp) {
			t.Fatalf("checkpoint of the resumed state:\n%s\nwas\n%s", again, cp)
		}
		for v := session.Spectator; v < sc.seats; v++ {
			if a, b := encode(t, rules.Project(resumed, v)), encode(t, rules.Project(part, v)); a != b {
				t.Fatalf("viewer %d of the resumed state:\n%s\nwas\n%s", v, a, b)
			}
		}
		for i, in := range sc.ticks[at:] {
			tick := uint64(at + i + 1)
			_, events := rules.Step(resumed, tick, in)
			log3 = transcript(log3, resumed, tick, events)
		}
		if !bytes.Equal(log, log3) {
			t.Fatalf("resumed at tick %d, the match went another way", at)
		}
		if w := finalWorld(t, resumed); w != over {
			t.Fatalf("resumed at tick %d:\n%s\nwhole:\n%s", at, w, over)
		}
	})
}

// checkStep checks the state after a step: every viewer's followed view,
// the audiences, the arena, the food, the status.
func checkStep(t *rapid.T, s *State, tick uint64, events []Event, viewers []Seat, followed []View, followedJSON []string) {
	rules := Rules{}
	groups := map[int]string{}
	for i, v := range viewers {
		evs := rules.ProjectEvents(s, events, v)
		evsJSON := `[]`
		if len(evs) > 0 {
			// The client gets the events as JSON.
			evsJSON = eventsJSON(t, evs)
			var decoded []Event
			if err := json.Unmarshal([]byte(evsJSON), &decoded); err != nil {
				t.Fatalf("tick %d: events of %d: %v", tick, v, err)
			}
			followed[i].Apply(decoded)
			followedJSON[i] = encode(t, followed[i])
		}
		// A queued turn is its seat's secret until its snake moves.
		for _, e := range evs {
			if e.Type == EventTurn && e.Seat != v {
				t.Fatalf("tick %d: viewer %d sees seat %d's turn", tick, v, e.Seat)
			}
		}
		pv := rules.Project(s, v)
		for i := range pv.Snakes {
			if i != v && len(pv.Snakes[i].Queue) > 0 {
				t.Fatalf("tick %d: viewer %d sees seat %d's queue", tick, v, i)
			}
		}
		want := encode(t, pv)
		if followedJSON[i] != want {
			t.Fatalf("tick %d, viewer %d: followed %s\nprojected %s\nevents %s", tick, v, followedJSON[i], want, evsJSON)
		}
		seen := want + evsJSON
		if a := rules.Audience(s, v); groups[a] == "" {
			groups[a] = seen
		} else if groups[a] != seen {
			t.Fatalf("tick %d: viewer %d of audience %d sees\n%s\nanother of it\n%s", tick, v, a, seen, groups[a])
		}
		if v == session.Spectator && rules.Audience(s, v) != 0 {
			t.Fatalf("the spectator's audience is %d", rules.Audience(s, v))
		}
	}
	checkBoard(t, s)
	st := rules.Status(s)
	if st.Started != (tick >= Countdown) || (st.Phase == PhaseCountdown) != (tick < Countdown) {
		t.Fatalf("tick %d: status %+v", tick, st)
	}
	alive := 0
	for i := range s.snakes {
		if s.snakes[i].alive {
			alive++
		}
	}
	if !st.Over {
		if alive < 2 || tick >= s.end {
			t.Fatalf("tick %d: %d alive and not over", tick, alive)
		}
		if p := rules.Pending(s); len(p) != alive {
			t.Fatalf("tick %d: pending %v with %d alive", tick, p, alive)
		}
	} else if !slices.IsSorted(st.Outcome.Winners) || !st.Outcome.Ranked {
		t.Fatalf("tick %d: outcome %+v", tick, st.Outcome)
	}
	if n := len(s.foodCells()); n != s.food {
		t.Fatalf("tick %d: %d food, want %d", tick, n, s.food)
	}
}
