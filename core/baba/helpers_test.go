package baba

import (
	"reflect"
	"slices"
	"strings"
)

// tb is what the helpers need of *testing.T and *rapid.T alike.
type tb interface {
	Helper()
	Errorf(format string, args ...any)
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// obj is one level object.
func obj(kind string, x, y int) LevelObject { return LevelObject{Kind: kind, X: x, Y: y} }

// text lays a sentence's words as text objects from (x, y) rightwards
// (Right) or downwards (Down); "_" leaves a tile empty.
func text(x, y int, d Dir, sentence string) []LevelObject {
	dx, dy := d.delta()
	var out []LevelObject
	for k, w := range strings.Fields(sentence) {
		if w != "_" {
			out = append(out, obj("text:"+w, x+k*dx, y+k*dy))
		}
	}
	return out
}

// level is a w×h level of the given objects: LevelObject or []LevelObject.
func level(w, h int, parts ...any) LevelDef {
	def := LevelDef{Width: w, Height: h}
	for _, p := range parts {
		switch p := p.(type) {
		case LevelObject:
			def.Objects = append(def.Objects, p)
		case []LevelObject:
			def.Objects = append(def.Objects, p...)
		default:
			panic("level: a part is a LevelObject or []LevelObject")
		}
	}
	return def
}

// build returns a new Baba of the level, failing the test on an error.
func build(t tb, def LevelDef) *Baba {
	t.Helper()
	b, err := New(def)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return b
}

// idAt returns the lowest live id of kind on (x, y).
func idAt(t tb, b *Baba, kind string, x, y int) ID {
	t.Helper()
	for _, o := range b.Snapshot().Objects {
		if o.Kind == kind && o.X == x && o.Y == y {
			return o.ID
		}
	}
	t.Fatalf("no %s on (%d, %d); tile holds %v", kind, x, y, kindsAt(t, b, x, y))
	return 0
}

// at asserts that id is alive on (x, y).
func at(t tb, b *Baba, id ID, x, y int) {
	t.Helper()
	gx, gy, alive, err := b.PosOf(id)
	if err != nil || !alive || gx != x || gy != y {
		t.Fatalf("posOf(%d) = (%d, %d) alive %v err %v; want (%d, %d)", id, gx, gy, alive, err, x, y)
	}
}

// gone asserts that id has been destroyed.
func gone(t tb, b *Baba, id ID) {
	t.Helper()
	x, y, alive, err := b.PosOf(id)
	if err != nil || alive {
		t.Fatalf("posOf(%d) = (%d, %d) alive %v err %v; want destroyed", id, x, y, alive, err)
	}
}

func kindsAt(t tb, b *Baba, x, y int) []string {
	t.Helper()
	k, err := b.KindsAt(x, y)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// has returns hasProperty, failing the test on an error.
func has(t tb, b *Baba, id ID, prop string) bool {
	t.Helper()
	ok, err := b.HasProperty(id, prop)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// wantRules asserts a list of rules (Rules or ActiveRules), given in any
// order, TEXT IS PUSH included when expected.
func wantRules(t tb, what string, got []string, want ...string) {
	t.Helper()
	want = slices.Clone(want)
	slices.Sort(want)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s = %q; want %q", what, got, want)
	}
}

// count returns how many live objects of kind the Baba holds.
func count(b *Baba, kind string) int {
	n := 0
	for _, o := range b.Snapshot().Objects {
		if o.Kind == kind {
			n++
		}
	}
	return n
}

// unchanged runs f and asserts that it failed and left the Baba's state
// as it was.
func unchanged(t tb, b *Baba, f func() error) {
	t.Helper()
	before := b.Snapshot()
	if err := f(); err == nil {
		t.Fatal("the call succeeded; want an error")
	}
	if after := b.Snapshot(); !reflect.DeepEqual(before, after) {
		t.Fatalf("a failed call changed the state:\nbefore %+v\nafter  %+v", before, after)
	}
}
