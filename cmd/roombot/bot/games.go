package bot

import (
	"github.com/roomd/roomd/core/babagame"
	"github.com/roomd/roomd/core/cardgame"
	"github.com/roomd/roomd/core/minesweeper"
	"github.com/roomd/roomd/core/nim"
	"github.com/roomd/roomd/core/snake"
	"github.com/roomd/roomd/core/spellgridgame"
	"github.com/roomd/roomd/core/tictactoe"
)

// adapters are roombot's own adapters for roomd's built-in games, by id:
// each checks what its game hides (see game.go for the interface,
// game_nim.go for one that checks hidden secrets, game_snake.go for a
// real-time one). A game without one is played by the default follower
// (game_default.go), so a new game needs no adapter; registryOf picks.
// A run plays a game only when the server runs it with the rules version
// roombot follows (see catalogue.go).
//
// The type arguments are explicit: inferring them from the adapter's
// methods depends on the order the compiler reads the files in.
var adapters = mustRegistry(newGameRegistry(
	gameOf[babagame.View, babagame.Event](babaAdapter{}),
	gameOf[cardgame.View, cardgame.Event](cardsAdapter{}),
	gameOf[msView, minesweeper.Event](minesweeperAdapter{}),
	gameOf[nim.View, nim.Event](nimAdapter{}),
	gameOf[snake.View, snake.Event](snakeAdapter{}),
	gameOf[spellgridgame.View, spellgridgame.Event](spellgridAdapter{}),
	gameOf[tictactoe.View, tictactoe.Event](tictactoeAdapter{}),
))

// roombotGames are the games cmd/roombot plays: roomd's built-in games
// (Builtin), each through its adapter.
var roombotGames = mustRegistry(registryOf(Builtin()))

func mustRegistry(r gameRegistry, err error) gameRegistry {
	if err != nil {
		panic(err)
	}
	return r
}
