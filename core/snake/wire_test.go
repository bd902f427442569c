package snake

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/session"
)

// TestWire pins, by hand, the JSON of a short match as every viewer gets
// it: on the small board with two food, seat 0 queues a turn up during the
// countdown, then right, and eats; seat 1 turns down at the go and runs
// into the bottom wall.
func TestWire(t *testing.T) {
	s := newSession(t, 1, `{"board":"small","food":2}`, 2)
	m := s.Match()
	input := func(seat Seat, d Dir) {
		t.Helper()
		if _, err := s.Input(seat, command(d), float64(s.Tick())*50); err != nil {
			t.Fatal(err)
		}
	}
	advance := func(to uint64, beats ...string) { // at tick to, of seat 0, seat 1, the spectator
		t.Helper()
		for s.Tick() < to {
			step, err := s.Advance()
			if err != nil {
				t.Fatal(err)
			}
			if s.Tick() < to {
				continue
			}
			for i, v := range []Seat{0, 1, session.Spectator} {
				want := beats[i]
				if got := encode(t, step.Beats(v)); got != want {
					t.Fatalf("tick %d, beats of %d:\n got %s\nwant %s", s.Tick(), v, got, want)
				}
				if b, err := step.AppendBeats(nil, v); err != nil || string(b) != want {
					t.Fatalf("tick %d, AppendBeats of %d: %s, %v", s.Tick(), v, b, err)
				}
			}
		}
	}
	views := func(when string, want ...string) { // of seat 0, seat 1, the spectator
		t.Helper()
		for i, v := range []Seat{0, 1, session.Spectator} {
			if got := encode(t, m.View(v)); got != want[i] {
				t.Errorf("%s, view of %d:\n got %s\nwant %s", when, v, got, want[i])
			}
		}
	}

	start := `{"rows":16,"cols":16,"movesEvery":3,"start":60,"end":2460,"phase":"countdown","snakes":[` +
		`{"body":[[4,4],[4,3],[4,2]],"dir":"right","alive":true,"score":0},` +
		`{"body":[[11,11],[11,12],[11,13]],"dir":"left","alive":true,"score":0}],"food":[[3,5],[10,14]]}`
	views("at the start", start, start, start)
	input(0, Up)
	advance(1, `[{"t":"turn","s":0,"d":"up"}]`, `[]`, `[]`)
	views("after seat 0's turn", strings.Replace(start, `"score":0}`, `"score":0,"queue":["up"]}`, 1), start, start)
	if m.Audience(0) != 1 || m.Audience(1) != 0 || m.Audience(session.Spectator) != 0 {
		t.Errorf("audiences %d %d %d", m.Audience(0), m.Audience(1), m.Audience(session.Spectator))
	}
	advance(60, `[{"t":"go"}]`, `[{"t":"go"}]`, `[{"t":"go"}]`)
	input(1, Down)
	advance(61, `[]`, `[{"t":"turn","s":1,"d":"down"}]`, `[]`)
	advance(63, `[{"t":"move","d":"ud"}]`, `[{"t":"move","d":"ud"}]`, `[{"t":"move","d":"ud"}]`)
	input(0, Right)
	advance(64, `[{"t":"turn","s":0,"d":"right"}]`, `[]`, `[]`)
	eat := `[{"t":"move","d":"rd"},{"t":"food","at":[0,3]}]`
	advance(66, eat, eat, eat)
	running := `{"rows":16,"cols":16,"movesEvery":3,"start":60,"end":2460,"phase":"running","snakes":[` +
		`{"body":[[3,5],[3,4],[4,4],[4,3]],"dir":"right","alive":true,"score":1},` +
		`{"body":[[13,11],[12,11],[11,11]],"dir":"down","alive":true,"score":0}],"food":[[0,3],[10,14]]}`
	views("after eating", running, running, running)
	cp, err := m.Checkpoint()
	if want := `{"tick":66,"phase":"running","snakes":[{"body":[[3,5],[3,4],[4,4],[4,3]],"dir":"right","alive":true,"score":1},` +
		`{"body":[[13,11],[12,11],[11,11]],"dir":"down","alive":true,"score":0}],"food":[[0,3],[10,14]],` +
		`"key":"f3ea87a0c949b300ebc40687fd2726fb2b9de7f73066f647f001e39c5c9f82b8","draws":3}`; err != nil || string(cp) != want {
		t.Errorf("checkpoint\n got %s\nwant %s (%v)", cp, want, err)
	}
	end := `[{"t":"move","d":"r."},{"t":"die","s":1,"at":[16,11],"why":"wall"},{"t":"over","winners":[0],"why":"last"}]`
	advance(75, end, end, end)
	over := `{"rows":16,"cols":16,"movesEvery":3,"start":60,"end":2460,"phase":"over","snakes":[` +
		`{"body":[[3,8],[3,7],[3,6],[3,5]],"dir":"right","alive":true,"score":1},` +
		`{"body":[],"dir":"down","alive":false,"score":0}],"food":[[0,3],[10,14]],"winners":[0],"why":"last"}`
	views("at the end", over, over, over)
	if got := encode(t, s.Status()); got != `{"phase":"over","started":true,"over":true,"outcome":{"winners":[0],"ranked":true,"score":1}}` {
		t.Errorf("status %s", got)
	}
	if res, ok := s.Result(); !ok || res.Time != 750 || res.Status != PhaseOver {
		t.Errorf("result %+v", res)
	}
	cp, err = m.Checkpoint()
	if want := `{"tick":75,"phase":"over","snakes":[{"body":[[3,8],[3,7],[3,6],[3,5]],"dir":"right","alive":true,"score":1},` +
		`{"body":[],"dir":"down","alive":false,"score":0}],"food":[[0,3],[10,14]],` +
		`"key":"f3ea87a0c949b300ebc40687fd2726fb2b9de7f73066f647f001e39c5c9f82b8","draws":3,"winners":[0],"why":"last"}`; err != nil || string(cp) != want {
		t.Errorf("checkpoint\n got %s\nwant %s (%v)", cp, want, err)
	}
}

