package snake

import (
	"fmt"
	"testing"

	"github.com/roomd/roomd/core/session"
)

// aiMatch plays a match with the AI in every seat through the typed rules:
// each tick, every live seat's AI sees its own view and may turn. It checks
// every choice: a turn, never to the snake's way nor its reverse, which the
// rules queue. It returns the final state and the tick each snake died at
// (0 for the living).
func aiMatch(t testing.TB, seed int64, c Config, seats int) (*State, []uint64) {
	t.Helper()
	rules := Rules{}
	s := initState(t, seed, c, seats)
	died := make([]uint64, seats)
	for tick := uint64(1); !rules.Status(s).Over; tick++ {
		var in []session.Input[Move]
		for _, seat := range rules.Pending(s) {
			v := rules.Project(s, seat)
			m, ok := rules.Choose(v, seat, session.IntSeed(7).Source())
			if !ok {
				continue
			}
			if d := v.Snakes[seat].Dir; m.Dir == d || m.Dir == d.Reverse() || !m.Dir.Valid() {
				t.Fatalf("seed %d tick %d: seat %d going %v turns %v", seed, tick, seat, d, m.Dir)
			}
			in = append(in, session.Input[Move]{Seat: seat, Move: m})
		}
		_, events := rules.Step(s, tick, in)
		turns := 0
		for _, e := range events {
			switch e.Type {
			case EventTurn:
				turns++
			case EventDie:
				died[e.Seat] = tick
			}
		}
		if turns != len(in) {
			t.Fatalf("seed %d tick %d: %d of the AI's %d turns queued", seed, tick, turns, len(in))
		}
	}
	return s, died
}

// Four AIs on the medium board play decently: they eat (3 food each on
// average at least) and most live past tick 400.
func TestAIPlays(t *testing.T) {
	const seeds, seats = 12, 4
	score, survivors := 0, 0
	for seed := range int64(seeds) {
		s, died := aiMatch(t, seed, Config{}, seats)
		line := ""
		for i := range s.snakes {
			score += s.snakes[i].score
			if died[i] == 0 || died[i] > 400 {
				survivors++
			}
			line += fmt.Sprintf(" %d@%d", s.snakes[i].score, died[i])
		}
		t.Logf("seed %d: %s at tick %d;%s", seed, s.why, s.tick, line)
	}
	avg := float64(score) / (seeds * seats)
	t.Logf("%.2f food a snake, %d of %d past tick 400", avg, survivors, seeds*seats)
	if avg < 3 || survivors*2 <= seeds*seats {
		t.Errorf("%.2f food a snake (want 3), %d of %d past tick 400 (want most)", avg, survivors, seeds*seats)
	}
}

func TestAIChoices(t *testing.T) {
	far := sn(Left, 0, Cell{14, 10}, Cell{14, 11}, Cell{14, 12})
	tests := []struct {
		name   string
		food   []Cell
		snakes []snakeCheckpoint
		want   Dir // 0: keep going
	}{
		{
			name:   "a wall ahead, food above",
			food:   []Cell{{0, 15}},
			snakes: []snakeCheckpoint{sn(Right, 0, Cell{5, 15}, Cell{5, 14}, Cell{5, 13}), far},
			want:   Up,
		},
		{
			name:   "a wall ahead, food below",
			food:   []Cell{{9, 14}},
			snakes: []snakeCheckpoint{sn(Right, 0, Cell{5, 15}, Cell{5, 14}, Cell{5, 13}), far},
			want:   Down,
		},
		{
			name:   "food up the way: the nearest path",
			food:   []Cell{{2, 5}},
			snakes: []snakeCheckpoint{sn(Right, 0, Cell{5, 5}, Cell{5, 4}, Cell{5, 3}), far},
			want:   Up,
		},
		{
			name:   "food straight on",
			food:   []Cell{{5, 9}, {12, 2}},
			snakes: []snakeCheckpoint{sn(Right, 0, Cell{5, 5}, Cell{5, 4}, Cell{5, 3}), far},
		},
		{
			name: "another head may take the cell ahead",
			food: []Cell{{5, 9}},
			snakes: []snakeCheckpoint{
				sn(Right, 0, Cell{5, 5}, Cell{5, 4}, Cell{5, 3}),
				sn(Down, 0, Cell{4, 6}, Cell{3, 6}, Cell{2, 6})},
			want: Down,
		},
		{
			name: "food in a pocket too small for the snake",
			food: []Cell{{0, 1}},
			snakes: []snakeCheckpoint{
				sn(Right, 0, Cell{1, 1}, Cell{1, 0}, Cell{2, 0}),
				sn(Right, 0, Cell{0, 4}, Cell{0, 3}, Cell{0, 2})},
		},
		{
			// Snake 0 (13 cells) is boxed in: straight on is a pocket of
			// one cell, up one of two, down one of three (snake 1 walls
			// it). None holds it: it takes the largest.
			name: "no safe way: the largest area",
			snakes: []snakeCheckpoint{
				sn(Right, 0, Cell{5, 5}, Cell{5, 4}, Cell{4, 4}, Cell{3, 4}, Cell{2, 4}, Cell{2, 5}, Cell{2, 6},
					Cell{3, 6}, Cell{4, 6}, Cell{4, 7}, Cell{5, 7}, Cell{6, 7}, Cell{6, 6}),
				sn(Up, 0, Cell{6, 4}, Cell{7, 4}, Cell{8, 4}, Cell{9, 4}, Cell{9, 5}, Cell{9, 6}, Cell{8, 6}, Cell{7, 6})},
			want: Down,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := world(t, small, 62, tt.food, tt.snakes...)
			m, ok := Rules{}.Choose(Rules{}.Project(s, 0), 0, session.IntSeed(7).Source())
			if got := map[bool]Dir{true: m.Dir}[ok]; got != tt.want {
				t.Errorf("the AI chose %v (%v), want %v", m.Dir, ok, tt.want)
			}
		})
	}
}

func TestAINothingToDo(t *testing.T) {
	s := world(t, small, 62, nil,
		sn(Right, 0, Cell{5, 15}, Cell{5, 14}, Cell{5, 13}),
		sn(Right, 0, Cell{7, 15}, Cell{7, 14}, Cell{7, 13}),
		sn(Right, 0))
	rules := Rules{}
	if _, ok := rules.Choose(rules.Project(s, 0), 0, session.IntSeed(7).Source()); !ok {
		t.Fatal("no turn at the wall")
	}
	for _, seat := range []Seat{2, 3, -1} {
		if m, ok := rules.Choose(rules.Project(s, seat), seat, session.IntSeed(7).Source()); ok {
			t.Errorf("seat %d turns %v", seat, m.Dir)
		}
	}
	step(t, s, 62, turn(0, Up))
	if m, ok := rules.Choose(rules.Project(s, 0), 0, session.IntSeed(7).Source()); ok {
		t.Errorf("seat 0 turns %v with a turn queued", m.Dir)
	}
	step(t, s, 63) // snake 1 hits the wall: over
	if m, ok := rules.Choose(rules.Project(s, 0), 0, session.IntSeed(7).Source()); ok {
		t.Errorf("seat 0 turns %v once over", m.Dir)
	}
	big := View{Rows: 64, Cols: 64, Phase: PhaseRunning, Snakes: []ViewSnake{{Body: []Cell{{1, 1}, {1, 0}}, Dir: Right, Alive: true}}}
	if _, ok := rules.Choose(big, 0, session.IntSeed(7).Source()); ok {
		t.Error("the AI played a 64×64 arena")
	}
}
