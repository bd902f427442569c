package baba

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// The oracle: an independent reading of §3 from the public queries, word
// lists written out again rather than taken from the lexicon.
var (
	oracleNouns = strings.Fields("BABA KEKE ROCK WALL FLAG WATER LAVA SKULL KEY DOOR TEXT ALL DEATHRATTLE BATTLECRY")
	oracleProps = strings.Fields("YOU WIN STOP PUSH SINK HOT MELT DEFEAT OPEN SHUT FLOAT DOUBLE")
	allWords    = slices.Concat(oracleNouns, oracleProps, []string{"IS", "NOT"})
	thingKinds  = strings.Fields("baba keke rock wall flag water lava skull key door")
)

// oracleRules reads the board through kindsAt: from every tile, right and
// down, every choice of one word per tile that fits the grammar (§3.1–3.3).
func oracleRules(t tb, b *Baba) []string {
	w, h := b.Size()
	wordsAt := func(x, y int) []string {
		if x >= w || y >= h {
			return nil
		}
		var out []string
		for _, k := range kindsAt(t, b, x, y) {
			if word, ok := strings.CutPrefix(k, "text:"); ok {
				out = append(out, word)
			}
		}
		return out
	}
	set := map[string]bool{"TEXT IS PUSH": true}
	for y := range h {
		for x := range w {
			for _, d := range [][2]int{{1, 0}, {0, 1}} {
				for _, s := range wordsAt(x, y) {
					if !slices.Contains(oracleNouns, s) || !slices.Contains(wordsAt(x+d[0], y+d[1]), "IS") {
						continue
					}
					for _, c := range wordsAt(x+2*d[0], y+2*d[1]) {
						if c == "NOT" {
							for _, c2 := range wordsAt(x+3*d[0], y+3*d[1]) {
								if slices.Contains(oracleNouns, c2) || slices.Contains(oracleProps, c2) {
									set[s+" IS NOT "+c2] = true
								}
							}
						}
						if slices.Contains(oracleNouns, c) || slices.Contains(oracleProps, c) {
							set[s+" IS "+c] = true
						}
					}
				}
			}
		}
	}
	var out []string
	for r := range set {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}

// oracleActive applies §3.4 to a list of rule strings.
func oracleActive(rules []string) []string {
	var afterNeg []string
	for _, r := range rules {
		x, y, neg := splitRule(r)
		if neg || !slices.Contains(rules, x+" IS NOT "+y) {
			afterNeg = append(afterNeg, r)
		}
	}
	var out []string
	for _, r := range afterNeg {
		x, y, neg := splitRule(r)
		if !neg && y != x && slices.Contains(oracleNouns, y) && slices.Contains(afterNeg, x+" IS "+x) {
			continue
		}
		out = append(out, r)
	}
	return out
}

func splitRule(r string) (x, y string, neg bool) {
	f := strings.Fields(r)
	if len(f) == 4 {
		return f[0], f[3], true
	}
	return f[0], f[2], false
}

// oracleHas applies §3.5 to a kind and the active rules.
func oracleHas(active []string, kind, prop string) bool {
	names := []string{"TEXT"}
	if !strings.HasPrefix(kind, "text:") {
		names = []string{strings.ToUpper(kind), "ALL"}
	}
	yes := false
	for _, r := range active {
		x, y, neg := splitRule(r)
		if y == prop && slices.Contains(names, x) {
			if neg {
				return false
			}
			yes = true
		}
	}
	return yes
}

// drawLevel draws a small level: some well-formed sentences (so that rules
// exist) and some objects of any kind.
func drawLevel(t *rapid.T) LevelDef {
	w := rapid.IntRange(1, 8).Draw(t, "width")
	h := rapid.IntRange(1, 8).Draw(t, "height")
	def := LevelDef{Width: w, Height: h}
	for range rapid.IntRange(0, 6).Draw(t, "sentences") {
		words := []string{rapid.SampledFrom(oracleNouns).Draw(t, "subject"), "IS"}
		if rapid.IntRange(0, 4).Draw(t, "not") == 0 {
			words = append(words, "NOT")
		}
		words = append(words, rapid.SampledFrom(slices.Concat(oracleNouns, oracleProps, oracleProps)).Draw(t, "complement"))
		d := rapid.SampledFrom([]Dir{Right, Down}).Draw(t, "dir")
		dx, dy := d.delta()
		x := rapid.IntRange(0, w-1).Draw(t, "x")
		y := rapid.IntRange(0, h-1).Draw(t, "y")
		if x+dx*(len(words)-1) >= w || y+dy*(len(words)-1) >= h {
			continue
		}
		def.Objects = append(def.Objects, text(x, y, d, strings.Join(words, " "))...)
	}
	kinds := slices.Concat(thingKinds, thingKinds)
	for _, word := range allWords {
		kinds = append(kinds, "text:"+word)
	}
	for range rapid.IntRange(0, 30).Draw(t, "objects") {
		def.Objects = append(def.Objects, obj(rapid.SampledFrom(kinds).Draw(t, "kind"), rapid.IntRange(0, w-1).Draw(t, "ox"), rapid.IntRange(0, h-1).Draw(t, "oy")))
	}
	return def
}

var dirs = rapid.SampledFrom([]Dir{Up, Down, Left, Right})

// op is one call of a drawn script: a step or a move in a direction.
type op struct {
	step bool
	dir  Dir
}

func drawOps(t *rapid.T) []op {
	return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) op {
		return op{step: rapid.IntRange(0, 3).Draw(t, "isStep") > 0, dir: dirs.Draw(t, "dir")}
	}), 0, 25).Draw(t, "ops")
}

