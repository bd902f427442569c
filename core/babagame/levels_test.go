package babagame

import (
	"encoding/json"
	"io/fs"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/session"
)

// solutions are the levels' known solutions, one letter of "udlr" a step,
// and for each a way in which it is lost (nothing left YOU), or "" where
// the level cannot be lost.
var solutions = []struct {
	level, solution, loss string
}{
	{"baba-is-you", "rrrrrr", ""},
	{"rock-is-you", "uurddd", ""},
	{"wall-is-stop", "uurrrrr", ""},
	{"rock-is-flag", "ddlllu", ""},
	{"water-is-sink", "rrrrrr", "urrrr"},
	{"lava-is-hot", "rrrrrr", "ddrrrr"},
}

// Every level's solution wins it on its last step, and not before.
func TestLevelSolutions(t *testing.T) {
	if len(solutions) != len(LevelIDs) {
		t.Fatalf("%d solutions for %d levels", len(solutions), len(LevelIDs))
	}
	for i, tt := range solutions {
		t.Run(tt.level, func(t *testing.T) {
			if LevelIDs[i] != tt.level {
				t.Fatalf("level %d is %s", i, LevelIDs[i])
			}
			s := newSession(t, levelConfig(tt.level, ControlShared), 1)
			for j := range len(tt.solution) {
				if s.Status().Over {
					t.Fatalf("won after %d of %d steps", j, len(tt.solution))
				}
				play(t, s, 0, tt.solution[j:j+1])
			}
			v := s.Match().View(0).(View)
			if st := s.Status(); !st.Over || st.Phase != PhaseWon || !v.Won || v.Lost || v.Moves != len(tt.solution) {
				t.Fatalf("status %+v, view won %v lost %v moves %d", st, v.Won, v.Lost, v.Moves)
			}
			if _, err := s.Apply(0, step('l')); asRejection(t, err).Code != CodeFinished {
				t.Errorf("a step after the win: %v", err)
			}
		})
	}
}

// The levels that can be lost are lost by their losing line, which is not
// the end: undo brings YOU back.
func TestLevelLosses(t *testing.T) {
	for _, tt := range solutions {
		if tt.loss == "" {
			continue
		}
		t.Run(tt.level, func(t *testing.T) {
			s := newSession(t, levelConfig(tt.level, ControlShared), 1)
			play(t, s, 0, tt.loss)
			v := s.Match().View(0).(View)
			if !v.Lost || v.Won || s.Status().Over || s.Status().Phase != PhasePlaying {
				t.Fatalf("after %q: view lost %v won %v, status %+v", tt.loss, v.Lost, v.Won, s.Status())
			}
			play(t, s, 0, "r") // a step while lost is a turn like any other
			play(t, s, 0, "zz")
			if v := s.Match().View(0).(View); v.Lost || v.Moves != len(tt.loss)-1 {
				t.Fatalf("after two undos: lost %v, moves %d", v.Lost, v.Moves)
			}
			play(t, s, 0, "x"+tt.solution)
			if !s.Status().Over {
				t.Fatal("the solution after a restart does not win")
			}
		})
	}
}

// The rules the levels teach: what is read at the start.
func TestLevelRules(t *testing.T) {
	want := map[string][]string{
		"baba-is-you":   {"BABA IS YOU", "FLAG IS WIN", "ROCK IS PUSH", "TEXT IS PUSH"},
		"rock-is-you":   {"BABA IS YOU", "FLAG IS WIN", "TEXT IS PUSH", "WALL IS STOP"},
		"wall-is-stop":  {"BABA IS YOU", "FLAG IS WIN", "TEXT IS PUSH", "WALL IS STOP"},
		"rock-is-flag":  {"BABA IS YOU", "FLAG IS WIN", "TEXT IS PUSH"},
		"water-is-sink": {"BABA IS YOU", "FLAG IS WIN", "ROCK IS PUSH", "TEXT IS PUSH", "WATER IS SINK"},
		"lava-is-hot":   {"BABA IS MELT", "BABA IS YOU", "FLAG IS WIN", "LAVA IS HOT", "TEXT IS PUSH"},
	}
	for _, id := range LevelIDs {
		m, err := Game.New(session.IntSeed(1), json.RawMessage(`{"level":"`+id+`"}`), 1)
		if err != nil {
			t.Fatal(err)
		}
		v := m.View(0).(View)
		if !slices.Equal(v.Rules, want[id]) || !slices.Equal(v.ActiveRules, want[id]) || v.Won || v.Lost {
			t.Errorf("%s: rules %q, active %q, won %v, lost %v", id, v.Rules, v.ActiveRules, v.Won, v.Lost)
		}
	}
}

// Every embedded level is listed, has a title and builds.
func TestLevelFiles(t *testing.T) {
	files, err := fs.Glob(levelFiles, "levels/*.json")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, f := range files {
		ids = append(ids, strings.TrimSuffix(path.Base(f), ".json"))
	}
	if !slices.Equal(slices.Sorted(slices.Values(ids)), slices.Sorted(slices.Values(LevelIDs))) {
		t.Errorf("files %v, listed %v", ids, LevelIDs)
	}
	for _, id := range LevelIDs {
		l, ok := LevelByID(id)
		if !ok || l.Def.Title == "" || l.ID != id {
			t.Errorf("level %s: %+v, %v", id, l, ok)
		}
	}
	if _, ok := LevelByID("nope"); ok {
		t.Error("LevelByID(nope)")
	}
	if _, err := loadLevel("nope"); err == nil {
		t.Error("loadLevel(nope)")
	}
}

// A conversion keeps the id and changes the kind: on Rock Is Flag, the
// step that spells ROCK IS FLAG turns the rock into a flag.
func TestConversionDelta(t *testing.T) {
	s := newSession(t, `{"level":"rock-is-flag"}`, 1)
	play(t, s, 0, "d")
	st, err := s.Apply(0, step('d'))
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"type":"delta","moved":[{"id":9,"kind":"text:FLAG","x":6,"y":4},{"id":10,"kind":"flag","x":3,"y":2},{"id":11,"kind":"baba","x":6,"y":3}],` +
		`"rulesAdded":["ROCK IS FLAG"],"activeAdded":["ROCK IS FLAG"],"won":false,"lost":false,"moves":2}]`
	if got := encode(t, st.Beats(0)); got != want {
		t.Errorf("events\n got %s\nwant %s", got, want)
	}
}
