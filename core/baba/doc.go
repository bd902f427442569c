// Package baba is the rules engine of seed 003's Part II: a grid puzzle in
// the manner of Baba Is You, in which text objects on the grid spell the
// rules (../shared/specs/baba.md, §1–§7).
//
// A Baba holds a level of width × height tiles and a set of objects, each an
// id, a kind ("rock", or "text:ROCK" for a word) and a tile. Rules are read
// from the text along rows and columns (Rules, ActiveRules); they give
// objects properties (HasProperty) and turn kinds into others. Move is the
// movement alone (M8); Step is a whole turn (M9): movement, conversion,
// hazards and the win check.
//
// The engine is pure and deterministic: no clock, no randomness, no I/O.
// Every method either succeeds or returns an error with the Baba unchanged.
// A Baba is not safe for concurrent use.
package baba
