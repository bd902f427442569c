// Package seed003 lists the games of seed 003's engines: Baba, the card
// duel and SpellGrid. They are one group of core/games, and one
// WebAssembly module of the browser's local core (cmd/roomwasm).
package seed003

import (
	"github.com/roomd/roomd/core/babagame"
	"github.com/roomd/roomd/core/cardgame"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/core/spellgridgame"
)

// Games lists the group's games.
func Games() []session.Game {
	return []session.Game{babagame.Game, cardgame.Game, spellgridgame.Game}
}
