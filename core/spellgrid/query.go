package spellgrid

import (
	"fmt"

	"github.com/roomd/roomd/core/baba"
	"github.com/roomd/roomd/core/cards"
)

// The queries of §9, all in the one id space.

// PosOf returns an object's tile, with alive false once it is destroyed
// (baba.md §7). A hero's or a hand card's id has no tile: alive is false.
// An id never issued is an error.
func (s *SpellGrid) PosOf(id ID) (x, y int, alive bool, err error) { return s.b.PosOf(id) }

// HasProperty is the Baba's (baba.md §3.5); false for an id that names no
// grid object.
func (s *SpellGrid) HasProperty(id ID, prop string) (bool, error) { return s.b.HasProperty(id, prop) }

// KindsAt, Rules, ActiveRules, Won and Lost are the Baba's.
func (s *SpellGrid) KindsAt(x, y int) ([]string, error) { return s.b.KindsAt(x, y) }

// Rules returns the rules last read (baba.md §3.3).
func (s *SpellGrid) Rules() []string { return s.b.Rules() }

// ActiveRules returns the active rules (baba.md §3.4).
func (s *SpellGrid) ActiveRules() []string { return s.b.ActiveRules() }

// Won reports whether a turn has been won; only Step changes it.
func (s *SpellGrid) Won() bool { return s.b.Won() }

// Lost reports whether no object is YOU.
func (s *SpellGrid) Lost() bool { return s.b.Lost() }

// Size returns the level's width and height.
func (s *SpellGrid) Size() (width, height int) { return s.b.Size() }

// card returns the Game id of a minion (live or not) or hero.
func (s *SpellGrid) card(call string, id ID) (cards.ID, error) {
	g, ok := s.gid[id]
	if !ok {
		return 0, fmt.Errorf("%s(%d): %w: not a minion or hero", call, id, ErrUnknownID)
	}
	return g, nil
}

// Health returns a minion's or hero's current health (card-engine.md §2).
func (s *SpellGrid) Health(id ID) (int32, error) {
	g, err := s.card("health", id)
	if err != nil {
		return 0, err
	}
	return s.g.Health(g)
}

// Attack returns a minion's or hero's current attack.
func (s *SpellGrid) Attack(id ID) (int32, error) {
	g, err := s.card("attack", id)
	if err != nil {
		return 0, err
	}
	return s.g.Attack(g)
}

// Hero returns player p's hero's id.
func (s *SpellGrid) Hero(p cards.Player) (ID, error) {
	if p > 1 {
		return 0, fmt.Errorf("hero(%d): %w", p, ErrPlayer)
	}
	return s.heroes[p], nil
}

// NameOf returns the card name of a minion, hero ("Hero") or card in
// hand (or cast, or played from the hand).
func (s *SpellGrid) NameOf(id ID) (string, error) {
	if g, ok := s.gid[id]; ok {
		return s.g.NameOf(g)
	}
	if n, ok := s.names[id]; ok {
		return n, nil
	}
	return "", fmt.Errorf("nameOf(%d): %w", id, ErrUnknownID)
}

// MinionAt returns the live minion on tile (x, y), the lowest id when
// there are several; ok is false when there is none. A tile outside the
// level is an error.
func (s *SpellGrid) MinionAt(x, y int) (id ID, ok bool, err error) {
	if _, err := s.b.KindsAt(x, y); err != nil {
		return 0, false, fmt.Errorf("minionAt: %w", err)
	}
	for _, o := range s.b.Snapshot().Objects {
		if o.X != x || o.Y != y {
			continue
		}
		if _, live := s.minion(o.ID); live {
			return o.ID, true, nil
		}
	}
	return 0, false, nil
}

// Hand returns the names of the cards in player 0's hand, in order.
func (s *SpellGrid) Hand() []string {
	hand, _ := s.g.Hand(0)
	out := make([]string, len(hand))
	for i, g := range hand {
		out[i], _ = s.g.NameOf(g)
	}
	return out
}

// Board returns player p's minions, left to right.
func (s *SpellGrid) Board(p cards.Player) ([]ID, error) {
	b, err := s.g.Board(p)
	if err != nil {
		return nil, err
	}
	out := make([]ID, len(b))
	for i, g := range b {
		out[i] = s.pub[g]
	}
	return out, nil
}

// Log returns every event since New or the last ClearLog, with ids of
// this space.
func (s *SpellGrid) Log() []cards.Event { return append([]cards.Event{}, s.log...) }

// ClearLog empties the log.
func (s *SpellGrid) ClearLog() { s.log = nil }

// SetChooser installs the chooser of the assemble effect
// (card-engine.md §8).
func (s *SpellGrid) SetChooser(f cards.Chooser) { s.g.SetChooser(f) }

// WithNaiveAuraTiming is the test hook of card-engine.md §6.2.
func (s *SpellGrid) WithNaiveAuraTiming() { s.g.WithNaiveAuraTiming() }

// Snapshot returns the grid's state (baba.State).
func (s *SpellGrid) Snapshot() baba.State { return s.b.Snapshot() }
