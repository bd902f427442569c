package baba

// State is a snapshot of a Baba, for views and persistence: the level's
// size, its live objects in id order, the id the next object will get, the
// rules and the outcome.
type State struct {
	Width       int      `json:"width"`
	Height      int      `json:"height"`
	Objects     []Object `json:"objects"`
	NextID      ID       `json:"nextId"`
	Rules       []string `json:"rules"`
	ActiveRules []string `json:"activeRules"`
	Won         bool     `json:"won"`
	Lost        bool     `json:"lost"`
}

// Object is one live object of a State.
type Object struct {
	ID   ID     `json:"id"`
	Kind string `json:"kind"`
	X    int    `json:"x"`
	Y    int    `json:"y"`
}

// Snapshot returns the Baba's state; it shares nothing with the Baba.
func (b *Baba) Snapshot() State {
	s := State{
		Width:       b.width,
		Height:      b.height,
		Objects:     make([]Object, 0, b.live),
		NextID:      ID(len(b.objs) + 1),
		Rules:       b.Rules(),
		ActiveRules: b.ActiveRules(),
		Won:         b.won,
		Lost:        b.Lost(),
	}
	for i := range b.objs {
		if o := &b.objs[i]; o.alive {
			s.Objects = append(s.Objects, Object{ID: ID(i + 1), Kind: b.kindString(o.kind), X: int(o.x), Y: int(o.y)})
		}
	}
	return s
}
