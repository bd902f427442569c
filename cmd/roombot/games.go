package main

import (
	"github.com/roomd/roomd/core/babagame"
	"github.com/roomd/roomd/core/cardgame"
	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/snake"
	"github.com/roomd/roomd/core/spellgridgame"
	"github.com/roomd/roomd/core/tictactoe"
)

// roombotGames are the games roombot can play, by id. Adding a game is an
// adapter file (see game.go for the interface, game_tictactoe.go for the
// smallest, game_nim.go for one that checks hidden secrets, game_snake.go
// for a real-time one) and a line here. A run plays a game only when the server runs it with the adapter's
// rules version (see catalogue.go).
//
// The type arguments are explicit: inferring them from the adapter's
// methods depends on the order the compiler reads the files in.
var roombotGames = newGameRegistry(
	gameOf[babagame.View, babagame.Event](babaAdapter{}),
	gameOf[cardgame.View, cardgame.Event](cardsAdapter{}),
	gameOf[msView, minesweeper.Event](minesweeperAdapter{}),
	gameOf[nim.View, nim.Event](nimAdapter{}),
	gameOf[snake.View, snake.Event](snakeAdapter{}),
	gameOf[spellgridgame.View, spellgridgame.Event](spellgridAdapter{}),
	gameOf[tictactoe.View, tictactoe.Event](tictactoeAdapter{}),
)
