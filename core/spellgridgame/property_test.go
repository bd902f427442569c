package spellgridgame

import (
	"encoding/json"
	"testing"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/session/sessiontest"
	"pgregory.net/rapid"
)

// randomCommand draws a command a client could send on view v: mostly
// steps, and casts, plays, undos and restarts, some of them refused.
func randomCommand(t *rapid.T, v View) json.RawMessage {
	cardsOf := append([]string{"Fireball", "Whirlwind", "Rune Scribe"}, v.Hand...)
	switch rapid.IntRange(0, 9).Draw(t, "kind") {
	case 0, 1:
		target := 0
		if len(v.Minions) > 0 && rapid.IntRange(0, 3).Draw(t, "aim") > 0 {
			target = int(rapid.SampledFrom(v.Minions).Draw(t, "target").ID)
		} else if rapid.Bool().Draw(t, "any") {
			target = rapid.IntRange(1, 40).Draw(t, "id")
		}
		return cast(rapid.SampledFrom(cardsOf).Draw(t, "card"), target)
	case 2:
		return play(rapid.SampledFrom(cardsOf).Draw(t, "card"), rapid.IntRange(0, v.Width-1).Draw(t, "x"), rapid.IntRange(0, v.Height-1).Draw(t, "y"))
	case 3:
		if rapid.IntRange(0, 4).Draw(t, "restart") == 0 {
			return restart()
		}
		return undo()
	}
	return step(rapid.SampledFrom([]string{"up", "down", "left", "right"}).Draw(t, "dir"))
}

// randomMatch plays, on a random level, a random part of its known
// solution (so that some matches are won, and go on with undo), then random
// commands, and checks, after each, that a client following the events holds the server's view byte
// for byte, and that a refused command changed nothing. It returns the
// session.
func randomMatch(t *rapid.T) *session.GameSession {
	level := rapid.SampledFrom(Levels()).Draw(t, "level")
	solution := solutionLog(t, level)
	solution = solution[:rapid.IntRange(0, len(solution)).Draw(t, "solved")]
	s := newSession(t, level)
	m := s.Match()
	followed := view(s)
	for i := range len(solution) + rapid.IntRange(1, 80).Draw(t, "commands") {
		var command json.RawMessage
		if i < len(solution) {
			command = solution[i].Move
		} else {
			command = randomCommand(t, followed)
		}
		before, logged := sessiontest.Everything(t, m, Seats), len(s.Log())
		st, err := s.Apply(0, command)
		if err != nil {
			if rej := sessiontest.AsRejection(t, err); rej.Malformed {
				t.Fatalf("command %d %s: malformed %v", i, command, rej)
			}
			if after := sessiontest.Everything(t, m, Seats); after != before || len(s.Log()) != logged {
				t.Fatalf("command %d %s refused (%v) and changed the match", i, command, err)
			}
			continue
		}
		followed.Apply(st.Beats(session.Spectator).([]Event))
		if got, want := encode(t, followed), encode(t, m.View(session.Spectator)); got != want {
			t.Fatalf("command %d %s: followed view\n%s\nserver's\n%s", i, command, got, want)
		}
	}
	return s
}

// A client following events holds the server's view.
func TestProperty_EventsReproduceView(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { randomMatch(t) })
}

// session.ReplayMatch of a match's log reaches the same status and final
// view.
func TestProperty_Replay(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := randomMatch(t)
		rec := session.Record{Seed: session.IntSeed(1), Config: s.Config(), Log: s.Log()}
		v, m := session.ReplayMatch(Game, rec)
		if m == nil || v.Status != s.Status().Phase || v.Valid != s.Status().Over {
			t.Fatalf("verdict %+v, status %+v", v, s.Status())
		}
		if got, want := sessiontest.Everything(t, m, Seats), sessiontest.Everything(t, s.Match(), Seats); got != want {
			t.Fatalf("replay ends in\n%s\nthe match in\n%s", got, want)
		}
	})
}

// A checkpoint after any command, resumed through session.Restore, plus
// the rest of the log, equals the whole match.
func TestProperty_CheckpointResume(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := randomMatch(t)
		log := s.Log()
		cut := rapid.IntRange(0, len(log)).Draw(t, "cut")
		part, err := session.NewSession(Game, session.IntSeed(1), s.Config(), Seats, func() float64 { return 0 })
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range log[:cut] {
			if _, err := part.ApplyAt(e.Seat, e.Move, e.T); err != nil {
				t.Fatal(err)
			}
		}
		data, err := part.Match().Checkpoint()
		if err != nil {
			t.Fatal(err)
		}
		m, err := Game.Resume(session.IntSeed(1), s.Config(), Seats, data)
		if err != nil {
			t.Fatalf("resume %s: %v", data, err)
		}
		for _, e := range log[cut:] {
			if _, err := m.Apply(session.Command{Seat: e.Seat, Move: e.Move, T: e.T}); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := sessiontest.Everything(t, m, Seats), sessiontest.Everything(t, s.Match(), Seats); got != want {
			t.Fatalf("resumed match ends in\n%s\nthe match in\n%s", got, want)
		}
	})
}
