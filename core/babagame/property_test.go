package babagame

import (
	"encoding/json"
	"testing"

	"github.com/roomd/roomd/core/baba"
	"github.com/roomd/roomd/core/session"
	"pgregory.net/rapid"
)

// randomGame plays random commands (mostly steps, some undos and
// restarts, by random seats) on a random level, control and seat count. It
// checks after every command that a client following the events holds the
// server's view byte for byte, that a refused command changed nothing, and
// after every undo and restart that the engine equals the level replayed
// from its start. It returns the session and its seat count.
func randomGame(t *rapid.T) (*session.GameSession, int) {
	level := rapid.SampledFrom(LevelIDs).Draw(t, "level")
	control := rapid.SampledFrom([]string{ControlShared, ControlTurns}).Draw(t, "control")
	seats := rapid.IntRange(MinSeats, MaxSeats).Draw(t, "seats")
	s := newSession(t, levelConfig(level, control), seats)
	m := s.Match()
	followed := m.View(session.Spectator).(View)
	n := rapid.IntRange(0, 200).Draw(t, "commands")
	for i := range n {
		seat := rapid.IntRange(0, seats-1).Draw(t, "seat")
		letter := rapid.SampledFrom([]byte("uuddllrrrrzzx")).Draw(t, "command")
		before := everything(t, m, seats)
		st, err := s.Apply(seat, command(letter))
		if err != nil {
			if rej := asRejection(t, err); rej.Malformed {
				t.Fatalf("command %d: %c by seat %d malformed: %v", i, letter, seat, rej)
			}
			if after := everything(t, m, seats); after != before {
				t.Fatalf("command %d: refused %c changed the match", i, letter)
			}
			continue
		}
		for _, v := range sessionViewers(seats) {
			got := followed
			got.Apply(st.Beats(v).([]Event))
			if g, w := encode(t, got), encode(t, m.View(v)); g != w {
				t.Fatalf("command %d (%c), viewer %d: followed view\n%s\nserver's\n%s", i, letter, v, g, w)
			}
		}
		followed.Apply(st.Beats(session.Spectator).([]Event))
		if letter == 'z' || letter == 'x' {
			checkReplayed(t, stateOf(t, m))
		}
	}
	checkReplayed(t, stateOf(t, m))
	return s, seats
}

// checkReplayed checks the state's engine against its level stepped
// through its directions from a fresh start.
func checkReplayed(t tb, s *State) {
	t.Helper()
	fresh, err := baba.New(s.h.level.Def)
	if err != nil {
		t.Fatalf("%v", err)
	}
	for _, d := range s.h.dirs {
		fresh.Step(d)
	}
	if got, want := encode(t, s.snap), encode(t, fresh.Snapshot()); got != want {
		t.Fatalf("after %d steps the engine is\n%s\nreplayed\n%s", len(s.h.dirs), got, want)
	}
	if len(s.h.cache) != len(s.h.dirs)/CacheEvery+1 {
		t.Fatalf("%d cached clones for %d steps", len(s.h.cache), len(s.h.dirs))
	}
}

// Random games: a follower holds the server's view, undo and restart give
// the replayed engine, and session.ReplayMatch of the log gives the same
// match.
func TestRandomGames(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s, seats := randomGame(t)
		rec := session.Record{Seed: session.IntSeed(1), Config: s.Config(), Seats: seats, Log: s.Log()}
		v, replayed := session.ReplayMatch(Game, rec)
		if v.Status != s.Status().Phase {
			t.Fatalf("replay %+v, the session's status %+v", v, s.Status())
		}
		if got, want := everything(t, replayed, seats), everything(t, s.Match(), seats); got != want {
			t.Fatalf("replayed match\n%s\nthe session's\n%s", got, want)
		}
	})
}

// A checkpoint taken after any command, resumed, then the rest of the log,
// is the whole game: the same match, the same clock, the same result.
func TestCheckpointResume(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		whole, seats := randomGame(t)
		log := whole.Log()
		at := rapid.IntRange(0, len(log)).Draw(t, "at")

		part, err := session.Restore(Game, whole.Header(), nil, log[:at], 0, nil)
		if err != nil {
			t.Fatalf("replaying the first %d commands: %v", at, err)
		}
		cp, err := part.Save()
		if err != nil || cp == nil || cp.At != at {
			t.Fatalf("Save after %d commands: %+v, %v", at, cp, err)
		}
		data, err := json.Marshal(cp) // as a room stores it
		if err != nil {
			t.Fatal(err)
		}
		var stored session.Checkpoint
		if err := json.Unmarshal(data, &stored); err != nil {
			t.Fatal(err)
		}
		resumed, err := session.Restore(Game, whole.Header(), &stored, log, 0, nil)
		if err != nil {
			t.Fatalf("restore from the checkpoint after %d commands: %v", at, err)
		}
		if got, want := everything(t, resumed.Match(), seats), everything(t, whole.Match(), seats); got != want {
			t.Fatalf("resumed after %d commands:\n%s\nwhole:\n%s", at, got, want)
		}
		checkReplayed(t, stateOf(t, resumed.Match()))
		got, _ := resumed.Result()
		want, _ := whole.Result()
		if encode(t, got) != encode(t, want) {
			t.Fatalf("resumed result %s, whole %s", encode(t, got), encode(t, want))
		}
	})
}
