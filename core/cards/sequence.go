package cards

// Resolution (§6.1, §6.2): Sequences, Phases, Queues, the end of an
// outermost Phase and the Death Phases.

// A Sequence that logs more than Options.MaxEvents events (by default
// MaxSequenceEvents), or nests more than maxDepth activations inside one
// another, fails with ErrRunaway.
const (
	MaxSequenceEvents = 1 << 16
	maxDepth          = 256
)

// runaway is the panic that unwinds a Sequence over its bound.
type runaway struct{}

// sequence runs one Sequence (§6.1), then reads the heroes (§6.8). If it
// fails (ErrRunaway, or a panic of the chooser, passed on), the game is
// restored as it was before.
func (g *Game) sequence(run func()) (err error) {
	copyState(&g.bak, &g.s)
	logged := len(g.log)
	g.round, g.events, g.depth = 0, 0, 0
	defer func() {
		if v := recover(); v != nil {
			copyState(&g.s, &g.bak)
			clear(g.log[logged:])
			g.log = g.log[:logged]
			g.ids, g.queue = g.ids[:0], g.queue[:0]
			if _, ok := v.(runaway); !ok {
				panic(v)
			}
			err = ErrRunaway
		}
	}()
	run()
	g.judge()
	return nil
}

// emit logs an event of the running Sequence.
func (g *Game) emit(e Event) {
	g.events++
	if g.events > g.maxEvents {
		panic(runaway{})
	}
	g.log = append(g.log, e)
}

// judge reads the heroes at the end of a Sequence (§6.8); the first
// verdict stands.
func (g *Game) judge() {
	if g.s.outcome.Over {
		return
	}
	dead0 := g.s.ents[g.s.sides[0].hero].health() <= 0
	dead1 := g.s.ents[g.s.sides[1].hero].health() <= 0
	switch {
	case dead0 && dead1:
		g.s.outcome = Outcome{Over: true, Draw: true}
	case dead0:
		g.s.outcome = Outcome{Over: true, Winner: 1}
	case dead1:
		g.s.outcome = Outcome{Over: true, Winner: 0}
	}
}

// endPhase runs the steps that end an outermost Phase (§6.2): Aura Update
// (Health/Attack), Death Creation Step, Aura Update (Other), and, while
// minions died, a Death Phase and the same steps again. With the naive
// timing, Aura Update (Other) comes before the Death Creation Step.
func (g *Game) endPhase() {
	for {
		g.updateStats()
		if g.s.naive {
			g.updateOther()
		}
		start := g.deathCreation()
		if !g.s.naive {
			g.updateOther()
		}
		end := len(g.ids)
		if start == end {
			return
		}
		g.round++
		g.emit(DeathPhase(g.round))
		for i := start; i < end; i++ {
			g.deathOf(g.ids[i])
		}
		g.ids = g.ids[:start]
	}
}

// deathCreation removes every minion that is mortally wounded or pending
// destroy, in order of play, logging Destroyed for each. The removed ids
// are left on the ids stack from the returned index.
func (g *Game) deathCreation() int {
	start := g.minionsInOrder()
	keep := start
	for i := start; i < len(g.ids); i++ {
		if e := &g.s.ents[g.ids[i]]; e.pending || e.mortal() {
			g.ids[keep] = g.ids[i]
			keep++
		}
	}
	g.ids = g.ids[:keep]
	if keep == start {
		return start
	}
	for i := start; i < keep; i++ {
		id := g.ids[i]
		e := &g.s.ents[id]
		e.zone = ZoneGraveyard
		sd := &g.s.sides[e.owner]
		sd.grave = append(sd.grave, id)
	}
	for p := range g.s.sides {
		sd := &g.s.sides[p]
		board := sd.board[:0]
		for _, id := range sd.board {
			if g.s.ents[id].zone == ZoneBoard {
				board = append(board, id)
			}
		}
		clear(sd.board[len(board):])
		sd.board = board
	}
	for i := start; i < keep; i++ {
		g.emit(Destroyed(g.ids[i]))
	}
	return start
}

