package snake

import (
	"testing"

	"github.com/roomd/roomd/core/session"
)

// steady is a stretch of an AI match on the large board with eight seats
// during which all eight snakes live: the state at its first tick (as a
// checkpoint) and the inputs of each tick.
type steady struct {
	cfg      Config
	cp       []byte
	from, to uint64                  // the ticks of the stretch, after the countdown
	inputs   [][]session.Input[Move] // by tick
}

// steadyMatch plays AI matches of eight seats on the large board and
// returns the longest stretch of one in which every snake lives.
func steadyMatch(tb testing.TB, speed string) steady {
	tb.Helper()
	cfg := Config{Board: BoardLarge, Speed: speed}
	rules := Rules{}
	var best steady
	for seed := range int64(8) {
		s := initState(tb, seed, cfg, MaxSeats)
		st := steady{cfg: cfg, inputs: [][]session.Input[Move]{nil}}
		for tick := uint64(1); ; tick++ {
			if tick == Countdown+1 {
				cp, err := rules.Checkpoint(s)
				if err != nil {
					tb.Fatal(err)
				}
				st.cp, st.from = cp, tick
			}
			var in []session.Input[Move]
			for _, seat := range rules.Pending(s) {
				if m, ok := rules.Choose(rules.Project(s, seat), seat, session.IntSeed(7).Source()); ok {
					in = append(in, session.Input[Move]{Seat: seat, Move: m})
				}
			}
			st.inputs = append(st.inputs, in)
			rules.Step(s, tick, in)
			if len(rules.Pending(s)) < MaxSeats {
				st.to = tick - 1
				break
			}
		}
		if st.to-st.from > best.to-best.from {
			best = st
		}
	}
	if best.to < best.from+300 {
		tb.Fatalf("no stretch of 300 ticks with every snake alive: %d to %d", best.from, best.to)
	}
	return best
}

// resume returns the stretch's first state.
func (st *steady) resume(tb testing.TB) *State {
	s, err := Rules{}.Resume(session.IntSeed(1), st.cfg, MaxSeats, st.cp)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// BenchmarkStep: one tick of a full large arena (eight snakes, all alive
// and moving, the AI's inputs), at normal speed: a move every third tick,
// as a room runs them.
func BenchmarkStep(b *testing.B) {
	st := steadyMatch(b, SpeedNormal)
	b.Logf("ticks %d to %d", st.from, st.to)
	s := st.resume(b)
	tick := st.from
	b.ReportAllocs()
	for b.Loop() {
		if tick > st.to {
			b.StopTimer()
			s, tick = st.resume(b), st.from
			b.StartTimer()
		}
		Rules{}.Step(s, tick, st.inputs[tick])
		tick++
	}
}

// BenchmarkStepMove: the move ticks alone (the inputs of the ticks between
// run with the move's), so the cost of one move of eight snakes.
func BenchmarkStepMove(b *testing.B) {
	st := steadyMatch(b, SpeedNormal)
	moves := map[uint64][]session.Input[Move]{}
	var ticks []uint64
	for t := st.from; t <= st.to; t++ {
		m := t + (3-(t-Countdown)%3)%3 // the move tick t's inputs take effect at
		if m > st.to {
			break
		}
		if _, ok := moves[m]; !ok {
			ticks = append(ticks, m)
		}
		moves[m] = append(moves[m], st.inputs[t]...)
	}
	s := st.resume(b)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		if i == len(ticks) {
			b.StopTimer()
			s, i = st.resume(b), 0
			b.StartTimer()
		}
		if _, events := (Rules{}).Step(s, ticks[i], moves[ticks[i]]); len(events) == 0 || events[len(events)-1].Type == EventOver {
			b.Fatalf("tick %d: %v", ticks[i], events)
		}
		i++
	}
}

// midView is seat 0's view halfway through a steady stretch, its queue
// empty.
func midView(b *testing.B) View {
	st := steadyMatch(b, SpeedNormal)
	s := st.resume(b)
	for tick := st.from; tick <= (st.from+st.to)/2 || s.snakes[0].queued > 0; tick++ {
		Rules{}.Step(s, tick, st.inputs[tick])
	}
	return Rules{}.Project(s, 0)
}

// BenchmarkChoose: the AI's choice for one snake of eight on the large
// board.
func BenchmarkChoose(b *testing.B) {
	v := midView(b)
	b.ReportAllocs()
	for b.Loop() {
		Rules{}.Choose(v, 0, session.IntSeed(7).Source())
	}
}

// BenchmarkView: seat 0's view of a full large arena, projected and
// encoded.
func BenchmarkView(b *testing.B) {
	st := steadyMatch(b, SpeedNormal)
	s := st.resume(b)
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		v := Rules{}.Project(s, 0)
		buf = v.AppendJSON(buf[:0])
	}
}
