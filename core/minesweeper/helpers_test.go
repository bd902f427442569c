package minesweeper

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"

	"github.com/roomd/roomd/core/session"
)

const vectorDir = "../../testdata/vectors/mnswpr/"

// tb is what helpers need of *testing.T and *rapid.T.
type tb interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Fatal(args ...any)
}

// loadVectors reads the cases of one vector file and checks its count.
func loadVectors[T any](t tb, name string) []T {
	t.Helper()
	data, err := os.ReadFile(vectorDir + name)
	if err != nil {
		t.Fatalf("read vectors: %v", err)
	}
	var f struct {
		Count int `json:"count"`
		Cases []T `json:"cases"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
	if len(f.Cases) == 0 || len(f.Cases) != f.Count {
		t.Fatalf("%s: %d cases, count says %d", name, len(f.Cases), f.Count)
	}
	return f.Cases
}

// compact returns raw JSON without insignificant space, key order kept.
func compact(t tb, raw []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatalf("compact %s: %v", raw, err)
	}
	return b.Bytes()
}

func mustJSON(t tb, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %#v: %v", v, err)
	}
	return b
}

// sameJSON reports whether two documents decode to the same value.
func sameJSON(t tb, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("decode %s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

// fingerprint renders every part of a state that is game state (not
// scratch), so two states are equal exactly when their fingerprints are.
func fingerprint(s *State) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "seed=%d seats=%d race=%v over=%v winner=%d cfg=%s|", s.seed, s.seats, s.race, s.over, s.winner, s.cfg.Raw())
	for i, b := range s.boards {
		fmt.Fprintf(&sb, "b%d %v placed=%v revealed=%d flags=%d ", i, b.phase, b.placed, b.revealed, b.flags)
		for _, c := range b.g.Cells() {
			m := byte('.')
			if c.mine {
				m = '*'
			}
			sb.WriteByte(m)
			sb.WriteByte('0' + c.adj)
			sb.WriteByte("HFR"[c.st])
		}
		sb.WriteByte('|')
	}
	return sb.String()
}

// rejection returns err as a *session.Rejection or fails.
func rejection(t tb, err error) *session.Rejection {
	t.Helper()
	var rej *session.Rejection
	if !errors.As(err, &rej) {
		t.Fatalf("error %v (%T) is not a *session.Rejection", err, err)
	}
	return rej
}

// typedState returns the typed state behind an erased match.
func typedState(t tb, m session.Match) *State {
	t.Helper()
	s, ok := session.State[*State](m)
	if !ok {
		t.Fatal("match has no *State")
	}
	return s
}

// stepEvents returns the events a step shows viewer.
func stepEvents(t tb, st session.Step, viewer session.Seat) []Event {
	t.Helper()
	ev, ok := st.Beats(viewer).([]Event)
	if !ok {
		t.Fatalf("beats are %T, want []Event", st.Beats(viewer))
	}
	return ev
}

// clocked is a session whose clock reads now.
type clocked struct {
	*session.GameSession
	now float64
}

func newClocked(t tb, seed int64, config string, seats int) *clocked {
	t.Helper()
	c := &clocked{}
	s, err := session.NewSession(Game, session.IntSeed(seed), json.RawMessage(config), seats, func() float64 { return c.now })
	if err != nil {
		t.Fatalf("new session: %v", err)
	}
	c.GameSession = s
	return c
}

func (c *clocked) state(t tb) *State { t.Helper(); return typedState(t, c.Match()) }

func moveJSON(typ MoveType, r, c int) json.RawMessage {
	return Move{Type: typ, R: r, C: c}.AppendJSON(nil)
}
