package web_test

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/snake"
)

// snakeTrace is what one viewer of a match sees: its view at the start,
// then each tick's projected beats and its view after that tick.
type snakeTrace struct {
	Seat  int               `json:"seat"`
	Start json.RawMessage   `json:"start"`
	Beats []json.RawMessage `json:"beats"`
	Views []json.RawMessage `json:"views"`
}

// TestSnakeWorldNode plays snake matches with core/snake's rules (AI and
// random turns, every board, up to eight seats) and runs
// testdata/snake_world_test.js under Node: the page's view model
// (games/snake/world.js), starting from each viewer's first view and
// applying each tick's beats as that viewer gets them, must hold the
// server's projection after every tick, byte for byte.
func TestSnakeWorldNode(t *testing.T) {
	t.Parallel()
	findNode(t)
	var traces []snakeTrace
	for i, m := range []struct {
		cfg   snake.Config
		seats int
	}{
		{snake.Config{Board: snake.BoardSmall, Speed: snake.SpeedFast, TimeLimit: 30, Food: 16}, 2},
		{snake.Config{Board: snake.BoardSmall, Speed: snake.SpeedNormal, TimeLimit: 30, Food: 4}, 4},
		{snake.Config{Board: snake.BoardMedium, Speed: snake.SpeedSlow, TimeLimit: 30, Food: 3}, 5},
		{snake.Config{Board: snake.BoardLarge, Speed: snake.SpeedFast, TimeLimit: 30, Food: 9}, 8},
	} {
		traces = append(traces, playSnake(t, int64(i+1), m.cfg, m.seats)...)
	}
	data, err := json.Marshal(traces)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "traces.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	runNodeScriptWith(t, "snake_world_test.js", map[string]string{"TRACES": file})
}

// playSnake plays one match to its end and returns what each viewer (each
// seat, and a spectator) saw.
func playSnake(t *testing.T, seed int64, cfg snake.Config, seats int) []snakeTrace {
	t.Helper()
	rules := snake.Rules{}
	s, err := rules.Init(session.IntSeed(seed), cfg, seats)
	if err != nil {
		t.Fatal(err)
	}
	enc := func(v any) json.RawMessage { return mustJSON(t, v) }
	viewers := append(make([]int, 0, seats+1), session.Spectator)
	for seat := range seats {
		viewers = append(viewers, seat)
	}
	traces := make([]snakeTrace, len(viewers))
	views := make([]snake.View, seats)
	for i, v := range viewers {
		traces[i] = snakeTrace{Seat: v, Start: enc(rules.Project(s, v))}
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 7))
	for tick := uint64(1); !rules.Status(s).Over; tick++ {
		if tick > 100_000 {
			t.Fatal("the match does not end")
		}
		var in []session.Input[snake.Move]
		for seat := range seats {
			views[seat] = rules.Project(s, seat)
			if rng.Float64() < 0.15 {
				if m, ok := rules.Choose(views[seat], seat, session.IntSeed(7).Source()); ok {
					in = append(in, session.Input[snake.Move]{Seat: seat, Move: m})
				}
			}
			if rng.Float64() < 0.08 { // a player's turn, wise or not
				in = append(in, session.Input[snake.Move]{Seat: seat, Move: snake.Move{Dir: snake.Dir(1 + rng.IntN(4))}})
			}
		}
		_, events := rules.Step(s, tick, in)
		for i, v := range viewers {
			traces[i].Beats = append(traces[i].Beats, enc(append([]snake.Event{}, rules.ProjectEvents(s, events, v)...)))
			traces[i].Views = append(traces[i].Views, enc(rules.Project(s, v)))
		}
	}
	return traces
}
