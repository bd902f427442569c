package baba

import (
	"math/rand/v2"
	"testing"
)

// benchLevel is a 32×32 level of 500 objects: rules along the top rows
// (BABA IS YOU, ROCK IS PUSH, WALL IS STOP, FLAG IS WIN, WATER IS SINK,
// LAVA IS HOT, KEKE IS MELT, SKULL IS DEFEAT, KEY IS OPEN, DOOR IS SHUT,
// ROCK IS FLOAT), 40 babas, and rocks, walls and a few of every other
// kind scattered below.
func benchLevel() LevelDef {
	def := level(32, 32,
		text(0, 0, Right, "BABA IS YOU"), text(4, 0, Right, "ROCK IS PUSH"), text(8, 0, Right, "WALL IS STOP"),
		text(12, 0, Right, "FLAG IS WIN"), text(16, 0, Right, "WATER IS SINK"), text(20, 0, Right, "LAVA IS HOT"),
		text(24, 0, Right, "KEKE IS MELT"), text(0, 2, Right, "SKULL IS DEFEAT"), text(4, 2, Right, "KEY IS OPEN"),
		text(8, 2, Right, "DOOR IS SHUT"), text(12, 2, Right, "ROCK IS FLOAT"))
	r := rand.New(rand.NewPCG(3, 7))
	place := func(kind string, n int) {
		for range n {
			def.Objects = append(def.Objects, obj(kind, r.IntN(32), 4+r.IntN(28)))
		}
	}
	place("baba", 40)
	place("flag", 4)
	place("water", 6)
	place("lava", 6)
	place("keke", 10)
	place("skull", 4)
	place("key", 6)
	place("door", 6)
	place("rock", 200)
	place("wall", 500-len(def.Objects))
	return def
}

// BenchmarkStep measures one whole turn (§6) on a 32×32 level of 500
// objects. The directions cycle; the level is rebuilt (off the clock)
// every 64 steps so that it keeps its objects.
func BenchmarkStep(b *testing.B) {
	def := benchLevel()
	if len(def.Objects) != 500 {
		b.Fatalf("%d objects", len(def.Objects))
	}
	start := build(b, def)
	g := start.Clone()
	dirs := [...]Dir{Right, Down, Left, Up, Left, Down, Right, Up}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if n%64 == 63 {
			b.StopTimer()
			g = start.Clone()
			b.StartTimer()
		}
		g.Step(dirs[n%len(dirs)])
		n++
	}
}

// BenchmarkMove measures the movement and one reading (§5) on the same
// level.
func BenchmarkMove(b *testing.B) {
	g := build(b, benchLevel())
	dirs := [...]Dir{Right, Down, Left, Up}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		g.Move(dirs[n%len(dirs)])
		n++
	}
}
