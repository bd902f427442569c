package baba

import (
	"fmt"
	"math"
	"slices"

	"github.com/roomd/roomd/core/session"
)

// ID identifies an object of a Baba. The first is 1; ids are issued in
// creation order (the level's objects in order, then every Place and every
// object a conversion creates) and never reused (§4).
type ID uint32

// object is one object, alive or destroyed. A destroyed object keeps its
// kind and last tile but is on no tile's list.
type object struct {
	kind  kind
	alive bool
	x, y  int32
	next  int32 // index+1 of the next object on the same tile; 0 ends the list
}

// Baba is the engine of one level: its objects, the rules last read from
// them, and whether the level has been won.
type Baba struct {
	width, height int
	objs          []object // objs[id-1]
	live          int
	head          []int32 // per tile y*width+x: index+1 of its first object, 0 when empty
	won           bool

	// The last reading of the rules (§3.3), its post-pass (§3.4) and the
	// properties they give: thingProps[w] to the things of noun w,
	// textProps to every text object. allProps is their union.
	rules      ruleSet
	active     ruleSet
	thingProps [maxWords]wordSet
	textProps  wordSet
	allProps   wordSet

	// card holds a SpellGrid's card nouns (NewWithNouns); nil for a
	// plain Baba. keep and kept: see StepWith.
	card *cardLex
	keep bool
	kept []ID

	scratch scratch
}

// scratch holds buffers a turn reuses; they are never part of the state.
type scratch struct {
	tileWords []wordSet // per tile: the words of its text objects, while reading
	seen      []uint8   // per tile: the groups visited (bit 1 not FLOAT, 2 FLOAT)
	movers    []int32
	chain     []int32
	pairs     []int32
	victims   []int32
	changes   []change
}

// New builds the level (§4): its objects get ids 1…n in order, then the
// rules are read. A level out of the limits, with an invalid entry (named
// by its index) or with Part III's cards or hand is an error.
func New(level LevelDef) (*Baba, error) {
	if err := level.check(); err != nil {
		return nil, fmt.Errorf("baba: new: %w", err)
	}
	b := &Baba{
		width:  level.Width,
		height: level.Height,
		objs:   make([]object, 0, len(level.Objects)),
		head:   make([]int32, level.Width*level.Height),
	}
	for _, o := range level.Objects {
		k, _ := parseKind(o.Kind)
		b.create(k, o.X, o.Y)
	}
	b.read()
	return b, nil
}

// ValidKind reports whether s is a kind of the lexicon (§2): the lower
// case of a thing noun ("rock") or "text:" and a word ("text:ROCK").
func ValidKind(s string) bool {
	_, ok := parseKind(s)
	return ok
}

// Place creates an object of the kind on tile (x, y), returns its new id
// and re-reads the rules. An invalid kind, a tile outside the level or a
// Baba already holding MaxObjects live objects is an error.
func (b *Baba) Place(kindName string, x, y int) (ID, error) {
	k, ok := b.parseKind(kindName)
	if !ok {
		return 0, fmt.Errorf("baba: place: kind %q: %w", session.Clip(kindName), ErrKind)
	}
	if !b.inside(x, y) {
		return 0, fmt.Errorf("baba: place: (%d, %d): %w %d×%d", x, y, ErrOutside, b.width, b.height)
	}
	if b.live >= MaxObjects || uint64(len(b.objs)) >= math.MaxUint32 {
		return 0, fmt.Errorf("baba: place: %w (at most %d alive)", ErrTooMany, MaxObjects)
	}
	i := b.create(k, x, y)
	b.read()
	return ID(i + 1), nil
}

// HasProperty reports whether the object has the property (§3.5): an
// active rule "N IS prop" names it, no active "N IS NOT prop" names it,
// and it is alive. prop is compared with the rules' complements as it is
// spelled: "YOU" is a property, "you" never is. An id never issued is an
// error.
func (b *Baba) HasProperty(id ID, prop string) (bool, error) {
	i, err := b.index(id)
	if err != nil {
		return false, fmt.Errorf("baba: hasProperty: %w", err)
	}
	w, ok := wordsBySpelling[prop]
	if !ok || !b.objs[i].alive {
		return false, nil
	}
	return b.propsOf(b.objs[i].kind).has(w), nil
}

