// Package nim is Hidden Nim: a pile (21 by default) from which 2 to 4 seats
// take 1, 2 or 3 items in turn. Each seat is dealt a secret from 1 to 3 that
// only it sees. Whoever takes the last item wins, unless the count it took
// on that turn equals its secret: then it loses and the next seat in turn
// order wins. Every secret is shown at the end.
//
// Game is the erased form that rooms run; Rules, Config, Move, Event and
// View are the typed rules and their JSON forms, for tests and Go clients.
package nim

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/roomd/roomd/core/session"
)

// RulesVersion changes whenever the same seed and log could play out
// differently.
const RulesVersion = "nim/1"

var (
	//go:embed schema/config.schema.json
	configSchema []byte
	//go:embed schema/command.schema.json
	commandSchema []byte
)

// classic is the only mode.
var classic = session.Mode{ID: ModeClassic, Name: "Hidden Nim", MinSeats: MinSeats, MaxSeats: MaxSeats, AI: true}

// Game is Hidden Nim for rooms: configs and commands in JSON.
var Game = session.Define(session.Definition[Config, *State, Move, Event, View]{
	Info: session.Info{
		ID:            "nim",
		Name:          "Hidden Nim",
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

// setup reports the mode of a config; Hidden Nim has no leaderboard.
func setup(c Config) (session.Setup, error) {
	if err := c.Validate(); err != nil {
		return session.Setup{}, fmt.Errorf("nim config: %w", err)
	}
	return session.Setup{Mode: classic}, nil
}
