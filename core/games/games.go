// Package games lists every game of this build: the server's registry and
// the browser's local core (cmd/roomwasm) are the same list.
package games

import (
	"github.com/roomd/roomd/core/babagame"
	"github.com/roomd/roomd/core/cardgame"
	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/snake"
	"github.com/roomd/roomd/core/spellgridgame"
	"github.com/roomd/roomd/core/tictactoe"
)

// Registry returns a new registry of every game, with the retired rules
// versions that finished matches may still be verified under.
func Registry() *session.Registry {
	r := session.NewRegistry(All()...)
	for _, g := range Retired() {
		r.Retire(g)
	}
	return r
}

// Retired lists the retired rules versions of the games.
func Retired() []session.Game { return []session.Game{cardgame.LegacyV1} }

// All lists every game of this build.
func All() []session.Game {
	return []session.Game{babagame.Game, cardgame.Game, minesweeper.Game, nim.Game, snake.Game, spellgridgame.Game, tictactoe.Game}
}
