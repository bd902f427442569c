package minesweeper

import (
	"encoding/binary"
	"fmt"

	"github.com/roomd/roomd/core/session"
)

// What a viewer must not learn while a match runs: where the mines are that
// its projection does not show, and, while a board is fresh, the secret
// seed that will place its mines. Once the match is over every board is
// disclosed (the projections show every mine, the events list them) and the
// seed is published, so nothing is hidden any more.

// Secrets implements session.Hider. Every mine of a placed board that
// viewer's projection does not show as a mine (the exploded one of a board
// it sees is shown) is two secrets, one for each form that would give it
// away: the cell a finished board's view lists,
// {"r":3,"c":4,"status":"hidden","mine":true}, and the entry of an event's
// mine list, {"r":3,"c":4} (explode and end events). Neither is sent while
// a match runs. (Another race board's exploded mine has the hidden form
// too: its revealed form may be the viewer's own exploded mine, and the
// bytes of a cell do not say its board.) While a board is fresh, a secret
// (ChaCha8) seed is a secret too, as its JSON string without quotes; a
// reference seed is public. The list is in board order, row-major, so
// that it changes when a mine moves.
func (Rules) Secrets(s *State, viewer session.Seat) []session.Secret {
	if s.over {
		return nil
	}
	var out []session.Secret
	fresh := false
	cols := s.cfg.Cols
	for i := range s.boards {
		b := &s.boards[i]
		if !b.placed {
			fresh = true
			continue
		}
		sees := !s.race || viewer == i // the cells of b are in viewer's projection
		for k, cl := range b.g.Cells() {
			if !cl.mine || (sees && cl.st == Revealed) {
				continue
			}
			r, c := k/cols, k%cols
			out = append(out,
				session.Secret{What: fmt.Sprintf("board %d: mine at %d,%d", i, r, c), Tell: mineCellTell(r, c)},
				session.Secret{What: fmt.Sprintf("board %d: mine at %d,%d in an event's list", i, r, c), Tell: minePosTell(r, c)},
			)
		}
	}
	if fresh && s.seed.Generator() == session.ChaCha8 {
		out = append(out, session.Secret{What: "the seed, which places the mines of a fresh board", Tell: s.seed.String()})
	}
	return out
}

// mineCellTell is the JSON a view lists for a hidden mine at (r, c) once
// its board is finished.
func mineCellTell(r, c int) string {
	return string(ViewCell{R: r, C: c, Status: Hidden, Mine: true}.AppendJSON(nil))
}

// minePosTell is the JSON of a mine at (r, c) in an explode or end event's
// list.
func minePosTell(r, c int) string {
	b := appendInt(append([]byte(nil), `{"r":`...), r)
	return string(append(appendInt(append(b, `,"c":`...), c), '}'))
}

// Resample implements session.Hider. It returns a deep copy of s in which
// the mines no viewer can know of are drawn again from src: on every placed
// board, the mines of its free cells — unrevealed cells (flagged or not: a
// flag is a player's guess) with no revealed neighbour — are spread again,
// uniformly and as many, over the free cells, and the adjacency of every
// cell is counted anew. A revealed cell touches no free cell, so every
// revealed cell, status and counter is kept: every viewer's projection is
// byte for byte the same, whoever viewer is (a race's boards that viewer
// cannot see keep their progress the same way). While a board is fresh, a
// secret seed is replaced by a new one drawn from src: the mines it will
// place are unknown too. A match that is over hides nothing: the copy is s.
func (Rules) Resample(s *State, _ session.Seat, src session.Source) *State {
	c := s.Clone()
	if c.over {
		return c
	}
	fresh := false
	for i := range c.boards {
		if b := &c.boards[i]; b.placed {
			c.redraw(b, src)
		} else {
			fresh = true
		}
	}
	if fresh && c.seed.Generator() == session.ChaCha8 {
		var key [session.SeedBytes]byte
		for i := 0; i < len(key); i += 4 {
			binary.LittleEndian.PutUint32(key[i:], src.Uint32())
		}
		c.seed = session.SecretSeed(key)
	}
	return c
}

// redraw spreads the mines of b's free cells over them again, drawing from
// src, and counts every cell's adjacency anew.
func (s *State) redraw(b *board, src session.Source) {
	rows, cols := s.cfg.Rows, s.cfg.Cols
	cells := b.g.Cells()
	var buf [8]int32
	var free []int
	mines := 0
	for k := range cells {
		if cells[k].st == Revealed || touchesRevealed(cells, around(rows, cols, k/cols, k%cols, buf[:0])) {
			continue
		}
		free = append(free, k)
		if cells[k].mine {
			mines++
			cells[k].mine = false
		}
	}
	// A partial Fisher–Yates shuffle: the first mines cells of free, a
	// uniform choice of that many, get the mines.
	for i := range mines {
		j := i + session.Intn(src, len(free)-i)
		free[i], free[j] = free[j], free[i]
		cells[free[i]].mine = true
	}
	count(cells, rows, cols)
}

func touchesRevealed(cells []cell, neighbours []int32) bool {
	for _, nk := range neighbours {
		if cells[nk].st == Revealed {
			return true
		}
	}
	return false
}
