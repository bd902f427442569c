package cards

import "github.com/roomd/roomd/core/session"

// Snapshot is the whole visible state of a game, for the projection and
// persistence of the room game (§10) and for tests. It shares nothing
// with the game.
type Snapshot struct {
	Players [2]PlayerSnapshot `json:"players"`
	Outcome Outcome           `json:"outcome"`
	// RNG is the state of the generator (session.Stream.State): for the
	// harness's mulberry32 its 32-bit state, a JSON number; for a secret
	// stream its key and draws. It is never part of a view.
	RNG session.StreamState `json:"rng"`
	// NextID is the id the next card will get.
	NextID ID `json:"nextId"`
	// LastOrder is the last order of play given.
	LastOrder       uint32 `json:"lastOrder"`
	NaiveAuraTiming bool   `json:"naiveAuraTiming"`
}

// PlayerSnapshot is one player's hero and zones, each left to right (a
// deck top first, a graveyard in order of arrival).
type PlayerSnapshot struct {
	Hero      HeroSnapshot   `json:"hero"`
	Deck      []CardSnapshot `json:"deck"`
	Hand      []CardSnapshot `json:"hand"`
	Board     []CardSnapshot `json:"board"`
	Graveyard []CardSnapshot `json:"graveyard"`
}

// HeroSnapshot is a hero.
type HeroSnapshot struct {
	ID     ID     `json:"id"`
	Health int32  `json:"health"`
	Armor  int32  `json:"armor"`
	Order  uint32 `json:"order"`
}

// CardSnapshot is a card. A spell's attack and health are 0.
type CardSnapshot struct {
	ID             ID     `json:"id"`
	Name           string `json:"name"`
	Cost           int32  `json:"cost"`
	Attack         int32  `json:"attack"`
	Health         int32  `json:"health"`
	Damage         int32  `json:"damage"`
	Order          uint32 `json:"order"`
	PendingDestroy bool   `json:"pendingDestroy"`
}

// Snapshot returns the game's state.
func (g *Game) Snapshot() Snapshot {
	s := Snapshot{Outcome: g.s.outcome, RNG: g.s.rng.State(), NextID: ID(len(g.s.ents)), LastOrder: g.s.order, NaiveAuraTiming: g.s.naive}
	cards := func(ids []ID) []CardSnapshot {
		out := make([]CardSnapshot, len(ids))
		for i, id := range ids {
			e := &g.s.ents[id]
			out[i] = CardSnapshot{ID: id, Name: e.def.Name, Cost: e.def.Cost, Attack: e.attack(), Health: e.health(),
				Damage: e.damage, Order: e.order, PendingDestroy: e.pending}
			if e.def.Type == Spell {
				out[i].Attack, out[i].Health = 0, 0
			}
		}
		return out
	}
	for p := range s.Players {
		sd := &g.s.sides[p]
		hero := &g.s.ents[sd.hero]
		s.Players[p] = PlayerSnapshot{
			Hero: HeroSnapshot{ID: sd.hero, Health: hero.health(), Armor: sd.armor, Order: hero.order},
			Deck: cards(sd.deck), Hand: cards(sd.hand), Board: cards(sd.board), Graveyard: cards(sd.grave),
		}
	}
	return s
}
