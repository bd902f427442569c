package snake

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"slices"
	"testing"

	"github.com/roomd/roomd/core/session"
)

// The countdown: nothing moves during ticks 1 to 59, turns are queued and
// seen by their seat only, tick 60 says go and starts the match, and the
// first move is at tick 63 at normal speed.
func TestCountdown(t *testing.T) {
	s := initState(t, 1, small, 2)
	start := viewJSON(t, s, session.Spectator)
	rules := Rules{}
	for tick := uint64(1); tick < Countdown; tick++ {
		var inputs []session.Input[Move]
		want := `[]`
		if tick == 10 {
			inputs, want = append(inputs, turn(0, Down)), `[{"t":"turn","s":0,"d":"down"}]`
		}
		if got := step(t, s, tick, inputs...); got != want {
			t.Fatalf("tick %d: events %s, want %s", tick, got, want)
		}
		if st := rules.Status(s); st.Phase != PhaseCountdown || st.Started || st.Over {
			t.Fatalf("tick %d: status %+v", tick, st)
		}
		if tick == 10 {
			if rules.Audience(s, 0) != 1 || rules.Audience(s, 1) != 0 || rules.Audience(s, session.Spectator) != 0 {
				t.Errorf("audiences %d %d %d", rules.Audience(s, 0), rules.Audience(s, 1), rules.Audience(s, session.Spectator))
			}
			_, events := rules.Step(s, tick, nil) // the same tick again: nothing new
			if len(events) != 0 {
				t.Errorf("events %v", events)
			}
		}
	}
	if got := viewJSON(t, s, session.Spectator); got != start {
		t.Errorf("the countdown changed the arena:\n%s\nwas\n%s", got, start)
	}
	if v0, v1 := viewJSON(t, s, 0), viewJSON(t, s, 1); v1 != start || v0 == start || !json.Valid([]byte(v0)) {
		t.Errorf("seat 0 sees %s, seat 1 %s", v0, v1)
	}
	if rules.Audience(s, 0) != 1 || rules.Audience(s, 1) != 0 {
		t.Errorf("audiences %d %d after the turn's tick", rules.Audience(s, 0), rules.Audience(s, 1))
	}
	if got := step(t, s, Countdown); got != `[{"t":"go"}]` {
		t.Fatalf("tick 60: %s", got)
	}
	if st := rules.Status(s); st.Phase != PhaseRunning || !st.Started || st.Over {
		t.Fatalf("tick 60: status %+v", st)
	}
	for _, tick := range []uint64{61, 62} {
		if got := step(t, s, tick); got != `[]` {
			t.Fatalf("tick %d: %s", tick, got)
		}
	}
	if got := step(t, s, 63); got != `[{"t":"move","d":"dl"}]` {
		t.Fatalf("tick 63: %s", got)
	}
	if got := bodyOf(t, s, 0); got != `[[5,4],[4,4],[4,3]]` {
		t.Errorf("snake 0: %s", got)
	}
	if got := bodyOf(t, s, 1); got != `[[11,10],[11,11],[11,12]]` {
		t.Errorf("snake 1: %s", got)
	}
	if rules.Audience(s, 0) != 0 {
		t.Errorf("seat 0's audience %d once its queue is empty", rules.Audience(s, 0))
	}
}

