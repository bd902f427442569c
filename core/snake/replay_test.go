package snake

import (
	"encoding/json"
	"testing"

	"github.com/roomd/roomd/core/session"
)

// aiSession plays a whole match through a session, every seat the AI's:
// each tick, every pending seat's AI move (from its own view) is queued as
// an input, then the tick runs.
func aiSession(t *testing.T, seed int64, config string, seats int) *session.GameSession {
	t.Helper()
	s, err := session.NewSession(Game, session.IntSeed(seed), json.RawMessage(config), seats, nil)
	if err != nil {
		t.Fatal(err)
	}
	for !s.Status().Over {
		m := s.Match()
		for _, seat := range m.Pending() {
			if command, ok := m.AIMove(seat, session.IntSeed(7).Source()); ok {
				if _, err := s.Input(seat, command, float64(s.Tick())*50); err != nil {
					t.Fatalf("tick %d: seat %d's %s: %v", s.Tick(), seat, command, err)
				}
			}
		}
		if _, err := s.Advance(); err != nil {
			t.Fatal(err)
		}
		if s.Tick() > Countdown+MaxTimeLimit*Hz {
			t.Fatalf("no end after %d ticks", s.Tick())
		}
	}
	return s
}

// A whole AI match's record replays to the same verdict, time and final
// match, byte for byte; and restores from a checkpoint taken at its middle
// to the same match.
func TestReplayAIMatch(t *testing.T) {
	const seats = 4
	s := aiSession(t, 7, `{}`, seats)
	res, ok := s.Result()
	if !ok || len(res.Log) == 0 || len(res.Log) > MaxMoves {
		t.Fatalf("result %+v, %v", res.Status, ok)
	}
	t.Logf("%d ticks, %d inputs, %s, winners %v", s.Tick(), len(res.Log), res.Status, res.Outcome.Winners)
	data := encode(t, session.Record{Seed: res.Seed, Config: res.Config, Seats: seats, Log: res.Log, Ticks: s.Tick()})
	rec, err := session.DecodeRecord([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	v, replayed := session.ReplayMatch(Game, rec)
	if !v.Valid || v.Status != PhaseOver || v.Time != s.Elapsed() || v.Time != float64(s.Tick()-Countdown)*50 {
		t.Fatalf("replay %+v; the session's time %v after %d ticks", v, s.Elapsed(), s.Tick())
	}
	whole := everything(t, s.Match(), seats)
	if got := everything(t, replayed, seats); got != whole {
		t.Fatalf("replayed match\n%s\nthe session's\n%s", got, whole)
	}

	// Restored from its log alone, and from a checkpoint at its middle.
	if r, err := session.Restore(Game, s.Header(), nil, res.Log, s.Tick(), nil); err != nil || everything(t, r.Match(), seats) != whole {
		t.Fatalf("restored from the log: %v", err)
	}
	mid := s.Tick() / 2
	var upto []session.Entry
	for _, e := range res.Log {
		if e.Tick <= mid {
			upto = append(upto, e)
		}
	}
	part, err := session.Restore(Game, s.Header(), nil, upto, mid, nil)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := part.Save()
	if err != nil || cp == nil || cp.Tick != mid {
		t.Fatalf("save at tick %d: %+v, %v", mid, cp, err)
	}
	resumed, err := session.Restore(Game, s.Header(), cp, res.Log, s.Tick(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := everything(t, resumed.Match(), seats); got != whole {
		t.Fatalf("resumed at tick %d:\n%s\nwhole:\n%s", mid, got, whole)
	}
	if got, _ := resumed.Result(); encode(t, got) != encode(t, res) {
		t.Fatalf("resumed result %s, whole %s", encode(t, got), encode(t, res))
	}

	// Another seed replays the inputs into another match.
	rec.Seed = session.IntSeed(8)
	if _, other := session.ReplayMatch(Game, rec); everything(t, other, seats) == whole {
		t.Errorf("seed 8 replays seed 7's match")
	}
}
