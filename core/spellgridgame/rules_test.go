package spellgridgame

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/roomd/roomd/core/baba"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/session/sessiontest"
	"github.com/roomd/roomd/core/spellgrid"
)

func TestInfoAndSetup(t *testing.T) {
	info := Game.Info()
	if info.ID != "spellgrid" || info.Name != "SpellGrid" || info.RulesVersion != "spellgrid/1" {
		t.Fatalf("info %+v", info)
	}
	if len(info.Modes) != 1 || info.Modes[0] != (session.Mode{ID: "solo", Name: "Solo", MinSeats: 1, MaxSeats: 1}) {
		t.Fatalf("modes %+v", info.Modes)
	}
	if info.Ranking != nil || info.Tick != nil {
		t.Fatal("a leaderboard or a tick")
	}
	for raw, want := range map[string]string{`{}`: `{"level":"scribe"}`, `null`: `{"level":"scribe"}`, `{"level":"golem"}`: `{"level":"golem"}`} {
		setup, err := Game.Configure(json.RawMessage(raw))
		if err != nil || string(setup.Config) != want || setup.Mode.ID != ModeSolo || setup.Board != "" {
			t.Errorf("Configure(%s) = %s %+v, %v; want %s", raw, setup.Config, setup.Mode, err, want)
		}
	}
	if got := Levels(); !slices.Equal(got, []string{"scribe", "double", "golem"}) {
		t.Fatalf("levels %v", got)
	}
}

func TestConfigsRefused(t *testing.T) {
	for _, raw := range []string{`{"level":"nowhere"}`, `{"level":""}`, `{"level":null}`, `{"Level":"scribe"}`, `{"level":"scribe","level":"golem"}`, `[]`, `"scribe"`} {
		if _, err := Game.Configure(json.RawMessage(raw)); err == nil {
			t.Errorf("Configure(%s) accepted", raw)
		}
	}
	if err := (&Config{Level: "nowhere"}).Validate(); err == nil {
		t.Error("Validate accepts an unknown level")
	}
}

func TestSeats(t *testing.T) {
	for _, seats := range []int{0, 2} {
		if _, err := Game.New(session.IntSeed(1), nil, seats); err == nil {
			t.Errorf("%d seats accepted", seats)
		}
	}
}

// Every refusal, through a session: typed, not logged, nothing changed.
func TestRefusals(t *testing.T) {
	won := func(t *testing.T) *session.GameSession {
		s := newSession(t, "golem")
		solutions["golem"](t, s)
		return s
	}
	fresh := func(level string) func(*testing.T) *session.GameSession {
		return func(t *testing.T) *session.GameSession { return newSession(t, level) }
	}
	for _, tt := range []struct {
		name    string
		session func(*testing.T) *session.GameSession
		command json.RawMessage
		seat    session.Seat
		code    string
		bad     bool
	}{
		{"not in hand", fresh("golem"), cast("Flamestrike", 0), 0, CodeNotInHand, false},
		{"not a spell", fresh("scribe"), cast("Rune Scribe", 0), 0, CodeNotASpell, false},
		{"not a minion", fresh("scribe"), play("Fireball", 2, 2), 0, CodeNotAMinion, false},
		{"no target", fresh("scribe"), cast("Fireball", 0), 0, CodeInvalidTarget, false},
		{"target no minion", fresh("scribe"), cast("Fireball", 1), 0, CodeInvalidTarget, false},
		{"target unknown", fresh("scribe"), cast("Fireball", 999), 0, CodeInvalidTarget, false},
		{"tile taken", fresh("scribe"), play("Rune Scribe", 0, 0), 0, CodeTileNotFree, false},
		{"tile off the level", fresh("scribe"), play("Rune Scribe", 7, 0), 0, session.CodeOutOfBounds, true},
		{"nothing to undo", fresh("scribe"), undo(), 0, CodeNothingToUndo, false},
		{"nothing to restart", fresh("scribe"), restart(), 0, CodeNothingToUndo, false},
		{"step after the win", won, step("left"), 0, session.CodeGameOver, false},
		{"cast after the win", won, cast("Fireball", 1), 0, session.CodeGameOver, false},
		{"no such seat", fresh("scribe"), step("up"), 1, session.CodeNoSuchSeat, true},
		{"unknown type", fresh("scribe"), cmd(`{"type":"fly"}`), 0, session.CodeUnknownMove, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.session(t)
			before, logged := sessiontest.Everything(t, s.Match(), Seats), len(s.Log())
			_, err := s.Apply(tt.seat, tt.command)
			rej := sessiontest.AsRejection(t, err)
			if rej.Code != tt.code || rej.Malformed != tt.bad {
				t.Fatalf("rejection %+v, want %s (malformed %v)", rej, tt.code, tt.bad)
			}
			if after := sessiontest.Everything(t, s.Match(), Seats); after != before || len(s.Log()) != logged {
				t.Fatalf("a refusal changed the match:\n%s\n%s", before, after)
			}
		})
	}
}

