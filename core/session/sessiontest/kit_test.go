package sessiontest_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/roomd/roomd/core/cardgame"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/session/sessiontest"
)

// recorder is a Reporter that keeps what the kit finds.
type recorder struct {
	mu     sync.Mutex
	errors []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// found reports whether the kit failed the check (its name in the failure).
func (r *recorder) found(check string) bool {
	for _, e := range r.errors {
		if strings.Contains(e, ": "+check+": ") {
			return true
		}
	}
	return false
}

// Peek is a small game with hidden information, for the kit's own tests:
// two seats each hold a secret card from 0 to 9, dealt from the seed; in
// turn they guess the other's card ({"type":"guess","n":N}), and the match
// ends after six guesses, won by the seat that guessed right more often.
// A seat sees its own card as "mine"; no one sees the other's. Its faults
// are planted by the fields of peekRules.
type (
	peekConfig struct {
		Mode string `json:"mode,omitempty"`
	}
	peekState struct {
		cards   [2]int
		turn    int
		guesses []int
		right   [2]int
	}
	peekView struct {
		Mine    *int  `json:"mine,omitempty"`
		Turn    int   `json:"turn"`
		Guesses []int `json:"guesses"`
		Right   [2]int
		Leak    *int `json:"seat1,omitempty"`
	}
	peekMove struct {
		Type string `json:"type"`
		N    int    `json:"n"`
	}
	peekRules struct {
		leak        bool // seat 0's view shows seat 1's card
		dirtyRefuse bool // a refused guess still counts
		badAI       bool // the AI guesses 10
		narrow      bool // the cards come from 32 bits of the secret
	}
)

const peekSchema = `{"type":"object","properties":{"type":{"const":"guess"},"n":{"type":"integer","minimum":0,"maximum":9}},"required":["type","n"],"additionalProperties":false}`

func peek(r peekRules) session.Game {
	mode := session.Mode{ID: "duel", Name: "Duel", MinSeats: 2, MaxSeats: 2, AI: true}
	return session.Define(session.Definition[peekConfig, *peekState, peekMove, int, peekView]{
		Info: session.Info{ID: "peek", Name: "Peek", RulesVersion: "peek/1", Modes: []session.Mode{mode},
			MaxViewBytes: 300, MaxEventBytes: 40, CommandSchema: json.RawMessage(peekSchema), ConfigSchema: json.RawMessage(`{}`)},
		Rules: r,
		Setup: func(c peekConfig) (session.Setup, error) {
			if c.Mode != "" && c.Mode != "duel" {
				return session.Setup{}, fmt.Errorf("unknown mode %q", c.Mode)
			}
			return session.Setup{Mode: mode}, nil
		},
	})
}

func (r peekRules) Init(seed session.Seed, _ peekConfig, _ int) (*peekState, error) {
	var src session.Source = seed.Source()
	if r.narrow {
		// The duel's old mistake, planted on purpose (the entropy guard
		// reads only non-test files).
		n := src.Uint32()
		src = session.IntSeed(int64(n)).Source()
	}
	return &peekState{cards: [2]int{session.Intn(src, 10), session.Intn(src, 10)}, guesses: []int{}}, nil
}

func (r peekRules) Apply(s *peekState, in session.Input[peekMove]) (*peekState, []int, error) {
	if in.Move.Type != "guess" || in.Move.N < 0 || in.Move.N > 9 {
		return s, nil, session.Malformed(session.CodeInvalidMove, "a guess is 0 to 9")
	}
	if len(s.guesses) >= 6 {
		return s, nil, session.Reject(session.CodeGameOver, "over")
	}
	if in.Seat != s.turn {
		if r.dirtyRefuse {
			s.turn = 1 - s.turn
		}
		return s, nil, session.Reject(session.CodeNotYourTurn, "not your turn")
	}
	s.guesses = append(s.guesses, in.Move.N)
	if in.Move.N == s.cards[1-in.Seat] {
		s.right[in.Seat]++
	}
	s.turn = 1 - s.turn
	return s, []int{len(s.guesses)}, nil
}

func (peekRules) Status(s *peekState) session.Status {
	st := session.Status{Phase: "guessing", Started: len(s.guesses) > 0}
	if len(s.guesses) >= 6 {
		st.Phase, st.Over = "over", true
		st.Outcome.Winners = []int{}
		if s.right[0] != s.right[1] {
			st.Outcome.Winners = []int{map[bool]int{true: 0, false: 1}[s.right[0] > s.right[1]]}
		}
	}
	return st
}

func (peekRules) Pending(s *peekState) []int {
	if len(s.guesses) >= 6 {
		return nil
	}
	return []int{s.turn}
}

func (r peekRules) Project(s *peekState, viewer int) peekView {
	v := peekView{Turn: s.turn, Guesses: append([]int{}, s.guesses...), Right: s.right}
	if viewer == 0 || viewer == 1 {
		c := s.cards[viewer]
		v.Mine = &c
	}
	if r.leak && viewer == 0 {
		c := s.cards[1]
		v.Leak = &c
	}
	return v
}

func (peekRules) ProjectEvents(_ *peekState, e []int, _ int) []int { return e }
func (peekRules) Audience(_ *peekState, viewer int) int {
	if viewer == 0 || viewer == 1 {
		return viewer
	}
	return 2
}

func (r peekRules) Choose(v peekView, seat int, src session.Source) (peekMove, bool) {
	if len(v.Guesses) >= 6 || v.Turn != seat {
		return peekMove{}, false
	}
	if r.badAI {
		return peekMove{Type: "guess", N: 10}, true
	}
	return peekMove{Type: "guess", N: session.Intn(src, 10)}, true
}

// Secrets: the other seats' cards, as the leaky field would show them.
func (peekRules) Secrets(s *peekState, viewer int) []session.Secret {
	var out []session.Secret
	for seat, c := range s.cards {
		if seat != viewer {
			out = append(out, session.Secret{What: fmt.Sprintf("seat %d's card %d", seat, c), Tell: fmt.Sprintf(`"seat%d":%d`, seat, c)})
		}
	}
	return out
}

func (peekRules) Resample(s *peekState, viewer int, src session.Source) *peekState {
	c := *s
	c.guesses = append([]int{}, s.guesses...)
	for seat := range c.cards {
		if seat != viewer {
			c.cards[seat] = session.Intn(src, 10)
		}
	}
	// The right guesses so far are public: keep them, whatever the cards.
	return &c
}

// peekLooseMove is a guess whose decoding takes a missing "n" as 0, which
// the command schema refuses ("n" is required): a lenient decoder.
type peekLooseMove struct {
	Type string `json:"type"`
	N    int    `json:"n,omitempty"`
}

// MarshalJSON writes "n" always, as Peek does: only the decoding is lenient.
func (m peekLooseMove) MarshalJSON() ([]byte, error) { return json.Marshal(peekMove(m)) }

// looseRules are Peek's rules on the lenient guess.
type looseRules struct{ peekRules }

func (r looseRules) Apply(s *peekState, in session.Input[peekLooseMove]) (*peekState, []int, error) {
	return r.peekRules.Apply(s, session.Input[peekMove]{Seat: in.Seat, Move: peekMove(in.Move), T: in.T, Tick: in.Tick})
}

func (r looseRules) Choose(v peekView, seat int, src session.Source) (peekLooseMove, bool) {
	m, ok := r.peekRules.Choose(v, seat, src)
	return peekLooseMove(m), ok
}

func peekLoose() session.Game {
	mode := session.Mode{ID: "duel", Name: "Duel", MinSeats: 2, MaxSeats: 2, AI: true}
	return session.Define(session.Definition[peekConfig, *peekState, peekLooseMove, int, peekView]{
		Info: session.Info{ID: "peek", Name: "Peek", RulesVersion: "peek/1", Modes: []session.Mode{mode},
			MaxViewBytes: 300, MaxEventBytes: 40, CommandSchema: json.RawMessage(peekSchema), ConfigSchema: json.RawMessage(`{}`)},
		Rules: looseRules{},
		Setup: func(peekConfig) (session.Setup, error) { return session.Setup{Mode: mode}, nil },
	})
}

// TestKitPassesAGoodGame: Peek without a fault passes every check, and the
// kit played it (a kit that checks nothing passes everything).
func TestKitPassesAGoodGame(t *testing.T) {
	var r recorder
	sessiontest.Run(&r, peek(peekRules{}))
	if len(r.errors) != 0 {
		t.Fatalf("a sound game fails the kit:\n%s", strings.Join(r.errors, "\n"))
	}
}

// TestKitCatchesPlantedFaults: each planted fault fails the check that
// covers it.
func TestKitCatchesPlantedFaults(t *testing.T) {
	for _, c := range []struct {
		name  string
		game  session.Game
		check string
	}{
		{"a projection that shows another seat's card", peek(peekRules{leak: true}), "hidden information"},
		{"an Apply that changes the state before it refuses", peek(peekRules{dirtyRefuse: true}), "bad input"},
		{"a decoder that takes a command its schema refuses", peekLoose(), "bad input"},
		{"an AI that proposes an illegal move", peek(peekRules{badAI: true}), "the AI"},
		{"a secret narrowed to 32 bits", peek(peekRules{narrow: true}), "randomness (narrowing)"},
		{"the card duel's cards/1 derivation", cardgame.LegacyV1, "randomness (narrowing)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var r recorder
			sessiontest.Run(&r, c.game)
			if !r.found(c.check) {
				t.Fatalf("the kit did not fail %q; it found:\n%s", c.check, strings.Join(r.errors, "\n"))
			}
		})
	}
}