// The queue: a turn to the way the snake will already go, or to the
// reverse of it, is ignored, and so is a third; turns of dead snakes and
// of seats not in the match too. Each move takes one turn.
func TestQueue(t *testing.T) {
	s := world(t, small, 62, nil,
		sn(Right, 0, Cell{5, 5}, Cell{5, 4}, Cell{5, 3}),
		sn(Right, 0, Cell{10, 5}, Cell{10, 4}, Cell{10, 3}),
		sn(Left, 0),
	)
	got := step(t, s, 62,
		turn(0, Right), turn(0, Left), turn(0, Up), turn(0, Up), turn(0, Down), turn(0, Right), turn(0, Left),
		turn(2, Up), turn(5, Up), turn(-1, Up), turn(1, 0), turn(1, Dir(9)))
	if want := `[{"t":"turn","s":0,"d":"up"},{"t":"turn","s":0,"d":"right"}]`; got != want {
		t.Fatalf("events %s, want %s", got, want)
	}
	if got, want := viewJSON(t, s, 0), `"queue":["up","right"]`; !contains(got, want) {
		t.Errorf("seat 0's view %s has no %s", got, want)
	}
	for _, v := range []Seat{1, 2, session.Spectator} {
		if got := viewJSON(t, s, v); contains(got, "queue") {
			t.Errorf("viewer %d sees a queue: %s", v, got)
		}
	}
	if got := step(t, s, 63); got != `[{"t":"move","d":"ur."}]` {
		t.Fatalf("first move: %s", got)
	}
	if got := step(t, s, 64, turn(0, Left)); got != `[]` {
		t.Fatalf("a reverse of the queued right: %s", got)
	}
	step(t, s, 65)
	if got := step(t, s, 66); got != `[{"t":"move","d":"rr."}]` {
		t.Fatalf("second move: %s", got)
	}
	if got := bodyOf(t, s, 0); got != `[[4,6],[4,5],[5,5]]` {
		t.Errorf("snake 0: %s", got)
	}
	step(t, s, 67, turn(0, Down))
	if got := step(t, s, 69); got != `[{"t":"move","d":"dr."}]` {
		t.Fatalf("third move: %s", got)
	}
}

