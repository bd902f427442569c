package spellgrid

import (
	"fmt"
	"slices"
	"strings"

	"github.com/roomd/roomd/core/baba"
	"github.com/roomd/roomd/core/cards"
)

// The actions of §9: cast and play from player 0's hand, the Baba turn
// with its seams, and what the Baba alone does (move, place). Each runs
// on a copy that replaces the SpellGrid only when it succeeds.

// findHand returns the Game id of the first card named name in player
// 0's hand.
func (s *SpellGrid) findHand(name string) (cards.ID, error) {
	hand, _ := s.g.Hand(0)
	for _, g := range hand {
		if n, _ := s.g.NameOf(g); n == name {
			return g, nil
		}
	}
	return cards.NoID, fmt.Errorf("%w: %q", ErrNotInHand, name)
}

// CheckCast returns why Cast(card, target) would fail, or nil. target 0
// is no target.
func (s *SpellGrid) CheckCast(card string, target ID) error {
	_, _, err := s.checkCast(card, target)
	return err
}

func (s *SpellGrid) checkCast(card string, target ID) (cards.ID, cards.ID, error) {
	i, err := s.findHand(card)
	if err != nil {
		return 0, 0, fmt.Errorf("cast(%q, %d): %w", card, target, err)
	}
	d, _ := s.g.Card(card)
	var tg cards.ID
	switch {
	case d.Type != cards.Spell:
		err = fmt.Errorf("%w: %q is a minion, play it", ErrNotASpell, card)
	case target == 0 && d.Target != cards.NoTargetKind:
		err = fmt.Errorf("%w: %q needs a target (a %s)", ErrTarget, card, d.Target)
	case target != 0 && d.Target == cards.NoTargetKind:
		err = fmt.Errorf("%w: %q takes no target", ErrTarget, card)
	case target != 0:
		var ok bool
		if tg, ok = s.minion(target); !ok {
			err = fmt.Errorf("%w: %d is not a live minion", ErrTarget, target)
		}
	}
	if err != nil {
		return 0, 0, fmt.Errorf("cast(%q, %d): %w", card, target, err)
	}
	return i, tg, nil
}

// Cast casts the first card named card from player 0's hand, with target
// (a live minion's id, or 0 for none), as the cast Sequence of player 0
// (§9). The card goes from the hand to the graveyard. won() does not
// change.
func (s *SpellGrid) Cast(card string, target ID) error {
	return s.atomically(func(c *SpellGrid) error {
		h, tg, err := c.checkCast(card, target)
		if err != nil {
			return err
		}
		x, y := 0, 0
		if target != 0 {
			x, y, _, _ = c.b.PosOf(target)
		}
		if err := c.g.CastFromHand(h, tg); err != nil {
			return fmt.Errorf("cast(%q, %d): %w", card, target, err)
		}
		return c.endSequence(x, y)
	})
}

// CheckPlay returns why Play(card, x, y) would fail, or nil.
func (s *SpellGrid) CheckPlay(card string, x, y int) error {
	_, _, err := s.checkPlay(card, x, y)
	return err
}

func (s *SpellGrid) checkPlay(card string, x, y int) (cards.ID, string, error) {
	i, err := s.findHand(card)
	if err != nil {
		return 0, "", fmt.Errorf("play(%q, %d, %d): %w", card, x, y, err)
	}
	d, _ := s.g.Card(card)
	board, _ := s.g.Board(0)
	switch {
	case d.Type != cards.Minion:
		err = fmt.Errorf("%w: %q is a spell, cast it", ErrNotAMinion, card)
	case d.Noun == "":
		err = fmt.Errorf("%w: %q has no noun", ErrNotAMinion, card)
	case len(board) >= cards.MaxBoard:
		err = cards.ErrBoardFull
	}
	if err == nil {
		var kinds []string
		if kinds, err = s.b.KindsAt(x, y); err != nil {
			err = fmt.Errorf("%w: %w", ErrTile, err)
		} else if len(kinds) > 0 {
			err = fmt.Errorf("%w: (%d, %d) holds %s", ErrTile, x, y, strings.Join(kinds, ", "))
		}
	}
	if err != nil {
		return 0, "", fmt.Errorf("play(%q, %d, %d): %w", card, x, y, err)
	}
	return i, strings.ToLower(d.Noun), nil
}

// Play plays the first card named card from player 0's hand onto tile
// (x, y), which must be inside the level and hold no live object (§9): a
// grid object of its noun is created there, then the play Sequence runs.
// It returns the minion's id, its grid object's. won() does not change.
func (s *SpellGrid) Play(card string, x, y int) (ID, error) {
	var id ID
	err := s.atomically(func(c *SpellGrid) error {
		gid, kind, err := c.checkPlay(card, x, y)
		if err != nil {
			return err
		}
		if id, err = c.b.Place(kind, x, y); err != nil {
			return fmt.Errorf("play(%q, %d, %d): %w", card, x, y, err)
		}
		old := c.pub[gid]
		delete(c.gid, old)
		c.names[old] = card
		c.bind(gid, id)
		if err := c.g.Play(gid); err != nil {
			return fmt.Errorf("play(%q, %d, %d): %w", card, x, y, err)
		}
		return c.endSequence(x, y)
	})
	if err != nil {
		return 0, err
	}
	return id, nil
}

