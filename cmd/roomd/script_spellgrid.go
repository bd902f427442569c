package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/roomd/roomd/core/baba"
	"github.com/roomd/roomd/core/cards"
	"github.com/roomd/roomd/core/spellgrid"
)

// `roomd script spellgrid` drives core/spellgrid with the calls of
// card-engine.md §9 (seed 003, Part III):
//
//	newSpellGrid(level, cards?)  level: a LevelDef with "cards" and "hand";
//	                             cards: extra definitions (a JSON array, §3) → null
//	step(dir), move(dir)         dir: "up" | "down" | "left" | "right"     → null
//	cast(card, target?)          target: a live minion's id, or null        → null
//	play(card, x, y)                                                        → id
//	checkCast(card, target?), checkPlay(card, x, y)                         → null | "reason"
//	minionAt(x, y)                                                          → id | null
//	hand()                                                                  → ["Fireball", …]
//	place(kind, x, y)                                                       → id
//	posOf(id)                                                               → [x, y] | null
//	kindsAt(x, y), rules(), activeRules(), hasProperty(id, prop), won(), lost()
//	health(id), attack(id), hero(player), nameOf(id), board(player)
//	log()                        events of §7 with every field, ids of the one space
//	clearLog(), withNaiveAuraTiming()                                       → null
//	setChooser([answers])        answers in order, then options[0]          → null
//	snapshot()                   the grid's baba.State
//
// Every call but newSpellGrid needs a level first; a failed call changes
// nothing (a newSpellGrid that fails keeps the grid there was).

func init() { scriptEngines["spellgrid"] = func() scriptEngine { return &spellgridScript{} } }

// spellgridScript is the harness's SpellGrid and its scripted chooser.
type spellgridScript struct {
	s       *spellgrid.SpellGrid
	answers []string
	next    int
}

// spellgridCalls are the harness's calls.
var spellgridCalls = map[string]scriptFunc[*spellgridScript]{
	"newSpellGrid": {2, (*spellgridScript).newSpellGrid},
	"step": {1, func(s *spellgridScript, args []json.RawMessage) (any, error) {
		d, err := babaDir(args, 0)
		if err != nil {
			return nil, err
		}
		return nil, s.s.Step(d)
	}},
	"move": {1, func(s *spellgridScript, args []json.RawMessage) (any, error) {
		d, err := babaDir(args, 0)
		if err != nil {
			return nil, err
		}
		return nil, s.s.Move(d)
	}},
	"cast": {2, func(s *spellgridScript, args []json.RawMessage) (any, error) {
		card, target, err := spellgridCastArgs(args)
		if err != nil {
			return nil, err
		}
		return nil, s.s.Cast(card, target)
	}},
	"checkCast": {2, func(s *spellgridScript, args []json.RawMessage) (any, error) {
		card, target, err := spellgridCastArgs(args)
		if err != nil {
			return nil, err
		}
		return spellgridReason(s.s.CheckCast(card, target)), nil
	}},
	"play": {3, func(s *spellgridScript, args []json.RawMessage) (any, error) {
		card, x, y, err := spellgridPlayArgs(args)
		if err != nil {
			return nil, err
		}
		return s.s.Play(card, x, y)
	}},
	"checkPlay": {3, func(s *spellgridScript, args []json.RawMessage) (any, error) {
		card, x, y, err := spellgridPlayArgs(args)
		if err != nil {
			return nil, err
		}
		return spellgridReason(s.s.CheckPlay(card, x, y)), nil
	}},
	"minionAt": {2, func(s *spellgridScript, args []json.RawMessage) (any, error) {
		x, y, err := babaXY(args, 0)
		if err != nil {
			return nil, err
		}
		id, ok, err := s.s.MinionAt(x, y)
		if err != nil || !ok {
			return nil, err
		}
		return id, nil
	}},
	"hand": {0, func(s *spellgridScript, _ []json.RawMessage) (any, error) { return s.s.Hand(), nil }},
	"place": {3, func(s *spellgridScript, args []json.RawMessage) (any, error) {
		kind, err := babaString(args, 0)
		if err != nil {
			return nil, err
		}
		x, y, err := babaXY(args, 1)
		if err != nil {
			return nil, err
		}
		return s.s.Place(kind, x, y)
	}},
	"posOf":       {1, func(s *spellgridScript, args []json.RawMessage) (any, error) { return gridPosOf(s.s, args) }},
	"kindsAt":     {2, func(s *spellgridScript, args []json.RawMessage) (any, error) { return gridKindsAt(s.s, args) }},
	"rules":       {0, func(s *spellgridScript, _ []json.RawMessage) (any, error) { return s.s.Rules(), nil }},
	"activeRules": {0, func(s *spellgridScript, _ []json.RawMessage) (any, error) { return s.s.ActiveRules(), nil }},
	"hasProperty": {2, func(s *spellgridScript, args []json.RawMessage) (any, error) {
		id, err := babaID(args, 0)
		if err != nil {
			return nil, err
		}
		prop, err := babaString(args, 1)
		if err != nil {
			return nil, err
		}
		return s.s.HasProperty(id, prop)
	}},
	"won":  {0, func(s *spellgridScript, _ []json.RawMessage) (any, error) { return s.s.Won(), nil }},
	"lost": {0, func(s *spellgridScript, _ []json.RawMessage) (any, error) { return s.s.Lost(), nil }},
	"health": {1, func(s *spellgridScript, args []json.RawMessage) (any, error) {
		id, err := babaID(args, 0)
		if err != nil {
			return nil, err
		}
		return s.s.Health(id)
	}},
	"attack": {1, func(s *spellgridScript, args []json.RawMessage) (any, error) {
		id, err := babaID(args, 0)
		if err != nil {
			return nil, err
		}
		return s.s.Attack(id)
	}},
	"nameOf": {1, func(s *spellgridScript, args []json.RawMessage) (any, error) {
		id, err := babaID(args, 0)
		if err != nil {
			return nil, err
		}
		return s.s.NameOf(id)
	}},
	"hero": {1, func(s *spellgridScript, args []json.RawMessage) (any, error) {
		p, err := babaWhole(args, 0, "a player (0 or 1)", 0, 1)
		if err != nil {
			return nil, err
		}
		return s.s.Hero(cards.Player(p))
	}},
	"board": {1, func(s *spellgridScript, args []json.RawMessage) (any, error) {
		p, err := babaWhole(args, 0, "a player (0 or 1)", 0, 1)
		if err != nil {
			return nil, err
		}
		return s.s.Board(cards.Player(p))
	}},
	"log":      {0, func(s *spellgridScript, _ []json.RawMessage) (any, error) { return s.s.Log(), nil }},
	"clearLog": {0, func(s *spellgridScript, _ []json.RawMessage) (any, error) { s.s.ClearLog(); return nil, nil }},
	"withNaiveAuraTiming": {0, func(s *spellgridScript, _ []json.RawMessage) (any, error) {
		s.s.WithNaiveAuraTiming()
		return nil, nil
	}},
	"setChooser": {1, func(s *spellgridScript, args []json.RawMessage) (any, error) {
		var answers []string
		if _, err := scriptArg(args, 0, &answers, true); err != nil {
			return nil, err
		}
		s.answers, s.next = answers, 0
		return nil, nil
	}},
	"snapshot": {0, func(s *spellgridScript, _ []json.RawMessage) (any, error) { return s.s.Snapshot(), nil }},
}

