package baba

import "testing"

// rulesRow lays sentences one per row from the top, for levels whose
// lower rows are the playing field.
func rulesRow(sentences ...string) []LevelObject {
	var out []LevelObject
	for y, s := range sentences {
		out = append(out, text(0, y, Right, s)...)
	}
	return out
}

// §5.1: the movers are the YOU objects under the current rules, fixed
// before anything moves: a baba that breaks BABA IS YOU does not stop the
// other babas' moves, and the rule is gone only after the re-read.
func TestS5_1_MoversFixedBeforeMovement(t *testing.T) {
	// The baba at (2,3) moves first (§5.2, up: smallest y) and pushes YOU
	// up out of the row; the other baba still moves.
	b := build(t, level(4, 5, text(0, 2, Right, "BABA IS YOU"), obj("baba", 2, 3), obj("baba", 0, 4)))
	first, second := idAt(t, b, "baba", 2, 3), idAt(t, b, "baba", 0, 4)
	b.Move(Up)
	at(t, b, first, 2, 2)
	at(t, b, second, 0, 3)
	if has(t, b, first, "YOU") {
		t.Fatal("BABA IS YOU survived the re-read")
	}
	// A kind that becomes YOU during the movement does not move in it.
	b = build(t, level(5, 4, text(0, 0, Right, "BABA IS YOU"), text(1, 1, Right, "_ IS YOU"), obj("text:KEKE", 1, 2), obj("baba", 1, 3), obj("keke", 4, 3)))
	keke := idAt(t, b, "keke", 4, 3)
	b.Move(Up)
	wantRules(t, "rules()", b.Rules(), "BABA IS YOU", "KEKE IS YOU", implicit)
	at(t, b, keke, 4, 3)
}

// §5.2: movers move one at a time, furthest ahead first, ties to the lower
// id. Two PUSH babas in a row moving right end side by side (the front one
// moved first); nearest first would have pushed the front one twice.
func TestS5_2_FurthestAheadFirst(t *testing.T) {
	for _, d := range []Dir{Right, Left, Down, Up} {
		t.Run(d.String(), func(t *testing.T) {
			dx, dy := d.delta()
			// A 7×7 field below/beside nothing: the rules sit in a corner
			// the babas never reach.
			def := level(7, 7, rulesRow("BABA IS YOU", "BABA IS PUSH"))
			cx, cy := 3, 4 // the rear baba; the front one is one tile ahead
			def.Objects = append(def.Objects, obj("baba", cx, cy), obj("baba", cx+dx, cy+dy))
			b := build(t, def)
			rear, front := idAt(t, b, "baba", cx, cy), idAt(t, b, "baba", cx+dx, cy+dy)
			b.Move(d)
			at(t, b, front, cx+2*dx, cy+2*dy)
			at(t, b, rear, cx+dx, cy+dy)
		})
	}
	// A tie: two PUSH babas on one tile moving right: the lower id moves
	// first; the other then pushes it a second tile.
	b0 := build(t, level(7, 3, rulesRow("BABA IS YOU", "BABA IS PUSH"), obj("baba", 0, 2), obj("baba", 0, 2)))
	first := idAt(t, b0, "baba", 0, 2)
	b0.Move(Right)
	at(t, b0, first, 2, 2)
	at(t, b0, first+1, 1, 2)
	// A tie: two keys (OPEN, YOU) on one tile walk into one door (SHUT):
	// the lower id moves first and opens it; the other walks through.
	b := build(t, level(4, 6, rulesRow("KEY IS YOU", "KEY IS OPEN", "DOOR IS SHUT", "DOOR IS STOP"), obj("key", 0, 5), obj("key", 0, 5), obj("door", 1, 5)))
	low := idAt(t, b, "key", 0, 5)
	b.Move(Right)
	gone(t, b, low)
	at(t, b, low+1, 1, 5)
	if got := kindsAt(t, b, 1, 5); len(got) != 1 {
		t.Fatalf("tile (1,5) holds %v; want only the second key", got)
	}
}

// §5.3: the edge blocks like STOP, and a blocked chain moves nothing, not
// even its mover.
func TestS5_3_EdgeBlocks(t *testing.T) {
	b := build(t, level(4, 3, rulesRow("BABA IS YOU", "ROCK IS PUSH"), obj("baba", 1, 2), obj("rock", 0, 2)))
	baba, rock := idAt(t, b, "baba", 1, 2), idAt(t, b, "rock", 0, 2)
	b.Move(Left)
	at(t, b, baba, 1, 2)
	at(t, b, rock, 0, 2)
	b.Move(Down)
	at(t, b, baba, 1, 2)
	b.Move(Right)
	at(t, b, baba, 2, 2)
	b.Move(Right)
	b.Move(Right)
	at(t, b, baba, 3, 2)
}

