package cards

import "fmt"

// Auras (§6.5): stats auras, recalculated at Aura Update (Health/Attack),
// and multiplier auras, whose snapshot Aura Update (Other) rebuilds.

// updateStats is Aura Update (Health/Attack). A minion's bonus is the sum
// of the stats auras of the other friendly minions on the board that
// select it; each minion whose bonus changed gets StatsChanged, by order
// of play. A lower health bonus first takes back what it can of the
// damage, so that a damaged minion survives the loss of an aura.
func (g *Game) updateStats() {
	start := g.minionsInOrder()
	for _, id := range g.ids[start:] {
		e := &g.s.ents[id]
		var atk, hp int32
		for _, src := range g.s.sides[e.owner].board {
			if src == id {
				continue
			}
			for _, a := range g.s.ents[src].def.Auras {
				if a.Kind == StatsAura && a.To != EnemyMinions {
					atk = addSat(atk, a.Attack)
					hp = addSat(hp, a.Health)
				}
			}
		}
		if atk == e.atk && hp == e.hp {
			continue
		}
		if hp < e.hp {
			e.damage = max(0, addSat(e.damage, -addSat(e.hp, -hp)))
		}
		e.atk, e.hp = atk, hp
		g.emit(StatsChanged(id, e.attack(), e.health()))
	}
	g.ids = g.ids[:start]
}

// updateOther is Aura Update (Other): the multiplier snapshot becomes the
// multiplier auras of the minions on the boards now, plus the rule auras.
func (g *Game) updateOther() {
	g.s.mult = g.s.mult[:0]
	for p := range g.s.sides {
		for _, id := range g.s.sides[p].board {
			e := &g.s.ents[id]
			for _, a := range e.def.Auras {
				if a.Kind == MultiplierAura {
					g.s.mult = append(g.s.mult, multiplier{trigger: a.Trigger, factor: a.Factor, owner: e.owner,
						both: a.Scope == ScopeBoth, max: a.Stacking == StackMax})
				}
			}
		}
	}
	for _, r := range g.s.rules {
		g.s.mult = append(g.s.mult, multiplier{trigger: r.Trigger, factor: r.Factor, both: true, max: true, cap: r.Cap})
	}
}

// factor is how many times an ability of trigger w of p's activates
// (§6.5): 1 if the snapshot caps w, else the greatest factor of the
// snapshot's "max" multipliers of w that reach p, and at least 1.
func (g *Game) factor(p Player, w When) int {
	f := int32(1)
	for _, m := range g.s.mult {
		if m.trigger != w {
			continue
		}
		if m.cap {
			return 1
		}
		if m.max && (m.both || m.owner == p) {
			f = max(f, m.factor)
		}
	}
	return int(f)
}

// WithNaiveAuraTiming is the test hook of §6.2: for the rest of this game,
// Aura Update (Other) runs before the Death Creation Step, so that a
// multiplier whose source dies in that step still applies in the Death
// Phase that follows.
func (g *Game) WithNaiveAuraTiming() { g.s.naive = true }

// SetRuleAuras replaces the rule auras (§9 seam 1): multipliers for both
// players, or caps, that enter the snapshot at the next Aura Update
// (Other). A multiplier's Factor must be at least 1; a cap's is ignored.
func (g *Game) SetRuleAuras(auras []RuleAura) error {
	for i, r := range auras {
		if r.Trigger.Word() == "" {
			return fmt.Errorf("setRuleAuras: auras[%d]: unknown trigger %q", i, r.Trigger)
		}
		if !r.Cap && r.Factor < 1 {
			return fmt.Errorf("setRuleAuras: auras[%d]: factor %d, want ≥ 1", i, r.Factor)
		}
	}
	g.s.rules = append([]RuleAura(nil), auras...)
	return nil
}

// RefreshAuras runs both Aura Updates once, without a Death Creation Step
// (§9 construction, step 4). It logs StatsChanged like any Aura Update.
func (g *Game) RefreshAuras() error {
	err := g.sequence(func() {
		g.updateStats()
		g.updateOther()
	})
	if err != nil {
		return fmt.Errorf("refreshAuras: %w", err)
	}
	return nil
}
