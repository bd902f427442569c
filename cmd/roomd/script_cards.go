package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/roomd/roomd/core/cards"
	"github.com/roomd/roomd/core/session"
)

// `roomd script cards`: the card engine of card-engine.md (core/cards)
// behind the harness. Calls are named and take their arguments as in §4 of
// the specification: ids and players are numbers, newGame's options
// {"decks": [[...], [...]], "seed": N} and registerCards' definitions
// (a JSON array of cards in the format of §3) are JSON values, and
// optional trailing arguments may be left out or null (summon, addToHand,
// addToDeck and cast default to player 0; cast without a target). Values:
// ids and numbers as numbers, zones and names as strings, events as the
// objects of §7 with every field written, null for a call that returns
// nothing. setChooser takes the list of answers the chooser returns in
// order, then options[0] once they run out. withNaiveAuraTiming is the
// test hook of §6.2; outcome and snapshot are Game.Outcome and
// Game.Snapshot. The script starts with newGame() already made.

func init() { scriptEngines["cards"] = func() scriptEngine { return &cardsScript{} } }

// cardsScript is a card game and its scripted chooser.
type cardsScript struct {
	g       *cards.Game
	answers []string // setChooser's answers
	next    int      // the next answer
}

// cardsArity is the most arguments each call takes.
var cardsArity = map[string]int{
	"newGame": 1, "summon": 2, "addToHand": 2, "addToDeck": 2, "play": 1, "zoneOf": 1, "board": 1, "hand": 1,
	"orderOfPlay": 1, "nameOf": 1, "hero": 1, "dealDamage": 2, "cast": 3, "health": 1, "attack": 1, "armor": 1,
	"log": 0, "clearLog": 0, "destroy": 1, "registerCards": 1, "assemble": 3, "cost": 1, "setChooser": 1,
	"withNaiveAuraTiming": 0, "outcome": 0, "snapshot": 0,
}

func (s *cardsScript) Call(name string, args []json.RawMessage) (any, error) {
	n, known := cardsArity[name]
	if !known {
		return nil, fmt.Errorf("no call %q in the card engine's harness", session.Clip(name))
	}
	if len(args) > n {
		return nil, fmt.Errorf("%d arguments; %s takes at most %d", len(args), name, n)
	}
	if s.g == nil {
		if err := s.newGame(nil); err != nil {
			return nil, err
		}
	}
	next := s.next
	v, err := s.call(name, args)
	if err != nil {
		s.next = next // the chooser's answers a failed call used are unused
		return nil, err
	}
	return v, nil
}

