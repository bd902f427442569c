package sessiontest

import "github.com/roomd/roomd/core/session"

// Boom is a test-only game whose code fails where it is told to: a command
// {"boom":true} panics in Apply (after changing the state, which the room
// must not keep), and its AI always panics. Otherwise a move adds one to a
// counter, and its beat is the counter. One or two seats; the AI may play.
var Boom = session.Define(session.Definition[boomConfig, *BoomState, boomMove, int, BoomState]{
	Info:  session.Info{ID: "boom", Name: "Boom", RulesVersion: "boom/1", Modes: []session.Mode{boomMode}},
	Rules: boomRules{},
	Setup: func(boomConfig) (session.Setup, error) { return session.Setup{Mode: boomMode}, nil },
})

var boomMode = session.Mode{ID: "any", Name: "Any", MinSeats: 1, MaxSeats: 2, AI: true}

type (
	boomConfig struct{}
	// BoomState is Boom's state, and its view: the moves applied.
	BoomState struct{ N int }
	boomMove  struct {
		Boom bool `json:"boom,omitempty"`
	}
	boomRules struct{}
)

func (boomRules) Init(session.Seed, boomConfig, int) (*BoomState, error) { return &BoomState{}, nil }
func (boomRules) Apply(s *BoomState, in session.Input[boomMove]) (*BoomState, []int, error) {
	s.N++ // changed before the panic: the room must not keep it
	if in.Move.Boom {
		panic("boom")
	}
	return s, []int{s.N}, nil
}
func (boomRules) Status(s *BoomState) session.Status {
	return session.Status{Phase: "on", Started: s.N > 0}
}
func (boomRules) Pending(*BoomState) []session.Seat                { return []session.Seat{0, 1} }
func (boomRules) Project(s *BoomState, _ session.Seat) BoomState   { return *s }
func (boomRules) ProjectEvents(_ *BoomState, e []int, _ int) []int { return e }
func (boomRules) Audience(*BoomState, session.Seat) int            { return 0 }
func (boomRules) Choose(BoomState, session.Seat, session.Source) (boomMove, bool) {
	panic("the AI is broken")
}
