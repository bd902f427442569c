//go:build js && wasm

// Command wasm is Connect Four's WebAssembly core, for local play and for
// the page's view reducer (ctx.follow). Built with
//
//	GOOS=js GOARCH=wasm go build -o game/web/core.wasm ./wasm
//
// the server embeds it with the game's other browser files (game.Web).
package main

import (
	"github.com/roomd/roomd/examples/connectfour/game"
	"github.com/roomd/roomd/web/wasmcore"
)

func main() { wasmcore.Run(connectfour.Game) }