func (s *cardsScript) call(name string, args []json.RawMessage) (any, error) {
	g := s.g
	switch name {
	case "newGame":
		var opts json.RawMessage
		if _, err := scriptArg(args, 0, &opts, true); err != nil {
			return nil, err
		}
		return nil, s.newGame(opts)
	case "summon", "addToHand", "addToDeck":
		var card string
		var p cards.Player
		if err := cardsArgs(args, &card, cardsOptional{&p}); err != nil {
			return nil, err
		}
		switch name {
		case "summon":
			return g.Summon(card, p)
		case "addToHand":
			return g.AddToHand(card, p)
		}
		return g.AddToDeck(card, p)
	case "play", "destroy":
		var id cards.ID
		if err := cardsArgs(args, &id); err != nil {
			return nil, err
		}
		if name == "play" {
			return nil, g.Play(id)
		}
		return nil, g.Destroy(id)
	case "zoneOf", "orderOfPlay", "nameOf", "health", "attack", "cost":
		var id cards.ID
		if err := cardsArgs(args, &id); err != nil {
			return nil, err
		}
		switch name {
		case "zoneOf":
			return g.ZoneOf(id)
		case "orderOfPlay":
			return g.OrderOfPlay(id)
		case "nameOf":
			return g.NameOf(id)
		case "health":
			return g.Health(id)
		case "attack":
			return g.Attack(id)
		}
		return g.Cost(id)
	case "board", "hand", "hero", "armor":
		var p cards.Player
		if err := cardsArgs(args, &p); err != nil {
			return nil, err
		}
		switch name {
		case "board":
			return g.Board(p)
		case "hand":
			return g.Hand(p)
		case "hero":
			return g.Hero(p)
		}
		return g.Armor(p)
	case "dealDamage":
		var id cards.ID
		var amount int32
		if err := cardsArgs(args, &id, &amount); err != nil {
			return nil, err
		}
		return nil, g.DealDamage(id, amount)
	case "cast":
		var card string
		var p cards.Player
		var target cards.ID
		if err := cardsArgs(args, &card, cardsOptional{&p}, cardsOptional{&target}); err != nil {
			return nil, err
		}
		return nil, g.Cast(card, p, target)
	case "log":
		return g.Log(), nil
	case "clearLog":
		g.ClearLog()
		return nil, nil
	case "registerCards":
		var raw json.RawMessage
		if err := cardsArgs(args, &raw); err != nil {
			return nil, err
		}
		defs, err := cards.DecodeCards(raw)
		if err != nil {
			return nil, fmt.Errorf("argument 1: %w", err)
		}
		return nil, g.RegisterCards(defs)
	case "assemble":
		var base, donor string
		var half cards.Half
		if err := cardsArgs(args, &base, &donor, &half); err != nil {
			return nil, err
		}
		return g.Assemble(base, donor, half)
	case "setChooser":
		var answers []string
		if err := cardsArgs(args, &answers); err != nil {
			return nil, err
		}
		if answers == nil {
			return nil, errors.New("argument 1: the answers must be a list of strings")
		}
		s.answers, s.next = answers, 0
		return nil, nil
	case "withNaiveAuraTiming":
		g.WithNaiveAuraTiming()
		return nil, nil
	case "outcome":
		return g.Outcome(), nil
	case "snapshot":
		return g.Snapshot(), nil
	}
	return nil, fmt.Errorf("no call %q", name)
}

// newGame replaces the game with one made from opts (JSON, null for the
// defaults); the chooser's answers are forgotten.
func (s *cardsScript) newGame(raw json.RawMessage) error {
	var opts cards.Options
	if len(raw) > 0 && string(raw) != "null" {
		ms, err := session.Members(raw)
		if err != nil {
			return fmt.Errorf(`argument 1: the options must be an object {"decks": [[...], [...]], "seed": N}: %v`, err)
		}
		for _, m := range ms {
			switch m.Key {
			case "decks":
				var decks [][]string
				if err := json.Unmarshal(m.Value, &decks); err != nil || len(decks) != 2 {
					return errors.New(`argument 1: "decks" must be two lists of card names`)
				}
				opts.Decks = [2][]string{decks[0], decks[1]}
			case "seed":
				f, ok := session.Whole(m.Value)
				if !ok || f < 0 || f > math.MaxUint32 {
					return errors.New(`argument 1: "seed" must be a whole number from 0 to 4294967295`)
				}
				opts.Seed = uint32(f)
			default:
				return fmt.Errorf("argument 1: unknown option %q", session.Clip(m.Key))
			}
		}
	}
	g, err := cards.NewGame(opts)
	if err != nil {
		return err
	}
	s.g, s.answers, s.next = g, nil, 0
	g.SetChooser(s.choose)
	return nil
}

// choose answers with the next of setChooser's answers, then options[0].
func (s *cardsScript) choose(kind string, options []string) string {
	if s.next < len(s.answers) {
		s.next++
		return s.answers[s.next-1]
	}
	return options[0]
}

// cardsOptional marks an argument that may be left out or null.
type cardsOptional struct{ v any }

// cardsArgs decodes the arguments into vs in order; a cardsOptional keeps
// its value when the argument is absent.
func cardsArgs(args []json.RawMessage, vs ...any) error {
	for i, v := range vs {
		optional := false
		if o, ok := v.(cardsOptional); ok {
			v, optional = o.v, true
		}
		if _, err := scriptArg(args, i, v, optional); err != nil {
			return err
		}
	}
	return nil
}
