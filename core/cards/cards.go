// Package cards is the card engine of seed 003, Part I, as
// shared/specs/card-engine.md §1–§8 specifies it: a two-player, turn-free
// rules core that test code or a room drives through the harness calls of
// §4 (Summon, Play, Cast, DealDamage, Destroy, …). Each action runs as one
// Sequence of Phases; after every outermost Phase the engine updates auras
// and processes deaths in fixed steps (§6.2); everything that happens is
// appended to a log of Events (§7).
//
// The engine is pure and deterministic: its one source of randomness is
// the stream it is given (Options.Stream: a match's secret stream in the
// room game) or, for the harness of §4–§5, mulberry32 seeded with
// Options.Seed; it reads no clock and does no I/O. A call that fails returns an error and leaves the game exactly as
// it was, log included.
//
// The methods that SpellGrid (§9) builds on beyond the harness are
// DestroyAll (one Sequence that destroys several minions), SetRuleAuras
// and RefreshAuras (rule auras in the multiplier snapshot),
// TakeTextRequests and SummonedBy (what a Sequence asked to write on the
// grid, and where a summoned minion comes from), and WithNaiveAuraTiming.
package cards

import (
	"fmt"

	"github.com/roomd/roomd/core/session"
)

// ID names an entity: a hero or a card instance (§2). Ids start at 1 and
// are never reused; 0 is no entity (NoID).
type ID uint32

// NoID is no entity: Cast's target when the spell has none.
const NoID ID = 0

// Player is 0 or 1.
type Player uint8

// Limits (§2).
const (
	MaxBoard   = 7  // minions per board
	MaxHand    = 10 // cards per hand
	HeroHealth = 30 // a hero's base Health
)

// Zone is where a card is (§2). A hero is on the board.
type Zone uint8

// Zones.
const (
	ZoneDeck Zone = iota + 1
	ZoneHand
	ZoneBoard
	ZoneGraveyard
)

func (z Zone) String() string {
	switch z {
	case ZoneDeck:
		return "deck"
	case ZoneHand:
		return "hand"
	case ZoneBoard:
		return "board"
	case ZoneGraveyard:
		return "graveyard"
	}
	return fmt.Sprintf("Zone(%d)", uint8(z))
}

// MarshalText writes the zone's name: "deck", "hand", "board" or
// "graveyard".
func (z Zone) MarshalText() ([]byte, error) { return []byte(z.String()), nil }

// Options configure NewGame. The zero value is a game with empty decks,
// seed 0 and the built-in cards.
type Options struct {
	// Decks are the players' decks by player, top card first: Decks[p][0]
	// is drawn first. Tokens cannot go in a deck. Nil means an empty deck.
	Decks [2][]string
	// Stream is the generator of random picks (§5): a room game's is the
	// match's secret stream, so that no client can compute a pick. The
	// zero Stream means mulberry32 seeded with Seed, the harness's
	// integer seed.
	Stream session.Stream
	// Seed seeds the mulberry32 generator of random picks (§5) when Stream
	// is zero. Zero is seed 0.
	Seed uint32
	// MaxEvents bounds the events one Sequence may log: one that would log
	// more fails with ErrRunaway, changing nothing. Zero means
	// MaxSequenceEvents; more than that is MaxSequenceEvents too.
	MaxEvents int
	// Cards are definitions added to the built-in set (Library), each
	// replacing any of its name, validated with it (§3.6). Nil adds none.
	Cards []CardDef
}

// Chooser makes the choices of the assemble effect (§8): kind is "base",
// "donor" or "half", options are never empty, and the answer should be
// one of them (any other answer makes the effect do nothing).
type Chooser func(kind string, options []string) string

// Outcome is the verdict of §6.8, read at the end of every Sequence. The
// first verdict stands.
type Outcome struct {
	Over bool `json:"over"`
	// Draw: both heroes reached 0 Health or less at once.
	Draw bool `json:"draw"`
	// Winner is the winning player when Over and not Draw; 0 otherwise.
	Winner Player `json:"winner"`
}

// TextRequest is what a spawn_text effect asks (§3.3, §9): WORD written on
// the tile of Source, the minion whose effect it is (NoID for a spell's).
type TextRequest struct {
	Source ID     `json:"source"`
	Word   string `json:"word"`
}

