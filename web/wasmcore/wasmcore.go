//go:build js && wasm

// Package wasmcore is the browser's local game core as a library: a
// program built for GOOS=js GOARCH=wasm calls Run with its games, and the
// page reaches their rules, AI, replay and view reducer through one
// function, globalThis.roomdCore.call(request) → answer, both JSON strings
// (core/corecall). roomd's own modules are such programs (cmd/roomwasm); a
// game from outside roomd's tree builds its own with one command, e.g.
//
//	GOOS=js GOARCH=wasm go build -o game/web/core.wasm ./wasm
//
// where ./wasm/main.go is
//
//	func main() { wasmcore.Run(mygame.Game) }
//
// and serves the file as its web.Game's core.wasm (GAMES.md).
package wasmcore

import (
	"syscall/js"

	"github.com/roomd/roomd/core/corecall"
	"github.com/roomd/roomd/core/session"
)

// Run serves the core's calls for games until the page goes; it never
// returns.
func Run(games ...session.Game) {
	core := corecall.New(session.NewRegistry(games...))
	call := js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) != 1 || args[0].Type() != js.TypeString {
			return string(core.Call([]byte(`"call takes one string"`)))
		}
		return string(core.Call([]byte(args[0].String())))
	})
	js.Global().Set("roomdCore", js.ValueOf(map[string]any{"call": call}))
	select {} // serve calls until the page goes
}
