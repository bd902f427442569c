package sessiontest

import (
	"encoding/json"
	"fmt"

	"github.com/roomd/roomd/core/session"
)

// TickerHz is Ticker's rate.
const TickerHz = 50

// Ticker is a test-only real-time game for the rooms' ticks: it advances at
// TickerHz; each input {"add":n} (n from 1 to 9) adds n to a shared sum at
// the tick it takes effect at, and the match ends after Ticks ticks (config
// {"ticks":N}, default 40). The view is the last tick and the sum; a beat
// is the amount an input added, or 0 for the end. Its AI adds 1 at every
// tenth tick. It keeps checkpoints.
var Ticker = session.Define(session.Definition[TickerConfig, *TickerState, tickerMove, int, TickerView]{
	Info: session.Info{ID: "ticker", Name: "Ticker", RulesVersion: "ticker/1", Modes: tickerModes,
		Tick: &session.Rate{Hz: TickerHz}},
	Rules: tickerRules{},
	Setup: func(c TickerConfig) (session.Setup, error) {
		if c.Ticks < 0 || c.Ticks > 100_000 {
			return session.Setup{}, fmt.Errorf("ticks %d out of range", c.Ticks)
		}
		return session.Setup{Mode: tickerModes[0]}, nil
	},
})

var tickerModes = []session.Mode{{ID: "play", Name: "Play", MinSeats: 1, MaxSeats: 4, AI: true}}

type (
	// TickerConfig is Ticker's config.
	TickerConfig struct {
		Ticks int `json:"ticks,omitempty"`
	}
	// TickerState is Ticker's state.
	TickerState struct {
		Tick  uint64 `json:"tick"`
		Sum   int    `json:"sum"`
		Goal  uint64 `json:"goal"`
		Seats int    `json:"seats"`
	}
	// TickerView is what every viewer sees.
	TickerView struct {
		Tick uint64 `json:"tick"`
		Sum  int    `json:"sum"`
		Over bool   `json:"over"`
	}
	tickerMove struct {
		Add int `json:"add"`
	}
	tickerRules struct{}
)

func (m tickerMove) Validate() error {
	if m.Add < 1 || m.Add > 9 {
		return session.Malformed(session.CodeMalformedInput, "add %d is not from 1 to 9", m.Add)
	}
	return nil
}

func (tickerRules) Init(_ session.Seed, c TickerConfig, seats int) (*TickerState, error) {
	goal := uint64(c.Ticks)
	if goal == 0 {
		goal = 40
	}
	return &TickerState{Goal: goal, Seats: seats}, nil
}

func (tickerRules) Step(s *TickerState, tick uint64, inputs []session.Input[tickerMove]) (*TickerState, []int) {
	if s.Tick >= s.Goal {
		return s, nil
	}
	s.Tick = tick
	var beats []int
	for _, in := range inputs {
		if in.Seat >= 0 && in.Seat < s.Seats {
			s.Sum += in.Move.Add
			beats = append(beats, in.Move.Add)
		}
	}
	if s.Tick >= s.Goal {
		beats = append(beats, 0)
	}
	return s, beats
}

func (tickerRules) Status(s *TickerState) session.Status {
	st := session.Status{Phase: "running", Started: s.Tick > 0}
	if s.Tick >= s.Goal {
		st.Phase, st.Over = "over", true
		st.Outcome.Winners = []session.Seat{}
	}
	return st
}

func (tickerRules) Pending(s *TickerState) []session.Seat {
	if s.Tick >= s.Goal {
		return nil
	}
	seats := make([]session.Seat, s.Seats)
	for i := range seats {
		seats[i] = i
	}
	return seats
}

func (tickerRules) Project(s *TickerState, _ session.Seat) TickerView {
	return TickerView{Tick: s.Tick, Sum: s.Sum, Over: s.Tick >= s.Goal}
}
func (tickerRules) ProjectEvents(_ *TickerState, e []int, _ session.Seat) []int { return e }
func (tickerRules) Audience(*TickerState, session.Seat) int                     { return 0 }

func (tickerRules) Choose(v TickerView, _ session.Seat, _ session.Source) (tickerMove, bool) {
	return tickerMove{Add: 1}, !v.Over && v.Tick%10 == 9
}

func (tickerRules) Checkpoint(s *TickerState) ([]byte, error) { return json.Marshal(s) }

func (tickerRules) Resume(_ session.Seed, _ TickerConfig, _ int, data []byte) (*TickerState, error) {
	var s TickerState
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, err
	}
	return &s, nil
}
