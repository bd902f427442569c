package cards

import "github.com/roomd/roomd/core/session"

// Effects (§3.3), selectors (§3.4), damage (§6.3) and random picks (§6.4).

// source is what an effect comes from: a minion (id) or a spell (id
// NoID), its owner, and a spell's chosen target.
type source struct {
	id     ID
	owner  Player
	target ID
}

// runEffects resolves effects in list order.
func (g *Game) runEffects(src source, effects []Effect) {
	for i := range effects {
		e := &effects[i]
		switch e.Do {
		case DoDamage:
			start := g.selectChars(e.To, src)
			g.damageEvent(start, e.Amount)
			g.ids = g.ids[:start]
		case DoSplitDamage:
			g.splitDamage(e.Among, src, e.Amount)
		case DoDestroy:
			start := g.selectChars(e.To, src)
			for _, id := range g.ids[start:] {
				if g.onBoard(id) {
					g.s.ents[id].pending = true
				}
			}
			g.ids = g.ids[:start]
		case DoDraw:
			for range e.Count {
				g.draw(src.owner)
			}
		case DoGainArmor:
			sd := &g.s.sides[src.owner]
			sd.armor = addSat(sd.armor, e.Amount)
			g.emit(ArmorGained(src.owner, e.Amount))
		case DoSummon:
			g.summonEffect(src, e.Card, e.Count)
		case DoSpawnText:
			g.s.requests = append(g.s.requests, TextRequest{Source: src.id, Word: e.Word})
		case DoAssemble:
			g.assembleEffect(src.owner)
		}
	}
}

// selectChars pushes the characters in play that sel selects for src onto
// the ids stack, by order of play, and returns where they start (§3.4).
// Mortally wounded and pending-destroy characters are included, but for
// random_enemy_character, a pick that skips the mortally wounded (§6.4).
func (g *Game) selectChars(sel Selector, src source) int {
	start := len(g.ids)
	me, foe := &g.s.sides[src.owner], &g.s.sides[1-src.owner]
	switch sel {
	case Chosen:
		if g.inPlay(src.target) {
			g.ids = append(g.ids, src.target)
		}
	case Self:
		if g.inPlay(src.id) {
			g.ids = append(g.ids, src.id)
		}
	case EnemyHero:
		g.ids = append(g.ids, foe.hero)
	case FriendlyHero:
		g.ids = append(g.ids, me.hero)
	case AllMinions:
		g.ids = append(g.ids, me.board...)
		g.ids = append(g.ids, foe.board...)
	case EnemyMinions:
		g.ids = append(g.ids, foe.board...)
	case FriendlyMinions:
		g.ids = append(g.ids, me.board...)
	case OtherFriendlyMinions:
		for _, id := range me.board {
			if id != src.id {
				g.ids = append(g.ids, id)
			}
		}
	case AllCharacters:
		g.ids = append(g.ids, me.hero, foe.hero)
		g.ids = append(g.ids, me.board...)
		g.ids = append(g.ids, foe.board...)
	case EnemyCharacters, RandomEnemyCharacter:
		g.ids = append(g.ids, foe.hero)
		g.ids = append(g.ids, foe.board...)
	}
	g.sortByOrder(start)
	if sel == RandomEnemyCharacter {
		g.pick(start)
	}
	return start
}

// pick leaves on the ids stack, from start, one candidate drawn at random
// among those not mortally wounded, or none (§5, §6.4): with n ≥ 1
// candidates it draws exactly one number, with none it draws nothing.
func (g *Game) pick(start int) {
	n := start
	for _, id := range g.ids[start:] {
		if !g.s.ents[id].mortal() {
			g.ids[n] = id
			n++
		}
	}
	g.ids = g.ids[:n]
	if n == start {
		return
	}
	i := session.Intn(&g.s.rng, n-start)
	g.ids[start] = g.ids[start+i]
	g.ids = g.ids[:start+1]
}

// damageEvent deals amount to every character on the ids stack from start
// as one simultaneous event (§6.3): first all the damage, then each
// target's damage triggers, targets by order of play.
func (g *Game) damageEvent(start int, amount int32) {
	end := len(g.ids)
	for i := start; i < end; i++ {
		id := g.ids[i]
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
	for i := start; i < end; i++ {
		id := g.ids[i]
		e := &g.s.ents[id]
		if e.def == nil {
			continue
		}
		q := len(g.queue)
		if ab := e.def.Ability; ab != nil && ab.When == SelfDamaged {
			g.queue = append(g.queue, queued{src: id, owner: e.owner, ab: ab, key: e.order})
		}
		g.queueBoard(e.owner, FriendlyMinionDamaged, NoID)
		g.resolve(q)
	}
}

// splitDamage deals amount hits of 1, each to a random candidate among
// the selection that is not mortally wounded; the hits left are dropped
// when there is none (§6.4).
func (g *Game) splitDamage(among Selector, src source, amount int32) {
	for range amount {
		start := g.selectChars(among, src)
		g.pick(start)
		if len(g.ids) == start {
			return
		}
		g.damageEvent(start, 1)
		g.ids = g.ids[:start]
	}
}

// summonEffect summons count copies of card for the source's owner, one by
// one at the right end, each with its After Summon step inline; on a full
// board a copy does nothing (§2, §6.6).
func (g *Game) summonEffect(src source, card string, count int32) {
	d := g.s.reg.lookup(card)
	if d == nil || d.Type != Minion {
		return
	}
	for range count {
		if len(g.s.sides[src.owner].board) >= MaxBoard {
			return
		}
		id := g.newEntity(d, src.owner)
		g.s.ents[id].origin = src.id
		g.enterBoard(id)
		g.afterSummon(id, src.owner)
	}
}
