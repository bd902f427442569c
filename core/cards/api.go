package cards

import "fmt"

// The harness calls of §4, in its order. Each checks everything before it
// changes anything: an error leaves the game as it was and logs nothing.

// Summon summons card for p at the right end of p's board as one Sequence
// (§6.6): On Summon, then After Summon. It returns the new minion's id.
func (g *Game) Summon(card string, p Player) (ID, error) {
	d, err := g.minionDef(card, p)
	if err == nil && len(g.s.sides[p].board) >= MaxBoard {
		err = ErrBoardFull
	}
	if err != nil {
		return NoID, fmt.Errorf("summon(%q, %d): %w", card, p, err)
	}
	var id ID
	err = g.sequence(func() {
		id = g.newEntity(d, p)
		g.enterBoard(id)
		g.endPhase()
		if g.onBoard(id) {
			g.afterSummon(id, p)
			g.endPhase()
		}
	})
	if err != nil {
		return NoID, fmt.Errorf("summon(%q, %d): %w", card, p, err)
	}
	return id, nil
}

func (g *Game) minionDef(card string, p Player) (*CardDef, error) {
	if err := checkPlayer(p); err != nil {
		return nil, err
	}
	d := g.s.reg.lookup(card)
	switch {
	case d == nil:
		return nil, ErrUnknownCard
	case d.Type != Minion:
		return nil, fmt.Errorf("%w: %q is a spell", ErrNotAMinion, card)
	}
	return d, nil
}

// AddToHand puts a new card in p's hand, at the right; into a full hand it
// goes to the graveyard instead. No Sequence, no event.
func (g *Game) AddToHand(card string, p Player) (ID, error) {
	d := g.s.reg.lookup(card)
	err := checkPlayer(p)
	if err == nil && d == nil {
		err = ErrUnknownCard
	}
	if err != nil {
		return NoID, fmt.Errorf("addToHand(%q, %d): %w", card, p, err)
	}
	id := g.newEntity(d, p)
	g.place(id, ZoneHand)
	return id, nil
}

// AddToDeck puts a new card at the bottom of p's deck. No Sequence, no
// event. A token cannot go in a deck.
func (g *Game) AddToDeck(card string, p Player) (ID, error) {
	err := checkPlayer(p)
	var d *CardDef
	if err == nil {
		d, err = g.deckable(card)
	}
	if err != nil {
		return NoID, fmt.Errorf("addToDeck(%q, %d): %w", card, p, err)
	}
	id := g.newEntity(d, p)
	g.place(id, ZoneDeck)
	return id, nil
}

// Play plays a minion from its owner's hand as one Sequence (§6.6): Play
// (it enters the right end of the board, same id), Battlecry, After
// Summon. A spell is cast, not played.
func (g *Game) Play(handID ID) error {
	e := g.ent(handID)
	var err error
	switch {
	case e == nil:
		err = ErrUnknownID
	case e.zone != ZoneHand:
		err = fmt.Errorf("%w (it is in the %s)", ErrNotInHand, e.zone)
	case e.def.Type != Minion:
		err = fmt.Errorf("%w: %q is a spell, cast it", ErrNotAMinion, e.def.Name)
	case len(g.s.sides[e.owner].board) >= MaxBoard:
		err = ErrBoardFull
	}
	if err != nil {
		return fmt.Errorf("play(%d): %w", handID, err)
	}
	p, d := e.owner, e.def
	err = g.sequence(func() {
		sd := &g.s.sides[p]
		sd.hand = removeID(sd.hand, handID)
		g.enterBoard(handID)
		g.endPhase()
		if ab := d.Ability; ab != nil && ab.When == Battlecry && g.onBoard(handID) {
			g.activate(handID, p, ab, g.factor(p, Battlecry))
			g.endPhase()
		}
		if g.onBoard(handID) {
			g.afterSummon(handID, p)
			g.endPhase()
		}
	})
	if err != nil {
		return fmt.Errorf("play(%d): %w", handID, err)
	}
	return nil
}

// ZoneOf returns the zone of id; a hero's is ZoneBoard.
func (g *Game) ZoneOf(id ID) (Zone, error) {
	e := g.ent(id)
	if e == nil {
		return 0, fmt.Errorf("zoneOf(%d): %w", id, ErrUnknownID)
	}
	return e.zone, nil
}

// Board returns p's minions, left to right (heroes are not listed).
func (g *Game) Board(p Player) ([]ID, error) {
	return g.list("board", p, func(s *side) []ID { return s.board })
}

// Hand returns p's hand, left to right.
func (g *Game) Hand(p Player) ([]ID, error) {
	return g.list("hand", p, func(s *side) []ID { return s.hand })
}

// Deck returns p's deck, top first.
func (g *Game) Deck(p Player) ([]ID, error) {
	return g.list("deck", p, func(s *side) []ID { return s.deck })
}

