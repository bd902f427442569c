package grid

import (
	"encoding/json"
	"errors"
	"fmt"
)

// MaxCells bounds the size of a decoded grid, so that a hostile document
// cannot make a decoder allocate without limit.
const MaxCells = 1 << 20

type wire[T any] struct {
	Rows  int `json:"rows"`
	Cols  int `json:"cols"`
	Cells []T `json:"cells"`
}

// MarshalJSON encodes the grid as {"rows", "cols", "cells"} with cells in
// row-major order.
func (g *Grid[T]) MarshalJSON() ([]byte, error) {
	cells := g.cells
	if cells == nil {
		cells = []T{}
	}
	return json.Marshal(wire[T]{Rows: g.rows, Cols: g.cols, Cells: cells})
}

// UnmarshalJSON decodes the form written by MarshalJSON and checks that the
// cell count matches the shape.
func (g *Grid[T]) UnmarshalJSON(data []byte) error {
	var w wire[T]
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("grid: %w", err)
	}
	if w.Rows < 0 || w.Cols < 0 {
		return errors.New("grid: negative size")
	}
	if w.Rows > MaxCells || w.Cols > MaxCells || w.Rows*w.Cols > MaxCells {
		return fmt.Errorf("grid: %d×%d exceeds %d cells", w.Rows, w.Cols, MaxCells)
	}
	if len(w.Cells) != w.Rows*w.Cols {
		return fmt.Errorf("grid: %d cells for a %d×%d grid", len(w.Cells), w.Rows, w.Cols)
	}
	g.rows, g.cols, g.cells = w.Rows, w.Cols, w.Cells
	return nil
}