// RuleAura is a multiplier that SpellGrid's rules give both players (§9):
// "T IS DOUBLE" is {T, 2, false}, "T IS NOT DOUBLE" a cap, {T, 0, true}.
type RuleAura struct {
	Trigger When
	Factor  int32
	Cap     bool
}

// entity is a hero (def nil) or a card instance.
type entity struct {
	def     *CardDef
	owner   Player
	zone    Zone
	pending bool   // pending destroy
	order   uint32 // order of play; 0 if never in play
	damage  int32
	atk, hp int32 // aura bonus of the last Aura Update (Health/Attack)
	origin  ID    // the minion whose effect summoned this one, or NoID
}

// side is one player's hero and zones, each ordered left to right (a
// deck's top first).
type side struct {
	hero                     ID
	armor                    int32
	deck, hand, board, grave []ID
}

// multiplier is an entry of the multiplier snapshot (§6.5).
type multiplier struct {
	trigger When
	factor  int32
	owner   Player
	both    bool // scope "both"
	max     bool // stacking "max"
	cap     bool
}

// state is everything a call may change but the log. The registry and the
// rule auras are replaced, never changed in place, so copies share them.
type state struct {
	reg      *registry
	ents     []entity // by id; ents[0] is unused
	sides    [2]side
	order    uint32 // the last order of play given
	rng      session.Stream
	mult     []multiplier // the multiplier snapshot
	rules    []RuleAura
	naive    bool
	outcome  Outcome
	requests []TextRequest
}

// copyState makes dst a copy of src, reusing dst's slices.
func copyState(dst, src *state) {
	dst.reg = src.reg
	dst.ents = append(dst.ents[:0], src.ents...)
	for p := range src.sides {
		d, s := &dst.sides[p], &src.sides[p]
		d.hero, d.armor = s.hero, s.armor
		d.deck = append(d.deck[:0], s.deck...)
		d.hand = append(d.hand[:0], s.hand...)
		d.board = append(d.board[:0], s.board...)
		d.grave = append(d.grave[:0], s.grave...)
	}
	dst.order = src.order
	dst.rng = src.rng
	dst.mult = append(dst.mult[:0], src.mult...)
	dst.rules = src.rules
	dst.naive = src.naive
	dst.outcome = src.outcome
	dst.requests = append(dst.requests[:0], src.requests...)
}

// queued is an entry of a Queue (§6.1): an ability of src, ordered by key.
type queued struct {
	src   ID
	owner Player
	ab    *Ability
	key   uint32
}

// Game is one game of the card engine. It is not safe for concurrent use.
type Game struct {
	s         state
	log       []Event
	chooser   Chooser
	maxEvents int

	// The running call's scratch: the state to restore if it fails, the
	// stacks of selections and of Queues (each nested use pushes above the
	// last and pops back), the Death Phase round, the events logged and
	// the depth of activations.
	bak    state
	ids    []ID
	queue  []queued
	round  uint32
	events int
	depth  int // activations in progress, one inside another
}

// NewGame starts a game (§4 newGame): heroes 1 and 2 with order of play 1
// and 2, then the decks' cards, player 0's first, each list top first.
func NewGame(opts Options) (*Game, error) {
	reg := builtin
	if len(opts.Cards) > 0 {
		var err error
		if reg, err = builtin.with(opts.Cards); err != nil {
			return nil, fmt.Errorf("newGame: %w", err)
		}
	}
	n := 3 + len(opts.Decks[0]) + len(opts.Decks[1])
	rng := opts.Stream
	if rng.Generator() == 0 {
		rng = session.IntSeed(int64(opts.Seed)).Stream()
	}
	g := &Game{s: state{reg: reg, ents: make([]entity, 3, n), rng: rng}, maxEvents: MaxSequenceEvents}
	if opts.MaxEvents > 0 && opts.MaxEvents < MaxSequenceEvents {
		g.maxEvents = opts.MaxEvents
	}
	for p := range Player(2) {
		g.s.ents[p+1] = entity{owner: p, zone: ZoneBoard, order: uint32(p) + 1}
		g.s.sides[p].hero = ID(p) + 1
	}
	g.s.order = 2
	for p := range Player(2) {
		for i, name := range opts.Decks[p] {
			d, err := g.deckable(name)
			if err != nil {
				return nil, fmt.Errorf("newGame: decks[%d][%d] %q: %w", p, i, name, err)
			}
			id := g.newEntity(d, p)
			g.place(id, ZoneDeck)
		}
	}
	return g, nil
}

