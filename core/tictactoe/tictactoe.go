// Package tictactoe is tic-tac-toe, the smallest complete game on roomd's
// rules contract (session.Rules): two seats mark the squares of a 3×3 grid
// in turn, X (seat 0) first, and three marks in a row, a column or a
// diagonal win; a full grid without one is a draw. Nothing is hidden and
// nothing is random, so every viewer sees the same view and the seed is
// never used.
//
// GAMES.md, at the root of the repository, walks through this package as
// the example of how a turn-based game is added to roomd.
//
// Game is the erased form that rooms run; Rules, Config, Move, Event and
// View are the typed rules and their JSON forms, for tests and Go clients.
package tictactoe

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/roomd/roomd/core/session"
)

// RulesVersion changes whenever the same seed and log could play out
// differently.
const RulesVersion = "tictactoe/1"

var (
	//go:embed schema/config.schema.json
	configSchema []byte
	//go:embed schema/command.schema.json
	commandSchema []byte
)

// classic is the only mode: two seats, either of which the AI can play.
var classic = session.Mode{ID: ModeClassic, Name: "Classic", MinSeats: Seats, MaxSeats: Seats, AI: true}

// Game is tic-tac-toe for rooms: configs and commands in JSON. It keeps no
// leaderboard (Info.Ranking is nil) and has no fixed step (Info.Tick is
// nil): it changes on commands only.
var Game = session.Define(session.Definition[Config, *State, Move, Event, View]{
	Info: session.Info{
		ID:            "tictactoe",
		Name:          "Tic-tac-toe",
		RulesVersion:  RulesVersion,
		Modes:         []session.Mode{classic},
		TurnClock:     true,
		MaxViewBytes:  maxViewBytes,
		MaxEventBytes: maxEventBytes,
		ConfigSchema:  json.RawMessage(configSchema),
		CommandSchema: json.RawMessage(commandSchema),
	},
	Rules: Rules{},
	Setup: setup,
})

// setup reports the mode of a config, and no leaderboard.
func setup(c Config) (session.Setup, error) {
	if err := c.Validate(); err != nil {
		return session.Setup{}, fmt.Errorf("tictactoe config: %w", err)
	}
	return session.Setup{Mode: classic}, nil
}
