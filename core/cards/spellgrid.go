package cards

import "fmt"

// PutInPlay puts a new minion of card at the right end of p's board with
// the next order of play, as SpellGrid's construction does (§9 step 2):
// no Sequence, no event, no trigger; its auras start at the next Aura
// Update. It returns the minion's id. Errors: an unknown card, a spell, a
// full board.
func (g *Game) PutInPlay(card string, p Player) (ID, error) {
	d, err := g.minionDef(card, p)
	if err == nil && len(g.s.sides[p].board) >= MaxBoard {
		err = ErrBoardFull
	}
	if err != nil {
		return NoID, fmt.Errorf("putInPlay(%q, %d): %w", card, p, err)
	}
	id := g.newEntity(d, p)
	e := &g.s.ents[id]
	e.zone = ZoneBoard
	g.s.order++
	e.order = g.s.order
	g.s.sides[p].board = append(g.s.sides[p].board, id)
	return id, nil
}

// CastFromHand casts the spell handID from its owner's hand, as SpellGrid
// does (§9): the card goes from the hand to the graveyard, then the cast
// Sequence runs with its owner as the caster. The target rules are
// Cast's. Errors: the id is not a card in a hand, the card is a minion, a
// target missing, unwanted or not in play.
func (g *Game) CastFromHand(handID, target ID) error {
	e := g.ent(handID)
	var err error
	switch {
	case e == nil:
		err = ErrUnknownID
	case e.zone != ZoneHand:
		err = fmt.Errorf("%w (it is in the %s)", ErrNotInHand, e.zone)
	case e.def.Type != Spell:
		err = fmt.Errorf("%w: %q is a minion", ErrNotASpell, e.def.Name)
	case e.def.Target == NoTargetKind && target != NoID:
		err = fmt.Errorf("%w: %q takes no target", ErrTarget, e.def.Name)
	case e.def.Target != NoTargetKind && target == NoID:
		err = fmt.Errorf("%w: %q needs a target (a %s)", ErrTarget, e.def.Name, e.def.Target)
	case e.def.Target != NoTargetKind:
		if err = g.checkInPlay(target); err == nil && e.def.Target == TargetMinion && g.ent(target).def == nil {
			err = fmt.Errorf("%w: %q targets a minion, not a hero", ErrTarget, e.def.Name)
		}
	}
	if err != nil {
		return fmt.Errorf("castFromHand(%d, %d): %w", handID, target, err)
	}
	p, d := e.owner, e.def
	err = g.sequence(func() {
		sd := &g.s.sides[p]
		sd.hand = removeID(sd.hand, handID)
		g.place(handID, ZoneGraveyard)
		g.castPhases(d, p, target)
	})
	if err != nil {
		return fmt.Errorf("castFromHand(%d, %d): %w", handID, target, err)
	}
	return nil
}
