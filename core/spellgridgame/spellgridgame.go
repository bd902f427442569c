// Package spellgridgame is SpellGrid as a roomd room (card-engine.md §9,
// "SpellGrid as a room"): a single-seat puzzle on the engine of
// core/spellgrid. The player steps the YOU objects of a Baba level, casts
// the spells of a hand on the minions that stand on the grid, and plays
// minions from the hand onto free tiles, until a YOU object meets a WIN one.
//
// Nothing is hidden: the hand and every card are in everybody's view. The
// state is the level and the commands accepted so far, so that undo and
// restart rebuild it by replay (baba.md §9), as does a checkpoint.
//
// Game is the erased form that rooms run; Rules, Config, Move, Event and
// View are the typed rules and their JSON forms, for tests and Go clients.
package spellgridgame

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/roomd/roomd/core/session"
)

// RulesVersion changes whenever the same level and commands could play out
// differently (the levels included).
const RulesVersion = "spellgrid/1"

// ModeSolo is the only mode; Seats its seat count.
const (
	ModeSolo = "solo"
	Seats    = 1
)

var (
	//go:embed schema/config.schema.json
	configSchema []byte
	//go:embed schema/command.schema.json
	commandSchema []byte
)

// solo is the only mode: one seat, no AI.
var solo = session.Mode{ID: ModeSolo, Name: "Solo", MinSeats: Seats, MaxSeats: Seats}

// Game is SpellGrid for rooms: configs and commands in JSON. It keeps no
// leaderboard and has no fixed step.
var Game = session.Define(session.Definition[Config, *State, Move, Event, View]{
	Info: session.Info{
		ID:            "spellgrid",
		Name:          "SpellGrid",
		RulesVersion:  RulesVersion,
		Modes:         []session.Mode{solo},
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
		return session.Setup{}, fmt.Errorf("spellgrid config: %w", err)
	}
	return session.Setup{Mode: solo}, nil
}
