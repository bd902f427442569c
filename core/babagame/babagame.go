// Package babagame is Baba as a roomd game (baba.md §9): one to four seats
// play one level of the Baba engine (core/baba) together, every seat moving
// the same YOU objects. Nothing is hidden and nothing is random, so every
// viewer gets the same view and the seed is never used.
//
// The state is the level and the list of accepted directions. A step adds
// one; undo drops the last and rebuilds the engine by replay from a cached
// clone (one every CacheEvery steps, so a rebuild replays fewer than
// CacheEvery steps); restart empties the list. Winning ends the match
// (Status.Over) and refuses further steps, but undo and restart stay
// allowed; losing (nothing is YOU) is not terminal.
//
// Game is the erased form that rooms run; Rules, Config, Move, Event and
// View are the typed rules and their JSON forms, for tests and Go clients.
package babagame

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/roomd/roomd/core/session"
)

// RulesVersion changes whenever the same config and log could play out
// differently (a level's layout included).
const RulesVersion = "baba/1"

var (
	//go:embed schema/config.schema.json
	configSchema []byte
	//go:embed schema/command.schema.json
	commandSchema []byte
)

// coop is the only mode: one to four seats on one board, no AI.
var coop = session.Mode{ID: ModeCoop, Name: "Co-op", MinSeats: MinSeats, MaxSeats: MaxSeats}

// Game is Baba for rooms: configs and commands in JSON. It keeps no
// leaderboard and has no fixed step: it changes on commands only.
var Game = session.Define(session.Definition[Config, *State, Move, Event, View]{
	Info: session.Info{
		ID:            "baba",
		Name:          "Baba",
		RulesVersion:  RulesVersion,
		Modes:         []session.Mode{coop},
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
		return session.Setup{}, fmt.Errorf("baba config: %w", err)
	}
	return session.Setup{Mode: coop}, nil
}