// Call runs one harness call; a failed call leaves the SpellGrid as it
// was, the chooser's answers included.
func (s *spellgridScript) Call(name string, args []json.RawMessage) (any, error) {
	c, err := scriptLookup(spellgridCalls, name, args)
	if err != nil {
		return nil, err
	}
	if s.s == nil && name != "newSpellGrid" {
		return nil, errors.New("no level yet: call newSpellGrid first")
	}
	next := s.next
	v, err := c.run(s, args)
	if err != nil {
		s.next = next
		return nil, err
	}
	return v, nil
}

func (s *spellgridScript) newSpellGrid(args []json.RawMessage) (any, error) {
	if err := babaNotNull(args, 0); err != nil {
		return nil, err
	}
	var def baba.LevelDef
	if err := json.Unmarshal(args[0], &def); err != nil {
		return nil, fmt.Errorf("argument 1: %v", err)
	}
	var defs []cards.CardDef
	if len(args) > 1 && strings.TrimSpace(string(args[1])) != "null" {
		var err error
		if defs, err = cards.DecodeCards(args[1]); err != nil {
			return nil, fmt.Errorf("argument 2: %v", err)
		}
	}
	g, err := spellgrid.New(def, defs)
	if err != nil {
		return nil, err
	}
	s.s, s.answers, s.next = g, nil, 0
	g.SetChooser(s.choose)
	return nil, nil
}

// choose answers with the next of setChooser's answers, then options[0].
func (s *spellgridScript) choose(kind string, options []string) string {
	if s.next < len(s.answers) {
		s.next++
		return s.answers[s.next-1]
	}
	return options[0]
}

// spellgridCastArgs reads cast's card and optional target (null or
// absent: none).
func spellgridCastArgs(args []json.RawMessage) (string, baba.ID, error) {
	card, err := babaString(args, 0)
	if err != nil {
		return "", 0, err
	}
	if len(args) < 2 || strings.TrimSpace(string(args[1])) == "null" {
		return card, 0, nil
	}
	v, err := babaWhole(args, 1, "an id", 1, math.MaxUint32)
	return card, baba.ID(v), err
}

func spellgridPlayArgs(args []json.RawMessage) (string, int, int, error) {
	card, err := babaString(args, 0)
	if err != nil {
		return "", 0, 0, err
	}
	x, y, err := babaXY(args, 1)
	return card, x, y, err
}

// spellgridReason is a check's answer: null, or the reason as a string.
func spellgridReason(err error) any {
	if err == nil {
		return nil
	}
	return err.Error()
}
