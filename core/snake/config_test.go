package snake

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/session"
)

func TestInfoAndSetup(t *testing.T) {
	info := Game.Info()
	if info.ID != "snake" || info.Name != "Snake arena" || info.RulesVersion != "snake/1" || info.MaxMoves != 20000 {
		t.Errorf("info %+v", info)
	}
	if info.Tick == nil || info.Tick.Hz != Hz || Hz != 20 || Countdown != 60 {
		t.Errorf("tick %+v", info.Tick)
	}
	if r := info.Ranking; r == nil || r.By != session.RankScore || !r.Higher || encode(t, r.Boards) != `["small","medium","large"]` {
		t.Errorf("ranking %+v", r)
	}
	want := session.Mode{ID: "arena", Name: "Arena", MinSeats: 2, MaxSeats: 8, AI: true}
	if len(info.Modes) != 1 || info.Modes[0] != want {
		t.Errorf("modes %+v, want [%+v]", info.Modes, want)
	}
	for name, schema := range map[string]json.RawMessage{"config": info.ConfigSchema, "command": info.CommandSchema} {
		if !json.Valid(schema) {
			t.Errorf("%s schema is not JSON", name)
		}
	}
}

func TestConfig(t *testing.T) {
	tests := []struct {
		config    string
		canonical string // when valid
		board     string // the leaderboard, when valid
		err       string // part of the error, when invalid
	}{
		{config: ``, canonical: `{"mode":"arena","board":"medium","speed":"normal","timeLimit":120,"food":3}`, board: "medium"},
		{config: `null`, canonical: `{"mode":"arena","board":"medium","speed":"normal","timeLimit":120,"food":3}`, board: "medium"},
		{config: `{}`, canonical: `{"mode":"arena","board":"medium","speed":"normal","timeLimit":120,"food":3}`, board: "medium"},
		{config: `{"board":"small"}`, canonical: `{"mode":"arena","board":"small","speed":"normal","timeLimit":120,"food":3}`, board: "small"},
		{config: `{"board":"large","mode":"arena","speed":"normal","timeLimit":120.0,"food":3}`, canonical: `{"mode":"arena","board":"large","speed":"normal","timeLimit":120,"food":3}`, board: "large"},
		{config: `{"speed":"fast"}`, canonical: `{"mode":"arena","board":"medium","speed":"fast","timeLimit":120,"food":3}`},
		{config: `{"speed":"slow","board":"small"}`, canonical: `{"mode":"arena","board":"small","speed":"slow","timeLimit":120,"food":3}`},
		{config: `{"timeLimit":30}`, canonical: `{"mode":"arena","board":"medium","speed":"normal","timeLimit":30,"food":3}`},
		{config: `{"timeLimit":600}`, canonical: `{"mode":"arena","board":"medium","speed":"normal","timeLimit":600,"food":3}`},
		{config: `{"food":1}`, canonical: `{"mode":"arena","board":"medium","speed":"normal","timeLimit":120,"food":1}`},
		{config: `{"food":16}`, canonical: `{"mode":"arena","board":"medium","speed":"normal","timeLimit":120,"food":16}`},
		{config: `{"mode":"duel"}`, err: `mode must be "arena", got "duel"`},
		{config: `{"mode":null}`, err: `mode must be "arena"`},
		{config: `{"board":"huge"}`, err: `board must be "small", "medium" or "large", got "huge"`},
		{config: `{"board":"Small"}`, err: `board must be`},
		{config: `{"board":null}`, err: `board must be`},
		{config: `{"board":1}`, err: `board must be`},
		{config: `{"speed":"ludicrous"}`, err: `speed must be "slow", "normal" or "fast"`},
		{config: `{"speed":""}`, err: `speed must be`},
		{config: `{"timeLimit":29}`, err: "timeLimit must be an integer from 30 to 600, got 29"},
		{config: `{"timeLimit":601}`, err: "got 601"},
		{config: `{"timeLimit":60.5}`, err: "got 60.5"},
		{config: `{"timeLimit":"60"}`, err: `got "60"`},
		{config: `{"timeLimit":null}`, err: "got null"},
		{config: `{"food":0}`, err: "food must be an integer from 1 to 16, got 0"},
		{config: `{"food":17}`, err: "got 17"},
		{config: `{"food":-1}`, err: "got -1"},
		{config: `{"food":3,"food":4}`, err: `duplicate key "food"`},
		{config: `{"Board":"small"}`, err: `unknown config field "Board"`},
		{config: `{"seats":4}`, err: `unknown config field "seats"`},
		{config: `[]`, err: "config must be a JSON object"},
		{config: `"medium"`, err: "config must be a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.config, func(t *testing.T) {
			setup, err := Game.Configure(json.RawMessage(tt.config))
			_, newErr := Game.New(session.IntSeed(1), json.RawMessage(tt.config), 2)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.HasPrefix(err.Error(), "snake config: ") {
					t.Fatalf("Configure: error %v, want one naming %q", err, tt.err)
				}
				if newErr == nil {
					t.Fatalf("New accepted the config")
				}
				return
			}
			if err != nil || newErr != nil {
				t.Fatalf("Configure: %v; New: %v", err, newErr)
			}
			wantMax := MaxSeats
			if strings.Contains(tt.canonical, `"board":"small"`) {
				wantMax = 4 // a room admits no more players than the board holds
			}
			if setup.Mode.MaxSeats != wantMax {
				t.Errorf("setup's mode admits %d seats, want %d", setup.Mode.MaxSeats, wantMax)
			}
			if setup.Mode.ID != ModeArena || string(setup.Config) != tt.canonical || setup.Board != tt.board {
				t.Errorf("setup %s %s board %q, want %s board %q", setup.Mode.ID, setup.Config, setup.Board, tt.canonical, tt.board)
			}
			again, err := Game.Configure(setup.Config)
			if err != nil || string(again.Config) != tt.canonical {
				t.Errorf("the canonical config configures as %s, %v", again.Config, err)
			}
		})
	}
}

