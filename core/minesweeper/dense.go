package minesweeper

import "fmt"

// Dense is a solo or co-op View held as a dense board, for a client that
// plays many updates on one view and chooses moves between them (roombot's
// players). View.Apply spreads the view's cell list over a dense board,
// plays the events and lists the cells again, allocating both, on every
// call; Dense.Apply plays on the board it keeps, Choose loads the solver
// from it, and the cell list is made only when View asks for it.
//
// Apply, Choose and View answer exactly what View.Apply, Rules.Choose and
// the View would after the same calls (TestDenseFollowsView).
type Dense struct {
	v     View   // the view but its cells
	cells []cell // the board, row-major
	work  []cell // Apply's scratch board
}

// NewDense holds v, a solo or co-op view, densely. It fails for a race's
// view, and for one that View.Apply would refuse to play on.
func NewDense(v View) (*Dense, error) {
	if v.Race {
		return nil, fmt.Errorf("minesweeper view: a race's view is not one board")
	}
	if err := v.dims(); err != nil {
		return nil, err
	}
	d, err := v.dense(v.Cells)
	if err != nil {
		return nil, err
	}
	v.Cells = nil
	return &Dense{v: v, cells: d}, nil
}

// Apply plays one update's events, as View.Apply does: when it fails, the
// cells are as before it and the phase as View.Apply would leave it.
func (d *Dense) Apply(events []Event) error {
	d.work = append(d.work[:0], d.cells...)
	if err := d.v.applySingle(d.work, events); err != nil {
		return err
	}
	d.cells, d.work = d.work, d.cells
	return nil
}

// Choose is Rules.Choose on the view: the solver's move, or false when the
// board is finished.
func (d *Dense) Choose() (Move, bool) {
	if d.v.Phase.Terminal() {
		return Move{}, false
	}
	sv := solverPool.Get().(*Solver)
	defer solverPool.Put(sv)
	sv.loadDense(d.v.Rows, d.v.Cols, d.cells)
	return sv.choose(d.v.Mines)
}

// View returns the view, its cells listed anew.
func (d *Dense) View() View {
	v := d.v
	v.Cells = v.sparse(d.cells)
	return v
}

// Clone returns a copy that Apply may change without changing d.
func (d *Dense) Clone() *Dense {
	return &Dense{v: d.v, cells: append([]cell(nil), d.cells...)}
}
