// Package spellgrid is SpellGrid, seed 003's Part III
// (shared/specs/card-engine.md §9): a Baba level (core/baba) whose minions
// are cards of a Game (core/cards), joined by one id space and three
// seams: rule auras read from the grid, minions destroyed by a turn
// removed by a Sequence, and the end of every Sequence written back onto
// the grid.
//
// The engine is pure and deterministic. Every call either succeeds or
// returns an error with the SpellGrid unchanged. A SpellGrid is not safe
// for concurrent use.
package spellgrid