// Graveyard returns p's graveyard, in the order the cards arrived.
func (g *Game) Graveyard(p Player) ([]ID, error) {
	return g.list("graveyard", p, func(s *side) []ID { return s.grave })
}

func (g *Game) list(call string, p Player, of func(*side) []ID) ([]ID, error) {
	if err := checkPlayer(p); err != nil {
		return nil, fmt.Errorf("%s(%d): %w", call, p, err)
	}
	return append([]ID{}, of(&g.s.sides[p])...), nil
}

// OrderOfPlay returns id's order of play (§2): 1 and 2 for the heroes, the
// value taken when it entered the board, or 0 if it never was in play.
func (g *Game) OrderOfPlay(id ID) (uint32, error) {
	e := g.ent(id)
	if e == nil {
		return 0, fmt.Errorf("orderOfPlay(%d): %w", id, ErrUnknownID)
	}
	return e.order, nil
}

// HeroName is NameOf a hero.
const HeroName = "Hero"

// NameOf returns the card name of id, or HeroName for a hero.
func (g *Game) NameOf(id ID) (string, error) {
	e := g.ent(id)
	switch {
	case e == nil:
		return "", fmt.Errorf("nameOf(%d): %w", id, ErrUnknownID)
	case e.def == nil:
		return HeroName, nil
	}
	return e.def.Name, nil
}

// Hero returns the id of p's hero.
func (g *Game) Hero(p Player) (ID, error) {
	if err := checkPlayer(p); err != nil {
		return NoID, fmt.Errorf("hero(%d): %w", p, err)
	}
	return g.s.sides[p].hero, nil
}

// DealDamage deals amount to target as one Sequence of one Phase: a
// damage event (§6.3). An amount ≤ 0 does nothing; the target must be in
// play all the same.
func (g *Game) DealDamage(target ID, amount int32) error {
	if err := g.checkInPlay(target); err != nil {
		return fmt.Errorf("dealDamage(%d, %d): %w", target, amount, err)
	}
	if amount <= 0 {
		return nil
	}
	err := g.sequence(func() {
		start := len(g.ids)
		g.ids = append(g.ids, target)
		g.damageEvent(start, amount)
		g.ids = g.ids[:start]
		g.endPhase()
	})
	if err != nil {
		return fmt.Errorf("dealDamage(%d, %d): %w", target, amount, err)
	}
	return nil
}

func (g *Game) checkInPlay(id ID) error {
	e := g.ent(id)
	switch {
	case e == nil:
		return ErrUnknownID
	case e.zone != ZoneBoard:
		return fmt.Errorf("%w (it is in the %s)", ErrNotInPlay, e.zone)
	}
	return nil
}

// Cast casts spell card for p as one Sequence (§6.6): Spell Text
// (SpellCast, then the effects), then After Spell. The card need not be
// in a hand: a cast spell is not an entity. target is the chosen target,
// required by a spell with a "target" and refused by any other (NoID for
// none).
func (g *Game) Cast(card string, p Player, target ID) error {
	d := g.s.reg.lookup(card)
	err := checkPlayer(p)
	switch {
	case err != nil:
	case d == nil:
		err = ErrUnknownCard
	case d.Type != Spell:
		err = fmt.Errorf("%w: %q is a minion", ErrNotASpell, card)
	case d.Target == NoTargetKind && target != NoID:
		err = fmt.Errorf("%w: %q takes no target", ErrTarget, card)
	case d.Target != NoTargetKind && target == NoID:
		err = fmt.Errorf("%w: %q needs a target (a %s)", ErrTarget, card, d.Target)
	case d.Target != NoTargetKind:
		if err = g.checkInPlay(target); err == nil && d.Target == TargetMinion && g.ent(target).def == nil {
			err = fmt.Errorf("%w: %q targets a minion, not a hero", ErrTarget, card)
		}
	}
	if err != nil {
		return fmt.Errorf("cast(%q, %d, %d): %w", card, p, target, err)
	}
	err = g.sequence(func() { g.castPhases(d, p, target) })
	if err != nil {
		return fmt.Errorf("cast(%q, %d, %d): %w", card, p, target, err)
	}
	return nil
}

// castPhases runs the Phases of the cast Sequence (§6.6): Spell Text,
// then After Spell.
func (g *Game) castPhases(d *CardDef, p Player, target ID) {
	g.emit(SpellCast(d.Name))
	g.runEffects(source{owner: p, target: target}, d.Effects)
	g.endPhase()
	start := len(g.queue)
	g.queueBoard(p, AfterOwnerSpell, NoID)
	g.resolve(start)
	g.endPhase()
}

