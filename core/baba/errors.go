package baba

import "errors"

// Errors of the engine. Each is wrapped with the operation and the detail
// ("baba: place: text:FOO: not a kind of the lexicon"); test with errors.Is.
var (
	// ErrLevel: a LevelDef that cannot be built (size, an entry, a field).
	ErrLevel = errors.New("invalid level")
	// ErrKind: a kind that is not in the lexicon (§2).
	ErrKind = errors.New("not a kind of the lexicon")
	// ErrOutside: coordinates outside the level.
	ErrOutside = errors.New("outside the level")
	// ErrTooMany: the object limit (MaxObjects) would be exceeded.
	ErrTooMany = errors.New("too many objects")
	// ErrUnknownID: an id the Baba never issued.
	ErrUnknownID = errors.New("unknown id")
	// ErrDir: a direction that is not up, down, left or right.
	ErrDir = errors.New("not a direction")
)
