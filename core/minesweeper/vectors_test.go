package minesweeper

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/grid"
	"github.com/roomd/roomd/core/session"
)

func TestVectorsRNG(t *testing.T) {
	type rngCase struct {
		Seed          int64     `json:"seed"`
		SeedUint32    uint32    `json:"seed_uint32"`
		OutputsUint32 []uint32  `json:"outputs_uint32"`
		OutputsFloat  []float64 `json:"outputs_float"`
	}
	for _, tc := range loadVectors[rngCase](t, "rng.json") {
		t.Run(fmt.Sprint(tc.Seed), func(t *testing.T) {
			if got := session.NewRNG(tc.Seed).State(); got != tc.SeedUint32 {
				t.Errorf("state %d, want %d", got, tc.SeedUint32)
			}
			ints, floats := session.NewRNG(tc.Seed), session.NewRNG(tc.Seed)
			for i := range tc.OutputsUint32 {
				if got := ints.Uint32(); got != tc.OutputsUint32[i] {
					t.Errorf("output %d: %d, want %d", i, got, tc.OutputsUint32[i])
				}
				if got := floats.Float64(); got != tc.OutputsFloat[i] {
					t.Errorf("float %d: %v, want %v", i, got, tc.OutputsFloat[i])
				}
			}
		})
	}
}

func TestVectorsBoards(t *testing.T) {
	type boardCase struct {
		ID     string          `json:"id"`
		Seed   int64           `json:"seed"`
		Config json.RawMessage `json:"config"`
		First  struct {
			R int `json:"r"`
			C int `json:"c"`
		} `json:"first_click"`
		Room3x3  bool         `json:"room_for_3x3"`
		Excluded []grid.Coord `json:"excluded"`
		Draws    int          `json:"rng_draws"`
		Order    []grid.Coord `json:"mines_in_placement_order"`
		Mines    []grid.Coord `json:"mines"`
		Board    []string     `json:"board"`
	}
	for _, tc := range loadVectors[boardCase](t, "boards.json") {
		t.Run(tc.ID, func(t *testing.T) {
			// b13 ({3,3,8}) is as dense as Validate allows: 8 = 9−1.
			cfg, err := DecodeConfig(tc.Config)
			if err != nil {
				t.Fatalf("config: %v", err)
			}
			l, err := Generate(session.IntSeed(tc.Seed), cfg, tc.First.R, tc.First.C)
			if err != nil {
				t.Fatalf("generate: %v", err)
			}
			checks := []struct {
				name      string
				got, want any
			}{
				{"room_for_3x3", l.Room3x3, tc.Room3x3},
				{"excluded", l.Excluded, tc.Excluded},
				{"rng_draws", l.Draws, tc.Draws},
				{"mines_in_placement_order", l.Order, tc.Order},
				{"mines", l.MineCoords(), tc.Mines},
				{"board", l.Strings(), tc.Board},
			}
			for _, c := range checks {
				if g, w := fmt.Sprint(c.got), fmt.Sprint(c.want); g != w {
					t.Errorf("%s: got %s, want %s", c.name, g, w)
				}
			}
		})
	}
}

type vectorMove struct {
	Move         json.RawMessage `json:"move"`
	T            float64         `json:"t"`
	Events       json.RawMessage `json:"events"`
	MoveEvent    json.RawMessage `json:"move_event"`
	Phase        string          `json:"phase"`
	Time         float64         `json:"time"`
	RevealedSafe int             `json:"revealed_safe"`
	View         json.RawMessage `json:"view"`
}

type vectorGame struct {
	ID          string            `json:"id"`
	Description string            `json:"description"`
	Seed        int64             `json:"seed"`
	Config      json.RawMessage   `json:"config"`
	Board       []string          `json:"board"`
	Mines       []grid.Coord      `json:"mines"`
	Moves       []vectorMove      `json:"moves"`
	Log         []json.RawMessage `json:"log"`
	Final       struct {
		Status       string          `json:"status"`
		Time         float64         `json:"time"`
		RevealedSafe int             `json:"revealed_safe"`
		View         json.RawMessage `json:"view"`
		StatusRows   []string        `json:"status_rows"`
	} `json:"final"`
	Result struct {
		Status string            `json:"status"`
		Time   float64           `json:"time"`
		Seed   int64             `json:"seed"`
		Config json.RawMessage   `json:"config"`
		Log    []json.RawMessage `json:"log"`
	} `json:"result"`
	Replay json.RawMessage `json:"replay"`
}

