package spellgridgame

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/session/sessiontest"
)

// solution is a level's known solution: a function of the view for the
// commands whose target ids are read from it.
type solution func(t sessiontest.TB, s *session.GameSession)

// solutions holds the known solution of every level.
var solutions = map[string]solution{
	// Play the Rune Scribe after FLAG IS, Fireball it: its Deathrattle
	// writes WIN there, and the baba walks to the flag.
	"scribe": func(t sessiontest.TB, s *session.GameSession) {
		apply(t, s, play("Rune Scribe", 2, 2))
		scribe := minionAt(view(s), 2, 2)
		apply(t, s, cast("Fireball", scribe))
		if !slices.Contains(view(s).ActiveRules, "FLAG IS WIN") {
			t.Fatalf("no FLAG IS WIN after the scribe died: %v", view(s).ActiveRules)
		}
		playAll(t, s, steps("right", 2))
	},
	// Push DOUBLE under DEATHRATTLE IS, then Fireball the ghoul: its
	// Deathrattle, twice, kills both raptors that block the corridor.
	"double": func(t sessiontest.TB, s *session.GameSession) {
		playAll(t, s, steps("up", 2), steps("right", 3), steps("up", 2))
		if !slices.Contains(view(s).ActiveRules, "DEATHRATTLE IS DOUBLE") {
			t.Fatalf("no DEATHRATTLE IS DOUBLE: %v", view(s).ActiveRules)
		}
		apply(t, s, cast("Fireball", minionAt(view(s), 7, 2)))
		if n := len(view(s).Minions); n != 0 {
			t.Fatalf("%d minions left: %+v", n, view(s).Minions)
		}
		playAll(t, s, steps("down", 2), steps("left", 3), steps("down", 2), steps("right", 5))
	},
	// Fireball the golem, then Whirlwind the Damaged Golem it leaves.
	"golem": func(t sessiontest.TB, s *session.GameSession) {
		apply(t, s, cast("Fireball", minionAt(view(s), 3, 4)))
		if m := view(s).Minions; len(m) != 1 || m[0].Name != "Damaged Golem" {
			t.Fatalf("minions after the Fireball: %+v", m)
		}
		apply(t, s, cast("Whirlwind", 0))
		playAll(t, s, steps("right", 6))
	},
}

// playAll plays lists of commands.
func playAll(t sessiontest.TB, s *session.GameSession, lists ...[]json.RawMessage) {
	t.Helper()
	for _, l := range lists {
		for _, c := range l {
			apply(t, s, c)
		}
	}
}

// Every level has a known solution that wins it, and no sooner than its
// last command.
func TestLevels_SolutionsWin(t *testing.T) {
	for _, id := range Levels() {
		t.Run(id, func(t *testing.T) {
			sol, ok := solutions[id]
			if !ok {
				t.Fatal("no known solution")
			}
			s := newSession(t, id)
			sol(t, s)
			v := view(s)
			if st := s.Status(); !v.Won || st.Phase != PhaseWon || !st.Over || !slices.Equal(st.Outcome.Winners, []session.Seat{0}) {
				t.Fatalf("not won: view won %v, status %+v", v.Won, st)
			}
			if len(s.Match().Pending()) != 0 {
				t.Fatalf("pending %v after the win", s.Match().Pending())
			}
			follow(t, id, s.Log())
		})
	}
}

// The levels need what they are about: the scribe level is not won
// without the scribe's text, the double level's Fireball on the ghoul
// leaves the raptors alive without DOUBLE, and the golem level's spells
// in the other order leave a golem in the way.
func TestLevels_NeedTheirIdea(t *testing.T) {
	s := newSession(t, "double")
	apply(t, s, cast("Fireball", minionAt(view(s), 7, 2)))
	if m := view(s).Minions; len(m) != 2 || m[0].Health != 1 || m[1].Health != 1 {
		t.Fatalf("without DOUBLE, minions %+v, want two raptors at 1 health", m)
	}
	s = newSession(t, "golem")
	apply(t, s, cast("Whirlwind", 0))
	apply(t, s, cast("Fireball", minionAt(view(s), 3, 4)))
	if m := view(s).Minions; len(m) != 1 || m[0].Name != "Damaged Golem" {
		t.Fatalf("Whirlwind first: minions %+v, want a Damaged Golem", m)
	}
	playAll(t, s, steps("right", 6))
	if view(s).Won {
		t.Fatal("won through a golem")
	}
	s = newSession(t, "scribe")
	playAll(t, s, steps("right", 2))
	if view(s).Won {
		t.Fatal("won without FLAG IS WIN")
	}
}

// follow plays a log again while following its events from the start
// view, which must give the server's view after every command.
func follow(t *testing.T, level string, log []session.Entry) {
	t.Helper()
	s := newSession(t, level)
	followed := view(s)
	for i, e := range log {
		st := apply(t, s, e.Move)
		followed.Apply(st.Beats(session.Spectator).([]Event))
		if got, want := encode(t, followed), encode(t, view(s)); got != want {
			t.Fatalf("command %d %s: followed view\n%s\nserver's\n%s", i, e.Move, got, want)
		}
	}
}

// solutionLog returns the log of a level's known solution.
func solutionLog(t sessiontest.TB, level string) []session.Entry {
	s := newSession(t, level)
	solutions[level](t, s)
	return s.Log()
}
