// Command connectfour is a roomd server with roomd's own games and Connect
// Four (package game): the whole program a game from outside roomd's tree
// needs. It takes roomd's flags:
//
//	go run . --addr 127.0.0.1:8080 --memory
//
// Its bots (roomd's roombot, the `bot` subcommand) play it too:
//
//	go run . bot --url http://127.0.0.1:8080 --game connectfour --duration 10s
//
// For local play, build the game's WebAssembly core first (it is embedded
// with the game's browser files):
//
//	GOOS=js GOARCH=wasm go build -o game/web/core.wasm ./wasm
package main

import (
	"os"

	"github.com/roomd/roomd"
	"github.com/roomd/roomd/examples/connectfour/game"
)

func main() { os.Exit(roomd.Main(os.Args[1:], games()...)) }

// games are roomd's own and Connect Four, with its browser files.
func games() []roomd.Game {
	return append(roomd.BuiltinGames(), roomd.Game{Rules: connectfour.Game, Web: connectfour.Web()})
}