// TestVectorsGames drives every recorded game through a real GameSession
// whose clock reads each move's recorded t, and checks every move's events
// (bytes), move event, phase, time and counter, the views, the final
// state, the result and the replay verdict.
//
// The reference logs every move, and a move that changes nothing is a
// silent no-op with events []. roomd rejects such a move instead, with a
// typed, non-malformed rejection (session.Reject): it leaves the state
// as it was and is not logged, so our session log is the vector's log minus
// those entries. Replay still skips them, so the verdict is the same.
func TestVectorsGames(t *testing.T) {
	for _, g := range loadVectors[vectorGame](t, "games.json") {
		t.Run(g.ID, func(t *testing.T) {
			cfg := compact(t, g.Config)
			sess := newClocked(t, g.Seed, string(cfg), 1)
			var wantLog [][]byte // the vector's log without the no-ops
			seq := 0
			if len(g.Log) != len(g.Moves) {
				t.Fatalf("vector log has %d entries for %d moves", len(g.Log), len(g.Moves))
			}
			for i, vm := range g.Moves {
				sess.now = vm.T
				move := compact(t, vm.Move)
				before := fingerprint(sess.state(t))
				beforeView := mustJSON(t, sess.Match().View(0))
				step, err := sess.Apply(0, move)
				noop := bytes.Equal(compact(t, vm.Events), []byte("[]"))
				switch {
				case noop:
					if err == nil {
						t.Fatalf("move %d %s: accepted, the reference's no-op must be rejected", i, move)
					}
					if rej := rejection(t, err); rej.Malformed {
						t.Fatalf("move %d %s: %v is malformed, want an ineffective-move rejection", i, move, rej)
					}
					if after := fingerprint(sess.state(t)); after != before {
						t.Fatalf("move %d: rejected move changed the state", i)
					}
					if after := mustJSON(t, sess.Match().View(0)); !bytes.Equal(after, beforeView) {
						t.Fatalf("move %d: rejected move changed the view", i)
					}
				case err != nil:
					t.Fatalf("move %d %s: %v", i, move, err)
				default:
					wantLog = append(wantLog, compact(t, g.Log[i]))
					events := stepEvents(t, step, 0)
					if got, want := mustJSON(t, events), compact(t, vm.Events); !bytes.Equal(got, want) {
						t.Fatalf("move %d %s events:\n got %s\nwant %s", i, move, got, want)
					}
					var m Move
					if err := json.Unmarshal(move, &m); err != nil {
						t.Fatal(err)
					}
					seq++
					me, ok := NewMoveEvent(m, events, vm.T, seq)
					if !ok || !sameJSON(t, mustJSON(t, me), vm.MoveEvent) {
						t.Errorf("move %d move event %s (%v), want %s", i, mustJSON(t, me), ok, vm.MoveEvent)
					}
				}
				if noop && !bytes.Equal(compact(t, vm.MoveEvent), []byte("null")) {
					t.Errorf("move %d: vector has a move event for a no-op", i)
				}
				st := sess.state(t)
				if got := sess.Status().Phase; got != vm.Phase {
					t.Errorf("move %d phase %s, want %s", i, got, vm.Phase)
				}
				if got := sess.Elapsed(); got != vm.Time {
					t.Errorf("move %d time %v, want %v", i, got, vm.Time)
				}
				if got := st.RevealedSafe(0); got != vm.RevealedSafe {
					t.Errorf("move %d revealed_safe %d, want %d", i, got, vm.RevealedSafe)
				}
				if vm.View != nil {
					if got, want := mustJSON(t, sess.Match().View(0)), compact(t, vm.View); !bytes.Equal(got, want) {
						t.Errorf("move %d view:\n got %s\nwant %s", i, got, want)
					}
				}
			}
			checkFinal(t, g, sess, cfg)
			checkResult(t, g, sess, cfg, wantLog)
			rec := session.Record{Seed: session.IntSeed(g.Seed), Config: cfg}
			for _, raw := range g.Log {
				var e session.Entry
				if err := json.Unmarshal(raw, &e); err != nil {
					t.Fatal(err)
				}
				rec.Log = append(rec.Log, e)
			}
			if got := mustJSON(t, session.Replay(Game, rec)); !sameJSON(t, got, g.Replay) {
				t.Errorf("replay %s, want %s", got, g.Replay)
			}
		})
	}
}

