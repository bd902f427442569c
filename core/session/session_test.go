package session_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
)

// The reference's mulberry32 outputs for seed 0 (testdata/vectors/mnswpr/rng.json
// is checked in full by the minesweeper package).
func TestRNG(t *testing.T) {
	g := session.NewRNG(0)
	for i, want := range []uint32{1144304738, 1416247, 958946056} {
		if got := g.Uint32(); got != want {
			t.Fatalf("output %d = %d, want %d", i, got, want)
		}
	}
	if session.NewRNG(-1).State() != 4294967295 || session.NewRNG(4294967303).State() != 7 {
		t.Fatal("seeds are not reduced with ToUint32")
	}
	h := session.NewRNG(12345)
	for range 1000 {
		if n := h.Intn(7); n < 0 || n >= 7 {
			t.Fatalf("Intn(7) = %d", n)
		}
	}
}

func take(n int) json.RawMessage {
	return json.RawMessage(`{"type":"take","n":` + string(rune('0'+n)) + `}`)
}

func newNim(t *testing.T, clock session.Clock) *session.GameSession {
	t.Helper()
	s, err := session.NewSession(nim.Game, session.IntSeed(7), json.RawMessage(`{"pile":5}`), 2, clock)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSessionLogAndTime(t *testing.T) {
	now := 1000.0
	s := newNim(t, func() float64 { return now })
	if s.Elapsed() != 0 {
		t.Fatal("elapsed before the start")
	}
	if _, err := s.Apply(1, take(1)); err == nil {
		t.Fatal("out of turn accepted")
	}
	if len(s.Log()) != 0 {
		t.Fatal("a refused move was logged")
	}
	now = 1500
	if _, err := s.Apply(0, take(2)); err != nil {
		t.Fatal(err)
	}
	now = 1700
	if s.Elapsed() != 200 {
		t.Fatalf("elapsed while running %v", s.Elapsed())
	}
	now = 2500
	if _, err := s.Apply(1, take(3)); err != nil {
		t.Fatal(err)
	}
	now = 9000
	res, over := s.Result()
	if !over || res.Time != 1000 || len(res.Log) != 2 || res.Log[1].Seat != 1 || res.Log[1].T != 2500 {
		t.Fatalf("result %+v over %v", res, over)
	}
	if _, err := s.ApplyAt(0, take(1), 100); err == nil {
		t.Fatal("a move with a decreasing timestamp was accepted")
	}
	if _, err := s.ApplyAt(0, take(1), math.NaN()); err == nil {
		t.Fatal("a NaN timestamp was accepted")
	}
}

// TestLegacySnapshot: a session snapshot as rooms stored it before matches
// were saved as a header and a checkpoint still decodes, and its version,
// rules version, game and log are checked.
func TestLegacySnapshot(t *testing.T) {
	const data = `{"v":1,"game":"nim","rulesVersion":"nim/1","seed":7,"config":{"pile":5},"seats":2,"log":[{"move":{"type":"take","n":1},"t":10},{"seat":1,"move":{"type":"take","n":1},"t":20}]}`
	reg := session.NewRegistry(nim.Game)
	back, err := session.DecodeLegacySnapshot(reg, []byte(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := newNim(t, nil)
	s.ApplyAt(0, take(1), 10)
	s.ApplyAt(1, take(1), 20)
	a, _ := json.Marshal(s.Match().View(session.Spectator))
	b, _ := json.Marshal(back.Match().View(session.Spectator))
	if string(a) != string(b) || len(back.Log()) != 2 || back.Seed() != session.IntSeed(7) {
		t.Fatalf("restored %s, want %s", b, a)
	}
	for name, mutate := range map[string]func(string) string{
		"unknown version":        func(s string) string { return strings.Replace(s, `"v":1`, `"v":2`, 1) },
		"other rules version":    func(s string) string { return strings.Replace(s, `"nim/1"`, `"nim/0"`, 1) },
		"unknown game":           func(s string) string { return strings.Replace(s, `"game":"nim"`, `"game":"chess"`, 1) },
		"a log the rules refuse": func(s string) string { return strings.Replace(s, `"seat":1`, `"seat":0`, 1) },
	} {
		if _, err := session.DecodeLegacySnapshot(reg, []byte(mutate(data)), nil); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

// TestSaveRestore: a match saved mid-way comes back equal — from its
// checkpoint plus the moves after it for a game that keeps checkpoints
// (Minesweeper), by replaying its whole log for one that does not (Nim).
func TestSaveRestore(t *testing.T) {
	for _, tc := range []struct {
		game       session.Game
		cfg        string
		seats      int
		moves      []string
		checkpoint bool
	}{
		{minesweeper.Game, `{"level":"expert"}`, 1, []string{`{"type":"flag","r":0,"c":0}`, `{"type":"reveal","r":8,"c":15}`, `{"type":"flag","r":0,"c":1}`, `{"type":"flag","r":0,"c":0}`}, true},
		{nim.Game, `{"pile":9}`, 2, []string{`{"type":"take","n":2}`, `{"type":"take","n":3}`, `{"type":"take","n":1}`}, false},
	} {
		now := 100.0
		clock := func() float64 { return now }
		s, err := session.NewSession(tc.game, session.IntSeed(11), json.RawMessage(tc.cfg), tc.seats, clock)
		if err != nil {
			t.Fatal(err)
		}
		var cp *session.Checkpoint
		for i, mv := range tc.moves {
			now += 10
			if _, err := s.Apply(i%tc.seats, json.RawMessage(mv)); err != nil {
				t.Fatalf("%s move %d: %v", tc.game.Info().ID, i, err)
			}
			if i == 1 {
				if cp, err = s.Save(); err != nil {
					t.Fatal(err)
				}
			}
		}
		if (cp != nil) != tc.checkpoint {
			t.Fatalf("%s: checkpoint %v, want one: %v", tc.game.Info().ID, cp, tc.checkpoint)
		}
		back, err := session.Restore(tc.game, s.Header(), cp, s.Log(), 0, clock)
		if err != nil {
			t.Fatal(err)
		}
		for _, viewer := range []session.Seat{session.Spectator, 0} {
			a, _ := json.Marshal(s.Match().View(viewer))
			b, _ := json.Marshal(back.Match().View(viewer))
			if string(a) != string(b) {
				t.Fatalf("%s viewer %d: restored %s, want %s", tc.game.Info().ID, viewer, b, a)
			}
		}
		if back.Elapsed() != s.Elapsed() || len(back.Log()) != len(s.Log()) {
			t.Fatalf("%s: restored elapsed %v log %d, want %v %d", tc.game.Info().ID, back.Elapsed(), len(back.Log()), s.Elapsed(), len(s.Log()))
		}
		if cp != nil {
			// The checkpoint is what the game resumed from: a corrupt one
			// fails, it is not silently replayed around.
			bad := *cp
			bad.State = json.RawMessage(`{"boards":[]}`)
			if _, err := session.Restore(tc.game, s.Header(), &bad, s.Log(), 0, clock); err == nil {
				t.Fatalf("%s: a corrupt checkpoint restored", tc.game.Info().ID)
			}
		}
		other := s.Header()
		other.RulesVersion = "other/0"
		if _, err := session.Restore(tc.game, other, cp, s.Log(), 0, clock); err == nil {
			t.Fatalf("%s: restored under another rules version", tc.game.Info().ID)
		}
	}
}

func TestDecodeRecordErrors(t *testing.T) {
	for _, bad := range []string{`[]`, `{"config":{},"log":[]}`, `{"seed":1.5,"config":{},"log":[]}`,
		`{"seed":1,"config":{},"log":{}}`, `{"seed":1,"config":{},"log":null}`, `{"seed":1,"config":{},"log":[null]}`, `nope`} {
		if _, err := session.DecodeRecord([]byte(bad)); err == nil {
			t.Errorf("decoded %s", bad)
		}
	}
	rec, err := session.DecodeRecord([]byte(`{"seed":1,"config":{},"seats":2,"log":[{"move":{"type":"take","n":1}}]}`))
	if err != nil || !math.IsNaN(rec.Log[0].T) {
		t.Fatalf("a missing t should decode as NaN: %+v %v", rec, err)
	}
	v := session.Replay(nim.Game, rec)
	if v.Valid || v.Reason == nil || !strings.Contains(*v.Reason, "timestamp") {
		t.Fatalf("verdict %+v", v)
	}
}

// TestAppendBeatsMatchesMarshal: the fast beats encoding equals
// json.Marshal of Beats, for a game whose events append themselves
// (Minesweeper) and one whose do not (Nim).
func TestAppendBeatsMatchesMarshal(t *testing.T) {
	for _, tc := range []struct {
		game  session.Game
		cfg   string
		seats int
		moves []string
	}{
		{minesweeper.Game, `{"rows":5,"cols":5,"mines":3}`, 1, []string{`{"type":"flag","r":0,"c":0}`, `{"type":"reveal","r":2,"c":2}`}},
		{nim.Game, `{"pile":9}`, 2, []string{`{"type":"take","n":2}`, `{"type":"take","n":3}`}},
	} {
		m, err := tc.game.New(session.IntSeed(3), json.RawMessage(tc.cfg), tc.seats)
		if err != nil {
			t.Fatal(err)
		}
		for i, mv := range tc.moves {
			st, err := m.Apply(session.Command{Seat: i % tc.seats, Move: json.RawMessage(mv)})
			if err != nil {
				t.Fatal(err)
			}
			for _, viewer := range []session.Seat{session.Spectator, 0} {
				want, _ := json.Marshal(st.Beats(viewer))
				got, err := st.AppendBeats(nil, viewer)
				if err != nil || string(got) != string(want) {
					t.Fatalf("%s: AppendBeats %s, json.Marshal %s", tc.game.Info().ID, got, want)
				}
			}
		}
	}
}