// §5.3: STOP blocks unless also PUSH; PUSH objects are pushed as a chain,
// every PUSH object of a tile at once; objects neither STOP nor PUSH are
// walked onto and stay.
func TestS5_3_StopAndPush(t *testing.T) {
	field := func(row ...LevelObject) LevelDef {
		return level(7, 6, rulesRow("BABA IS YOU", "ROCK IS PUSH", "WALL IS STOP", "KEKE IS STOP", "KEKE IS PUSH"), row)
	}
	cases := []struct {
		name  string
		row   []LevelObject
		moved []string // kinds that end one tile to the right
		still []string // kinds that stay
	}{
		{"wall blocks", []LevelObject{obj("baba", 0, 5), obj("wall", 1, 5)}, nil, []string{"baba", "wall"}},
		{"STOP and PUSH is pushed", []LevelObject{obj("baba", 0, 5), obj("keke", 1, 5)}, []string{"baba", "keke"}, nil},
		{"chain of rocks", []LevelObject{obj("baba", 0, 5), obj("rock", 1, 5), obj("rock", 2, 5), obj("rock", 3, 5)}, []string{"baba", "rock", "rock", "rock"}, nil},
		{"chain blocked by a wall", []LevelObject{obj("baba", 0, 5), obj("rock", 1, 5), obj("rock", 2, 5), obj("wall", 3, 5)}, nil, []string{"baba", "rock", "rock", "wall"}},
		{"chain blocked by the edge", []LevelObject{obj("baba", 4, 5), obj("rock", 5, 5), obj("rock", 6, 5)}, nil, []string{"baba", "rock", "rock"}},
		{"stack pushed whole", []LevelObject{obj("baba", 0, 5), obj("rock", 1, 5), obj("rock", 1, 5), obj("keke", 1, 5)}, []string{"baba", "rock", "rock", "keke"}, nil},
		{"flag walked onto", []LevelObject{obj("baba", 0, 5), obj("flag", 1, 5)}, []string{"baba"}, []string{"flag"}},
		{"flag beside a pushed rock stays", []LevelObject{obj("baba", 0, 5), obj("rock", 1, 5), obj("flag", 1, 5)}, []string{"baba", "rock"}, []string{"flag"}},
		{"wall under a pushed rock blocks", []LevelObject{obj("baba", 0, 5), obj("rock", 1, 5), obj("wall", 2, 5)}, nil, []string{"baba", "rock", "wall"}},
		{"wall on the rock's tile blocks", []LevelObject{obj("baba", 0, 5), obj("rock", 1, 5), obj("wall", 1, 5)}, nil, []string{"baba", "rock", "wall"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := build(t, field(c.row...))
			type want struct {
				id   ID
				x, y int
			}
			var wants []want
			for _, o := range b.Snapshot().Objects {
				if o.Y != 5 {
					continue
				}
				w := want{o.ID, o.X, o.Y}
				if contains(c.moved, o.Kind) {
					w.x++
				} else if !contains(c.still, o.Kind) {
					t.Fatalf("%s in neither list", o.Kind)
				}
				wants = append(wants, w)
			}
			b.Move(Right)
			for _, w := range wants {
				at(t, b, w.id, w.x, w.y)
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// §5.3–§5.4: an OPEN object moving onto a SHUT one, or the reverse, pushed
// or not, lets the chain move and destroys both; the pair comes before
// STOP; only the chain's frontier meets the next tile.
func TestS5_3_OpenShutPairs(t *testing.T) {
	rules := rulesRow("BABA IS YOU", "KEY IS OPEN", "KEY IS PUSH", "DOOR IS SHUT", "DOOR IS STOP", "ROCK IS PUSH")
	const y = 6
	t.Run("pushed key opens a door", func(t *testing.T) {
		b := build(t, level(6, 7, rules, obj("baba", 0, y), obj("key", 1, y), obj("door", 2, y)))
		baba, key, door := idAt(t, b, "baba", 0, y), idAt(t, b, "key", 1, y), idAt(t, b, "door", 2, y)
		b.Move(Right)
		at(t, b, baba, 1, y)
		gone(t, b, key)
		gone(t, b, door)
	})
	t.Run("an OPEN mover opens a door and goes with it", func(t *testing.T) {
		b := build(t, level(6, 8, rules, text(0, 7, Right, "BABA IS OPEN"), obj("baba", 0, y), obj("door", 1, y)))
		baba, door := idAt(t, b, "baba", 0, y), idAt(t, b, "door", 1, y)
		b.Move(Right)
		gone(t, b, baba)
		gone(t, b, door)
	})
	t.Run("a SHUT mover onto an OPEN key", func(t *testing.T) {
		b := build(t, level(6, 8, rules, text(0, 7, Right, "BABA IS SHUT"), obj("baba", 0, y), obj("key", 1, y), obj("wall", 1, y)))
		baba, key, wall := idAt(t, b, "baba", 0, y), idAt(t, b, "key", 1, y), idAt(t, b, "wall", 1, y)
		b.Move(Right)
		gone(t, b, baba)
		gone(t, b, key)
		at(t, b, wall, 1, y)
	})
	t.Run("two doors on the tile both open", func(t *testing.T) {
		b := build(t, level(6, 7, rules, obj("baba", 0, y), obj("key", 1, y), obj("door", 2, y), obj("door", 2, y)))
		b.Move(Right)
		if got := kindsAt(t, b, 2, y); len(got) != 0 {
			t.Fatalf("tile (2,%d) holds %v; want nothing", y, got)
		}
		at(t, b, idAt(t, b, "baba", 1, y), 1, y)
	})
	t.Run("only the frontier meets the next tile", func(t *testing.T) {
		// An OPEN baba pushes a rock into a door: the rock is not OPEN, the
		// door is STOP: nothing moves.
		b := build(t, level(6, 8, rules, text(0, 7, Right, "BABA IS OPEN"), obj("baba", 0, y), obj("rock", 1, y), obj("door", 2, y)))
		baba, rock, door := idAt(t, b, "baba", 0, y), idAt(t, b, "rock", 1, y), idAt(t, b, "door", 2, y)
		b.Move(Right)
		at(t, b, baba, 0, y)
		at(t, b, rock, 1, y)
		at(t, b, door, 2, y)
	})
	t.Run("a pair ends the planning: nothing beyond is pushed", func(t *testing.T) {
		b := build(t, level(6, 7, rules, obj("baba", 0, y), obj("key", 1, y), obj("door", 2, y), obj("rock", 2, y)))
		rock := idAt(t, b, "rock", 2, y)
		b.Move(Right)
		at(t, b, rock, 2, y)
		if got := kindsAt(t, b, 2, y); len(got) != 1 {
			t.Fatalf("tile (2,%d) holds %v; want the rock alone", y, got)
		}
	})
}

// §5.5: other YOU objects and FLOAT objects never block; move runs no
// conversion, hazard or win check.
func TestS5_5_NothingElseBlocks(t *testing.T) {
	b := build(t, level(5, 6, rulesRow("BABA IS YOU", "KEKE IS YOU", "ROCK IS FLOAT", "BABA IS FLOAT"), obj("baba", 0, 5), obj("keke", 1, 5), obj("rock", 2, 5)))
	baba, keke := idAt(t, b, "baba", 0, 5), idAt(t, b, "keke", 1, 5)
	b.Move(Right)
	at(t, b, keke, 2, 5)
	at(t, b, baba, 1, 5)
	b.Move(Right)
	at(t, b, keke, 3, 5)
	at(t, b, baba, 2, 5)
}

// §5: move is movement and one re-read: no conversion, hazard or win.
func TestS5_MoveIsMovementOnly(t *testing.T) {
	b := build(t, level(5, 6, rulesRow("BABA IS YOU", "BABA IS KEKE", "WATER IS SINK", "FLAG IS WIN", "SKULL IS DEFEAT"),
		obj("baba", 0, 5), obj("water", 1, 5), obj("flag", 1, 5), obj("skull", 1, 5)))
	baba := idAt(t, b, "baba", 0, 5)
	b.Move(Right)
	at(t, b, baba, 1, 5)
	if got := kindsAt(t, b, 1, 5); len(got) != 4 || got[0] != "baba" {
		t.Fatalf("tile (1,5) holds %v; want all four, the baba unconverted", got)
	}
	if b.Won() {
		t.Fatal("won() after a move")
	}
}
