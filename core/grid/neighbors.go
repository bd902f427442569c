package grid

// Neighbors appends to buf the in-bounds neighbours of (r, c) on a rows×cols
// grid, in the strategy's fixed order, and returns the extended slice.
// Passing a reused buf keeps hot loops free of allocations.
type Neighbors func(rows, cols, r, c int, buf []Coord) []Coord

// eightWayOffsets is the reference order: dr outer, dc inner, centre skipped,
// that is NW, N, NE, W, E, SW, S, SE.
var eightWayOffsets = [8]Coord{{-1, -1}, {-1, 0}, {-1, 1}, {0, -1}, {0, 1}, {1, -1}, {1, 0}, {1, 1}}

// orthogonalOffsets is N, W, E, S (row-major order of the four).
var orthogonalOffsets = [4]Coord{{-1, 0}, {0, -1}, {0, 1}, {1, 0}}

// EightWay lists the diagonal and orthogonal neighbours in the order
// NW, N, NE, W, E, SW, S, SE.
func EightWay(rows, cols, r, c int, buf []Coord) []Coord {
	return appendOffsets(rows, cols, r, c, eightWayOffsets[:], buf)
}

// Orthogonal lists the four edge neighbours in the order N, W, E, S.
func Orthogonal(rows, cols, r, c int, buf []Coord) []Coord {
	return appendOffsets(rows, cols, r, c, orthogonalOffsets[:], buf)
}

func appendOffsets(rows, cols, r, c int, offsets []Coord, buf []Coord) []Coord {
	for _, d := range offsets {
		nr, nc := r+d[0], c+d[1]
		if nr >= 0 && nr < rows && nc >= 0 && nc < cols {
			buf = append(buf, Coord{nr, nc})
		}
	}
	return buf
}

// Around is a convenience that returns the neighbours of (r, c) in g by the
// given strategy, in a new slice.
func Around[T any](g *Grid[T], n Neighbors, r, c int) []Coord {
	return n(g.rows, g.cols, r, c, nil)
}