func (o op) run(b *Baba) {
	if o.step {
		b.Step(o.dir)
	} else {
		b.Move(o.dir)
	}
}

// checkReading compares the Baba's rules and properties with the oracle.
func checkReading(t *rapid.T, b *Baba) {
	rules := b.Rules()
	if want := oracleRules(t, b); !reflect.DeepEqual(rules, want) {
		t.Fatalf("rules() = %q; the oracle reads %q", rules, want)
	}
	active := b.ActiveRules()
	if want := oracleActive(rules); !reflect.DeepEqual(active, want) {
		t.Fatalf("activeRules() = %q; the oracle gives %q", active, want)
	}
	if !slices.Contains(active, "TEXT IS PUSH") && !slices.Contains(active, "TEXT IS NOT PUSH") {
		t.Fatalf("activeRules() %q lacks TEXT IS PUSH without TEXT IS NOT PUSH", active)
	}
	anyYou := false
	for _, o := range b.Snapshot().Objects {
		for _, p := range slices.Concat(oracleProps, []string{"ROCK", "you"}) {
			if got, want := has(t, b, o.ID, p), oracleHas(active, o.Kind, p); got != want {
				t.Fatalf("hasProperty(%d %s, %s) = %v; the oracle says %v under %q", o.ID, o.Kind, p, got, want, active)
			}
		}
		anyYou = anyYou || has(t, b, o.ID, "YOU")
	}
	if b.Lost() == anyYou {
		t.Fatalf("lost() = %v with a YOU object: %v", b.Lost(), anyYou)
	}
}

// §3: the rules, the post-pass, the properties and lost() agree with an
// independent reading, after construction and after every move and step.
func TestProp_S3_ReadingMatchesOracle(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := build(t, drawLevel(t))
		checkReading(t, b)
		for _, o := range drawOps(t) {
			o.run(b)
			checkReading(t, b)
		}
	})
}

