package snake

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/session/sessiontest"
)

// tb is what the helpers need of *testing.T and *rapid.T alike.
type tb = sessiontest.TB

var (
	encode      = sessiontest.Encode
	asRejection = sessiontest.AsRejection
)

// newSession starts a session of Game on a test clock.
func newSession(t tb, seed int64, config string, seats int) *session.GameSession {
	t.Helper()
	return sessiontest.NewSession(t, Game, seed, config, seats)
}

// stateOf returns the typed state of a match of Game.
func stateOf(t tb, m session.Match) *State {
	t.Helper()
	return sessiontest.State[*State](t, m)
}

// everything is the observable state of a match: status, pending seats,
// and every viewer's audience and view, as JSON.
func everything(t tb, m session.Match, seats int) string {
	t.Helper()
	return sessiontest.Everything(t, m, seats)
}

// initState starts a match through the typed rules.
func initState(t tb, seed int64, c Config, seats int) *State {
	t.Helper()
	s, err := Rules{}.Init(session.IntSeed(seed), c, seats)
	if err != nil {
		t.Fatalf("Init(%+v, %d seats): %v", c, seats, err)
	}
	return s
}

// zeroKey is the food key of the worlds tests build.
var zeroKey = strings.Repeat("00", 32)

// sn is a snake of a hand-built world: its body, head first.
func sn(dir Dir, score int, body ...Cell) snakeCheckpoint {
	return snakeCheckpoint{Body: body, Dir: dir, Alive: len(body) > 0, Score: score}
}

// world builds a running state on a small board (16×16) at tick, from
// snakes and food, with the zero key; c's board and speed apply.
func world(t tb, c Config, tick uint64, food []Cell, snakes ...snakeCheckpoint) *State {
	t.Helper()
	if food == nil {
		food = []Cell{}
	}
	cp := checkpoint{Tick: tick, Phase: PhaseRunning, Snakes: snakes, Food: food, Key: zeroKey}
	if tick < Countdown {
		cp.Phase = PhaseCountdown
	}
	s, err := Rules{}.Resume(session.IntSeed(1), c, len(snakes), []byte(encode(t, cp)))
	if err != nil {
		t.Fatalf("world: %v", err)
	}
	return s
}

// small is the config of hand-built worlds: the small board at normal
// speed (moves at ticks 63, 66, ...).
var small = Config{Board: BoardSmall}

// turn is a turn input of seat.
func turn(seat Seat, d Dir) session.Input[Move] {
	return session.Input[Move]{Seat: seat, Move: Move{Dir: d}}
}

// step runs tick on s and returns its events as JSON.
func step(t tb, s *State, tick uint64, inputs ...session.Input[Move]) string {
	t.Helper()
	_, events := Rules{}.Step(s, tick, inputs)
	return eventsJSON(t, events)
}

// eventsJSON encodes events with AppendJSON, checking that encoding/json
// writes the same.
func eventsJSON(t tb, events []Event) string {
	t.Helper()
	b := []byte{'['}
	for i := range events {
		if i > 0 {
			b = append(b, ',')
		}
		b = events[i].AppendJSON(b)
	}
	b = append(b, ']')
	if len(events) > 0 {
		if want := encode(t, events); string(b) != want {
			t.Fatalf("AppendJSON wrote %s, encoding/json %s", b, want)
		}
	}
	return string(b)
}

// bodyOf returns snake i's body as JSON.
func bodyOf(t tb, s *State, i int) string {
	t.Helper()
	return encode(t, s.body(i))
}

// viewJSON is viewer's view of s as JSON.
func viewJSON(t tb, s *State, viewer Seat) string {
	t.Helper()
	return encode(t, Rules{}.Project(s, viewer))
}

// command is the JSON command turning to d.
func command(d Dir) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"type":"turn","dir":%q}`, d))
}
