package cardgame

import (
	"encoding/json"
	"slices"

	"github.com/roomd/roomd/core/cards"
)

// Phases of a match.
const (
	PhaseActive   = "active"
	PhaseWon      = "won"
	PhaseDraw     = "draw"
	PhaseConceded = "conceded"
)

// View is what one viewer sees (§10's table). Its JSON form:
//
//	{"phase":"active","turn":3,"active":1,"first":0,"seat":0,
//	 "players":[PLAYER,PLAYER]}
//
// with "winner":W once a seat won and "conceded":true after a concession.
// Seat is the viewer's seat, -1 for a spectator. A PLAYER is
//
//	{"hero":{"id":1,"health":30,"armor":0},"mana":2,"maxMana":3,"deck":24,
//	 "hand":[{"id":7,"name":"Wisp","cost":0},…],
//	 "board":[{"id":9,"name":"Bloodfen Raptor","attack":3,"health":2,"order":4},…],
//	 "graveyard":[{"id":11,"name":"Fireball"},…]}
//
// where a hand card shows its name and cost to its own seat only (others
// get {"id":7}), a minion adds "taunt":true for Taunt and "ready":true when
// it may attack this turn, and the deck is a count.
type View struct {
	Phase    string          `json:"phase"`
	Turn     int             `json:"turn"`
	Active   int             `json:"active"`
	First    int             `json:"first"`
	Seat     int             `json:"seat"`
	Winner   *int            `json:"winner,omitempty"`
	Conceded bool            `json:"conceded,omitempty"`
	Players  [Seats]SeatView `json:"players"`
}

// SeatView is one seat's side of a View.
type SeatView struct {
	Hero      Hero       `json:"hero"`
	Mana      int32      `json:"mana"`
	MaxMana   int32      `json:"maxMana"`
	Deck      int        `json:"deck"`
	Hand      []HandCard `json:"hand"`
	Board     []Minion   `json:"board"`
	Graveyard []Dead     `json:"graveyard"`
}

// Hero is a hero as everyone sees it.
type Hero struct {
	ID     ID    `json:"id"`
	Health int32 `json:"health"`
	Armor  int32 `json:"armor"`
}

// HandCard is a card in a hand: its id, and for its own seat its name and
// cost (Name "" when hidden).
type HandCard struct {
	ID   ID
	Name string
	Cost int32
}

// MarshalJSON writes {"id":ID}, or {"id":ID,"name":N,"cost":C} when shown.
func (h HandCard) MarshalJSON() ([]byte, error) {
	if h.Name == "" {
		return json.Marshal(struct {
			ID ID `json:"id"`
		}{h.ID})
	}
	return json.Marshal(struct {
		ID   ID     `json:"id"`
		Name string `json:"name"`
		Cost int32  `json:"cost"`
	}{h.ID, h.Name, h.Cost})
}

// UnmarshalJSON decodes either form.
func (h *HandCard) UnmarshalJSON(data []byte) error {
	var w struct {
		ID   ID     `json:"id"`
		Name string `json:"name"`
		Cost int32  `json:"cost"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*h = HandCard{w.ID, w.Name, w.Cost}
	return nil
}

// Minion is a minion on a board, left to right.
type Minion struct {
	ID     ID     `json:"id"`
	Name   string `json:"name"`
	Attack int32  `json:"attack"`
	Health int32  `json:"health"`
	Order  uint32 `json:"order"`
	Taunt  bool   `json:"taunt,omitempty"`
	Ready  bool   `json:"ready,omitempty"`
}

// Dead is a card in a graveyard, in order of arrival.
type Dead struct {
	ID   ID     `json:"id"`
	Name string `json:"name"`
}

// Clone returns a copy of v that shares nothing with it.
func (v View) Clone() View {
	out := v
	if v.Winner != nil {
		w := *v.Winner
		out.Winner = &w
	}
	for p := range v.Players {
		out.Players[p].Hand = slices.Clone(v.Players[p].Hand)
		out.Players[p].Board = slices.Clone(v.Players[p].Board)
		out.Players[p].Graveyard = slices.Clone(v.Players[p].Graveyard)
	}
	return out
}

// Apply returns the view after events, the events of the next update as
// ProjectEvents gave them to this view's viewer: the view the server would
// project then. v is not changed.
func (v View) Apply(events []Event) View {
	out := v.Clone()
	for _, e := range events {
		out.apply(e)
	}
	return out
}

func (v *View) apply(e Event) {
	switch e.Type {
	case EventTurn:
		v.Turn, v.Active = e.Turn, e.Seat
		v.Players[e.Seat].Mana, v.Players[e.Seat].MaxMana = e.Mana, e.MaxMana
		for p := range v.Players {
			for i := range v.Players[p].Board {
				v.Players[p].Board[i].Ready = p == e.Seat
			}
		}
	case EventPlay:
		sv := &v.Players[e.Seat]
		sv.Hand = slices.DeleteFunc(sv.Hand, func(h HandCard) bool { return h.ID == e.ID })
		sv.Mana -= e.Cost
		if e.Spell {
			sv.Graveyard = append(sv.Graveyard, Dead{e.ID, e.Card})
		}
	case EventAttack:
		if m := v.minion(e.Attacker); m != nil {
			m.Ready = false
		}
	case EventEnd:
		v.Phase, v.Conceded = e.Phase, e.Conceded
		if e.Winner >= 0 {
			w := e.Winner
			v.Winner = &w
		}
	case string(cards.EventSummoned):
		sv := &v.Players[e.Seat]
		sv.Board = append(sv.Board, Minion{ID: e.ID, Name: e.Card, Attack: e.Attack, Health: e.Health, Order: e.Order, Taunt: e.Taunt})
	case string(cards.EventDamaged):
		for p := range v.Players {
			if h := &v.Players[p].Hero; h.ID == e.Target {
				a := min(max(h.Armor, 0), e.Amount)
				h.Armor -= a
				h.Health -= e.Amount - a
				return
			}
		}
		if m := v.minion(e.Target); m != nil {
			m.Health -= e.Amount
		}
	case string(cards.EventStatsChanged):
		if m := v.minion(e.ID); m != nil {
			m.Attack, m.Health = e.Attack, e.Health
		}
	case string(cards.EventDestroyed):
		for p := range v.Players {
			sv := &v.Players[p]
			if i := slices.IndexFunc(sv.Board, func(m Minion) bool { return m.ID == e.ID }); i >= 0 {
				sv.Graveyard = append(sv.Graveyard, Dead{e.ID, sv.Board[i].Name})
				sv.Board = slices.Delete(sv.Board, i, i+1)
			}
		}
	case string(cards.EventDrew):
		sv := &v.Players[e.Seat]
		sv.Deck--
		if e.Burned {
			sv.Graveyard = append(sv.Graveyard, Dead{e.ID, e.Card})
		} else {
			sv.Hand = append(sv.Hand, HandCard{e.ID, e.Card, e.Cost})
		}
	case string(cards.EventArmorGained):
		v.Players[e.Seat].Hero.Armor += e.Amount
	}
}

// minion returns the minion id on either board, or nil.
func (v *View) minion(id ID) *Minion {
	for p := range v.Players {
		for i := range v.Players[p].Board {
			if v.Players[p].Board[i].ID == id {
				return &v.Players[p].Board[i]
			}
		}
	}
	return nil
}
