package cardgame

import (
	"cmp"
	"slices"

	"github.com/roomd/roomd/core/cards"
	"github.com/roomd/roomd/core/session"
)

// Choose plays seat from its own view: while it is its turn, it plays the
// dearest card it can afford that is worth playing, then attacks with each
// ready minion (a Taunt minion when it must, a minion it can kill and
// survive when there is one, else the hero), then ends its turn. It never
// chooses a command the rules refuse. It returns false when the seat has
// nothing to do.
func (Rules) Choose(v View, seat Seat, _ session.Source) (Move, bool) {
	if v.Phase != PhaseActive || v.Active != seat || seat < 0 || seat >= Seats {
		return Move{}, false
	}
	me, foe := v.Players[seat], v.Players[1-seat]
	hand := slices.Clone(me.Hand)
	slices.SortStableFunc(hand, func(a, b HandCard) int { return cmp.Compare(b.Cost, a.Cost) })
	for _, h := range hand {
		d, ok := starter[h.Name]
		if !ok || h.Cost > me.Mana {
			continue
		}
		if target, ok := worthPlaying(d, me, foe); ok {
			return Play(h.ID, target), true
		}
	}
	var taunts []Minion
	for _, m := range foe.Board {
		if m.Taunt {
			taunts = append(taunts, m)
		}
	}
	for _, m := range me.Board {
		if !m.Ready || m.Attack <= 0 {
			continue
		}
		if len(taunts) > 0 {
			t := slices.MinFunc(taunts, func(a, b Minion) int { return cmp.Compare(a.Health, b.Health) })
			return Attack(m.ID, t.ID), true
		}
		for _, f := range foe.Board {
			if f.Health <= m.Attack && f.Attack < m.Health {
				return Attack(m.ID, f.ID), true
			}
		}
		return Attack(m.ID, foe.Hero.ID), true
	}
	return End(), true
}

// worthPlaying says whether the AI plays d now, and on which target.
func worthPlaying(d cards.CardDef, me, foe SeatView) (ID, bool) {
	if d.Type == cards.Minion {
		return 0, len(me.Board) < cards.MaxBoard
	}
	var damage, selfDamage int32
	for _, e := range d.Effects {
		switch e.To {
		case cards.Chosen:
			damage = e.Amount
		case cards.AllCharacters:
			selfDamage = e.Amount
		}
		if e.Do == cards.DoDestroy || (e.Do == cards.DoDamage && (e.To == cards.AllMinions || e.To == cards.AllCharacters)) {
			if len(foe.Board) <= len(me.Board) {
				return 0, false // it would hurt us as much
			}
		}
		if e.Do == cards.DoDamage && e.To == cards.EnemyMinions && len(foe.Board) == 0 {
			return 0, false
		}
	}
	if selfDamage >= me.Hero.Health+me.Hero.Armor {
		return 0, false
	}
	if d.Target == cards.NoTargetKind {
		return 0, true
	}
	var best *Minion
	for i, f := range foe.Board {
		if f.Health <= damage && (best == nil || f.Attack > best.Attack) {
			best = &foe.Board[i]
		}
	}
	switch {
	case best != nil:
		return best.ID, true
	case d.Target == cards.TargetCharacter:
		return foe.Hero.ID, true
	}
	return 0, false
}