// Undo drops the last command and restart all of them; both stay allowed
// after the win, which undo takes back.
func TestUndoAndRestart(t *testing.T) {
	s := newSession(t, "golem")
	start := encode(t, view(s))
	apply(t, s, cast("Fireball", minionAt(view(s), 3, 4)))
	afterFireball := encode(t, view(s))
	apply(t, s, cast("Whirlwind", 0))
	apply(t, s, undo())
	if got := encode(t, view(s)); got != afterFireball {
		t.Fatalf("undo gives %s, want %s", got, afterFireball)
	}
	apply(t, s, cast("Whirlwind", 0))
	playAll(t, s, steps("right", 6))
	if !s.Status().Over {
		t.Fatal("not won")
	}
	apply(t, s, undo())
	if st := s.Status(); st.Over || st.Phase != PhasePlaying || view(s).Won || view(s).Moves != 7 {
		t.Fatalf("after undoing the winning step: %+v, view %s", st, encode(t, view(s)))
	}
	apply(t, s, restart())
	if got := encode(t, view(s)); got != start {
		t.Fatalf("restart gives %s, want %s", got, start)
	}
	if s.Status().Started {
		t.Fatal("started after a restart")
	}
}

// A lost level (no YOU) is not over: a step is still accepted, and undo
// takes the loss back.
func TestLostIsNotTerminal(t *testing.T) {
	r := Rules{}
	s := testState(t, `{"width":5,"height":4,"objects":[{"kind":"text:BABA","x":0,"y":1},{"kind":"text:IS","x":1,"y":1},
		{"kind":"text:YOU","x":2,"y":1},{"kind":"baba","x":1,"y":3}]}`)
	for _, m := range []Move{{Type: MoveStep, Dir: baba.Up}, {Type: MoveStep, Dir: baba.Up}} {
		if _, _, err := r.Apply(s, session.Input[Move]{Move: m}); err != nil {
			t.Fatal(err)
		}
	}
	if v := r.Project(s, 0); !v.Lost || r.Status(s).Over || len(r.Pending(s)) != 1 {
		t.Fatalf("lost %v, status %+v", v.Lost, r.Status(s))
	}
	if _, _, err := r.Apply(s, session.Input[Move]{Move: Move{Type: MoveStep, Dir: baba.Left}}); err != nil {
		t.Fatalf("a step when lost: %v", err)
	}
	for range 2 {
		if _, _, err := r.Apply(s, session.Input[Move]{Move: Move{Type: MoveUndo}}); err != nil {
			t.Fatal(err)
		}
	}
	if r.Project(s, 0).Lost {
		t.Fatal("still lost after undo")
	}
}

// testState is a state on a level of the test's, not an embedded one.
func testState(t *testing.T, level string) *State {
	t.Helper()
	var def baba.LevelDef
	if err := json.Unmarshal([]byte(level), &def); err != nil {
		t.Fatal(err)
	}
	g, err := spellgrid.New(def, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &State{level: Level{ID: "test", Level: def}, grid: g, cache: []*spellgrid.SpellGrid{g.Clone()}}
}

// Undo across the cached copies of the engine rebuilds the same grid as a
// replay from the start.
func TestUndoAcrossCache(t *testing.T) {
	r := Rules{}
	s, err := r.Init(session.IntSeed(1), Config{Level: "double"}, Seats)
	if err != nil {
		t.Fatal(err)
	}
	dirs := []baba.Dir{baba.Up, baba.Right, baba.Down, baba.Left, baba.Up, baba.Up, baba.Right}
	n := 3*CacheEvery + 5
	for i := range n {
		if _, _, err := r.Apply(s, session.Input[Move]{Move: Move{Type: MoveStep, Dir: dirs[i%len(dirs)]}}); err != nil {
			t.Fatal(err)
		}
	}
	if len(s.cache) != 4 {
		t.Fatalf("%d copies, want 4", len(s.cache))
	}
	for k := n - 1; k >= CacheEvery-2; k-- {
		if _, _, err := r.Apply(s, session.Input[Move]{Move: Move{Type: MoveUndo}}); err != nil {
			t.Fatal(err)
		}
		fresh, _ := r.Init(session.IntSeed(1), Config{Level: "double"}, Seats)
		for _, m := range s.commands {
			if err := run(fresh.grid, m); err != nil {
				t.Fatal(err)
			}
		}
		if len(s.commands) != k || !reflect.DeepEqual(s.grid.Snapshot(), fresh.grid.Snapshot()) {
			t.Fatalf("after undo to %d commands the grid differs from a replay", k)
		}
	}
}

// Every viewer gets the same view, in one audience.
func TestOneViewForEveryone(t *testing.T) {
	s := newSession(t, "scribe")
	apply(t, s, play("Rune Scribe", 2, 2))
	m := s.Match()
	if encode(t, m.View(0)) != encode(t, m.View(session.Spectator)) || m.Audience(0) != 0 || m.Audience(session.Spectator) != 0 {
		t.Fatal("viewers differ")
	}
	if v := view(s); !slices.Equal(v.Hand, []string{"Fireball"}) || len(v.Minions) != 1 || v.Minions[0].Name != "Rune Scribe" {
		t.Fatalf("view %s", encode(t, v))
	}
}
