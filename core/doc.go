// Package core holds the pure game rules of roomd: grid (a generic 2-D
// container), session (the rules contract, RNG, sessions, replay) and the
// games (minesweeper, nim, tictactoe, snake), seed 003's engines (baba, cards,
// spellgrid) and its games on them (babagame, cardgame, spellgridgame).
// Nothing under core/ reads a clock,
// draws system randomness, does I/O or starts goroutines;
// determinism_test.go checks it.
package core
