//go:build js && wasm && roomwasm_seed003

package main

import "github.com/roomd/roomd/core/games/seed003"

// moduleGames are the games of the "seed003" module (core/games.Groups).
var moduleGames = seed003.Games()
