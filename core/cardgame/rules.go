package cardgame

import (
	"fmt"
	"slices"

	"github.com/roomd/roomd/core/cards"
	"github.com/roomd/roomd/core/session"
)

// Seat is a seat of the match, or session.Spectator.
type Seat = session.Seat

// Rules limits (§10).
const (
	MaxMana   = 10
	MaxTurns  = 89
	FirstHand = 3 // cards the first seat draws before its first turn
	// SecondHand is what the second seat draws before the first turn.
	SecondHand = 4
)

// Refusals of the duel; the shared ones are session's.
const (
	CodeNotInHand     = "game:NotInHand"
	CodeNotEnoughMana = "game:NotEnoughMana"
	CodeBoardFull     = "game:BoardFull"
	CodeBadTarget     = "game:BadTarget"
	CodeBadAttacker   = "game:BadAttacker"
	CodeNotReady      = "game:NotReady"
	CodeBadDefender   = "game:BadDefender"
	CodeTaunt         = "game:Taunt"
	CodeNoAttack      = "game:NoAttack"
	// CodeEngine is a play or an attack the engine refused (a Sequence
	// that never ends, ErrRunaway); nothing changed.
	CodeEngine = "game:Engine"
)

// State is a match: the engine's game plus the turn layer of §10.
type State struct {
	g      *cards.Game
	first  Seat
	active Seat
	turn   int
	mana   [Seats]int32
	max    [Seats]int32
	// ready holds the active seat's minions that were in play at the start
	// of its turn and have not attacked since.
	ready    map[ID]bool
	phase    string
	winner   Seat // -1 for none
	conceded bool
	moves    int
}

// Rules is the card duel's rules. The zero value is the rules of
// RulesVersion; LegacyV1 runs with the derivation of cards/1.
type Rules struct {
	v1 bool // cards/1: the decks drawn from 32 bits of the secret (legacy.go)
}

var (
	_ session.Rules[Config, *State, Move, Event, View] = Rules{}
	_ session.Mover[*State, Move, Event]               = Rules{}
	_ session.AI[Move, View]                           = Rules{}
)

// Init shuffles both decks and picks the first seat from the match's
// stream (see the package doc), allocates the ids (heroes 1 and 2, then
// seat 0's deck top first, then seat 1's), deals 3 cards to the first seat
// and 4 to the second, and starts the first turn. The engine goes on with
// the same stream for every random pick of the match.
func (r Rules) Init(seed session.Seed, config Config, seats int) (*State, error) {
	if seats != Seats {
		return nil, fmt.Errorf("the card duel is for %d seats, not %d", Seats, seats)
	}
	if err := config.Validate(); err != nil {
		return nil, err
	}
	var (
		decks [Seats][]string
		first Seat
		rng   session.Stream
	)
	if r.v1 {
		decks, first, rng = dealV1(seed, config)
	} else {
		rng = seed.Stream()
		decks, first = deal(&rng, config)
	}
	g, err := cards.NewGame(cards.Options{Decks: decks, Stream: rng, MaxEvents: maxSequenceEvents})
	if err != nil {
		return nil, err
	}
	s := &State{g: g, first: first, active: first, phase: PhaseActive, winner: -1, ready: map[ID]bool{}}
	for range FirstHand {
		if err := g.Draw(cards.Player(first)); err != nil {
			return nil, err
		}
	}
	for range SecondHand {
		if err := g.Draw(cards.Player(1 - first)); err != nil {
			return nil, err
		}
	}
	if _, err := s.startTurn(first); err != nil {
		return nil, err
	}
	g.ClearLog()
	return s, nil
}

// startTurn starts seat's turn (§10 step 1): mana up by one to MaxMana and
// refilled, the minions in play made ready, one draw. It returns the turn's
// events.
func (s *State) startTurn(seat Seat) ([]Event, error) {
	if err := s.g.Draw(cards.Player(seat)); err != nil {
		return nil, err
	}
	s.active = seat
	s.turn++
	s.max[seat] = min(s.max[seat]+1, MaxMana)
	s.mana[seat] = s.max[seat]
	clear(s.ready)
	board, _ := s.g.Board(cards.Player(seat))
	for _, id := range board {
		s.ready[id] = true
	}
	// The draw ran first so that a failed one changes nothing; it is told
	// after the turn, as it happens.
	evs := []Event{{Type: EventTurn, Seat: seat, Turn: s.turn, Mana: s.mana[seat], MaxMana: s.max[seat], Winner: -1}}
	return s.drain(evs), nil
}

// drain converts the engine's log to events, appended to evs, and clears it.
func (s *State) drain(evs []Event) []Event {
	for _, e := range s.g.Log() {
		ev := fromEngine(e)
		ev.Winner = -1
		switch e.Type {
		case cards.EventSummoned:
			owner, _ := s.g.OwnerOf(e.ID)
			name, _ := s.g.NameOf(e.ID)
			d, _ := s.g.Card(name)
			order, _ := s.g.OrderOfPlay(e.ID)
			ev.Seat, ev.Card, ev.Attack, ev.Health, ev.Order, ev.Taunt = int(owner), name, d.Attack, d.Health, order, d.Taunt()
		case cards.EventDrew:
			name, _ := s.g.NameOf(e.ID)
			cost, _ := s.g.Cost(e.ID)
			zone, _ := s.g.ZoneOf(e.ID)
			ev.Card, ev.Cost, ev.Burned = name, cost, zone == cards.ZoneGraveyard
		}
		evs = append(evs, ev)
	}
	s.g.ClearLog()
	return evs
}