// Step plays one Baba turn with the seams of §9: after each destroying
// step (the movement's OPEN/SHUT pairs, the conversion's N IS NOT N, each
// hazard), the minions it hit are destroyed by one Sequence (their grid
// objects are removed at its end); other objects of card nouns it hit are
// removed at once. The hazards and the win check keep the rules read after
// the conversion.
func (s *SpellGrid) Step(d baba.Dir) error {
	if !d.Valid() {
		return fmt.Errorf("step: %w", baba.ErrDir)
	}
	return s.atomically(func(c *SpellGrid) error {
		c.b.StepWith(d, c.hit)
		return c.syncAuras()
	})
}

// Move is the movement of Move (baba.md §5) alone, with the seam of the
// OPEN/SHUT pairs as in Step, then a re-read of the rules.
func (s *SpellGrid) Move(d baba.Dir) error {
	if !d.Valid() {
		return fmt.Errorf("move: %w", baba.ErrDir)
	}
	return s.atomically(func(c *SpellGrid) error {
		c.b.MoveWith(d, c.hit)
		return c.syncAuras()
	})
}

// Place creates a grid object (baba.md §4) and re-reads the rules. An
// object of a card noun placed so is not a minion.
func (s *SpellGrid) Place(kind string, x, y int) (ID, error) {
	var id ID
	err := s.atomically(func(c *SpellGrid) error {
		var err error
		if id, err = c.b.Place(kind, x, y); err != nil {
			return err
		}
		return c.syncAuras()
	})
	return id, err
}

// hit is the Baba's seam of a destroying step: the live minions among
// ids are destroyed by one Sequence; the other objects are removed. The
// rule auras are first refreshed from the turn's last reading of the
// rules (the Baba re-reads them inside the turn).
func (s *SpellGrid) hit(ids []ID) {
	if err := s.syncAuras(); err != nil && s.err == nil {
		s.err = err
	}
	var victims []cards.ID
	for _, id := range ids {
		if g, ok := s.minion(id); ok {
			victims = append(victims, g)
		} else if err := s.b.Remove(id); err != nil && s.err == nil {
			s.err = err
		}
	}
	if len(victims) == 0 {
		return
	}
	err := s.g.DestroyAll(victims)
	if err == nil {
		err = s.endSequence(0, 0)
	}
	if err != nil && s.err == nil {
		s.err = fmt.Errorf("step: %w", err)
	}
}

// endSequence is the end of a Sequence (§9 seam 3). First every minion
// the Sequence summoned gets a grid object on the tile of the minion
// whose effect summoned it (a spell's or an action's: tile (x, y)), and
// the log is taken. Then, in order: every spawn_text request writes
// text:WORD on its source's tile ((x, y) for a spell's); the grid objects
// of minions no longer on a board are removed; the rules are re-read
// into the rule auras.
func (s *SpellGrid) endSequence(x, y int) error {
	for _, e := range s.g.Log() {
		if e.Type != cards.EventSummoned {
			continue
		}
		if _, ok := s.pub[e.ID]; ok {
			continue
		}
		tx, ty := x, y
		if origin, _ := s.g.SummonedBy(e.ID); origin != cards.NoID {
			tx, ty, _, _ = s.b.PosOf(s.pub[origin])
		}
		name, _ := s.g.NameOf(e.ID)
		d, _ := s.g.Card(name)
		id, err := s.b.Place(strings.ToLower(d.Noun), tx, ty)
		if err != nil {
			return fmt.Errorf("summon %q: %w", name, err)
		}
		s.bind(e.ID, id)
	}
	s.takeLog()
	for _, r := range s.g.TakeTextRequests() {
		tx, ty := x, y
		if r.Source != cards.NoID {
			tx, ty, _, _ = s.b.PosOf(s.pub[r.Source])
		}
		kind := "text:" + r.Word
		if !s.b.ValidKind(kind) {
			continue // a word the grid does not know writes nothing
		}
		if _, err := s.b.Place(kind, tx, ty); err != nil {
			return fmt.Errorf("spawn_text %q: %w", r.Word, err)
		}
	}
	ids := make([]ID, 0, len(s.gid))
	for id := range s.gid {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		g := s.gid[id]
		if g == s.gidHero(0) || g == s.gidHero(1) {
			continue
		}
		if z, _ := s.g.ZoneOf(g); z == cards.ZoneBoard {
			continue
		}
		if _, _, alive, _ := s.b.PosOf(id); alive {
			if err := s.b.Remove(id); err != nil {
				return err
			}
		}
	}
	return s.syncAuras()
}
