package baba

import "math"

// Step plays one turn of M9 (§6), in this order: the movement of Move
// (§5), a reading of the rules, the conversion (§6.2), a reading (R), the
// hazards SINK, HOT/MELT and DEFEAT (§6.3) and the win check (§6.4), both
// under R, and a last reading, so that Rules matches the board. It panics
// for an invalid Dir.
func (b *Baba) Step(d Dir) {
	b.movement(d)
	b.read()
	b.convert()
	b.read()
	b.hazard(wSINK)
	b.hazard(wHOT)
	b.hazard(wDEFEAT)
	b.winCheck()
	b.read()
}

// change is the conversion decided for one object: destroyed (deleted) or
// turned into the first of targets in place; every other target (every
// target, when deleted) is created on its tile, in byte order.
type change struct {
	i       int32
	deleted bool
	targets wordSet
}

// convert runs the conversion (§6.2). Every decision is taken first, from
// the objects as the movement left them under the active rules: an object
// named by an active "N IS NOT N" is deleted; otherwise one named by an
// active "N IS N" is protected; otherwise it takes its targets, the thing
// nouns its rules name (not its own noun, not a noun a negated rule
// denies it). The changes are then applied in id order, new objects
// getting ids object by object, target by target. When the new objects
// would bring the live objects over MaxObjects, none is created; the
// deletions and the conversions in place still happen.
func (b *Baba) convert() {
	changes := b.scratch.changes[:0]
	created, deleted := 0, 0
	for i := range b.objs {
		o := &b.objs[i]
		if !o.alive {
			continue
		}
		targets := b.propsOf(o.kind) & thingNouns
		if !o.kind.text {
			targets &^= o.kind.w.set()
		}
		var isDeleted, isProtected bool
		for s := o.kind.names(); s != 0; s &= s - 1 {
			n := s.first()
			isDeleted = isDeleted || b.active.neg[n].has(n)
			isProtected = isProtected || b.active.pos[n].has(n)
		}
		if o.kind.isCard() {
			// A card noun's object (a minion's) is never converted and
			// brings no target with it (card-engine.md §9).
			targets, isProtected = 0, true
		}
		switch {
		case isDeleted:
			changes = append(changes, change{i: int32(i), deleted: true, targets: targets})
			deleted++
			created += targets.count()
		case !isProtected && targets != 0:
			changes = append(changes, change{i: int32(i), targets: targets})
			created += targets.count() - 1
		}
	}
	create := b.live-deleted+created <= MaxObjects && uint64(len(b.objs)+created) <= math.MaxUint32
	for _, c := range changes {
		i, targets := int(c.i), c.targets
		x, y := int(b.objs[i].x), int(b.objs[i].y)
		if c.deleted {
			b.smite(i)
		} else {
			b.objs[i].kind = kind{w: targets.first()}
			targets &= targets - 1
		}
		for ; create && targets != 0; targets &= targets - 1 {
			b.create(kind{w: targets.first()}, x, y)
		}
	}
	b.scratch.changes = changes[:0]
}

// hazard runs one hazard of §6.3 under the rules last read. It looks
// inside groups, the live objects of one tile that are all FLOAT or all
// not, decides every victim, then destroys them at once:
//   - wSINK: a group of two or more objects with a SINK one loses them all;
//   - wHOT: a group with a HOT object loses its MELT objects;
//   - wDEFEAT: a group with a DEFEAT object loses its YOU objects.
//
// Only the groups of the trigger's objects are visited.
func (b *Baba) hazard(trigger word) {
	if !b.allProps.has(trigger) {
		return
	}
	victims := b.scratch.victims[:0]
	b.visit(trigger, func(head int32, float bool) {
		n := 0
		for s := head; s != 0; s = b.objs[s-1].next {
			if b.propsOf(b.objs[s-1].kind).has(wFLOAT) == float {
				n++
			}
		}
		for s := head; s != 0; s = b.objs[s-1].next {
			p := b.propsOf(b.objs[s-1].kind)
			if p.has(wFLOAT) != float {
				continue
			}
			switch {
			case trigger == wSINK && n >= 2,
				trigger == wHOT && p.has(wMELT),
				trigger == wDEFEAT && p.has(wYOU):
				victims = append(victims, s-1)
			}
		}
	})
	for _, i := range victims {
		b.smite(int(i))
	}
	b.scratch.victims = victims[:0]
}

// winCheck sets won when a group holds a YOU object and a WIN object (one
// object that is both counts), under the rules last read (§6.4).
func (b *Baba) winCheck() {
	if b.won || !b.allProps.has(wYOU) || !b.allProps.has(wWIN) {
		return
	}
	b.visit(wYOU, func(head int32, float bool) {
		for s := head; s != 0; s = b.objs[s-1].next {
			if p := b.propsOf(b.objs[s-1].kind); p.has(wWIN) && p.has(wFLOAT) == float {
				b.won = true
			}
		}
	})
}

// visit calls f once for every group holding a live object with the
// property: the head of its tile's list and the group's float level.
func (b *Baba) visit(prop word, f func(head int32, float bool)) {
	n := b.width * b.height
	if len(b.scratch.seen) != n {
		b.scratch.seen = make([]uint8, n)
	}
	seen := b.scratch.seen
	for i := range b.objs {
		o := &b.objs[i]
		p := b.propsOf(o.kind)
		if !o.alive || !p.has(prop) {
			continue
		}
		t := b.tile(int(o.x), int(o.y))
		bit := uint8(1)
		if p.has(wFLOAT) {
			bit = 2
		}
		if seen[t]&bit == 0 {
			seen[t] |= bit
			f(b.head[t], bit == 2)
		}
	}
	for i := range b.objs {
		if o := &b.objs[i]; o.alive {
			seen[b.tile(int(o.x), int(o.y))] = 0
		}
	}
}
