package spellgridgame

import (
	"cmp"
	"slices"

	"github.com/roomd/roomd/core/baba"
	"github.com/roomd/roomd/core/cards"
	"github.com/roomd/roomd/core/session"
)

// View is what every viewer sees (nothing is hidden). Its JSON form is
//
//	{"level":"scribe","width":7,"height":5,
//	 "objects":[{"id":6,"kind":"baba","x":3,"y":4}, ...],
//	 "rules":["BABA IS YOU","TEXT IS PUSH"],"activeRules":["BABA IS YOU","TEXT IS PUSH"],
//	 "won":false,"lost":false,"moves":0,
//	 "hand":["Rune Scribe","Fireball"],
//	 "minions":[{"id":12,"name":"Rune Scribe","health":1,"attack":1,"x":2,"y":2}]}
//
// objects are the live grid objects and minions the minions in play, both
// in id order; rules and activeRules are in byte order; moves counts the
// commands that stand (undone ones excluded); hand is in hand order.
type View struct {
	Level       string        `json:"level"`
	Width       int           `json:"width"`
	Height      int           `json:"height"`
	Objects     []baba.Object `json:"objects"`
	Rules       []string      `json:"rules"`
	ActiveRules []string      `json:"activeRules"`
	Won         bool          `json:"won"`
	Lost        bool          `json:"lost"`
	Moves       int           `json:"moves"`
	Hand        []string      `json:"hand"`
	Minions     []Minion      `json:"minions"`
}

// Minion is a minion in play: its id (its grid object's), card name,
// current health and attack, and tile.
type Minion struct {
	ID     baba.ID `json:"id"`
	Name   string  `json:"name"`
	Health int32   `json:"health"`
	Attack int32   `json:"attack"`
	X      int     `json:"x"`
	Y      int     `json:"y"`
}

// Project returns the view, the same for every viewer.
func (Rules) Project(s *State, _ session.Seat) View {
	g := s.grid
	snap := g.Snapshot()
	v := View{
		Level:       s.level.ID,
		Width:       snap.Width,
		Height:      snap.Height,
		Objects:     nonNil(snap.Objects),
		Rules:       nonNil(snap.Rules),
		ActiveRules: nonNil(snap.ActiveRules),
		Won:         snap.Won,
		Lost:        snap.Lost,
		Moves:       len(s.commands),
		Hand:        nonNil(g.Hand()),
		Minions:     []Minion{},
	}
	for p := range cards.Player(2) {
		board, err := g.Board(p)
		if err != nil {
			panic("spellgridgame: " + err.Error())
		}
		for _, id := range board {
			v.Minions = append(v.Minions, minion(s, id))
		}
	}
	slices.SortFunc(v.Minions, func(a, b Minion) int { return cmp.Compare(a.ID, b.ID) })
	return v
}

// minion reads a minion in play from the engine, which knows every one.
func minion(s *State, id baba.ID) Minion {
	name, err1 := s.grid.NameOf(id)
	health, err2 := s.grid.Health(id)
	attack, err3 := s.grid.Attack(id)
	x, y, _, err4 := s.grid.PosOf(id)
	if err := cmp.Or(err1, err2, err3, err4); err != nil {
		panic("spellgridgame: a minion in play: " + err.Error())
	}
	return Minion{ID: id, Name: name, Health: health, Attack: attack, X: x, Y: y}
}

// nonNil returns xs, or an empty slice for nil, so that views write [].
func nonNil[T any](xs []T) []T {
	if xs == nil {
		return []T{}
	}
	return xs
}

// Apply turns the view into the next one by the events of an update: the
// view the server projects after it, byte for byte.
func (v *View) Apply(events []Event) {
	for _, e := range events {
		v.apply(e)
	}
}

func (v *View) apply(e Event) {
	v.Objects = slices.DeleteFunc(v.Objects, func(o baba.Object) bool { return slices.Contains(e.Destroyed, o.ID) })
	for _, m := range e.Moved {
		if i := slices.IndexFunc(v.Objects, func(o baba.Object) bool { return o.ID == m.ID }); i >= 0 {
			v.Objects[i].X, v.Objects[i].Y = m.X, m.Y
		}
	}
	v.Objects = append(v.Objects, e.Created...)
	slices.SortFunc(v.Objects, func(a, b baba.Object) int { return cmp.Compare(a.ID, b.ID) })
	v.Rules = edit(v.Rules, e.RulesRemoved, e.RulesAdded)
	v.ActiveRules = edit(v.ActiveRules, e.ActiveRemoved, e.ActiveAdded)
	if e.Hand != nil {
		v.Hand = slices.Clone(*e.Hand)
	}
	v.Minions = slices.DeleteFunc(v.Minions, func(m Minion) bool {
		return slices.Contains(e.MinionsGone, m.ID) || slices.ContainsFunc(e.Minions, func(n Minion) bool { return n.ID == m.ID })
	})
	v.Minions = append(v.Minions, e.Minions...)
	slices.SortFunc(v.Minions, func(a, b Minion) int { return cmp.Compare(a.ID, b.ID) })
	v.Won, v.Lost, v.Moves = e.Won, e.Lost, e.Moves
}

// edit removes the rules removed from a sorted list, adds the rules added
// and sorts it again.
func edit(rules, removed, added []string) []string {
	rules = slices.DeleteFunc(rules, func(r string) bool { return slices.Contains(removed, r) })
	rules = append(rules, added...)
	slices.Sort(rules)
	return rules
}