// AppendJSON writes what encoding/json writes, for every kind of event.
func TestEventJSON(t *testing.T) {
	for _, e := range []Event{
		{Type: EventTurn, Seat: 2, Dir: Up},
		{Type: EventGo},
		{Type: EventMove, Moves: Moves{N: 4, D: [MaxSeats]byte{'r', 'l', '.', 'u'}}},
		{Type: EventMove, Moves: Moves{N: 8, D: [MaxSeats]byte{'r', 'l', '.', 'u', 'd', '.', '.', 'r'}}},
		{Type: EventDie, Seat: 1, At: Cell{-1, 5}, Why: WhyWall},
		{Type: EventDie, Seat: 7, At: Cell{31, 32}, Why: WhyHead},
		{Type: EventFood, At: Cell{12, 0}},
		{Type: EventOver, Winners: []Seat{0, 3}, Why: WhyDraw},
		{Type: EventOver, Winners: []Seat{}, Why: WhyDead},
		{Type: EventOver, Why: WhyDead},
		{Type: EventDie, Why: `a "quoted" <why>`},
	} {
		want, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.AppendJSON(nil); string(got) != string(want) {
			t.Errorf("AppendJSON %s, encoding/json %s", got, want)
		}
	}
	if _, err := json.Marshal(Event{Type: 99}); err == nil {
		t.Error("an event of unknown type encoded")
	}
}

func TestDecodeEvent(t *testing.T) {
	tests := []struct {
		raw string
		err string // part of the error, or "" for a round trip
	}{
		{raw: `{"t":"turn","s":2,"d":"up"}`},
		{raw: `{"t":"go"}`},
		{raw: `{"t":"move","d":"rl.u"}`},
		{raw: `{"t":"die","s":1,"at":[-1,5],"why":"wall"}`},
		{raw: `{"t":"food","at":[3,9]}`},
		{raw: `{"t":"over","winners":[0,2],"why":"draw"}`},
		{raw: `{"t":"over","winners":[],"why":"dead"}`},
		{raw: `{"t":"turn","s":2}`, err: `turn needs "s" and "d"`},
		{raw: `{"t":"turn","s":2,"d":"north"}`, err: `turn to "north"`},
		{raw: `{"t":"move"}`, err: `move needs "d"`},
		{raw: `{"t":"move","d":"rlx"}`, err: `move "rlx"`},
		{raw: `{"t":"move","d":"........."}`, err: "move of 9 seats"},
		{raw: `{"t":"die","s":1,"at":[1,5]}`, err: `die needs`},
		{raw: `{"t":"food"}`, err: `food needs "at"`},
		{raw: `{"t":"over","why":"time"}`, err: `over needs "winners" and "why"`},
		{raw: `{"t":"boom"}`, err: `unknown type "boom"`},
		{raw: `null`, err: "snake event: null"},
		{raw: `[]`, err: "snake event"},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			var e Event
			err := json.Unmarshal([]byte(tt.raw), &e)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error %v, want one naming %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := encode(t, e); got != tt.raw {
				t.Errorf("round trip gives %s", got)
			}
			if got := string(e.AppendJSON(nil)); got != tt.raw {
				t.Errorf("AppendJSON gives %s", got)
			}
		})
	}
}

// A view decodes from its JSON to the same view.
func TestDecodeView(t *testing.T) {
	s := initState(t, 3, Config{}, 8)
	step(t, s, 1, turn(3, Left), turn(3, Down))
	for _, v := range []Seat{3, session.Spectator} {
		raw := viewJSON(t, s, v)
		var back View
		if err := json.Unmarshal([]byte(raw), &back); err != nil {
			t.Fatal(err)
		}
		if got := encode(t, back); got != raw {
			t.Errorf("round trip of\n%s\ngives\n%s", raw, got)
		}
	}
}
