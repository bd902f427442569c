package snake

import "github.com/roomd/roomd/core/session"

// aiSide bounds the arenas the AI plays: the large board's side.
const aiSide = 32

// aiCells is the size of the AI's scratch grids: the largest arena with a
// border of wall around it, so that a cell's neighbours are k±1 and k±w
// with no bounds to check.
const aiCells = (aiSide + 2) * (aiSide + 2)

// AI flags of a cell.
const (
	aiBlocked uint8 = 1 << iota // a wall or a body (tails included: the safe side)
	aiDanger                    // next to another live snake's head
)

// aiArena is the AI's scratch, on the stack: one Choose allocates nothing.
type aiArena struct {
	w     int // the padded width: cols + 2
	flags [aiCells]uint8
	dist  [aiCells]uint16 // 1 + the distance to the nearest food; 0 when not reached
	seen  [aiCells]uint8  // flood marks, one stamp per candidate
	queue [aiCells]uint16
}

// aiTurns are the two turns of each direction, left then right.
var aiTurns = [...][2]Dir{Up: {Left, Right}, Down: {Right, Left}, Left: {Down, Up}, Right: {Up, Down}}

// candidate is one direction the AI weighs.
type candidate struct {
	dir    Dir
	ok     bool // the cell ahead is free
	safe   bool // the area behind it holds the snake
	danger bool // another head may enter it too
	dist   int  // to the nearest food; large when none is reachable
	area   int  // free cells reachable from it, counted up to the snake's length
}

// better reports whether c is a better choice than o. Free beats blocked,
// safe beats unsafe; among safe cells one no other head can reach beats
// one it can, then the nearer food; among unsafe ones the larger area,
// then no other head. A tie keeps o: the straight way is weighed first.
func (c candidate) better(o candidate) bool {
	switch {
	case c.ok != o.ok:
		return c.ok
	case c.safe != o.safe:
		return c.safe
	case c.safe:
		if c.danger != o.danger {
			return !c.danger
		}
		return c.dist < o.dist
	case c.area != o.area:
		return c.area > o.area
	}
	return o.danger && !c.danger
}

// Choose steers seat's snake from its view: among the straight way and the
// two turns (never the reverse), it prefers a safe step — one after which
// the free area it can reach holds its whole length — that no other head
// can take too, towards the nearest food by path length; with no safe step
// it takes the largest area. It returns a turn only when that differs from
// the snake's direction; false means keep going, and also that the seat
// has nothing to do: the match is over, the snake dead, or a turn is
// already queued. It is deterministic and allocates nothing.
func (Rules) Choose(v View, seat Seat, _ session.Source) (Move, bool) {
	if v.Phase == PhaseOver || seat < 0 || seat >= len(v.Snakes) || v.Rows <= 0 || v.Cols <= 0 || v.Rows > aiSide || v.Cols > aiSide {
		return Move{}, false
	}
	me := &v.Snakes[seat]
	if !me.Alive || len(me.Queue) > 0 || len(me.Body) == 0 || !me.Dir.Valid() {
		return Move{}, false
	}
	var a aiArena
	a.w = v.Cols + 2
	for c := range a.w {
		a.flags[c] = aiBlocked
		a.flags[(v.Rows+1)*a.w+c] = aiBlocked
	}
	for r := 1; r <= v.Rows; r++ {
		a.flags[r*a.w] = aiBlocked
		a.flags[r*a.w+v.Cols+1] = aiBlocked
	}
	in := func(at Cell) bool { return at[0] >= 0 && at[0] < v.Rows && at[1] >= 0 && at[1] < v.Cols }
	for i := range v.Snakes {
		o := &v.Snakes[i]
		for _, at := range o.Body {
			if in(at) {
				a.flags[a.key(at)] |= aiBlocked
			}
		}
		if i != seat && o.Alive && len(o.Body) > 0 && in(o.Body[0]) {
			k := a.key(o.Body[0])
			for _, n := range [4]int{k - a.w, k + a.w, k - 1, k + 1} {
				a.flags[n] |= aiDanger
			}
		}
	}
	if !in(me.Body[0]) {
		return Move{}, false
	}
	head := a.key(me.Body[0])
	dirs := [3]Dir{me.Dir, aiTurns[me.Dir][0], aiTurns[me.Dir][1]}
	var ks [3]int
	for n, d := range dirs {
		ks[n] = head + dirDelta[d][0]*a.w + dirDelta[d][1]
	}
	a.foodDistances(v.Food, in, ks)

	var best candidate
	for n, d := range dirs {
		k := ks[n]
		if a.flags[k]&aiBlocked != 0 {
			continue
		}
		c := candidate{dir: d, ok: true, danger: a.flags[k]&aiDanger != 0, dist: 1 << 30}
		if a.dist[k] > 0 {
			c.dist = int(a.dist[k]) - 1
		}
		c.area = a.area(k, uint8(n+1), len(me.Body))
		c.safe = c.area >= len(me.Body)
		if c.better(best) {
			best = c
		}
	}
	if !best.ok || best.dir == me.Dir {
		return Move{}, false
	}
	return Move{Dir: best.dir}, true
}

// neighbour returns the cell next to at in direction d.
func neighbour(at Cell, d Dir) Cell { return Cell{at[0] + dirDelta[d][0], at[1] + dirDelta[d][1]} }

// key returns the padded index of an arena cell.
func (a *aiArena) key(at Cell) int { return (at[0]+1)*a.w + at[1] + 1 }

// foodDistances sets dist from the free cells to the nearest food, by a
// breadth-first search from all the food at once; it stops once every
// free cell of targets is reached, since only theirs are read.
func (a *aiArena) foodDistances(food []Cell, in func(Cell) bool, targets [3]int) {
	head, tail := 0, 0
	for _, at := range food {
		if !in(at) {
			continue
		}
		if k := a.key(at); a.dist[k] == 0 && a.flags[k]&aiBlocked == 0 {
			a.dist[k] = 1
			a.queue[tail] = uint16(k)
			tail++
		}
	}
	left := 0
	for _, k := range targets {
		if a.flags[k]&aiBlocked == 0 && a.dist[k] == 0 {
			left++
		}
	}
	for head < tail && left > 0 {
		k := int(a.queue[head])
		head++
		for _, n := range [4]int{k - a.w, k + a.w, k - 1, k + 1} {
			if a.dist[n] != 0 || a.flags[n]&aiBlocked != 0 {
				continue
			}
			a.dist[n] = a.dist[k] + 1
			a.queue[tail] = uint16(n)
			tail++
			if n == targets[0] || n == targets[1] || n == targets[2] {
				left--
			}
		}
	}
}

// area counts the free cells reachable from k (k included), marking them
// with stamp, and stops counting at limit.
func (a *aiArena) area(k int, stamp uint8, limit int) int {
	head, tail := 0, 1
	a.queue[0] = uint16(k)
	a.seen[k] = stamp
	for head < tail && tail < limit {
		k := int(a.queue[head])
		head++
		for _, n := range [4]int{k - a.w, k + a.w, k - 1, k + 1} {
			if a.seen[n] != stamp && a.flags[n]&aiBlocked == 0 {
				a.seen[n] = stamp
				a.queue[tail] = uint16(n)
				tail++
			}
		}
	}
	return tail
}