// deathOf resolves the Death of d in a Death Phase: d's Deathrattle and
// every after_friendly_death ability of its owner's minions in play, by
// order of play (d's own for its Deathrattle).
func (g *Game) deathOf(d ID) {
	e := &g.s.ents[d]
	start := len(g.queue)
	if ab := e.def.Ability; ab != nil && ab.When == Deathrattle {
		g.queue = append(g.queue, queued{src: d, owner: e.owner, ab: ab, key: e.order})
	}
	g.queueBoard(e.owner, AfterFriendlyDeath, NoID)
	g.resolve(start)
}

// queueBoard queues the abilities of trigger w of p's minions in play but
// except.
func (g *Game) queueBoard(p Player, w When, except ID) {
	for _, id := range g.s.sides[p].board {
		if id == except {
			continue
		}
		e := &g.s.ents[id]
		if ab := e.def.Ability; ab != nil && ab.When == w {
			g.queue = append(g.queue, queued{src: id, owner: p, ab: ab, key: e.order})
		}
	}
}

// resolve sorts the Queue that starts at start by order of play, resolves
// it entry by entry, each activating factor times in a row (§6.5), and
// pops it. Queues filled meanwhile sit above it and are popped first.
func (g *Game) resolve(start int) {
	end := len(g.queue)
	for i := start + 1; i < end; i++ {
		for j := i; j > start && g.queue[j].key < g.queue[j-1].key; j-- {
			g.queue[j], g.queue[j-1] = g.queue[j-1], g.queue[j]
		}
	}
	for i := start; i < end; i++ {
		q := g.queue[i]
		g.activate(q.src, q.owner, q.ab, g.factor(q.owner, q.ab.When))
	}
	g.queue = g.queue[:start]
}

// activate runs ability ab of src n times: each time a Triggered, then
// the effects.
func (g *Game) activate(src ID, owner Player, ab *Ability, n int) {
	word := ab.When.Word()
	g.depth++
	if g.depth > maxDepth {
		panic(runaway{})
	}
	for range n {
		g.emit(Triggered(src, word))
		g.runEffects(source{id: src, owner: owner}, ab.Effects)
	}
	g.depth--
}

// minionsInOrder pushes every minion on either board onto the ids stack,
// by order of play, and returns where they start.
func (g *Game) minionsInOrder() int {
	start := len(g.ids)
	g.ids = append(g.ids, g.s.sides[0].board...)
	g.ids = append(g.ids, g.s.sides[1].board...)
	g.sortByOrder(start)
	return start
}

// sortByOrder sorts the ids stack from start by order of play.
func (g *Game) sortByOrder(start int) {
	ids := g.ids
	for i := start + 1; i < len(ids); i++ {
		for j := i; j > start && g.s.ents[ids[j]].order < g.s.ents[ids[j-1]].order; j-- {
			ids[j], ids[j-1] = ids[j-1], ids[j]
		}
	}
}

// enterBoard puts id at the right end of its owner's board with the next
// order of play and logs Summoned.
func (g *Game) enterBoard(id ID) {
	e := &g.s.ents[id]
	e.zone = ZoneBoard
	g.s.order++
	e.order = g.s.order
	sd := &g.s.sides[e.owner]
	sd.board = append(sd.board, id)
	g.emit(Summoned(id))
}

// afterSummon resolves the After Summon step of id for p: every
// after_friendly_summon ability of p's other minions.
func (g *Game) afterSummon(id ID, p Player) {
	start := len(g.queue)
	g.queueBoard(p, AfterFriendlySummon, id)
	g.resolve(start)
}

// draw draws one card for p (§6.7).
func (g *Game) draw(p Player) {
	sd := &g.s.sides[p]
	if len(sd.deck) == 0 {
		g.emit(Fatigue(p))
		return
	}
	id := sd.deck[0]
	copy(sd.deck, sd.deck[1:])
	sd.deck = sd.deck[:len(sd.deck)-1]
	g.emit(Drew(p, id))
	g.place(id, ZoneHand)
}

// removeID removes id from list, keeping the order.
func removeID(list []ID, id ID) []ID {
	for i, x := range list {
		if x == id {
			copy(list[i:], list[i+1:])
			return list[:len(list)-1]
		}
	}
	return list
}
