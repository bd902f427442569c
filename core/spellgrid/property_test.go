package spellgrid

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/baba"
	"github.com/roomd/roomd/core/cards"
)

// propertyLevel has YOU minions, hazards, the DOUBLE rule and a full hand.
const propertyLevel = `{"width":8,"height":7,"objects":[` +
	`{"kind":"text:GNOME","x":0,"y":0},{"kind":"text:IS","x":1,"y":0},{"kind":"text:YOU","x":2,"y":0},` +
	`{"kind":"text:GOLEM","x":0,"y":1},{"kind":"text:IS","x":1,"y":1},{"kind":"text:YOU","x":2,"y":1},` +
	`{"kind":"text:SKULL","x":4,"y":0},{"kind":"text:IS","x":5,"y":0},{"kind":"text:DEFEAT","x":6,"y":0},` +
	`{"kind":"text:DEATHRATTLE","x":4,"y":2},{"kind":"text:IS","x":5,"y":2},{"kind":"text:DOUBLE","x":6,"y":2},` +
	`{"kind":"skull","x":3,"y":5},{"kind":"skull","x":6,"y":6},{"kind":"water","x":1,"y":6}],` +
	`"cards":[{"card":"Leper Gnome","x":1,"y":4},{"card":"Harvest Golem","x":5,"y":4},{"card":"Rune Scribe","x":2,"y":3}],` +
	`"hand":["Fireball","Harvest Golem","Haunted Creeper","Whirlwind","Leper Gnome","Fireball","Loot Hoarder","Rune Scribe","Hellfire","Novice Engineer"]}`

// call is one call of a random list.
type call struct {
	op     string
	card   string
	x, y   int
	target ID
	dir    baba.Dir
}

func (c call) run(s *SpellGrid) error {
	switch c.op {
	case "step":
		return s.Step(c.dir)
	case "cast":
		return s.Cast(c.card, c.target)
	case "play":
		_, err := s.Play(c.card, c.x, c.y)
		return err
	}
	return fmt.Errorf("op %q", c.op)
}

// randomCalls makes n calls from a xorshift generator seeded with seed.
func randomCalls(seed uint64, n int) []call {
	x := seed | 1
	next := func(k int) int {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return int(x % uint64(k))
	}
	hand := []string{"Fireball", "Harvest Golem", "Haunted Creeper", "Whirlwind", "Leper Gnome", "Loot Hoarder", "Rune Scribe", "Hellfire", "Novice Engineer"}
	out := make([]call, n)
	for i := range out {
		switch next(3) {
		case 0:
			out[i] = call{op: "step", dir: baba.Dir(next(4))}
		case 1:
			out[i] = call{op: "cast", card: hand[next(len(hand))], target: ID(next(40))}
		default:
			out[i] = call{op: "play", card: hand[next(len(hand))], x: next(8), y: next(7)}
		}
	}
	return out
}

// checkIDs checks the one id space: every minion on a board has a live
// grid object of its noun with the same id, which minionAt can find, and
// every grid object of a card noun is a live minion's.
func checkIDs(t *testing.T, s *SpellGrid) {
	t.Helper()
	for p := range cards.Player(2) {
		for _, id := range must(s.Board(p)) {
			x, y, alive, err := s.PosOf(id)
			if err != nil || !alive {
				t.Fatalf("minion %d has no live grid object (%v)", id, err)
			}
			name := must(s.NameOf(id))
			d, _ := s.g.Card(name)
			if !slices.Contains(must(s.KindsAt(x, y)), strings.ToLower(d.Noun)) {
				t.Fatalf("minion %d (%s): no %s at (%d, %d)", id, name, d.Noun, x, y)
			}
			if m, ok, _ := s.MinionAt(x, y); !ok || m > id {
				t.Fatalf("minionAt(%d, %d) = %d %v, want ≤ %d", x, y, m, ok, id)
			}
		}
	}
	for _, o := range s.Snapshot().Objects {
		if strings.HasPrefix(o.Kind, "text:") || slices.Contains([]string{"skull", "water"}, o.Kind) {
			continue
		}
		if _, ok := s.minion(o.ID); !ok {
			t.Fatalf("object %d (%s) is no live minion", o.ID, o.Kind)
		}
	}
}

// Property: ids. After every call of random lists, each minion's id is
// its grid object's id; a failing call changes nothing.
func TestProperty_MinionIDIsGridObjectID(t *testing.T) {
	ok := map[string]int{}
	deaths := 0
	for seed := range uint64(40) {
		s := newGrid(t, propertyLevel)
		checkIDs(t, s)
		for i, c := range randomCalls(seed, 60) {
			before := s.Clone()
			if err := c.run(s); err != nil {
				if !reflect.DeepEqual(s.Snapshot(), before.Snapshot()) || !slices.Equal(s.Log(), before.Log()) || !slices.Equal(s.Hand(), before.Hand()) {
					t.Fatalf("seed %d call %d %+v failed (%v) and changed the grid", seed, i, c, err)
				}
			} else {
				ok[c.op]++
			}
			checkIDs(t, s)
		}
		deaths += count(s, cards.EventDestroyed)
	}
	if ok["step"] == 0 || ok["cast"] == 0 || ok["play"] == 0 || deaths == 0 {
		t.Fatalf("the lists exercise too little: %v successes, %d deaths", ok, deaths)
	}
	t.Logf("successes %v, deaths %d", ok, deaths)
}

// Property: determinism. Replaying a call list gives the same results,
// log and grid.
func TestProperty_ReplayIsDeterministic(t *testing.T) {
	for seed := range uint64(20) {
		calls := randomCalls(seed, 80)
		var runs [2]struct {
			errs []string
			log  []cards.Event
			snap baba.State
			hand []string
		}
		for r := range runs {
			s := newGrid(t, propertyLevel)
			for _, c := range calls {
				err := c.run(s)
				runs[r].errs = append(runs[r].errs, fmt.Sprint(err))
			}
			runs[r].log, runs[r].snap, runs[r].hand = s.Log(), s.Snapshot(), s.Hand()
		}
		if !reflect.DeepEqual(runs[0], runs[1]) {
			t.Fatalf("seed %d: two replays differ", seed)
		}
	}
}