// §4–§6: ids are conserved: an object keeps its id through every move and
// step, ids are issued consecutively and never reused, a destroyed object
// never returns, a live object moves only in the direction played (one
// tile for its own move, more when movers behind push it), and the live objects never exceed MaxObjects. A move
// issues no id, changes no kind and never changes won().
func TestProp_S4_IDsConserved(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := build(t, drawLevel(t))
		if got, want := b.Snapshot().NextID, ID(len(b.objs)+1); got != want {
			t.Fatalf("nextId %d with %d objects", got, want-1)
		}
		won := false
		for _, o := range drawOps(t) {
			before := b.Snapshot()
			kinds := map[ID]string{}
			for _, ob := range before.Objects {
				kinds[ob.ID] = ob.Kind
			}
			o.run(b)
			after := b.Snapshot()
			if after.NextID < before.NextID || (!o.step && after.NextID != before.NextID) {
				t.Fatalf("%+v: nextId %d → %d", o, before.NextID, after.NextID)
			}
			if len(after.Objects) > MaxObjects {
				t.Fatalf("%d objects alive", len(after.Objects))
			}
			if !slices.IsSortedFunc(after.Objects, func(a, b Object) int { return int(a.ID) - int(b.ID) }) {
				t.Fatal("snapshot objects are not in id order")
			}
			dx, dy := o.dir.delta()
			byID := map[ID]Object{}
			for _, ob := range before.Objects {
				byID[ob.ID] = ob
			}
			for _, ob := range after.Objects {
				if ob.ID >= after.NextID {
					t.Fatalf("live id %d not below nextId %d", ob.ID, after.NextID)
				}
				prev, wasAlive := byID[ob.ID]
				if ob.ID < before.NextID && !wasAlive {
					t.Fatalf("%+v: id %d came back", o, ob.ID)
				}
				if k := (ob.X-prev.X)*dx + (ob.Y-prev.Y)*dy; wasAlive && (k < 0 || ob.X != prev.X+k*dx || ob.Y != prev.Y+k*dy) {
					t.Fatalf("%+v: id %d went from (%d,%d) to (%d,%d)", o, ob.ID, prev.X, prev.Y, ob.X, ob.Y)
				}
				if !o.step && kinds[ob.ID] != ob.Kind {
					t.Fatalf("move changed id %d from %s to %s", ob.ID, kinds[ob.ID], ob.Kind)
				}
			}
			if !o.step && after.Won != before.Won {
				t.Fatal("move changed won()")
			}
			if won && !after.Won {
				t.Fatal("won() went back to false")
			}
			won = after.Won
		}
	})
}

// Determinism and replay: the same level and the same calls give the same
// state; a clone taken midway and replayed with the rest ends in the same
// state too (§9's undo and restart rebuild this way).
func TestProp_Determinism(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		def := drawLevel(t)
		ops := drawOps(t)
		cut := rapid.IntRange(0, len(ops)).Draw(t, "cut")
		a, b := build(t, def), build(t, def)
		var mid *Baba
		for i, o := range ops {
			if i == cut {
				mid = a.Clone()
			}
			o.run(a)
			o.run(b)
			if !reflect.DeepEqual(a.Snapshot(), b.Snapshot()) {
				t.Fatalf("two runs differ after %d calls", i+1)
			}
		}
		if mid == nil {
			mid = a.Clone()
		}
		for _, o := range ops[cut:] {
			o.run(mid)
		}
		if !reflect.DeepEqual(a.Snapshot(), mid.Snapshot()) {
			t.Fatal("the replay from a clone differs")
		}
	})
}

// A failing call leaves the state unchanged: random invalid places and
// queries.
func TestProp_FailedCallsChangeNothing(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := build(t, drawLevel(t))
		for _, o := range drawOps(t) {
			o.run(b)
		}
		w, h := b.Size()
		before := b.Snapshot()
		x := rapid.IntRange(-3, w+3).Draw(t, "x")
		y := rapid.IntRange(-3, h+3).Draw(t, "y")
		kind := rapid.SampledFrom([]string{"rock", "text:ROCK", "stone", "text:rock", "ROCK", ""}).Draw(t, "kind")
		id := ID(rapid.Uint32().Draw(t, "id"))
		inside := x >= 0 && x < w && y >= 0 && y < h
		if _, err := b.Place(kind, x, y); err == nil && (!inside || !ValidKind(kind)) {
			t.Fatalf("Place(%q, %d, %d) succeeded", kind, x, y)
		} else if err != nil {
			if !reflect.DeepEqual(before, b.Snapshot()) {
				t.Fatal("a failed Place changed the state")
			}
		}
		before = b.Snapshot()
		_, err1 := b.HasProperty(id, "YOU")
		_, _, _, err2 := b.PosOf(id)
		_, err3 := b.KindsAt(x, y)
		if (err1 == nil) != (id >= 1 && id < before.NextID) || (err1 == nil) != (err2 == nil) || (err3 == nil) != inside {
			t.Fatalf("errors %v / %v / %v for id %d, tile (%d,%d)", err1, err2, err3, id, x, y)
		}
		if !reflect.DeepEqual(before, b.Snapshot()) {
			t.Fatal("a query changed the state")
		}
	})
}