// judge ends the match if the engine says it is over (§6.8), adding the
// end event.
func (s *State) judge(evs []Event) []Event {
	o := s.g.Outcome()
	if !o.Over {
		return evs
	}
	if o.Draw {
		s.phase = PhaseDraw
	} else {
		s.phase, s.winner = PhaseWon, Seat(o.Winner)
	}
	return append(evs, s.endEvent())
}

func (s *State) endEvent() Event {
	return Event{Type: EventEnd, Phase: s.phase, Winner: s.winner, Conceded: s.conceded}
}

// Apply plays one command. It checks, in order: the seat, the end of the
// match, then for a concession nothing more (either seat may concede at
// any time), else the turn, then the command's own rules.
func (Rules) Apply(s *State, in session.Input[Move]) (*State, []Event, error) {
	if in.Seat < 0 || in.Seat >= Seats {
		return s, nil, session.Malformed(session.CodeNoSuchSeat, "seat %d is not in this match of %d", in.Seat, Seats)
	}
	if s.phase != PhaseActive {
		return s, nil, session.Reject(session.CodeGameOver, "the match is over")
	}
	m := in.Move
	if m.Type == MoveConcede {
		s.phase, s.winner, s.conceded = PhaseConceded, 1-in.Seat, true
		s.moves++
		return s, []Event{s.endEvent()}, nil
	}
	if in.Seat != s.active {
		return s, nil, session.Reject(session.CodeNotYourTurn, "it is seat %d's turn", s.active)
	}
	var (
		evs []Event
		err error
	)
	switch m.Type {
	case MovePlay:
		evs, err = s.play(in.Seat, m.Card, m.Target)
	case MoveAttack:
		evs, err = s.attack(in.Seat, m.Attacker, m.Defender)
	case MoveEnd:
		evs, err = s.endTurn()
	default:
		err = session.Malformed(session.CodeUnknownMove, "unknown move type %q", session.Clip(m.Type))
	}
	if err != nil {
		return s, nil, err
	}
	s.moves++
	return s, s.judge(evs), nil
}

// play plays card from seat's hand on target (§10 PlayCard).
func (s *State) play(seat Seat, card, target ID) ([]Event, error) {
	hand, _ := s.g.Hand(cards.Player(seat))
	if !slices.Contains(hand, card) {
		return nil, session.Reject(CodeNotInHand, "card %d is not in your hand", card)
	}
	name, _ := s.g.NameOf(card)
	d, _ := s.g.Card(name)
	if d.Cost > s.mana[seat] {
		return nil, session.Reject(CodeNotEnoughMana, "%s costs %d, you have %d mana", name, d.Cost, s.mana[seat])
	}
	if err := s.checkTarget(d, target); err != nil {
		return nil, err
	}
	var err error
	if d.Type == cards.Minion {
		if board, _ := s.g.Board(cards.Player(seat)); len(board) >= cards.MaxBoard {
			return nil, session.Reject(CodeBoardFull, "your board holds %d minions already", cards.MaxBoard)
		}
		err = s.g.Play(card)
	} else {
		err = s.g.CastFromHand(card, target)
	}
	if err != nil {
		return nil, session.Reject(CodeEngine, "%v", err)
	}
	s.mana[seat] -= d.Cost
	evs := []Event{{Type: EventPlay, Seat: seat, ID: card, Card: name, Cost: d.Cost, Target: target, Spell: d.Type == cards.Spell, Winner: -1}}
	return s.drain(evs), nil
}

// checkTarget checks a play's chosen target: none for a minion or a spell
// without "target", else a character in play (a minion for TargetMinion).
func (s *State) checkTarget(d cards.CardDef, target ID) error {
	if d.Type == cards.Minion || d.Target == cards.NoTargetKind {
		if target != 0 {
			return session.Reject(CodeBadTarget, "%s takes no target", d.Name)
		}
		return nil
	}
	if target == 0 {
		return session.Reject(CodeBadTarget, "%s needs a target", d.Name)
	}
	if zone, err := s.g.ZoneOf(target); err != nil || zone != cards.ZoneBoard {
		return session.Reject(CodeBadTarget, "%d is not a character in play", target)
	}
	if d.Target == cards.TargetMinion && target <= Seats {
		return session.Reject(CodeBadTarget, "%s targets a minion, not a hero", d.Name)
	}
	return nil
}

