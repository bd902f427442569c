//go:build js && wasm && roomwasm_classic

package main

import (
	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/snake"
	"github.com/roomd/roomd/core/tictactoe"
)

// moduleGames are the games of the "classic" module (wasmbuild.Modules).
var moduleGames = []session.Game{minesweeper.Game, nim.Game, snake.Game, tictactoe.Game}
