//go:build js && wasm

// Command roomwasm is the game core for the browser: games' rules, AI and
// replay compiled to WebAssembly (web/wasmcore), behind one function,
// globalThis.roomdCore.call(request) → answer, both JSON strings (see
// core/corecall). One build holds one module's games, chosen by a build
// tag (games_*.go): the games together are more than a phone should load
// at once. web's go:generate builds every module into web/static/wasm
// (web/internal/wasmbuild); the page loads the one of its game with
// web/static/js/local/core.js, only when local play starts.
package main

import "github.com/roomd/roomd/web/wasmcore"

func main() { wasmcore.Run(moduleGames...) }