// Each way to die, and the ways not to.
func TestCollisions(t *testing.T) {
	far := sn(Right, 0, Cell{14, 5}, Cell{14, 4}, Cell{14, 3})    // a bystander, moving to (14,6)
	farther := sn(Left, 0, Cell{0, 10}, Cell{0, 11}, Cell{0, 12}) // another, moving to (0,9)
	tests := []struct {
		name   string
		food   []Cell
		snakes []snakeCheckpoint
		inputs []session.Input[Move]
		events string
		bodies []string // after the move, by seat
	}{
		{
			name:   "a wall",
			snakes: []snakeCheckpoint{sn(Right, 4, Cell{5, 15}, Cell{5, 14}, Cell{5, 13}), far, farther},
			events: `[{"t":"move","d":".rl"},{"t":"die","s":0,"at":[5,16],"why":"wall"}]`,
			bodies: []string{`[]`, `[[14,6],[14,5],[14,4]]`, `[[0,9],[0,10],[0,11]]`},
		},
		{
			name:   "the top wall, after a turn",
			snakes: []snakeCheckpoint{sn(Right, 0, Cell{0, 5}, Cell{0, 4}, Cell{0, 3}), far, farther},
			inputs: []session.Input[Move]{turn(0, Up)},
			events: `[{"t":"turn","s":0,"d":"up"},{"t":"move","d":".rl"},{"t":"die","s":0,"at":[-1,5],"why":"wall"}]`,
		},
		{
			name: "another's body",
			snakes: []snakeCheckpoint{
				sn(Right, 0, Cell{5, 5}, Cell{5, 4}, Cell{5, 3}),
				sn(Down, 0, Cell{6, 6}, Cell{5, 6}, Cell{4, 6}), far},
			events: `[{"t":"move","d":".dr"},{"t":"die","s":0,"at":[5,6],"why":"body"}]`,
			bodies: []string{`[]`, `[[7,6],[6,6],[5,6]]`},
		},
		{
			name:   "its own body",
			snakes: []snakeCheckpoint{sn(Left, 0, Cell{5, 5}, Cell{5, 6}, Cell{6, 6}, Cell{6, 5}, Cell{7, 5}), far, farther},
			inputs: []session.Input[Move]{turn(0, Down)},
			events: `[{"t":"turn","s":0,"d":"down"},{"t":"move","d":".rl"},{"t":"die","s":0,"at":[6,5],"why":"body"}]`,
		},
		{
			name: "another's tail, which leaves",
			snakes: []snakeCheckpoint{
				sn(Right, 0, Cell{5, 5}, Cell{5, 4}, Cell{5, 3}),
				sn(Down, 0, Cell{7, 6}, Cell{6, 6}, Cell{5, 6}), far},
			events: `[{"t":"move","d":"rdr"}]`,
			bodies: []string{`[[5,6],[5,5],[5,4]]`, `[[8,6],[7,6],[6,6]]`},
		},
		{
			name:   "its own tail, which leaves",
			snakes: []snakeCheckpoint{sn(Left, 0, Cell{5, 5}, Cell{5, 6}, Cell{6, 6}, Cell{6, 5}), far, farther},
			inputs: []session.Input[Move]{turn(0, Down)},
			events: `[{"t":"turn","s":0,"d":"down"},{"t":"move","d":"drl"}]`,
			bodies: []string{`[[6,5],[5,5],[5,6],[6,6]]`},
		},
		{
			name: "the tail of a snake that eats, which stays",
			food: []Cell{{8, 6}},
			snakes: []snakeCheckpoint{
				sn(Right, 0, Cell{5, 5}, Cell{5, 4}, Cell{5, 3}),
				sn(Down, 0, Cell{7, 6}, Cell{6, 6}, Cell{5, 6}), far},
			events: `[{"t":"move","d":".dr"},{"t":"die","s":0,"at":[5,6],"why":"body"},{"t":"food","at":[14,2]}]`,
			bodies: []string{`[]`, `[[8,6],[7,6],[6,6],[5,6]]`},
		},
		{
			name: "heads on one cell",
			snakes: []snakeCheckpoint{
				sn(Right, 0, Cell{5, 5}, Cell{5, 4}, Cell{5, 3}),
				sn(Left, 0, Cell{5, 7}, Cell{5, 8}, Cell{5, 9}), far, farther},
			events: `[{"t":"move","d":"..rl"},{"t":"die","s":0,"at":[5,6],"why":"head"},{"t":"die","s":1,"at":[5,6],"why":"head"}]`,
			bodies: []string{`[]`, `[]`},
		},
		{
			name: "heads on one food: nobody eats",
			food: []Cell{{5, 6}},
			snakes: []snakeCheckpoint{
				sn(Right, 0, Cell{5, 5}, Cell{5, 4}, Cell{5, 3}),
				sn(Left, 0, Cell{5, 7}, Cell{5, 8}, Cell{5, 9}), far, farther},
			events: `[{"t":"move","d":"..rl"},{"t":"die","s":0,"at":[5,6],"why":"head"},{"t":"die","s":1,"at":[5,6],"why":"head"}]`,
		},
		{
			name: "heads that swap",
			snakes: []snakeCheckpoint{
				sn(Right, 0, Cell{5, 5}, Cell{5, 4}, Cell{5, 3}),
				sn(Left, 0, Cell{5, 6}, Cell{5, 7}, Cell{5, 8}), far, farther},
			events: `[{"t":"move","d":"..rl"},{"t":"die","s":0,"at":[5,6],"why":"head"},{"t":"die","s":1,"at":[5,5],"why":"head"}]`,
		},
		{
			name: "the body of a snake that dies at the same move",
			snakes: []snakeCheckpoint{
				sn(Right, 0, Cell{5, 5}, Cell{5, 4}, Cell{5, 3}),
				sn(Down, 0, Cell{6, 6}, Cell{5, 6}, Cell{4, 6}),
				sn(Left, 0, Cell{7, 7}, Cell{7, 8}, Cell{7, 9}), far},
			events: `[{"t":"move","d":"...r"},{"t":"die","s":0,"at":[5,6],"why":"body"},{"t":"die","s":1,"at":[7,6],"why":"head"},{"t":"die","s":2,"at":[7,6],"why":"head"},{"t":"over","winners":[3],"why":"last"}]`,
			bodies: []string{`[]`, `[]`, `[]`, `[[14,6],[14,5],[14,4]]`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := world(t, small, 62, tt.food, tt.snakes...)
			if got := step(t, s, 63, tt.inputs...); got != tt.events {
				t.Fatalf("events %s\nwant   %s", got, tt.events)
			}
			for i, want := range tt.bodies {
				if got := bodyOf(t, s, i); got != want {
					t.Errorf("snake %d: %s, want %s", i, got, want)
				}
			}
			for i, e := range s.events {
				if e.Type == EventDie {
					if sc := s.snakes[e.Seat]; sc.alive || sc.n != 0 || sc.queued != 0 || sc.score != tt.snakes[e.Seat].Score || sc.dir != tt.snakes[e.Seat].Dir {
						t.Errorf("event %d: dead snake %+v", i, sc)
					}
				}
			}
			checkBoard(t, s)
		})
	}
}

