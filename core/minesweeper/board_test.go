package minesweeper

import (
	"fmt"
	"testing"

	"github.com/roomd/roomd/core/grid"
	"github.com/roomd/roomd/core/session"
)

// TestAroundIsEightWay: the flat-key neighbour walk of the hot loops lists
// exactly grid.EightWay's neighbours, in its (the reference's) order.
func TestAroundIsEightWay(t *testing.T) {
	for _, size := range [][2]int{{1, 1}, {1, 5}, {5, 1}, {2, 2}, {3, 4}, {16, 30}} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			rows, cols := size[0], size[1]
			for r := range rows {
				for c := range cols {
					var want []int32
					for _, nb := range grid.EightWay(rows, cols, r, c, nil) {
						want = append(want, int32(nb[0]*cols+nb[1]))
					}
					if got := around(rows, cols, r, c, nil); fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("(%d, %d): %v, want %v", r, c, got, want)
					}
				}
			}
		})
	}
}

func TestGenerateRefusesBadInput(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		r, c int
	}{
		{"too dense", Config{Rows: 3, Cols: 3, Mines: 9}, 0, 0},
		{"off the board", Config{Rows: 3, Cols: 3, Mines: 1}, 3, 0},
		{"negative", Config{Rows: 3, Cols: 3, Mines: 1}, 0, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Generate(session.IntSeed(1), tc.cfg, tc.r, tc.c); err == nil {
				t.Error("generated")
			}
		})
	}
}
