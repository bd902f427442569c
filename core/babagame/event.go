package babagame

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/roomd/roomd/core/baba"
	"github.com/roomd/roomd/core/session"
)

// EventDelta is the only event type: what one accepted command changed.
const EventDelta = "delta"

// Event is the delta of one accepted command (a step, an undo or a
// restart), found by diffing the engine's snapshots before and after it:
//
//	{"type":"delta","moved":[{"id":10,"kind":"baba","x":2,"y":2}],
//	 "created":[…],"destroyed":[12,13],
//	 "rulesAdded":[…],"rulesRemoved":[…],"activeAdded":[…],"activeRemoved":[…],
//	 "won":false,"lost":false,"moves":1}
//
// "moved" lists the objects alive before and after whose tile or kind
// changed (a conversion keeps the id and changes the kind), with their new
// id, kind and tile; "created" the objects alive after only (new ones, and
// ones an undo or restart brings back); "destroyed" the ids of objects
// alive before only. Objects are in id order; the four rule lists in byte
// order. An empty list is left out. "won", "lost" and "moves" are the
// view's after the command, and "turn" too in turns control.
type Event struct {
	Type          string
	Moved         []baba.Object
	Created       []baba.Object
	Destroyed     []baba.ID
	RulesAdded    []string
	RulesRemoved  []string
	ActiveAdded   []string
	ActiveRemoved []string
	Won, Lost     bool
	Moves         int
	Turn          *Seat
}

// eventWire is the event's JSON form, in this order.
type eventWire struct {
	Type          string        `json:"type"`
	Moved         []baba.Object `json:"moved,omitempty"`
	Created       []baba.Object `json:"created,omitempty"`
	Destroyed     []baba.ID     `json:"destroyed,omitempty"`
	RulesAdded    []string      `json:"rulesAdded,omitempty"`
	RulesRemoved  []string      `json:"rulesRemoved,omitempty"`
	ActiveAdded   []string      `json:"activeAdded,omitempty"`
	ActiveRemoved []string      `json:"activeRemoved,omitempty"`
	Won           *bool         `json:"won"`
	Lost          *bool         `json:"lost"`
	Moves         *int          `json:"moves"`
	Turn          *Seat         `json:"turn,omitempty"`
}

// MarshalJSON writes the delta's fields in a fixed order, empty lists left
// out.
func (e Event) MarshalJSON() ([]byte, error) {
	if e.Type != EventDelta {
		return nil, fmt.Errorf("baba: unknown event type %q", session.Clip(e.Type))
	}
	return json.Marshal(eventWire{e.Type, e.Moved, e.Created, e.Destroyed, e.RulesAdded, e.RulesRemoved,
		e.ActiveAdded, e.ActiveRemoved, &e.Won, &e.Lost, &e.Moves, e.Turn})
}

// UnmarshalJSON decodes a delta, for Go clients: "won", "lost" and "moves"
// must be there.
func (e *Event) UnmarshalJSON(data []byte) error {
	var w eventWire
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("baba event: %w", err)
	}
	if w.Type != EventDelta {
		return fmt.Errorf("baba event: unknown type %q", session.Clip(w.Type))
	}
	if w.Won == nil || w.Lost == nil || w.Moves == nil {
		return fmt.Errorf(`baba event: a delta needs "won", "lost" and "moves"`)
	}
	*e = Event{Type: w.Type, Moved: w.Moved, Created: w.Created, Destroyed: w.Destroyed,
		RulesAdded: w.RulesAdded, RulesRemoved: w.RulesRemoved, ActiveAdded: w.ActiveAdded, ActiveRemoved: w.ActiveRemoved,
		Won: *w.Won, Lost: *w.Lost, Moves: *w.Moves, Turn: w.Turn}
	return nil
}

// delta is the event of the command that led from the snapshot before to
// the state's current one.
func (s *State) delta(before baba.State) Event {
	after := s.snap
	e := Event{Type: EventDelta, Won: after.Won, Lost: after.Lost, Moves: len(s.h.dirs)}
	if s.config.turns() {
		t := s.turn()
		e.Turn = &t
	}
	// Both object lists are in id order: merge them.
	a, b := before.Objects, after.Objects
	for len(a) > 0 || len(b) > 0 {
		switch {
		case len(b) == 0 || (len(a) > 0 && a[0].ID < b[0].ID):
			e.Destroyed = append(e.Destroyed, a[0].ID)
			a = a[1:]
		case len(a) == 0 || b[0].ID < a[0].ID:
			e.Created = append(e.Created, b[0])
			b = b[1:]
		default:
			if a[0] != b[0] {
				e.Moved = append(e.Moved, b[0])
			}
			a, b = a[1:], b[1:]
		}
	}
	e.RulesAdded, e.RulesRemoved = diffSorted(before.Rules, after.Rules)
	e.ActiveAdded, e.ActiveRemoved = diffSorted(before.ActiveRules, after.ActiveRules)
	return e
}

// diffSorted returns what is in after only and what is in before only, of
// two sorted lists of distinct strings.
func diffSorted(before, after []string) (added, removed []string) {
	for len(before) > 0 || len(after) > 0 {
		switch c := compareHead(before, after); {
		case c < 0:
			removed = append(removed, before[0])
			before = before[1:]
		case c > 0:
			added = append(added, after[0])
			after = after[1:]
		default:
			before, after = before[1:], after[1:]
		}
	}
	return added, removed
}

// compareHead compares the first elements of two lists, an empty list
// coming after any element.
func compareHead(a, b []string) int {
	switch {
	case len(a) == 0:
		return 1
	case len(b) == 0:
		return -1
	}
	return strings.Compare(a[0], b[0])
}