// checkBoard checks the arena against the snakes: every body cell holds its
// snake, and nothing else holds a snake.
func checkBoard(t tb, s *State) {
	t.Helper()
	want := make([]cell, len(s.g.Cells()))
	for i, c := range s.g.Cells() {
		if c == cellFood {
			want[i] = cellFood
		}
	}
	for i := range s.snakes {
		sn := &s.snakes[i]
		if sn.alive != (sn.n > 0) {
			t.Fatalf("snake %d: alive %v with %d cells", i, sn.alive, sn.n)
		}
		for j := range sn.n {
			k := sn.at(j)
			if want[k] != cellEmpty {
				t.Fatalf("snake %d: cell %v holds %d too", i, s.cellOf(k), want[k])
			}
			want[k] = cellBody + cell(i)
		}
	}
	if !slices.Equal(want, s.g.Cells()) {
		t.Fatalf("the arena does not hold the snakes")
	}
}

func TestEat(t *testing.T) {
	s := world(t, small, 62, []Cell{{5, 6}, {9, 9}},
		sn(Right, 3, Cell{5, 5}, Cell{5, 4}, Cell{5, 3}),
		sn(Right, 0, Cell{10, 5}, Cell{10, 4}, Cell{10, 3}))
	if got, want := step(t, s, 63), `[{"t":"move","d":"rr"},{"t":"food","at":[12,4]}]`; got != want {
		t.Fatalf("events %s, want %s", got, want)
	}
	if got := bodyOf(t, s, 0); got != `[[5,6],[5,5],[5,4],[5,3]]` {
		t.Errorf("snake 0: %s", got)
	}
	if s.snakes[0].score != 4 || s.snakes[1].score != 0 || encode(t, s.foodCells()) != `[[9,9],[12,4]]` || s.draws != 1 {
		t.Errorf("scores %d %d, food %v, draws %d", s.snakes[0].score, s.snakes[1].score, s.foodCells(), s.draws)
	}
	// It keeps its length after.
	step(t, s, 66)
	if got := bodyOf(t, s, 0); got != `[[5,7],[5,6],[5,5],[5,4]]` {
		t.Errorf("snake 0: %s", got)
	}
	checkBoard(t, s)
}

// Two eaters at one move: a food each, in seat order.
func TestEatTwo(t *testing.T) {
	s := world(t, small, 62, []Cell{{5, 6}, {10, 6}},
		sn(Right, 0, Cell{5, 5}, Cell{5, 4}, Cell{5, 3}),
		sn(Right, 0, Cell{10, 5}, Cell{10, 4}, Cell{10, 3}))
	got := step(t, s, 63)
	var events []Event
	if err := json.Unmarshal([]byte(got), &events); err != nil || len(events) != 3 || events[1].Type != EventFood || events[2].Type != EventFood || s.draws != 2 {
		t.Fatalf("events %s (%v)", got, err)
	}
	if s.snakes[0].score != 1 || s.snakes[1].score != 1 || len(s.foodCells()) != 2 {
		t.Errorf("scores %d %d, food %v", s.snakes[0].score, s.snakes[1].score, s.foodCells())
	}
}

