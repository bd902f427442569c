// Package classic lists roomd's first games: Minesweeper, hidden Nim, the
// snake arena and tic-tac-toe. They are one group of core/games, and one
// WebAssembly module of the browser's local core (cmd/roomwasm).
package classic

import (
	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/snake"
	"github.com/roomd/roomd/core/tictactoe"
)

// Games lists the group's games.
func Games() []session.Game {
	return []session.Game{minesweeper.Game, nim.Game, snake.Game, tictactoe.Game}
}
