package minesweeper

import (
	"sync"

	"github.com/roomd/roomd/core/session"
)

// Solver chooses moves from a view alone, as a careful player would. It
// keeps buffers between calls, so one Solver per goroutine plays without
// allocating; the zero value is ready.
//
// Each call works out, from the numbers only, which unrevealed cells are
// proven safe and which are proven mines: a number whose proven mines match
// it clears its other neighbours; a number with exactly as many unknown
// neighbours as missing mines has them all as mines; for two overlapping
// numbers A and B, when A needs |A∖B| more mines than B, A∖B are mines and
// B∖A safe (which covers the subset rule); and the mine total closes the
// board. Flags are never trusted, because a coop teammate may be wrong:
// only deductions count. The solver then plays, in order: flag a proven
// mine, unflag a proven-safe cell, chord a number whose flags are exactly
// its proven mines and that opens at least two cells, reveal a proven-safe
// cell, and only then guess the hidden cell with the lowest naive mine
// probability (first in row-major order on ties). A fresh board opens at
// its centre.
type Solver struct {
	rows, cols int
	st         []CellStatus
	adj        []int8
	known      []int8 // 0 unknown, proved* below
	prob       []float64
	cons       []constraint
	consAt     []int32 // constraint index of a revealed cell, or -1
}

const (
	provedSafe = 1
	provedMine = 2
)

// constraint says: of cells (unrevealed neighbours of a number), mines are mines.
type constraint struct {
	center int32
	n      int8
	mines  int8
	cells  [8]int32
}

var solverPool = sync.Pool{New: func() any { return new(Solver) }}

// Choose returns seat's next move on its board (the only board in solo and
// coop, its own in a race), or false when the board is finished or not
// visible to seat.
func (sv *Solver) Choose(v View, seat session.Seat) (Move, bool) {
	if v.dims() != nil {
		return Move{}, false
	}
	cells := v.Cells
	if v.Race {
		bv := v.board(seat)
		if bv == nil || !bv.Visible || v.Phase.Terminal() || bv.Phase.Terminal() {
			return Move{}, false
		}
		cells = bv.Cells
	} else if v.Phase.Terminal() {
		return Move{}, false
	}
	sv.load(v.Rows, v.Cols, cells)
	return sv.choose(v.Mines)
}

// choose plays the loaded board, which has mines in all.
func (sv *Solver) choose(mines int) (Move, bool) {
	revealed := 0
	for k := range sv.rows * sv.cols {
		if sv.st[k] == Revealed {
			revealed++
		}
	}
	if revealed == 0 {
		return sv.opening(), true
	}
	sv.constrain()
	sv.deduce(mines)
	return sv.decide(mines)
}

func (sv *Solver) load(rows, cols int, cells []ViewCell) {
	sv.reset(rows, cols)
	for _, c := range cells {
		if c.R < 0 || c.R >= rows || c.C < 0 || c.C >= cols {
			continue
		}
		k := c.R*cols + c.C
		sv.st[k] = c.Status
		if c.Status == Revealed {
			sv.adj[k] = int8(c.Adjacent)
		}
	}
}

// loadDense is load from a dense board.
func (sv *Solver) loadDense(rows, cols int, d []cell) {
	sv.reset(rows, cols)
	for k, c := range d[:rows*cols] {
		sv.st[k] = c.st
		if c.st == Revealed {
			sv.adj[k] = int8(c.adj)
		}
	}
}

