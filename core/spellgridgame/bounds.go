package spellgridgame

import (
	"github.com/roomd/roomd/core/baba"
	"github.com/roomd/roomd/core/cards"
)

// Bounds of what one viewer is sent (session.Info.MaxViewBytes and
// MaxEventBytes), from the engines' limits, as Baba's (core/babagame):
// at most baba.MaxObjects grid objects (objectJSON bytes each with its
// comma), every "X IS Y" of the 64 words as rules (ruleJSON each), a hand of
// at most cards.MaxHand names (cardJSON each), and a minion per grid object
// at most (minionJSON: {"id":…,"name":…,"health":…,"attack":…,"x":…,"y":…}
// with a 40-byte name). A step's delta lists each object, rule, card and
// minion at most once per list, as a restart does; headerJSON covers the
// rest.
const (
	objectJSON    = 80
	ruleJSON      = 48
	cardJSON      = 44
	minionJSON    = 120
	maxRules      = 64 * 64
	headerJSON    = 256
	maxViewBytes  = headerJSON + baba.MaxObjects*(objectJSON+minionJSON) + 2*maxRules*ruleJSON + cards.MaxHand*cardJSON
	maxEventBytes = headerJSON + 2*baba.MaxObjects*objectJSON + 2*baba.MaxObjects*6 + baba.MaxObjects*minionJSON +
		4*maxRules*ruleJSON + cards.MaxHand*cardJSON
)