// PosOf returns the object's tile, with alive false (and the tile of its
// destruction) once it has been destroyed. An id never issued is an error.
func (b *Baba) PosOf(id ID) (x, y int, alive bool, err error) {
	i, err := b.index(id)
	if err != nil {
		return 0, 0, false, fmt.Errorf("baba: posOf: %w", err)
	}
	o := &b.objs[i]
	return int(o.x), int(o.y), o.alive, nil
}

// KindsAt returns the kinds of the live objects on tile (x, y), one entry
// per object, sorted by byte order; an empty tile gives an empty, non-nil
// slice. A tile outside the level is an error.
func (b *Baba) KindsAt(x, y int) ([]string, error) {
	if !b.inside(x, y) {
		return nil, fmt.Errorf("baba: kindsAt: (%d, %d): %w %d×%d", x, y, ErrOutside, b.width, b.height)
	}
	kinds := []string{}
	for i := b.head[b.tile(x, y)]; i != 0; i = b.objs[i-1].next {
		kinds = append(kinds, b.kindString(b.objs[i-1].kind))
	}
	slices.Sort(kinds)
	return kinds, nil
}

// Won reports whether a turn's win check has found a YOU object with a
// WIN one (§6.4). Once true, it stays true.
func (b *Baba) Won() bool { return b.won }

// Lost reports whether no live object is YOU under the rules last read
// (§6.4), at any time.
func (b *Baba) Lost() bool {
	for i := range b.objs {
		if o := &b.objs[i]; o.alive && b.propsOf(o.kind).has(wYOU) {
			return false
		}
	}
	return true
}

// Size returns the level's width and height.
func (b *Baba) Size() (width, height int) { return b.width, b.height }

// Clone returns an independent copy of the Baba.
func (b *Baba) Clone() *Baba {
	c := *b
	c.objs = slices.Clone(b.objs)
	c.head = slices.Clone(b.head)
	c.kept = nil
	c.scratch = scratch{}
	return &c
}

func (b *Baba) inside(x, y int) bool { return x >= 0 && x < b.width && y >= 0 && y < b.height }

func (b *Baba) tile(x, y int) int { return y*b.width + x }

// index returns the slice index of an issued id.
func (b *Baba) index(id ID) (int, error) {
	if id == 0 || uint64(id) > uint64(len(b.objs)) {
		return 0, fmt.Errorf("%w %d", ErrUnknownID, id)
	}
	return int(id) - 1, nil
}

// propsOf returns the properties of objects of kind k under the rules last
// read.
func (b *Baba) propsOf(k kind) wordSet {
	if k.text {
		return b.textProps
	}
	return b.thingProps[k.w]
}

// create adds a live object on (x, y) and returns its index. The caller
// has checked the tile and the limits.
func (b *Baba) create(k kind, x, y int) int {
	i := len(b.objs)
	b.objs = append(b.objs, object{kind: k, alive: true, x: int32(x), y: int32(y)})
	b.link(i)
	b.live++
	return i
}

// destroy removes a live object from the grid; it keeps its id.
func (b *Baba) destroy(i int) {
	if !b.objs[i].alive {
		return
	}
	b.unlink(i)
	b.objs[i].alive = false
	b.live--
}

// shift moves a live object by (dx, dy) onto a tile inside the level.
func (b *Baba) shift(i, dx, dy int) {
	b.unlink(i)
	b.objs[i].x += int32(dx)
	b.objs[i].y += int32(dy)
	b.link(i)
}

func (b *Baba) link(i int) {
	o := &b.objs[i]
	t := b.tile(int(o.x), int(o.y))
	o.next = b.head[t]
	b.head[t] = int32(i + 1)
}

func (b *Baba) unlink(i int) {
	o := &b.objs[i]
	p := &b.head[b.tile(int(o.x), int(o.y))]
	for *p != int32(i+1) {
		p = &b.objs[*p-1].next
	}
	*p = o.next
	o.next = 0
}