// deckable returns the definition of a card that may go in a deck.
func (g *Game) deckable(name string) (*CardDef, error) {
	d := g.s.reg.lookup(name)
	switch {
	case d == nil:
		return nil, ErrUnknownCard
	case d.Token:
		return nil, ErrToken
	}
	return d, nil
}

// Clone returns an independent copy of the game, log, chooser and all.
func (g *Game) Clone() *Game {
	c := &Game{log: append([]Event(nil), g.log...), chooser: g.chooser, maxEvents: g.maxEvents}
	copyState(&c.s, &g.s)
	return c
}

// newEntity creates an instance of d for owner, in no zone yet.
func (g *Game) newEntity(d *CardDef, owner Player) ID {
	id := ID(len(g.s.ents))
	g.s.ents = append(g.s.ents, entity{def: d, owner: owner})
	return id
}

// place puts a card in its owner's deck (at the bottom), hand (at the
// right, or the graveyard when the hand is full) or graveyard.
func (g *Game) place(id ID, z Zone) {
	e := &g.s.ents[id]
	sd := &g.s.sides[e.owner]
	if z == ZoneHand && len(sd.hand) >= MaxHand {
		z = ZoneGraveyard
	}
	e.zone = z
	switch z {
	case ZoneDeck:
		sd.deck = append(sd.deck, id)
	case ZoneHand:
		sd.hand = append(sd.hand, id)
	case ZoneGraveyard:
		sd.grave = append(sd.grave, id)
	}
}

// ent returns the entity id, or nil if there is none. An id without a
// zone names no entity: ents[0], and an entity being made.
func (g *Game) ent(id ID) *entity {
	if int(id) >= len(g.s.ents) || g.s.ents[id].zone == 0 {
		return nil
	}
	return &g.s.ents[id]
}

// inPlay reports whether id is a hero or a minion on a board.
func (g *Game) inPlay(id ID) bool {
	e := g.ent(id)
	return e != nil && e.zone == ZoneBoard
}

// onBoard reports whether id is a minion on a board.
func (g *Game) onBoard(id ID) bool {
	e := g.ent(id)
	return e != nil && e.def != nil && e.zone == ZoneBoard
}

func (e *entity) attack() int32 {
	if e.def == nil {
		return 0
	}
	return addSat(e.def.Attack, e.atk)
}

func (e *entity) health() int32 {
	if e.def == nil {
		return addSat(HeroHealth, -e.damage)
	}
	return addSat(addSat(e.def.Health, e.hp), -e.damage)
}

// mortal reports whether the entity is mortally wounded (§2).
func (e *entity) mortal() bool { return e.health() <= 0 }

// addSat adds in 32 bits, saturating instead of wrapping.
func addSat(a, b int32) int32 {
	s := int64(a) + int64(b)
	switch {
	case s > 1<<31-1:
		return 1<<31 - 1
	case s < -1<<31:
		return -1 << 31
	}
	return int32(s)
}

func checkPlayer(p Player) error {
	if p > 1 {
		return fmt.Errorf("player %d: %w", p, ErrNoSuchPlayer)
	}
	return nil
}

// SwapHidden exchanges the cards of a and b, two instances of one player
// in a hidden zone (its deck or hand) that have never been in play: each
// keeps its id, owner and zone, and takes the other's definition. It is
// what a game's Resample redraws hidden cards with (session.Hider); the
// log is untouched.
func (g *Game) SwapHidden(a, b ID) error {
	for _, id := range [2]ID{a, b} {
		switch {
		case id == NoID || int(id) >= len(g.s.ents):
			return fmt.Errorf("swapHidden: %w: %d", ErrUnknownID, id)
		case id <= 2:
			return fmt.Errorf("swapHidden: %w: %d", ErrHero, id)
		}
		e := &g.s.ents[id]
		if (e.zone != ZoneDeck && e.zone != ZoneHand) || e.order != 0 || e.damage != 0 {
			return fmt.Errorf("swapHidden: card %d is not hidden and untouched", id)
		}
	}
	ea, eb := &g.s.ents[a], &g.s.ents[b]
	if ea.owner != eb.owner {
		return fmt.Errorf("swapHidden: cards %d and %d belong to different players", a, b)
	}
	ea.def, eb.def = eb.def, ea.def
	return nil
}

// Reseed replaces the generator of random picks.
func (g *Game) Reseed(rng session.Stream) { g.s.rng = rng }
