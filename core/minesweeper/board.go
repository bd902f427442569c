package minesweeper

import (
	"strings"

	"github.com/roomd/roomd/core/grid"
	"github.com/roomd/roomd/core/session"
)

// Mines are placed on the first effective reveal (spec §3), by rejection
// sampling with the seed's generator (the reference's mulberry32 for its
// integer seeds): each attempt draws a row, then a
// column, and both draws count even when the cell is refused.

// room3x3 reports whether the first reveal's 3×3 is kept mine-free: the
// reference always compares with 9, even at an edge or a corner.
func room3x3(rows, cols, mines int) bool { return rows*cols-9 >= mines }

// place lays the mines of cells for a first reveal at (r, c), sets every
// safe cell's adjacency, and returns the number of RNG draws. When order is
// not nil, the keys of the mines are appended to it in placement order. The
// config must be valid (mines ≤ rows*cols−1), which bounds the loop.
func place(cells []cell, rows, cols, mines int, src session.Source, r, c int, order *[]int) (draws int) {
	zone := room3x3(rows, cols, mines)
	for n := 0; n < mines; {
		row, col := session.Intn(src, rows), session.Intn(src, cols)
		draws += 2
		k := row*cols + col
		if cells[k].mine || (row == r && col == c) || (zone && abs(row-r) <= 1 && abs(col-c) <= 1) {
			continue
		}
		cells[k].mine = true
		n++
		if order != nil {
			*order = append(*order, k)
		}
	}
	count(cells, rows, cols)
	return draws
}

// count sets every cell's adjacency from the mines: the number of mines
// around a safe cell, 0 for a mine.
func count(cells []cell, rows, cols int) {
	for k := range cells {
		cells[k].adj = 0
	}
	var buf [8]int32
	for k := range cells {
		if !cells[k].mine {
			continue
		}
		for _, nk := range around(rows, cols, k/cols, k%cols, buf[:0]) {
			if n := &cells[nk]; !n.mine {
				n.adj++
			}
		}
	}
}

// around appends to buf the keys of the 8-way neighbours of (r, c) on a
// rows×cols board, in grid.EightWay's order (the reference's: NW, N, NE,
// W, E, SW, S, SE). It is EightWay specialised to flat keys for the hot
// loops; a test checks the two agree on every cell.
func around(rows, cols, r, c int, buf []int32) []int32 {
	for dr := -1; dr <= 1; dr++ {
		nr := r + dr
		if uint(nr) >= uint(rows) {
			continue
		}
		base := nr * cols
		for dc := -1; dc <= 1; dc++ {
			if nc := c + dc; (dr != 0 || dc != 0) && uint(nc) < uint(cols) {
				buf = append(buf, int32(base+nc))
			}
		}
	}
	return buf
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Layout is a generated board with how it was generated, for tests, tools
// and stored layouts (the reference's decision 0003).
type Layout struct {
	Rows, Cols, Mines int
	// First is the first reveal the board was generated for.
	First grid.Coord
	// Room3x3 is true when the first reveal's 3×3 was kept mine-free.
	Room3x3 bool
	// Excluded lists the mine-free cells of the first reveal, row-major.
	Excluded []grid.Coord
	// Draws counts the RNG outputs consumed.
	Draws int
	// Order lists the mines in placement order.
	Order []grid.Coord
	// Mine and Adjacent are row-major; a mine's adjacency is 0.
	Mine     []bool
	Adjacent []int
}

// Generate returns the board that seed and config give for a first reveal
// at (r, c), exactly as a match generates it.
func Generate(seed session.Seed, config Config, r, c int) (Layout, error) {
	if err := config.Validate(); err != nil {
		return Layout{}, err
	}
	rows, cols := config.Rows, config.Cols
	if r < 0 || r >= rows || c < 0 || c >= cols {
		return Layout{}, session.Malformed(session.CodeOutOfBounds, "(%d, %d) is off the %d×%d board", r, c, rows, cols)
	}
	cells := make([]cell, rows*cols)
	order := make([]int, 0, config.Mines)
	l := Layout{Rows: rows, Cols: cols, Mines: config.Mines, First: grid.Coord{r, c}, Room3x3: room3x3(rows, cols, config.Mines)}
	l.Draws = place(cells, rows, cols, config.Mines, seed.Source(), r, c, &order)
	for _, k := range order {
		l.Order = append(l.Order, grid.Coord{k / cols, k % cols})
	}
	l.Mine = make([]bool, len(cells))
	l.Adjacent = make([]int, len(cells))
	for k, cl := range cells {
		l.Mine[k], l.Adjacent[k] = cl.mine, int(cl.adj)
	}
	for dr := -1; dr <= 1; dr++ {
		for dc := -1; dc <= 1; dc++ {
			if (dr == 0 && dc == 0) || (l.Room3x3 && r+dr >= 0 && r+dr < rows && c+dc >= 0 && c+dc < cols) {
				l.Excluded = append(l.Excluded, grid.Coord{r + dr, c + dc})
			}
		}
	}
	return l, nil
}

// MineCoords lists the mines in row-major order.
func (l Layout) MineCoords() []grid.Coord {
	var out []grid.Coord
	for k, m := range l.Mine {
		if m {
			out = append(out, grid.Coord{k / l.Cols, k % l.Cols})
		}
	}
	return out
}

// Strings draws the board one string per row: '*' for a mine, else the
// adjacency digit (the vectors' format).
func (l Layout) Strings() []string {
	out := make([]string, l.Rows)
	var sb strings.Builder
	for r := range l.Rows {
		sb.Reset()
		for c := range l.Cols {
			k := r*l.Cols + c
			if l.Mine[k] {
				sb.WriteByte('*')
			} else {
				sb.WriteByte(byte('0' + l.Adjacent[k]))
			}
		}
		out[r] = sb.String()
	}
	return out
}
