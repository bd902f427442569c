package bot

import (
	"encoding/json"
	"slices"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/tictactoe"
	"github.com/roomd/roomd/protocol"
)

// tictactoeAdapter plays tic-tac-toe: players choose with the core's
// tic-tac-toe AI. The game has no settings of its own.
type tictactoeAdapter struct{}

func (tictactoeAdapter) info() session.Info { return tictactoe.Game.Info() }

func (tictactoeAdapter) help() string {
	return "                       players choose with the tic-tac-toe AI; 2 seats, no\n" +
		"                       settings of its own\n"
}

func (tictactoeAdapter) defaultMode() string { return tictactoe.ModeClassic }

func (tictactoeAdapter) settings(c *config) (json.RawMessage, error) {
	return json.Marshal(struct {
		Mode string `json:"mode"`
	}{c.Mode})
}

func (tictactoeAdapter) describe(c *config, s *scenarioInfo) { s.Mode = c.Mode }

// ineffective: a mark on a square the other seat has just taken is what a
// view a few milliseconds old explains (an open-loop bot sending again
// before its last update came back).
func (tictactoeAdapter) ineffective(code string) bool { return code == tictactoe.CodeOccupied }

func (tictactoeAdapter) decodeView(raw json.RawMessage) (tictactoe.View, error) {
	var v tictactoe.View
	err := json.Unmarshal(raw, &v)
	return v, err
}

func (tictactoeAdapter) decodeBeats(raw json.RawMessage) ([]tictactoe.Event, error) {
	var evs []tictactoe.Event
	err := json.Unmarshal(raw, &evs)
	return evs, err
}

// clone copies the winning line; the board is an array, copied with v.
func (tictactoeAdapter) clone(v tictactoe.View) tictactoe.View {
	v.Line = slices.Clone(v.Line)
	return v
}

func (tictactoeAdapter) apply(v *tictactoe.View, beats []tictactoe.Event) error {
	v.Apply(beats)
	return nil
}

func (tictactoeAdapter) choose(v tictactoe.View, seat int) (json.RawMessage, bool) {
	return marshalMove(tictactoe.Rules{}.Choose(v, seat, botChoice))
}

func (tictactoeAdapter) encode(v tictactoe.View) []byte {
	b, _ := json.Marshal(v)
	return b
}

func (tictactoeAdapter) quirk(followed, server tictactoe.View) bool { return false }

// leaks finds nothing: tic-tac-toe hides nothing, and the seed, which it
// never uses, is looked for in every frame by checkLeaks.
func (tictactoeAdapter) leaks([]frame[tictactoe.View, tictactoe.Event], protocol.Result, int) []finding {
	return nil
}
