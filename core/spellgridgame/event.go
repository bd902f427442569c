package spellgridgame

import (
	"slices"

	"github.com/roomd/roomd/core/baba"
)

// EventDelta is the type of the only event.
const EventDelta = "delta"

// Event is the delta of one command, from the view before it to the view
// after it (baba.md §9). Its JSON form is
//
//	{"type":"delta","moved":[{"id":6,"x":4,"y":4}],"created":[{"id":13,"kind":"text:WIN","x":2,"y":2}],
//	 "destroyed":[12],"rulesAdded":["FLAG IS WIN"],"rulesRemoved":["BABA IS YOU"],
//	 "activeAdded":["FLAG IS WIN"],"activeRemoved":["BABA IS YOU"],"hand":[],
//	 "minions":[{"id":14,"name":"Damaged Golem","health":1,"attack":2,"x":3,"y":4}],"minionsGone":[12],
//	 "won":false,"lost":false,"moves":2}
//
// where every member but type, won, lost and moves is left out when
// nothing changed (hand is then absent, and [] for an emptied hand): moved,
// created and destroyed are grid objects in id order (an object whose kind
// changed is destroyed and created again), the rules lists are in byte
// order, hand is the whole new hand when it changed, minions the minions
// new or changed (whole, in id order) and minionsGone those gone.
type Event struct {
	Type          string        `json:"type"`
	Moved         []Moved       `json:"moved,omitempty"`
	Created       []baba.Object `json:"created,omitempty"`
	Destroyed     []baba.ID     `json:"destroyed,omitempty"`
	RulesAdded    []string      `json:"rulesAdded,omitempty"`
	RulesRemoved  []string      `json:"rulesRemoved,omitempty"`
	ActiveAdded   []string      `json:"activeAdded,omitempty"`
	ActiveRemoved []string      `json:"activeRemoved,omitempty"`
	Hand          *[]string     `json:"hand,omitempty"`
	Minions       []Minion      `json:"minions,omitempty"`
	MinionsGone   []baba.ID     `json:"minionsGone,omitempty"`
	Won           bool          `json:"won"`
	Lost          bool          `json:"lost"`
	Moves         int           `json:"moves"`
}

// Moved is a grid object's new tile.
type Moved struct {
	ID baba.ID `json:"id"`
	X  int     `json:"x"`
	Y  int     `json:"y"`
}

// diff returns the event that turns view a into view b (View.Apply).
func diff(a, b View) Event {
	e := Event{Type: EventDelta, Won: b.Won, Lost: b.Lost, Moves: b.Moves}
	old := map[baba.ID]baba.Object{}
	for _, o := range a.Objects {
		old[o.ID] = o
	}
	for _, o := range b.Objects {
		p, ok := old[o.ID]
		switch {
		case ok && p.Kind == o.Kind:
			if p.X != o.X || p.Y != o.Y {
				e.Moved = append(e.Moved, Moved{o.ID, o.X, o.Y})
			}
			delete(old, o.ID)
		case ok:
			e.Created = append(e.Created, o) // destroyed below, then created
		default:
			e.Created = append(e.Created, o)
		}
	}
	for _, o := range a.Objects {
		if _, gone := old[o.ID]; gone {
			e.Destroyed = append(e.Destroyed, o.ID)
		}
	}
	e.RulesAdded, e.RulesRemoved = changes(a.Rules, b.Rules)
	e.ActiveAdded, e.ActiveRemoved = changes(a.ActiveRules, b.ActiveRules)
	if !slices.Equal(a.Hand, b.Hand) {
		hand := slices.Clone(b.Hand)
		e.Hand = &hand
	}
	before := map[baba.ID]Minion{}
	for _, m := range a.Minions {
		before[m.ID] = m
	}
	for _, m := range b.Minions {
		if p, ok := before[m.ID]; !ok || p != m {
			e.Minions = append(e.Minions, m)
		}
		delete(before, m.ID)
	}
	for _, m := range a.Minions {
		if _, gone := before[m.ID]; gone {
			e.MinionsGone = append(e.MinionsGone, m.ID)
		}
	}
	return e
}

// changes returns the rules of b not in a, and those of a not in b.
func changes(a, b []string) (added, removed []string) {
	for _, r := range b {
		if !slices.Contains(a, r) {
			added = append(added, r)
		}
	}
	for _, r := range a {
		if !slices.Contains(b, r) {
			removed = append(removed, r)
		}
	}
	return added, removed
}
