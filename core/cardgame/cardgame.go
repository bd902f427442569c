// Package cardgame is the card duel of shared/specs/card-engine.md §10: two
// seats play the card engine (core/cards) in turns, with mana, attacks and
// hidden hands. Each seat brings a deck of starter cards; the decks are
// shuffled from the match's seed, the first seat is drawn, and each turn
// the active seat's mana grows by one (up to 10), it draws a card, then
// plays cards, attacks and ends its turn. A hero at 0 Health loses; both at
// once is a draw, and so is the end of turn 89.
//
// A seat sees its own hand (ids, names, costs); the other seat and the
// spectators see only how many cards it holds and their ids, and nobody
// sees a deck but its size. The seed, the deck order and the name of a card
// in a hidden zone are never sent.
//
// Randomness (§5): everything random in a match draws from the match's
// stream, session.Seed.Stream — for a room's match, ChaCha8 keyed with its
// 32-byte secret, each 32-bit draw the high half of a 64-bit output (the
// stream Minesweeper places its mines from). It shuffles player 0's deck and
// then player 1's (Fisher–Yates from the last index down to 1,
// j = Intn(i+1)), picks the first seat with Intn(2), and goes on as the
// engine's generator for every random pick of the match. Intn(n) is
// (uint64(next) * n) >> 32. Once the match is over and its secret disclosed,
// anyone can derive the deals, draws and picks (`roomd verify` does); before,
// no number of seen cards narrows the 2^256 secrets. Rules cards/1 drew all
// of it from 32 bits of the secret instead (legacy.go).
//
// Game is the erased form that rooms run; Rules, Config, Move, Event and
// View are the typed rules and their JSON forms, for tests and Go clients.
// The game keeps no checkpoint: a restore replays the moves.
package cardgame

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/roomd/roomd/core/session"
)

// RulesVersion changes whenever the same seed and log could play out
// differently.
const RulesVersion = "cards/2"

// Seats is the number of seats of a duel.
const Seats = 2

// ModeDuel is the only mode.
const ModeDuel = "duel"

var (
	//go:embed schema/config.schema.json
	configSchema []byte
	//go:embed schema/command.schema.json
	commandSchema []byte
)

var duel = session.Mode{ID: ModeDuel, Name: "Duel", MinSeats: Seats, MaxSeats: Seats, AI: true}

// Game is the card duel for rooms: configs and commands in JSON.
var Game = session.Define(session.Definition[Config, *State, Move, Event, View]{
	Info: session.Info{
		ID:            "cards",
		Name:          "Card duel",
		RulesVersion:  RulesVersion,
		Modes:         []session.Mode{duel},
		TurnClock:     true,
		MaxViewBytes:  maxViewBytes,
		MaxEventBytes: maxEventBytes,
		ConfigSchema:  json.RawMessage(configSchema),
		CommandSchema: json.RawMessage(commandSchema),
	},
	Rules: Rules{},
	Setup: setup,
})

// setup reports the mode of a config; the duel keeps no leaderboard.
func setup(c Config) (session.Setup, error) {
	if err := c.Validate(); err != nil {
		return session.Setup{}, fmt.Errorf("cards config: %w", err)
	}
	return session.Setup{Mode: duel}, nil
}
