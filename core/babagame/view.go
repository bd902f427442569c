package babagame

import (
	"cmp"
	"slices"

	"github.com/roomd/roomd/core/baba"
)

// View is what every viewer sees (nothing is hidden, so seats and
// spectators get the same):
//
//	{"level":"baba-is-you","width":9,"height":5,
//	 "objects":[{"id":1,"kind":"text:BABA","x":0,"y":0},…],
//	 "rules":["BABA IS YOU","FLAG IS WIN","ROCK IS PUSH","TEXT IS PUSH"],
//	 "activeRules":[…],"won":false,"lost":false,"moves":0}
//
// "objects" are the live objects in id order; "rules" and "activeRules"
// are the engine's (baba.md §3.3, §3.4), in byte order; "moves" is how many
// steps the level's history holds now (an undo takes one off, a restart
// all). In turns control the view adds "turn", the seat to step next. The
// room's revision is the protocol's, not the view's.
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
	Turn        *Seat         `json:"turn,omitempty"`
}

// view projects the state; it shares nothing with it.
func (s *State) view() View {
	v := View{
		Level:       s.h.level.ID,
		Width:       s.snap.Width,
		Height:      s.snap.Height,
		Objects:     append([]baba.Object{}, s.snap.Objects...),
		Rules:       append([]string{}, s.snap.Rules...),
		ActiveRules: append([]string{}, s.snap.ActiveRules...),
		Won:         s.snap.Won,
		Lost:        s.snap.Lost,
		Moves:       len(s.h.dirs),
	}
	if s.config.turns() {
		t := s.turn()
		v.Turn = &t
	}
	return v
}

// Apply updates a view with the events of an update, so that a client that
// starts from a view and applies each update's events holds the view the
// server would project, byte for byte. Unknown event types are ignored.
func (v *View) Apply(events []Event) {
	for _, e := range events {
		if e.Type != EventDelta {
			continue
		}
		changed := make(map[baba.ID]baba.Object, len(e.Moved))
		for _, o := range e.Moved {
			changed[o.ID] = o
		}
		objects := make([]baba.Object, 0, len(v.Objects)+len(e.Created))
		for _, o := range v.Objects {
			if slices.Contains(e.Destroyed, o.ID) {
				continue
			}
			if c, ok := changed[o.ID]; ok {
				o = c
			}
			objects = append(objects, o)
		}
		objects = append(objects, e.Created...)
		slices.SortStableFunc(objects, func(a, b baba.Object) int { return cmp.Compare(a.ID, b.ID) })
		v.Objects = objects
		v.Rules = applySet(v.Rules, e.RulesAdded, e.RulesRemoved)
		v.ActiveRules = applySet(v.ActiveRules, e.ActiveAdded, e.ActiveRemoved)
		v.Won, v.Lost, v.Moves = e.Won, e.Lost, e.Moves
		v.Turn = nil
		if e.Turn != nil {
			t := *e.Turn
			v.Turn = &t
		}
	}
}

// applySet returns the sorted set list without removed and with added.
func applySet(list, added, removed []string) []string {
	out := make([]string, 0, len(list)+len(added))
	for _, r := range list {
		if !slices.Contains(removed, r) {
			out = append(out, r)
		}
	}
	for _, r := range added {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return out
}
