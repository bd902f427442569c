package snake

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/roomd/roomd/core/grid"
)

// StartLength is the length of every snake at the start: a head and two
// body cells.
const StartLength = 3

// QueueLen is how many turns a snake may have queued.
const QueueLen = 2

// Cell is a cell address, [r, c]; its JSON form is [r,c].
type Cell = grid.Coord

// cell is what one square of the arena holds: nothing, food, or the body
// of snake i (cellBody + i).
type cell uint8

const (
	cellEmpty cell = iota
	cellFood
	cellBody
)

// snake is one seat's snake. Its body is a ring buffer of cell keys (r*cols
// + c) as long as the arena has cells, so that it never grows: the head is
// ring[head], the tail ring[(head+n-1) % len(ring)].
type snake struct {
	ring   []int32
	head   int
	n      int // length; 0 once dead
	dir    Dir
	queue  [QueueLen]Dir
	queued int
	alive  bool
	score  int
}

// at returns the key of the i-th cell from the head.
func (sn *snake) at(i int) int32 { return sn.ring[(sn.head+i)%len(sn.ring)] }

// tail returns the key of the tail.
func (sn *snake) tail() int32 { return sn.at(sn.n - 1) }

// push adds a new head.
func (sn *snake) push(k int32) {
	sn.head = (sn.head - 1 + len(sn.ring)) % len(sn.ring)
	sn.ring[sn.head] = k
	sn.n++
}

// last is the direction a new turn is checked against: the last queued, or
// the snake's own when nothing is queued.
func (sn *snake) last() Dir {
	if sn.queued > 0 {
		return sn.queue[sn.queued-1]
	}
	return sn.dir
}

// pop takes the first queued turn, if any, as the snake's direction.
func (sn *snake) pop() {
	if sn.queued == 0 {
		return
	}
	sn.dir = sn.queue[0]
	copy(sn.queue[:], sn.queue[1:])
	sn.queued--
	sn.queue[sn.queued] = 0
}

// spawn returns the cells of slot's snake at the start, head first, and
// its direction. The eight slots of a rows×cols arena make two pinwheels:
// slots 0 to 3 on the lines a quarter in from each wall, slots 4 to 7 by
// the middle of each wall, on neighbouring lines so that no two face each
// other. Every snake starts two cells from the wall behind it and faces
// the middle; on the standard boards none meets a wall, a body or another
// snake's path within its first four moves straight on.
func spawn(rows, cols, slot int) ([StartLength]Cell, Dir) {
	qr, qc := rows/4, cols/4
	var head Cell
	var d Dir
	switch slot {
	case 0:
		head, d = Cell{qr, StartLength + 1}, Right
	case 1:
		head, d = Cell{rows - 1 - qr, cols - StartLength - 2}, Left
	case 2:
		head, d = Cell{StartLength + 1, cols - 1 - qc}, Down
	case 3:
		head, d = Cell{rows - StartLength - 2, qc}, Up
	case 4:
		head, d = Cell{rows / 2, StartLength + 1}, Right
	case 5:
		head, d = Cell{rows/2 - 1, cols - StartLength - 2}, Left
	case 6:
		head, d = Cell{StartLength + 1, cols / 2}, Down
	default:
		head, d = Cell{rows - StartLength - 2, cols/2 - 1}, Up
	}
	var body [StartLength]Cell
	for i := range body {
		body[i] = Cell{head[0] - i*dirDelta[d][0], head[1] - i*dirDelta[d][1]}
	}
	return body, d
}

// key returns the row-major index of (r, c).
func (s *State) key(at Cell) int32 { return int32(at[0]*s.cols + at[1]) }

// cellOf returns the address of a key.
func (s *State) cellOf(k int32) Cell { return Cell{int(k) / s.cols, int(k) % s.cols} }

// drawAt returns draw i of the food stream, a number in [0, n): the first
// 8 bytes (little-endian) of SHA-256(key || i as 8 little-endian bytes),
// modulo n. n must be positive. It does not allocate.
func (s *State) drawAt(i uint64, n int) int {
	var buf [len(s.secret) + 8]byte
	copy(buf[:], s.secret[:])
	binary.LittleEndian.PutUint64(buf[len(s.secret):], i)
	sum := sha256.Sum256(buf[:])
	return int(binary.LittleEndian.Uint64(sum[:8]) % uint64(n))
}

// placeFood puts one food on the cell nextFood names, drawing it, and
// returns it; false when no cell is empty (nothing is drawn then).
func (s *State) placeFood() (Cell, bool) {
	at, ok := s.nextFood()
	if !ok {
		return Cell{}, false
	}
	s.draws++
	s.g.Cells()[s.key(at)] = cellFood
	return at, true
}

// nextFood returns the cell the next food would be placed on if it were
// placed now, without drawing it: an empty cell drawn uniformly among them
// (the next draw of the food stream), in row-major order; false when no
// cell is empty.
func (s *State) nextFood() (Cell, bool) {
	cells := s.g.Cells()
	n := 0
	for _, c := range cells {
		if c == cellEmpty {
			n++
		}
	}
	if n == 0 {
		return Cell{}, false
	}
	k := s.drawAt(s.draws, n)
	for i, c := range cells {
		if c != cellEmpty {
			continue
		}
		if k == 0 {
			return s.cellOf(int32(i)), true
		}
		k--
	}
	return Cell{}, false // unreachable: k < n
}

// foodCells returns the food on the board in row-major order.
func (s *State) foodCells() []Cell {
	out := []Cell{}
	for i, c := range s.g.Cells() {
		if c == cellFood {
			out = append(out, s.cellOf(int32(i)))
		}
	}
	return out
}

// body returns snake i's cells, head first.
func (s *State) body(i int) []Cell {
	sn := &s.snakes[i]
	out := make([]Cell, sn.n)
	for j := range out {
		out[j] = s.cellOf(sn.at(j))
	}
	return out
}
