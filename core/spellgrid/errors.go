package spellgrid

import "errors"

// Errors of SpellGrid, wrapped with the call and the detail; test with
// errors.Is. The engines' own errors (core/baba, core/cards) are wrapped
// as they come.
var (
	// ErrLevel: a level whose cards or hand cannot be built.
	ErrLevel = errors.New("invalid spellgrid level")
	// ErrNotInHand: no card of that name in player 0's hand.
	ErrNotInHand = errors.New("no card of that name in hand")
	// ErrNotASpell: cast of a minion card.
	ErrNotASpell = errors.New("not a spell")
	// ErrNotAMinion: play of a spell card.
	ErrNotAMinion = errors.New("not a minion")
	// ErrTarget: a target that is not a live minion, or a target missing
	// or given where the card says otherwise.
	ErrTarget = errors.New("invalid target")
	// ErrTile: a tile outside the level or holding a live object.
	ErrTile = errors.New("tile not free")
	// ErrUnknownID: an id that names no card, hero or grid object.
	ErrUnknownID = errors.New("unknown id")
	// ErrPlayer: a player other than 0 and 1.
	ErrPlayer = errors.New("no such player")
)
