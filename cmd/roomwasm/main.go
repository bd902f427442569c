//go:build js && wasm

// Command roomwasm is the game core for the browser: games' rules, AI and
// replay compiled to WebAssembly, behind one function,
// globalThis.roomdCore.call(request) → answer, both JSON strings (see
// core/corecall). One build holds one module's games, chosen by a build
// tag (games_*.go): the games together are more than a phone should load
// at once. web's go:generate builds every module into web/static/wasm
// (web/internal/wasmbuild); the page loads the one of its game with
// web/static/js/local/core.js, only when local play starts.
package main

import (
	"syscall/js"

	"github.com/roomd/roomd/core/corecall"
	"github.com/roomd/roomd/core/session"
)

func main() {
	core := corecall.New(session.NewRegistry(moduleGames...))
	call := js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) != 1 || args[0].Type() != js.TypeString {
			return string(core.Call([]byte(`"call takes one string"`)))
		}
		return string(core.Call([]byte(args[0].String())))
	})
	js.Global().Set("roomdCore", js.ValueOf(map[string]any{"call": call}))
	select {} // serve calls until the page goes
}
