//go:build js && wasm && roomwasm_classic

package main

import "github.com/roomd/roomd/core/games/classic"

// moduleGames are the games of the "classic" module (core/games.Groups).
var moduleGames = classic.Games()