// reset sizes the buffers for a rows × cols board of hidden cells that
// nothing is known about.
func (sv *Solver) reset(rows, cols int) {
	n := rows * cols
	sv.rows, sv.cols = rows, cols
	sv.st = grow(sv.st, n)
	sv.adj = grow(sv.adj, n)
	sv.known = grow(sv.known, n)
	sv.prob = grow(sv.prob, n)
	sv.consAt = grow(sv.consAt, n)
	for k := range n {
		sv.st[k], sv.adj[k], sv.known[k], sv.prob[k], sv.consAt[k] = Hidden, 0, 0, -1, -1
	}
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// opening reveals the hidden cell nearest the centre (the centre itself
// unless a teammate flagged it), or unflags the centre if all are flagged.
func (sv *Solver) opening() Move {
	cr, cc := sv.rows/2, sv.cols/2
	for d := 0; d < max(sv.rows, sv.cols); d++ {
		for r := cr - d; r <= cr+d; r++ {
			for c := cc - d; c <= cc+d; c++ {
				if r < 0 || r >= sv.rows || c < 0 || c >= sv.cols || (abs(r-cr) != d && abs(c-cc) != d) {
					continue
				}
				if sv.st[r*sv.cols+c] == Hidden {
					return Move{Type: Reveal, R: r, C: c}
				}
			}
		}
	}
	return Move{Type: Flag, R: cr, C: cc}
}

// constrain builds one constraint per revealed number with unrevealed
// neighbours (a revealed 0 among them: all its neighbours are safe).
func (sv *Solver) constrain() {
	sv.cons = sv.cons[:0]
	rows, cols := sv.rows, sv.cols
	for k, st := range sv.st {
		if st != Revealed {
			continue
		}
		r, c := k/cols, k%cols
		con := constraint{center: int32(k), mines: sv.adj[k]}
		for dr := -1; dr <= 1; dr++ {
			for dc := -1; dc <= 1; dc++ {
				nr, nc := r+dr, c+dc
				if (dr == 0 && dc == 0) || nr < 0 || nr >= rows || nc < 0 || nc >= cols {
					continue
				}
				if nk := nr*cols + nc; sv.st[nk] != Revealed {
					con.cells[con.n] = int32(nk)
					con.n++
				}
			}
		}
		if con.n > 0 {
			sv.consAt[k] = int32(len(sv.cons))
			sv.cons = append(sv.cons, con)
		}
	}
}

// single applies the one-number rules until nothing changes.
func (sv *Solver) single() bool {
	found := false
	for changed := true; changed; {
		changed = false
		for i := range sv.cons {
			var buf [8]int32
			rem, unk := sv.tallyInto(&sv.cons[i], &buf)
			if len(unk) == 0 {
				continue
			}
			switch rem {
			case 0:
				sv.mark(unk, provedSafe)
			case len(unk):
				sv.mark(unk, provedMine)
			default:
				continue
			}
			changed, found = true, true
		}
	}
	return found
}

func (sv *Solver) tallyInto(con *constraint, buf *[8]int32) (int, []int32) {
	unk := buf[:0]
	rem := int(con.mines)
	for _, k := range con.cells[:con.n] {
		switch sv.known[k] {
		case provedMine:
			rem--
		case 0:
			unk = append(unk, k)
		}
	}
	return rem, unk
}

func (sv *Solver) mark(cells []int32, what int8) {
	for _, k := range cells {
		sv.known[k] = what
	}
}

// pairs applies the two-number rule once over every overlapping pair.
func (sv *Solver) pairs() bool {
	found := false
	cols := sv.cols
	for i := range sv.cons {
		var bufA [8]int32
		remA, unkA := sv.tallyInto(&sv.cons[i], &bufA)
		if len(unkA) == 0 {
			continue
		}
		ca := int(sv.cons[i].center)
		ar, ac := ca/cols, ca%cols
		for r := max(ar-2, 0); r <= min(ar+2, sv.rows-1); r++ {
			for c := max(ac-2, 0); c <= min(ac+2, cols-1); c++ {
				j := sv.consAt[r*cols+c]
				if j < 0 || int(j) == i {
					continue
				}
				var bufB [8]int32
				remB, unkB := sv.tallyInto(&sv.cons[j], &bufB)
				if len(unkB) == 0 {
					continue
				}
				var onlyA, onlyB [8]int32
				a, b := minus(unkA, unkB, onlyA[:0]), minus(unkB, unkA, onlyB[:0])
				if len(a) == len(unkA) || len(a)+len(b) == 0 {
					continue // disjoint, or the same cells
				}
				if remA-remB == len(a) {
					sv.mark(a, provedMine)
					sv.mark(b, provedSafe)
					found = true
					remA, unkA = sv.tallyInto(&sv.cons[i], &bufA)
					if len(unkA) == 0 {
						break
					}
				}
			}
		}
	}
	return found
}

func minus(a, b, out []int32) []int32 {
outer:
	for _, x := range a {
		for _, y := range b {
			if x == y {
				continue outer
			}
		}
		out = append(out, x)
	}
	return out
}

// deduce runs the rules to a fixed point, stopping early once a move is
// known.
func (sv *Solver) deduce(mines int) {
	sv.single()
	for !sv.actionable() && sv.pairs() {
		sv.single()
	}
	if sv.actionable() {
		return
	}
	left, unknown := sv.remaining(mines)
	if unknown == 0 || (left != 0 && left != unknown) {
		return
	}
	what := int8(provedSafe)
	if left == unknown {
		what = provedMine
	}
	for k, st := range sv.st {
		if st != Revealed && sv.known[k] == 0 {
			sv.known[k] = what
		}
	}
}

// actionable reports whether a proven cell still needs a move.
func (sv *Solver) actionable() bool {
	for k, st := range sv.st {
		if st != Revealed && sv.known[k] != 0 && (st == Hidden || sv.known[k] == provedSafe) {
			return true
		}
	}
	return false
}

func (sv *Solver) at(k int, t MoveType) Move { return Move{Type: t, R: k / sv.cols, C: k % sv.cols} }

func (sv *Solver) decide(mines int) (Move, bool) {
	for k, st := range sv.st {
		if st == Hidden && sv.known[k] == provedMine {
			return sv.at(k, Flag), true
		}
	}
	for k, st := range sv.st {
		if st == Flagged && sv.known[k] == provedSafe {
			return sv.at(k, Flag), true
		}
	}
	for i := range sv.cons {
		con := &sv.cons[i]
		if con.mines == 0 {
			continue
		}
		flags, hidden, sure := 0, 0, true
		for _, k := range con.cells[:con.n] {
			switch {
			case sv.st[k] == Flagged && sv.known[k] == provedMine:
				flags++
			case sv.st[k] == Hidden && sv.known[k] == provedSafe:
				hidden++
			default:
				sure = false
			}
		}
		if sure && hidden >= 2 && flags == int(con.mines) {
			return sv.at(int(con.center), Chord), true
		}
	}
	for k, st := range sv.st {
		if st == Hidden && sv.known[k] == provedSafe {
			return sv.at(k, Reveal), true
		}
	}
	return sv.guess(mines)
}

// remaining returns the mines not yet proved and the cells neither revealed
// nor proved either way.
func (sv *Solver) remaining(mines int) (left, unknown int) {
	left = mines
	for k, st := range sv.st {
		switch {
		case st == Revealed:
		case sv.known[k] == provedMine:
			left--
		case sv.known[k] == 0:
			unknown++
		}
	}
	return left, unknown
}

// guess reveals the hidden unknown cell least likely to be a mine: a cell
// next to numbers takes the highest of their missing-mines-per-unknown
// ratios, any other cell the board's remaining density.
func (sv *Solver) guess(mines int) (Move, bool) {
	left, unknown := sv.remaining(mines)
	for i := range sv.cons {
		var buf [8]int32
		rem, unk := sv.tallyInto(&sv.cons[i], &buf)
		if len(unk) == 0 {
			continue
		}
		p := float64(rem) / float64(len(unk))
		for _, k := range unk {
			if p > sv.prob[k] {
				sv.prob[k] = p
			}
		}
	}
	density := 1.0
	if unknown > 0 {
		density = float64(left) / float64(unknown)
	}
	best, bestP, flagged := -1, 2.0, -1
	for k, st := range sv.st {
		if st == Revealed || sv.known[k] != 0 {
			continue
		}
		if st == Flagged {
			if flagged < 0 {
				flagged = k
			}
			continue
		}
		p := sv.prob[k]
		if p < 0 {
			p = density
		}
		if p < bestP {
			best, bestP = k, p
		}
	}
	switch {
	case best >= 0:
		return sv.at(best, Reveal), true
	case flagged >= 0:
		return sv.at(flagged, Flag), true // only unproven flags are left: lift one
	}
	return Move{}, false
}
