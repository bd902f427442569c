package spellgrid

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/roomd/roomd/core/baba"
	"github.com/roomd/roomd/core/cards"
)

// ID is an id of SpellGrid's one id space (§9): a grid object's, which is
// also its minion's when it has one, a hero's or a card's in hand. Ids
// are issued by the Baba, so no two entities share one.
type ID = baba.ID

// SpellGrid is a Baba and a Game sharing one id space (§9).
type SpellGrid struct {
	b *baba.Baba
	g *cards.Game

	// pub maps a Game id to its id here; gid the reverse. A card played
	// from the hand is bound again to its grid object's id; names keeps
	// the names of the hand ids so left behind.
	pub map[cards.ID]ID
	gid map[ID]cards.ID

	heroes [2]ID
	names  map[ID]string
	log    []cards.Event

	err error // the first error of a seam inside a turn
}

// New builds a SpellGrid (§9 construction): the level's objects get ids
// 1…n; each entry of level.Cards becomes, in order, a grid object of its
// card's noun and, with the same id, a minion on player 0's board (order
// of play after the heroes, no Sequence, no event); then the heroes'
// ids; then the hand's. defs are definitions added to the built-in
// cards. Finally the rules are read into rule auras and both Aura Updates
// run once.
func New(level baba.LevelDef, defs []cards.CardDef) (*SpellGrid, error) {
	g, err := cards.NewGame(cards.Options{Cards: defs})
	if err != nil {
		return nil, fmt.Errorf("newSpellGrid: %w", err)
	}
	var nouns []string
	for _, name := range g.Cards() {
		if d, _ := g.Card(name); d.Type == cards.Minion && d.Noun != "" {
			nouns = append(nouns, d.Noun)
		}
	}
	grid := level
	grid.Cards, grid.Hand = nil, nil
	b, err := baba.NewWithNouns(grid, nouns)
	if err != nil {
		return nil, fmt.Errorf("newSpellGrid: %w", err)
	}
	s := &SpellGrid{b: b, g: g, pub: map[cards.ID]ID{}, gid: map[ID]cards.ID{}, names: map[ID]string{}}
	for i, c := range level.Cards {
		d, ok := g.Card(c.Card)
		switch {
		case !ok:
			err = cards.ErrUnknownCard
		case d.Type != cards.Minion:
			err = ErrNotAMinion
		case d.Noun == "":
			err = fmt.Errorf("%w: the card has no noun", ErrLevel)
		}
		if err != nil {
			return nil, fmt.Errorf("newSpellGrid: cards[%d] %q: %w", i, c.Card, err)
		}
		id, err := b.Place(strings.ToLower(d.Noun), c.X, c.Y)
		if err != nil {
			return nil, fmt.Errorf("newSpellGrid: cards[%d] %q: %w", i, c.Card, err)
		}
		gid, err := g.PutInPlay(c.Card, 0)
		if err != nil {
			return nil, fmt.Errorf("newSpellGrid: cards[%d] %q: %w", i, c.Card, err)
		}
		s.bind(gid, id)
	}
	for p := range cards.Player(2) {
		hero, _ := g.Hero(p)
		id, err := b.Reserve()
		if err != nil {
			return nil, fmt.Errorf("newSpellGrid: %w", err)
		}
		s.heroes[p] = id
		s.bind(hero, id)
	}
	if len(level.Hand) > cards.MaxHand {
		return nil, fmt.Errorf("newSpellGrid: %w: hand of %d cards (at most %d)", ErrLevel, len(level.Hand), cards.MaxHand)
	}
	for i, name := range level.Hand {
		if _, ok := g.Card(name); !ok {
			return nil, fmt.Errorf("newSpellGrid: hand[%d] %q: %w", i, name, cards.ErrUnknownCard)
		}
		id, err := b.Reserve()
		if err != nil {
			return nil, fmt.Errorf("newSpellGrid: %w", err)
		}
		gid, err := g.AddToHand(name, 0)
		if err != nil {
			return nil, fmt.Errorf("newSpellGrid: hand[%d] %q: %w", i, name, err)
		}
		s.bind(gid, id)
	}
	if err := s.syncAuras(); err != nil {
		return nil, fmt.Errorf("newSpellGrid: %w", err)
	}
	if err := g.RefreshAuras(); err != nil {
		return nil, fmt.Errorf("newSpellGrid: %w", err)
	}
	s.takeLog()
	return s, nil
}

// Clone returns an independent copy of the SpellGrid.
func (s *SpellGrid) Clone() *SpellGrid {
	return &SpellGrid{
		b:      s.b.Clone(),
		g:      s.g.Clone(),
		pub:    maps.Clone(s.pub),
		gid:    maps.Clone(s.gid),
		heroes: s.heroes,
		names:  maps.Clone(s.names),
		log:    slices.Clone(s.log),
	}
}

// atomically runs f on a copy and keeps the copy only if f succeeds.
func (s *SpellGrid) atomically(f func(c *SpellGrid) error) error {
	c := s.Clone()
	if err := f(c); err != nil {
		return err
	}
	if c.err != nil {
		return c.err
	}
	*s = *c
	return nil
}

func (s *SpellGrid) bind(g cards.ID, id ID) {
	s.pub[g] = id
	s.gid[id] = g
}

// minion returns the Game id of the live minion id (on a board).
func (s *SpellGrid) minion(id ID) (cards.ID, bool) {
	g, ok := s.gid[id]
	if !ok || g == s.gidHero(0) || g == s.gidHero(1) {
		return cards.NoID, false
	}
	z, err := s.g.ZoneOf(g)
	return g, err == nil && z == cards.ZoneBoard
}

func (s *SpellGrid) gidHero(p cards.Player) cards.ID { return s.gid[s.heroes[p]] }

// ruleAuras returns the rule auras of the active rules (§9 seam 1):
// "T IS DOUBLE" a multiplier of factor 2 for both players, "T IS NOT
// DOUBLE" a cap, T being DEATHRATTLE or BATTLECRY.
func ruleAuras(active []string) []cards.RuleAura {
	var out []cards.RuleAura
	for _, r := range active {
		for _, t := range [...]cards.When{cards.Deathrattle, cards.Battlecry} {
			subject := strings.ToUpper(string(t))
			switch r {
			case subject + " IS DOUBLE":
				out = append(out, cards.RuleAura{Trigger: t, Factor: 2})
			case subject + " IS NOT DOUBLE":
				out = append(out, cards.RuleAura{Trigger: t, Cap: true})
			}
		}
	}
	return out
}

// syncAuras refreshes the Game's rule auras from the rules last read.
func (s *SpellGrid) syncAuras() error {
	return s.g.SetRuleAuras(ruleAuras(s.b.ActiveRules()))
}

// takeLog moves the Game's new events into the log, in ids of this
// space.
func (s *SpellGrid) takeLog() {
	for _, e := range s.g.Log() {
		e.ID, e.Target, e.Source = s.pubOf(e.ID), s.pubOf(e.Target), s.pubOf(e.Source)
		s.log = append(s.log, e)
	}
	s.g.ClearLog()
}

func (s *SpellGrid) pubOf(g cards.ID) cards.ID {
	if g == cards.NoID {
		return g
	}
	if id, ok := s.pub[g]; ok {
		return cards.ID(id)
	}
	return g
}
