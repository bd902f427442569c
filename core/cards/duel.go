package cards

import "fmt"

// The calls the room game of §10 adds to the harness: a turn's draw and an
// attack. Neither changes what any other call does.

// Draw draws one card for p as one Sequence of one Phase (§10, start of
// turn): Drew, or Fatigue from an empty deck (§6.7). A card drawn into a
// full hand goes to the graveyard.
func (g *Game) Draw(p Player) error {
	if err := checkPlayer(p); err != nil {
		return fmt.Errorf("draw(%d): %w", p, err)
	}
	err := g.sequence(func() {
		g.draw(p)
		g.endPhase()
	})
	if err != nil {
		return fmt.Errorf("draw(%d): %w", p, err)
	}
	return nil
}

// Fight runs an attack (§10) as one Sequence of one Phase: attacker and
// defender deal their current attack to each other at once, as one
// simultaneous damage event (§6.3), targets in order of play. A side whose
// attack is 0 or less deals nothing and logs no Damaged. Both must be
// characters in play; the rules of who may attack whom are the caller's.
func (g *Game) Fight(attacker, defender ID) error {
	err := g.checkInPlay(attacker)
	if err == nil {
		err = g.checkInPlay(defender)
	}
	if err == nil && attacker == defender {
		err = fmt.Errorf("%w: a character cannot fight itself", ErrTarget)
	}
	if err != nil {
		return fmt.Errorf("fight(%d, %d): %w", attacker, defender, err)
	}
	err = g.sequence(func() {
		a, d := &g.s.ents[attacker], &g.s.ents[defender]
		hits := [2]struct {
			to     ID
			amount int32
		}{{defender, a.attack()}, {attacker, d.attack()}}
		if a.order < d.order { // the attacker is hit first
			hits[0], hits[1] = hits[1], hits[0]
		}
		start := len(g.ids)
		for _, h := range hits {
			if h.amount > 0 {
				g.ids = append(g.ids, h.to)
			}
		}
		end := len(g.ids)
		// Pass 1: all the damage; pass 2: each target's triggers (§6.3).
		for i := start; i < end; i++ {
			amount := hits[0].amount
			if g.ids[i] != hits[0].to {
				amount = hits[1].amount
			}
			g.hit(g.ids[i], amount)
		}
		for i := start; i < end; i++ {
			g.damageTriggers(g.ids[i])
		}
		g.ids = g.ids[:start]
		g.endPhase()
	})
	if err != nil {
		return fmt.Errorf("fight(%d, %d): %w", attacker, defender, err)
	}
	return nil
}

// hit is pass 1 of a damage event for one target (§6.3): Armor first for
// a hero, then the damage, logged with the whole amount.
func (g *Game) hit(id ID, amount int32) {
	e := &g.s.ents[id]
	taken := amount
	if e.def == nil {
		sd := &g.s.sides[e.owner]
		a := min(max(sd.armor, 0), amount)
		sd.armor -= a
		taken -= a
	}
	e.damage = addSat(e.damage, taken)
	g.emit(Damaged(id, amount))
}

// damageTriggers is pass 2 of a damage event for one target (§6.3): its
// own self_damaged ability and its owner's friendly_minion_damaged ones.
func (g *Game) damageTriggers(id ID) {
	e := &g.s.ents[id]
	if e.def == nil {
		return
	}
	q := len(g.queue)
	if ab := e.def.Ability; ab != nil && ab.When == SelfDamaged {
		g.queue = append(g.queue, queued{src: id, owner: e.owner, ab: ab, key: e.order})
	}
	g.queueBoard(e.owner, FriendlyMinionDamaged, NoID)
	g.resolve(q)
}

// OwnerOf returns the player that owns id: its hero's player, or the
// player a card belongs to, whatever its zone.
func (g *Game) OwnerOf(id ID) (Player, error) {
	e := g.ent(id)
	if e == nil {
		return 0, fmt.Errorf("ownerOf(%d): %w", id, ErrUnknownID)
	}
	return e.owner, nil
}
