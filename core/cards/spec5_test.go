package cards

import (
	"slices"
	"testing"

	"github.com/roomd/roomd/core/session"
)

// §5: randomness.

// mulberry32 vectors of shared/vectors/mnswpr/rng.json (the first five
// outputs of each seed).
var mulberry32Vectors = []struct {
	seed uint32
	out  []uint32
}{
	{0, []uint32{1144304738, 1416247, 958946056, 627933444, 2007157716}},
	{12345, []uint32{4207900869, 1317490944, 2079646450, 3513001552, 2187978186}},
	{4294967295, []uint32{3850105811, 813802916, 3073704848, 4054706436, 3630262831}},
	{987654321, []uint32{4086404990, 579375324, 65739086, 3925320312, 2701980548}},
}

func TestS5_Mulberry32(t *testing.T) {
	for _, v := range mulberry32Vectors {
		g := newGame(t, Options{Seed: v.seed})
		for i, want := range v.out {
			if got := g.s.rng.Uint32(); got != want {
				t.Fatalf("seed %d output %d: %d, want %d", v.seed, i, got, want)
			}
		}
	}
}

func TestS5_PickFormula(t *testing.T) {
	// Three candidates sorted by order of play: the enemy hero (2), then
	// the Yetis a (3) and b (4). With seed 12345 the picks are
	// floor(u·3/2^32) of 4207900869, 1317490944, 2079646450: 2, 0, 1.
	g := newGame(t, Options{Seed: 12345})
	a := summon(t, g, "Chillwind Yeti", 1)
	b := summon(t, g, "Chillwind Yeti", 1)
	g.ClearLog()
	ok(t, g.Cast("Arcane Missiles", 0, NoID))
	wantLog(t, g, SpellCast("Arcane Missiles"), Damaged(b, 1), Damaged(2, 1), Damaged(a, 1))
	for i, u := range mulberry32Vectors[1].out[:3] {
		if want := []int{2, 0, 1}[i]; int((uint64(u)*3)>>32) != want {
			t.Fatalf("formula %d", i)
		}
	}
}

func TestS5_OneValuePerPick(t *testing.T) {
	// One candidate: a pick still draws one number.
	g := newGame(t, Options{Seed: 0})
	summon(t, g, "Knife Juggler", 0)
	before := g.Snapshot().RNG
	summon(t, g, "Wisp", 0) // the Juggler throws at the enemy hero, the only candidate
	rng := session.NewRNG(int64(before.Mulberry))
	rng.Uint32()
	if g.Snapshot().RNG.Mulberry != rng.State() {
		t.Fatal("a pick among one candidate must draw exactly one number")
	}
	if health(t, g, 2) != 29 {
		t.Fatal("the hero was not hit")
	}
	// No candidate: nothing drawn, nothing done.
	ok(t, g.DealDamage(2, 40))
	g.ClearLog()
	before = g.Snapshot().RNG
	w := summon(t, g, "Wisp", 0)
	wantLog(t, g, Summoned(w), Triggered(3, "after_summon"))
	if g.Snapshot().RNG != before {
		t.Fatal("a pick with no candidate must draw nothing")
	}
}

func TestS5_SeedsDiffer(t *testing.T) {
	targets := func(seed uint32) []ID {
		g := newGame(t, Options{Seed: seed})
		for range 4 {
			summon(t, g, "Chillwind Yeti", 1)
		}
		g.ClearLog()
		ok(t, g.Cast("Arcane Missiles", 0, NoID))
		var out []ID
		for _, e := range ofType(g, EventDamaged) {
			out = append(out, e.Target)
		}
		return out
	}
	if !slices.Equal(targets(5), targets(5)) {
		t.Fatal("the same seed must give the same picks")
	}
	differ := false
	for s := uint32(1); s < 20 && !differ; s++ {
		differ = !slices.Equal(targets(0), targets(s))
	}
	if !differ {
		t.Fatal("the seed changes nothing")
	}
}