// attack runs an attack (§10's attack rules).
func (s *State) attack(seat Seat, attacker, defender ID) ([]Event, error) {
	mine, _ := s.g.Board(cards.Player(seat))
	if !slices.Contains(mine, attacker) {
		return nil, session.Reject(CodeBadAttacker, "%d is not one of your minions in play", attacker)
	}
	if a, _ := s.g.Attack(attacker); a <= 0 {
		return nil, session.Reject(CodeNoAttack, "minion %d has no attack", attacker)
	}
	if !s.ready[attacker] {
		return nil, session.Reject(CodeNotReady, "minion %d has attacked this turn or came into play this turn", attacker)
	}
	foe := cards.Player(1 - seat)
	theirs, _ := s.g.Board(foe)
	hero, _ := s.g.Hero(foe)
	if defender != hero && !slices.Contains(theirs, defender) {
		return nil, session.Reject(CodeBadDefender, "%d is not an enemy character", defender)
	}
	var taunts bool
	for _, id := range theirs {
		if s.taunt(id) {
			taunts = true
			break
		}
	}
	if taunts && !s.taunt(defender) {
		return nil, session.Reject(CodeTaunt, "a Taunt minion is in the way")
	}
	if err := s.g.Fight(attacker, defender); err != nil {
		return nil, session.Reject(CodeEngine, "%v", err)
	}
	delete(s.ready, attacker)
	evs := []Event{{Type: EventAttack, Seat: seat, Attacker: attacker, Defender: defender, Winner: -1}}
	return s.drain(evs), nil
}

// taunt reports whether id is a minion with Taunt.
func (s *State) taunt(id ID) bool {
	if id <= Seats {
		return false
	}
	name, _ := s.g.NameOf(id)
	d, ok := s.g.Card(name)
	return ok && d.Taunt()
}

// endTurn ends the active seat's turn: a draw after turn MaxTurns, else
// the other seat's turn starts.
func (s *State) endTurn() ([]Event, error) {
	if s.turn >= MaxTurns {
		s.phase = PhaseDraw
		return []Event{s.endEvent()}, nil
	}
	evs, err := s.startTurn(1 - s.active)
	if err != nil {
		return nil, session.Reject(CodeEngine, "%v", err)
	}
	return evs, nil
}

// Status reports the phase; the match starts at its first move.
func (Rules) Status(s *State) session.Status {
	st := session.Status{Phase: s.phase, Started: s.moves > 0, Over: s.phase != PhaseActive}
	if st.Over {
		st.Outcome.Winners = []Seat{}
		if s.winner >= 0 {
			st.Outcome.Winners = []Seat{s.winner}
		}
		st.Outcome.Ranked = !s.conceded
	}
	return st
}

// Pending is the active seat while the match runs.
func (Rules) Pending(s *State) []Seat {
	if s.phase != PhaseActive {
		return nil
	}
	return []Seat{s.active}
}

// Project returns viewer's view (§10's table).
func (Rules) Project(s *State, viewer Seat) View {
	snap := s.g.Snapshot()
	v := View{Phase: s.phase, Turn: s.turn, Active: s.active, First: s.first, Seat: viewer, Conceded: s.conceded}
	if viewer < 0 || viewer >= Seats {
		v.Seat = session.Spectator
	}
	if s.winner >= 0 {
		w := s.winner
		v.Winner = &w
	}
	for p := range v.Players {
		ps := snap.Players[p]
		sv := SeatView{
			Hero:      Hero{ps.Hero.ID, ps.Hero.Health, ps.Hero.Armor},
			Mana:      s.mana[p],
			MaxMana:   s.max[p],
			Deck:      len(ps.Deck),
			Hand:      make([]HandCard, len(ps.Hand)),
			Board:     make([]Minion, len(ps.Board)),
			Graveyard: make([]Dead, len(ps.Graveyard)),
		}
		for i, c := range ps.Hand {
			sv.Hand[i] = HandCard{ID: c.ID}
			if p == viewer {
				sv.Hand[i].Name, sv.Hand[i].Cost = c.Name, c.Cost
			}
		}
		for i, c := range ps.Board {
			sv.Board[i] = Minion{ID: c.ID, Name: c.Name, Attack: c.Attack, Health: c.Health, Order: c.Order,
				Taunt: s.taunt(c.ID), Ready: s.ready[c.ID]}
		}
		for i, c := range ps.Graveyard {
			sv.Graveyard[i] = Dead{c.ID, c.Name}
		}
		v.Players[p] = sv
	}
	return v
}

// ProjectEvents drops from each Drew the card's name and cost for every
// viewer but the drawing seat, unless the card was burned (it is then in
// the public graveyard). Every other event is public.
func (Rules) ProjectEvents(s *State, events []Event, viewer Seat) []Event {
	out := make([]Event, len(events))
	for i, e := range events {
		if e.Type == string(cards.EventDrew) && !e.Burned && e.Seat != viewer {
			e.Card, e.Cost = "", 0
		}
		out[i] = e
	}
	return out
}

// Audience is the seat for a seat (each sees its own hand) and 2 for every
// spectator.
func (Rules) Audience(s *State, viewer Seat) int {
	if viewer >= 0 && viewer < Seats {
		return viewer
	}
	return Seats
}