// Configs built in Go: the zero value is the default game, and Validate
// guards Init.
func TestConfigInGo(t *testing.T) {
	for _, c := range []Config{{Mode: "duel"}, {Board: "huge"}, {Speed: "warp"}, {TimeLimit: 10}, {TimeLimit: 700}, {Food: -1}, {Food: 17}} {
		if _, err := (Rules{}).Init(session.IntSeed(1), c, 2); err == nil {
			t.Errorf("Init accepted %+v", c)
		} else if rej := asRejection(t, err); rej.Code != session.CodeInvalidConfig {
			t.Errorf("Init(%+v): %v", c, rej)
		}
		if _, err := setup(c); err == nil {
			t.Errorf("setup accepted %+v", c)
		}
	}
	if got := encode(t, Config{}); got != `{"mode":"arena","board":"medium","speed":"normal","timeLimit":120,"food":3}` {
		t.Errorf("Config{} encodes as %s", got)
	}
	v := Rules{}.Project(initState(t, 1, Config{Board: BoardLarge, Speed: SpeedFast, TimeLimit: 30}, 2), session.Spectator)
	if v.Rows != 32 || v.Cols != 32 || v.MovesEvery != 2 || v.Start != 60 || v.End != 660 || len(v.Food) != 3 {
		t.Errorf("view %s", encode(t, v))
	}
}

func TestSeatCounts(t *testing.T) {
	for _, b := range Boards() {
		for seats := -1; seats <= MaxSeats+1; seats++ {
			t.Run(fmt.Sprintf("%s %d seats", b.ID, seats), func(t *testing.T) {
				_, err := Rules{}.Init(session.IntSeed(1), Config{Board: b.ID}, seats)
				if ok := seats >= 1 && seats <= b.MaxSeats; ok != (err == nil) {
					t.Fatalf("Init: %v", err)
				}
				if err != nil {
					if rej := asRejection(t, err); rej.Code != session.CodeInvalidConfig || rej.Malformed {
						t.Errorf("rejection %+v", rej)
					}
				}
				_, err = Game.New(session.IntSeed(1), json.RawMessage(`{"board":"`+b.ID+`"}`), seats)
				if ok := seats >= MinSeats && seats <= b.MaxSeats; ok != (err == nil) {
					t.Errorf("New: %v", err)
				}
			})
		}
	}
}

// Every board's spawn slots, for every seat count it allows: the cells of
// all the snakes and of their next four moves straight on are distinct and
// on the board, each snake is a chain behind its head, and the snakes all
// live through four moves when nobody turns.
func TestSpawn(t *testing.T) {
	for _, b := range Boards() {
		seen := map[Cell]int{}
		for slot := range b.MaxSeats {
			body, d := spawn(b.Rows, b.Cols, slot)
			path := append([]Cell{}, body[:]...)
			for i, at := 1, body[0]; i <= 4; i++ {
				at = neighbour(at, d)
				path = append(path, at)
			}
			for _, at := range path {
				if at[0] < 0 || at[0] >= b.Rows || at[1] < 0 || at[1] >= b.Cols {
					t.Errorf("%s slot %d: %v is off the board", b.ID, slot, at)
				}
				if other, ok := seen[at]; ok {
					t.Errorf("%s slot %d: %v is slot %d's too", b.ID, slot, at, other)
				}
				seen[at] = slot
			}
			for i := 1; i < len(body); i++ {
				if neighbour(body[i], d) != body[i-1] {
					t.Errorf("%s slot %d: body %v does not follow %v", b.ID, slot, body, d)
				}
			}
			// It faces away from the nearest wall: towards the middle.
			mid := Cell{b.Rows / 2, b.Cols / 2}
			if dist(neighbour(body[0], d), mid) >= dist(body[0], mid) {
				t.Errorf("%s slot %d: %v heads away from the middle", b.ID, slot, d)
			}
		}
		for seats := 1; seats <= b.MaxSeats; seats++ {
			s := initState(t, 7, Config{Board: b.ID, Food: 16}, seats)
			for tick := uint64(1); tick <= Countdown+4*3; tick++ {
				_, events := Rules{}.Step(s, tick, nil)
				for _, e := range events {
					if e.Type == EventDie || e.Type == EventOver {
						t.Fatalf("%s, %d seats, tick %d: %s", b.ID, seats, tick, eventsJSON(t, events))
					}
				}
			}
		}
	}
}

func dist(a, b Cell) int { return abs(a[0]-b[0]) + abs(a[1]-b[1]) }
