//go:build js && wasm && roomwasm_seed003

package main

import (
	"github.com/roomd/roomd/core/babagame"
	"github.com/roomd/roomd/core/cardgame"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/spellgridgame"
)

// moduleGames are the games of the "seed003" module (wasmbuild.Modules).
var moduleGames = []session.Game{babagame.Game, cardgame.Game, spellgridgame.Game}