func TestEnds(t *testing.T) {
	timed := Config{Board: BoardSmall, TimeLimit: 30}   // the last tick is 660, a move tick
	offbeat := Config{Board: BoardSmall, TimeLimit: 31} // 680: no move
	right := func(r, score int) snakeCheckpoint { return sn(Right, score, Cell{r, 5}, Cell{r, 4}, Cell{r, 3}) }
	wall := func(score int) snakeCheckpoint { return sn(Right, score, Cell{7, 15}, Cell{7, 14}, Cell{7, 13}) }
	tests := []struct {
		name   string
		config Config
		tick   uint64
		snakes []snakeCheckpoint
		inputs []session.Input[Move]
		events string
		status string
	}{
		{
			name:   "the last snake alive",
			config: small, tick: 63,
			snakes: []snakeCheckpoint{right(2, 0), wall(5), sn(Left, 9)},
			events: `[{"t":"move","d":"r.."},{"t":"die","s":1,"at":[7,16],"why":"wall"},{"t":"over","winners":[0],"why":"last"}]`,
			status: `{"phase":"over","started":true,"over":true,"outcome":{"winners":[0],"ranked":true}}`,
		},
		{
			name:   "the last two die together: a draw",
			config: small, tick: 63,
			snakes: []snakeCheckpoint{sn(Right, 2, Cell{0, 15}, Cell{0, 14}, Cell{0, 13}), wall(2), sn(Left, 9)},
			events: `[{"t":"move","d":"..."},{"t":"die","s":0,"at":[0,16],"why":"wall"},{"t":"die","s":1,"at":[7,16],"why":"wall"},{"t":"over","winners":[0,1],"why":"draw"}]`,
			status: `{"phase":"over","started":true,"over":true,"outcome":{"winners":[0,1],"ranked":true,"score":2}}`,
		},
		{
			name:   "the last two die together: the higher score wins",
			config: small, tick: 63,
			snakes: []snakeCheckpoint{sn(Right, 2, Cell{0, 15}, Cell{0, 14}, Cell{0, 13}), wall(3), sn(Left, 9)},
			events: `[{"t":"move","d":"..."},{"t":"die","s":0,"at":[0,16],"why":"wall"},{"t":"die","s":1,"at":[7,16],"why":"wall"},{"t":"over","winners":[1],"why":"last"}]`,
			status: `{"phase":"over","started":true,"over":true,"outcome":{"winners":[1],"ranked":true,"score":3}}`,
		},
		{
			name:   "time, after the last move",
			config: timed, tick: 660,
			snakes: []snakeCheckpoint{right(2, 5), right(4, 2), sn(Left, 9), right(6, 5)},
			events: `[{"t":"move","d":"rr.r"},{"t":"over","winners":[0,3],"why":"time"}]`,
			status: `{"phase":"over","started":true,"over":true,"outcome":{"winners":[0,3],"ranked":true,"score":5}}`,
		},
		{
			name:   "time, between moves",
			config: offbeat, tick: 680,
			snakes: []snakeCheckpoint{right(2, 5), right(4, 7), sn(Left, 9)},
			inputs: []session.Input[Move]{turn(0, Down), turn(1, Up)},
			events: `[{"t":"turn","s":0,"d":"down"},{"t":"turn","s":1,"d":"up"},{"t":"over","winners":[1],"why":"time"}]`,
			status: `{"phase":"over","started":true,"over":true,"outcome":{"winners":[1],"ranked":true,"score":7}}`,
		},
		{
			name:   "time, as the last but one dies",
			config: timed, tick: 660,
			snakes: []snakeCheckpoint{right(2, 0), wall(5)},
			events: `[{"t":"move","d":"r."},{"t":"die","s":1,"at":[7,16],"why":"wall"},{"t":"over","winners":[0],"why":"last"}]`,
			status: `{"phase":"over","started":true,"over":true,"outcome":{"winners":[0],"ranked":true}}`,
		},
		{
			name:   "one seat: its snake dies",
			config: small, tick: 63,
			snakes: []snakeCheckpoint{wall(4)},
			events: `[{"t":"move","d":"."},{"t":"die","s":0,"at":[7,16],"why":"wall"},{"t":"over","winners":[],"why":"dead"}]`,
			status: `{"phase":"over","started":true,"over":true,"outcome":{"winners":[],"ranked":true}}`,
		},
		{
			name:   "one seat: time",
			config: timed, tick: 660,
			snakes: []snakeCheckpoint{right(2, 4)},
			events: `[{"t":"move","d":"r"},{"t":"over","winners":[0],"why":"time"}]`,
			status: `{"phase":"over","started":true,"over":true,"outcome":{"winners":[0],"ranked":true,"score":4}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := world(t, tt.config, tt.tick-1, nil, tt.snakes...)
			rules := Rules{}
			if p := rules.Pending(s); len(p) == 0 {
				t.Fatalf("nobody pending before the end")
			}
			if got := step(t, s, tt.tick, tt.inputs...); got != tt.events {
				t.Fatalf("events %s\nwant   %s", got, tt.events)
			}
			if got := encode(t, rules.Status(s)); got != tt.status {
				t.Errorf("status %s\nwant   %s", got, tt.status)
			}
			if p := rules.Pending(s); p != nil {
				t.Errorf("pending %v once over", p)
			}
			// Once over every queue is dropped: all see the same, and a
			// seat differs only by the turn events of the last step.
			after := viewJSON(t, s, session.Spectator)
			for v := range len(tt.snakes) {
				if got := viewJSON(t, s, v); got != after || !contains(got, `"phase":"over"`) {
					t.Errorf("viewer %d: view %s", v, got)
				}
				want := 0
				for _, in := range tt.inputs {
					if in.Seat == v {
						want = v + 1
					}
				}
				if got := rules.Audience(s, v); got != want {
					t.Errorf("viewer %d: audience %d, want %d", v, got, want)
				}
			}
			for tick := tt.tick + 1; tick < tt.tick+10; tick++ {
				if got := step(t, s, tick, turn(0, Down)); got != `[]` {
					t.Fatalf("tick %d after the end: %s", tick, got)
				}
			}
			for v := session.Spectator; v < len(tt.snakes); v++ {
				if got := viewJSON(t, s, v); got != after || rules.Audience(s, v) != 0 {
					t.Errorf("viewer %d after the end: audience %d, view %s\nwas %s", v, rules.Audience(s, v), got, after)
				}
			}
		})
	}
}

func TestDraw(t *testing.T) {
	s := world(t, small, 62, nil, sn(Right, 0, Cell{5, 5}, Cell{5, 4}, Cell{5, 3}), sn(Left, 0, Cell{5, 7}, Cell{5, 8}, Cell{5, 9}))
	if got := step(t, s, 63); got != `[{"t":"move","d":".."},{"t":"die","s":0,"at":[5,6],"why":"head"},{"t":"die","s":1,"at":[5,6],"why":"head"},{"t":"over","winners":[0,1],"why":"draw"}]` {
		t.Fatalf("events %s", got)
	}
}

// Food draws: the stream is SHA-256 of the key and a counter, and a
// placement is uniform over the empty cells, never on a body or a food.
func TestFoodDraws(t *testing.T) {
	s := initState(t, 42, Config{Board: BoardSmall, Food: 1}, 4)
	key, draws := s.secret, s.draws
	for i := range 10 {
		var buf [40]byte
		copy(buf[:], key[:])
		binary.LittleEndian.PutUint64(buf[32:], draws+uint64(i))
		sum := sha256.Sum256(buf[:])
		if got, want := s.drawAt(draws+uint64(i), 1000), int(binary.LittleEndian.Uint64(sum[:8])%1000); got != want {
			t.Fatalf("draw %d: %d, want %d", i, got, want)
		}
	}
	if other := initState(t, 43, Config{Board: BoardSmall, Food: 1}, 4); other.secret == key {
		t.Errorf("seeds 42 and 43 make the same key")
	}
	if again := initState(t, 42, Config{Board: BoardSmall, Food: 1}, 4); again.secret != key || encode(t, again.foodCells()) != encode(t, initState(t, 42, Config{Board: BoardSmall, Food: 1}, 4).foodCells()) {
		t.Errorf("seed 42 makes another key")
	}

	cells := s.g.Cells()
	for i, c := range cells {
		if c == cellFood {
			cells[i] = cellEmpty
		}
	}
	empty := 0
	for _, c := range cells {
		if c == cellEmpty {
			empty++
		}
	}
	const rounds = 200
	counts := make(map[int]int)
	for range rounds * empty {
		at, ok := s.placeFood()
		if !ok {
			t.Fatal("no empty cell")
		}
		k := int(s.key(at))
		if cells[k] != cellFood {
			t.Fatalf("placed on %v, which holds %d", at, cells[k])
		}
		counts[k]++
		cells[k] = cellEmpty
	}
	if len(counts) != empty {
		t.Errorf("food went to %d cells of %d", len(counts), empty)
	}
	for k, n := range counts {
		if n < rounds*6/10 || n > rounds*14/10 {
			t.Errorf("cell %v got %d food in %d rounds", s.cellOf(int32(k)), n, rounds)
		}
	}

	// A full arena takes no food, and draws nothing.
	for i := range cells {
		if cells[i] == cellEmpty {
			cells[i] = cellFood
		}
	}
	before := s.draws
	if _, ok := s.placeFood(); ok || s.draws != before {
		t.Errorf("food placed on a full arena")
	}
}

func contains(s, sub string) bool { return len(sub) > 0 && len(s) >= len(sub) && indexOf(s, sub) >= 0 }

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}
