// Package snake is a snake arena, roomd's first real-time game: 2 to 8
// snakes share a walled grid and move together on a fixed step (Hz ticks a
// second, one move every few ticks). A snake that runs into a wall, a body
// or another head dies; one that eats food grows by one cell and scores a
// point. The last snake alive wins; when time runs out, the live snakes
// with the highest score do.
//
// The game implements session.Stepper, not session.Mover: a command
// ({"type":"turn","dir":"up"}) is an input, queued by the session for the
// next tick and handed to Rules.Step with the others of that tick. Food is
// placed from a key drawn from the seed in Init and never shown, so a client
// cannot tell where the next food will be from what it has seen. A seat's
// queued turns are its own secret until its snake moves: only its own view
// and events carry them.
//
// Game is the erased form that rooms run; Rules, Config, Move, Event and
// View are the typed rules and their JSON forms, for tests and Go clients.
package snake

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/roomd/roomd/core/session"
)

// RulesVersion changes whenever the same seed and inputs could play out
// differently.
const RulesVersion = "snake/1"

// Timing. Ticks are numbered from 1, as the session numbers them.
const (
	// Hz is the game's fixed step: ticks per second.
	Hz = 20
	// Countdown is how many ticks pass before the first move may happen:
	// nothing moves during ticks 1 to Countdown (inputs are queued), and
	// the match starts at tick Countdown.
	Countdown = 3 * Hz
)

// MaxMoves bounds the inputs one match may log.
const MaxMoves = 20_000

var (
	//go:embed schema/config.schema.json
	configSchema []byte
	//go:embed schema/command.schema.json
	commandSchema []byte
)

// arena is the only mode: 2 to 8 seats, any of which the AI can play.
var arena = session.Mode{ID: ModeArena, Name: "Arena", MinSeats: MinSeats, MaxSeats: MaxSeats, AI: true}

// Game is the snake arena for rooms: configs and commands in JSON. Results
// rank by score on the standard boards (see setup).
var Game = session.Define(session.Definition[Config, *State, Move, Event, View]{
	Info: session.Info{
		ID:            "snake",
		Name:          "Snake arena",
		RulesVersion:  RulesVersion,
		Modes:         []session.Mode{arena},
		Ranking:       &session.Ranking{By: session.RankScore, Higher: true, Boards: []string{BoardSmall, BoardMedium, BoardLarge}},
		Tick:          &session.Rate{Hz: Hz},
		MaxMoves:      MaxMoves,
		MaxViewBytes:  maxViewBytes,
		MaxEventBytes: maxEventBytes,
		ConfigSchema:  json.RawMessage(configSchema),
		CommandSchema: json.RawMessage(commandSchema),
	},
	Rules: Rules{},
	Setup: setup,
})

// setup reports the mode of a config, and its board's leaderboard when
// the config plays the standard settings (normal speed, the default time
// limit and food): other settings make scores that do not compare.
func setup(c Config) (session.Setup, error) {
	if err := c.Validate(); err != nil {
		return session.Setup{}, fmt.Errorf("snake config: %w", err)
	}
	st := session.Setup{Mode: arena}
	// A board holds fewer snakes than the mode's most (the small one 4): a
	// room admits players up to the setup's MaxSeats, so it says so.
	st.Mode.MaxSeats = min(st.Mode.MaxSeats, c.board().MaxSeats)
	if c.speed() == SpeedNormal && c.timeLimit() == DefaultTimeLimit && c.food() == DefaultFood {
		st.Board = c.board().ID
	}
	return st, nil
}
