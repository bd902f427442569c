// Package minesweeper is the classic Minesweeper rules, bit-compatible with
// the reference JavaScript core (ayo-run/cozy-games packages/mnswpr/core):
// the same mulberry32 boards, flood order, events, projections and move
// events, checked against its recorded vectors. roomd is stricter than the
// reference where the reference has holes: coordinates off the board and
// unknown move types are malformed, and the reference's silent no-ops are
// typed rejections.
//
// Three modes share the rules: solo (one seat), coop (up to four seats
// sweeping one board) and race (each seat on its own board from the same
// seed; the first to clear it wins).
package minesweeper