// Health returns id's current Health (§2): base plus aura bonus minus
// damage; a hero's base is 30. It may be 0 or less.
func (g *Game) Health(id ID) (int32, error) {
	e, err := g.character("health", id)
	if err != nil {
		return 0, err
	}
	return e.health(), nil
}

// Attack returns id's current attack (§2): base plus aura bonus; a hero's
// is 0.
func (g *Game) Attack(id ID) (int32, error) {
	e, err := g.character("attack", id)
	if err != nil {
		return 0, err
	}
	return e.attack(), nil
}

// character returns the hero or minion card id.
func (g *Game) character(call string, id ID) (*entity, error) {
	e := g.ent(id)
	switch {
	case e == nil:
		return nil, fmt.Errorf("%s(%d): %w", call, id, ErrUnknownID)
	case e.def != nil && e.def.Type == Spell:
		return nil, fmt.Errorf("%s(%d): %w (%q)", call, id, ErrNoStats, e.def.Name)
	}
	return e, nil
}

// Armor returns p's hero's Armor.
func (g *Game) Armor(p Player) (int32, error) {
	if err := checkPlayer(p); err != nil {
		return 0, fmt.Errorf("armor(%d): %w", p, err)
	}
	return g.s.sides[p].armor, nil
}

// Log returns every event since NewGame or the last ClearLog, in order.
func (g *Game) Log() []Event { return append([]Event{}, g.log...) }

// ClearLog empties the log.
func (g *Game) ClearLog() {
	clear(g.log)
	g.log = g.log[:0]
}

// Destroy marks a minion in play pending destroy as one Sequence; its
// Death Creation Step removes it (§6.6).
func (g *Game) Destroy(target ID) error {
	return g.destroy(fmt.Sprintf("destroy(%d)", target), []ID{target})
}

// DestroyAll marks every minion of targets pending destroy in one
// Sequence of one Phase (§9 seam 2). Every target must be a minion in
// play; no target does nothing.
func (g *Game) DestroyAll(targets []ID) error {
	return g.destroy(fmt.Sprintf("destroyAll(%v)", targets), targets)
}

func (g *Game) destroy(call string, targets []ID) error {
	for _, id := range targets {
		err := g.checkInPlay(id)
		if err == nil && g.ent(id).def == nil {
			err = fmt.Errorf("%w: a hero", ErrNotAMinion)
		}
		if err != nil {
			return fmt.Errorf("%s: %d: %w", call, id, err)
		}
	}
	if len(targets) == 0 {
		return nil
	}
	err := g.sequence(func() {
		for _, id := range targets {
			g.s.ents[id].pending = true
		}
		g.endPhase()
	})
	if err != nil {
		return fmt.Errorf("%s: %w", call, err)
	}
	return nil
}

// RegisterCards adds definitions, each replacing any of its name (§3).
// The whole set is validated (§3.6); an error refuses the whole batch.
// Cards already in the game keep the definition they were made from.
func (g *Game) RegisterCards(defs []CardDef) error {
	reg, err := g.s.reg.with(defs)
	if err != nil {
		return fmt.Errorf("registerCards: %w", err)
	}
	g.s.reg = reg
	return nil
}

// Cost returns the cost of card id. A hero is not a card.
func (g *Game) Cost(id ID) (int32, error) {
	e := g.ent(id)
	switch {
	case e == nil:
		return 0, fmt.Errorf("cost(%d): %w", id, ErrUnknownID)
	case e.def == nil:
		return 0, fmt.Errorf("cost(%d): %w", id, ErrHero)
	}
	return e.def.Cost, nil
}

// SetChooser installs the chooser of the assemble effect (§8); nil
// restores the default, which answers options[0].
func (g *Game) SetChooser(f Chooser) { g.chooser = f }

// Outcome returns the verdict of §6.8.
func (g *Game) Outcome() Outcome { return g.s.outcome }

// Card returns the registered definition of name.
func (g *Game) Card(name string) (CardDef, bool) {
	d := g.s.reg.lookup(name)
	if d == nil {
		return CardDef{}, false
	}
	return d.clone(), true
}

// Cards returns the names of every registered definition, sorted.
func (g *Game) Cards() []string { return g.s.reg.names(func(*CardDef) bool { return true }) }

// TakeTextRequests returns the spawn_text requests made since the last
// call, in request order, and forgets them (§9 seam 3).
func (g *Game) TakeTextRequests() []TextRequest {
	r := append([]TextRequest{}, g.s.requests...)
	g.s.requests = g.s.requests[:0]
	return r
}

// SummonedBy returns the minion whose effect summoned id, or NoID when an
// action or a spell did (§9: a summoned minion appears on that minion's
// tile).
func (g *Game) SummonedBy(id ID) (ID, error) {
	e := g.ent(id)
	if e == nil {
		return NoID, fmt.Errorf("summonedBy(%d): %w", id, ErrUnknownID)
	}
	return e.origin, nil
}