func checkFinal(t *testing.T, g vectorGame, sess *clocked, cfg []byte) {
	t.Helper()
	st := sess.state(t)
	l, ok := st.Layout(0)
	if !ok {
		t.Fatal("no layout")
	}
	if got := l.Strings(); fmt.Sprint(got) != fmt.Sprint(g.Board) {
		t.Errorf("board %q, want %q", got, g.Board)
	}
	if got := l.MineCoords(); fmt.Sprint(got) != fmt.Sprint(g.Mines) {
		t.Errorf("mines %v, want %v", got, g.Mines)
	}
	f := g.Final
	if got := sess.Status().Phase; got != f.Status {
		t.Errorf("final status %s, want %s", got, f.Status)
	}
	if got := sess.Elapsed(); got != f.Time {
		t.Errorf("final time %v, want %v", got, f.Time)
	}
	if got := st.RevealedSafe(0); got != f.RevealedSafe {
		t.Errorf("final revealed_safe %d, want %d", got, f.RevealedSafe)
	}
	if got, want := mustJSON(t, sess.Match().View(0)), compact(t, f.View); !bytes.Equal(got, want) {
		t.Errorf("final view:\n got %s\nwant %s", got, want)
	}
	statuses := st.CellStatuses(0)
	rows := make([]string, st.cfg.Rows)
	for r := range rows {
		var sb strings.Builder
		for c := range st.cfg.Cols {
			sb.WriteByte("HFR"[statuses[r*st.cfg.Cols+c]])
		}
		rows[r] = sb.String()
	}
	if fmt.Sprint(rows) != fmt.Sprint(f.StatusRows) {
		t.Errorf("status rows %q, want %q", rows, f.StatusRows)
	}
}

func checkResult(t *testing.T, g vectorGame, sess *clocked, cfg []byte, wantLog [][]byte) {
	t.Helper()
	res, ok := sess.Result()
	if !ok {
		t.Fatal("no result")
	}
	want := g.Result
	if res.Status != want.Status || res.Time != want.Time || res.Seed != session.IntSeed(want.Seed) || !bytes.Equal(res.Config, compact(t, want.Config)) {
		t.Errorf("result %s %v %s %s, want %s %v %d %s", res.Status, res.Time, res.Seed.String(), res.Config, want.Status, want.Time, want.Seed, want.Config)
	}
	winners := "[]"
	if res.Status == "won" {
		winners = "[0]"
	}
	if got := string(mustJSON(t, res.Outcome.Winners)); got != winners {
		t.Errorf("winners %s, want %s", got, winners)
	}
	// The vector's log holds every move; ours, only the accepted ones.
	if got, want := mustJSON(t, res.Log), append(append([]byte("["), bytes.Join(wantLog, []byte(","))...), ']'); !bytes.Equal(got, want) {
		t.Errorf("log:\n got %s\nwant %s", got, want)
	}
	if fmt.Sprint(want.Log) != fmt.Sprint(g.Log) {
		t.Errorf("the vector's result log is not its log")
	}
}

// quirkVerdicts are the replay vectors whose reference verdict roomd does
// not reproduce, on purpose (spec §11–12). roomd's verdict is invalid, with
// a reason naming the entry and the problem.
var quirkVerdicts = map[string]struct {
	entry   int
	problem string
	why     string
}{
	"q01": {6, "missing or non-finite timestamp",
		"reference: the entry without t escapes the monotonic check and the log is valid; roomd refuses a log whose timestamps it cannot order"},
	"q03": {2, session.CodeUnknownMove,
		"reference: an unknown move type is a silent no-op; no genuine client sends one, so roomd calls the log malformed"},
	"q05": {2, session.CodeOutOfBounds,
		"reference: (6, 9) on a 9-column board aliases cell (7, 0), which enables the aliasing exploit; roomd never aliases"},
	"q09": {2, "malformed move",
		"reference: a null move throws a TypeError and gives no verdict; roomd gives an invalid verdict"},
}

func TestVectorsReplays(t *testing.T) {
	type replayCase struct {
		ID       string          `json:"id"`
		Quirk    bool            `json:"quirk"`
		Expected json.RawMessage `json:"expected"`
	}
	data := loadVectors[json.RawMessage](t, "replays.json")
	seen := map[string]bool{}
	for _, raw := range data {
		var tc replayCase
		if err := json.Unmarshal(raw, &tc); err != nil {
			t.Fatal(err)
		}
		t.Run(tc.ID, func(t *testing.T) {
			rec, err := session.DecodeRecord(raw)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			v := session.Replay(Game, rec)
			q, differs := quirkVerdicts[tc.ID]
			if differs != tc.Quirk {
				t.Fatalf("quirk=%v in the vector but listed=%v in quirkVerdicts", tc.Quirk, differs)
			}
			if !differs {
				if got := mustJSON(t, v); !sameJSON(t, got, tc.Expected) {
					t.Errorf("verdict %s, want %s", got, tc.Expected)
				}
				return
			}
			seen[tc.ID] = true
			reason := ""
			if v.Reason != nil {
				reason = *v.Reason
			}
			if v.Valid || !strings.Contains(reason, fmt.Sprintf("entry %d:", q.entry)) || !strings.Contains(reason, q.problem) {
				t.Errorf("verdict %s; want invalid naming entry %d and %q (%s)", mustJSON(t, v), q.entry, q.problem, q.why)
			}
		})
	}
	for id := range quirkVerdicts {
		if !seen[id] {
			t.Errorf("quirk %s listed but not in the vectors", id)
		}
	}
}
