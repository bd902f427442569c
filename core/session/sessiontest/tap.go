package sessiontest

import (
	"fmt"

	"github.com/roomd/roomd/core/session"
)

// Tap is a test-only ranked game for the rules rooms apply to
// leaderboards: every move {"tap":true} adds one tap, and the match is won
// — by every seat, ranked by its time — once Goal taps are made. Its
// config is {"board": name, "mode": "solo"|"coop"}; only the boards "short"
// (3 taps) and "long" (5) keep leaderboards, any other name plays 4 taps
// with none. Co-op has up to three seats and an AI that taps.
var Tap = session.Define(session.Definition[TapConfig, *TapState, tapMove, int, TapState]{
	Info: session.Info{ID: "tap", Name: "Tap", RulesVersion: "tap/1", Modes: tapModes,
		Ranking: &session.Ranking{By: session.RankTime, Boards: []string{"short", "long"}}},
	Rules: tapRules{},
	Setup: func(c TapConfig) (session.Setup, error) {
		for _, m := range tapModes {
			if m.ID == c.Mode || (c.Mode == "" && m.ID == "solo") {
				return session.Setup{Mode: m, Board: c.Board}, nil
			}
		}
		return session.Setup{}, fmt.Errorf("unknown mode %q", c.Mode)
	},
})

var tapModes = []session.Mode{
	{ID: "solo", Name: "Solo", MinSeats: 1, MaxSeats: 1},
	{ID: "coop", Name: "Co-op", MinSeats: 1, MaxSeats: 3, AI: true},
}

type (
	// TapConfig is Tap's config.
	TapConfig struct {
		Board string `json:"board"`
		Mode  string `json:"mode,omitempty"`
	}
	// TapState is Tap's state, and its view.
	TapState struct {
		N, Goal, Seats int
	}
	tapMove struct {
		Tap bool `json:"tap"`
	}
	tapRules struct{}
)

func (tapRules) Init(_ session.Seed, c TapConfig, seats int) (*TapState, error) {
	goal := map[string]int{"short": 3, "long": 5}[c.Board]
	if goal == 0 {
		goal = 4
	}
	return &TapState{Goal: goal, Seats: seats}, nil
}

func (tapRules) Apply(s *TapState, in session.Input[tapMove]) (*TapState, []int, error) {
	if s.N >= s.Goal {
		return s, nil, session.Reject(session.CodeGameOver, "the taps are made")
	}
	if !in.Move.Tap {
		return s, nil, session.Malformed(session.CodeInvalidMove, "a move is {\"tap\":true}")
	}
	s.N++
	return s, []int{s.N}, nil
}

func (tapRules) Status(s *TapState) session.Status {
	st := session.Status{Phase: "tapping", Started: s.N > 0}
	if s.N >= s.Goal {
		st.Phase, st.Over = "won", true
		st.Outcome = session.Outcome{Ranked: true}
		for i := range s.Seats {
			st.Outcome.Winners = append(st.Outcome.Winners, i)
		}
	}
	return st
}

func (tapRules) Pending(s *TapState) []session.Seat {
	if s.N >= s.Goal {
		return nil
	}
	out := make([]session.Seat, s.Seats)
	for i := range out {
		out[i] = i
	}
	return out
}
func (tapRules) Project(s *TapState, _ session.Seat) TapState    { return *s }
func (tapRules) ProjectEvents(_ *TapState, e []int, _ int) []int { return e }
func (tapRules) Audience(*TapState, session.Seat) int            { return 0 }
func (tapRules) Choose(TapState, session.Seat, session.Source) (tapMove, bool) {
	return tapMove{Tap: true}, true
}
