//go:build js && wasm

// Command roomwasm is the game core for the browser: every game's rules,
// AI and replay (core/games) compiled to WebAssembly, behind one function,
// globalThis.roomdCore.call(request) → answer, both JSON strings (see
// core/corecall). web's go:generate builds it into
// web/static/wasm/core.wasm (web/internal/wasmbuild); the page loads it
// with web/static/js/local/core.js only when local play starts.
package main

import (
	"syscall/js"

	"github.com/roomd/roomd/core/corecall"
	"github.com/roomd/roomd/core/games"
)

func main() {
	core := corecall.New(games.Registry())
	call := js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) != 1 || args[0].Type() != js.TypeString {
			return string(core.Call([]byte(`"call takes one string"`)))
		}
		return string(core.Call([]byte(args[0].String())))
	})
	js.Global().Set("roomdCore", js.ValueOf(map[string]any{"call": call}))
	select {} // serve calls until the page goes
}
