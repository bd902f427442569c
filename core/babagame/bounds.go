package babagame

import "github.com/roomd/roomd/core/baba"

// Bounds of what one viewer is sent (session.Info.MaxViewBytes and
// MaxEventBytes), from the engine's limits: at most baba.MaxObjects live
// objects, each at most objectJSON bytes with its comma
// ({"id":4096,"kind":"text:…","x":…,"y":…}, a kind at most 40 bytes), and at
// most maxRules rules (every "X IS Y" of the lexicon's 64 words), each at
// most ruleJSON bytes. A view lists the objects once and the rules twice
// (all, active); one step's delta moves or creates each object at most once
// (a restart: all destroyed, all created), destroys each at most once (an id,
// at most 6 bytes), and adds or removes each rule at most once in each of
// its four lists; headerJSON covers the rest.
const (
	objectJSON    = 80
	ruleJSON      = 48
	maxRules      = 64 * 64
	headerJSON    = 256
	maxViewBytes  = headerJSON + baba.MaxObjects*objectJSON + 2*maxRules*ruleJSON
	maxEventBytes = headerJSON + 2*baba.MaxObjects*objectJSON + baba.MaxObjects*6 + 4*maxRules*ruleJSON
)
