package baba

import (
	"cmp"
	"slices"
)

// Move is the movement of M8 (§5): every YOU object moves one tile in d,
// pushing and opening as it goes; then the rules are re-read. It runs no
// conversion, hazard or win check. It panics for an invalid Dir.
func (b *Baba) Move(d Dir) {
	b.movement(d)
	b.read()
}

// movement moves every mover (§5.1–§5.2): the objects that are YOU under
// the rules last read, fixed before anything moves, the one furthest
// ahead in d first (by their tiles before the movement), ties to the
// lower id. A mover destroyed by an earlier one does not move.
func (b *Baba) movement(d Dir) {
	dx, dy := d.delta()
	movers := b.scratch.movers[:0]
	for i := range b.objs {
		if o := &b.objs[i]; o.alive && b.propsOf(o.kind).has(wYOU) {
			movers = append(movers, int32(i))
		}
	}
	// ahead is larger for a mover further ahead in d.
	ahead := func(i int32) int32 { return b.objs[i].x*int32(dx) + b.objs[i].y*int32(dy) }
	slices.SortFunc(movers, func(i, j int32) int {
		if c := cmp.Compare(ahead(j), ahead(i)); c != 0 {
			return c
		}
		return cmp.Compare(i, j)
	})
	for _, i := range movers {
		if b.objs[i].alive {
			b.moveOne(int(i), dx, dy)
		}
	}
	b.scratch.movers = movers
}

// moveOne plans one mover's move in full, then executes it (§5.3–§5.4):
// unless blocked, the whole chain moves one tile, then both objects of
// every OPEN/SHUT pair are destroyed.
func (b *Baba) moveOne(mover, dx, dy int) {
	chain, pairs, ok := b.plan(mover, dx, dy)
	if ok {
		for _, i := range chain {
			b.shift(int(i), dx, dy)
		}
		for _, i := range pairs {
			b.smite(int(i))
		}
	}
	b.scratch.chain, b.scratch.pairs = chain[:0], pairs[:0]
}

// plan returns the chain of a mover (the mover and every object it
// pushes), the objects of the OPEN/SHUT pairs it meets, and whether it can
// move (§5.3). The frontier is the part of the chain on the last tile
// planned. On the next tile T:
//   - the level's edge blocks;
//   - an OPEN/SHUT pair between the frontier and an object on T lets the
//     chain move, and planning ends;
//   - an object that is STOP and not PUSH blocks;
//   - the PUSH objects on T join the chain as the next frontier; with none,
//     the chain can move.
func (b *Baba) plan(mover, dx, dy int) (chain, pairs []int32, ok bool) {
	chain = append(b.scratch.chain[:0], int32(mover))
	pairs = b.scratch.pairs[:0]
	frontier := 0
	x, y := int(b.objs[mover].x), int(b.objs[mover].y)
	for {
		x, y = x+dx, y+dy
		if !b.inside(x, y) {
			return chain, pairs, false
		}
		head := b.head[b.tile(x, y)]
		for _, a := range chain[frontier:] {
			pa := b.propsOf(b.objs[a].kind)
			if pa&(wOPEN.set()|wSHUT.set()) == 0 {
				continue
			}
			for s := head; s != 0; s = b.objs[s-1].next {
				ps := b.propsOf(b.objs[s-1].kind)
				if pa.has(wOPEN) && ps.has(wSHUT) || pa.has(wSHUT) && ps.has(wOPEN) {
					pairs = append(pairs, a, s-1)
				}
			}
		}
		if len(pairs) > 0 {
			return chain, pairs, true
		}
		next := len(chain)
		for s := head; s != 0; s = b.objs[s-1].next {
			ps := b.propsOf(b.objs[s-1].kind)
			switch {
			case ps.has(wPUSH):
				chain = append(chain, s-1)
			case ps.has(wSTOP):
				return chain, pairs, false
			}
		}
		if len(chain) == next {
			return chain, pairs, true
		}
		frontier = next
	}
}
