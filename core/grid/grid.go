// Package grid is a dense, generic two-dimensional container of opaque cells.
//
// It knows nothing about any game: coordinates are plain [r, c] pairs, cells
// are stored row-major, and neighbourhoods are strategies injected by the
// caller (EightWay, Orthogonal, or any other Neighbors function).
package grid

import "fmt"

// Coord is a cell address: row then column.
type Coord = [2]int

// Grid is a rows×cols array of cells stored in row-major order.
// The zero value is an empty 0×0 grid.
type Grid[T any] struct {
	rows, cols int
	cells      []T
}

// New returns a rows×cols grid whose cells are set by fill (zero values when
// fill is nil). It panics if rows or cols is negative, as make does.
func New[T any](rows, cols int, fill func(r, c int) T) *Grid[T] {
	if rows < 0 || cols < 0 {
		panic(fmt.Sprintf("grid: negative size %d×%d", rows, cols))
	}
	g := &Grid[T]{rows: rows, cols: cols, cells: make([]T, rows*cols)}
	if fill != nil {
		for k := range g.cells {
			g.cells[k] = fill(k/cols, k%cols)
		}
	}
	return g
}

// Rows returns the number of rows.
func (g *Grid[T]) Rows() int { return g.rows }

// Cols returns the number of columns.
func (g *Grid[T]) Cols() int { return g.cols }

// Len returns rows*cols.
func (g *Grid[T]) Len() int { return len(g.cells) }

// InBounds reports whether (r, c) addresses a cell of the grid.
func (g *Grid[T]) InBounds(r, c int) bool {
	return r >= 0 && r < g.rows && c >= 0 && c < g.cols
}

// Key returns the row-major index of (r, c). It does not check bounds.
func (g *Grid[T]) Key(r, c int) int { return r*g.cols + c }

// At returns the cell at (r, c). It panics when (r, c) is out of bounds:
// unlike the reference, a column past the edge never aliases the next row.
func (g *Grid[T]) At(r, c int) T { return g.cells[g.index(r, c)] }

// Ptr returns a pointer to the cell at (r, c), for in-place updates.
// It panics when (r, c) is out of bounds.
func (g *Grid[T]) Ptr(r, c int) *T { return &g.cells[g.index(r, c)] }

// Set stores cell at (r, c). It panics when (r, c) is out of bounds.
func (g *Grid[T]) Set(r, c int, cell T) { g.cells[g.index(r, c)] = cell }

func (g *Grid[T]) index(r, c int) int {
	if !g.InBounds(r, c) {
		panic(fmt.Sprintf("grid: (%d, %d) out of bounds of %d×%d", r, c, g.rows, g.cols))
	}
	return r*g.cols + c
}

// ForEach calls fn for every cell in row-major order.
func (g *Grid[T]) ForEach(fn func(cell T, r, c int)) {
	for k, cell := range g.cells {
		fn(cell, k/g.cols, k%g.cols)
	}
}

// Map returns a new grid of the same shape whose cells are fn of this grid's.
func Map[T, U any](g *Grid[T], fn func(cell T, r, c int) U) *Grid[U] {
	out := &Grid[U]{rows: g.rows, cols: g.cols, cells: make([]U, len(g.cells))}
	for k, cell := range g.cells {
		out.cells[k] = fn(cell, k/g.cols, k%g.cols)
	}
	return out
}

// Map is the same-type form of the package-level Map.
func (g *Grid[T]) Map(fn func(cell T, r, c int) T) *Grid[T] { return Map(g, fn) }

// Clone returns a shallow copy: the cells are copied by value.
func (g *Grid[T]) Clone() *Grid[T] {
	return &Grid[T]{rows: g.rows, cols: g.cols, cells: append([]T(nil), g.cells...)}
}

// Cells returns the backing row-major slice. Changes to it change the grid.
func (g *Grid[T]) Cells() []T { return g.cells }
