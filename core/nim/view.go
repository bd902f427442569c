package nim

import (
	"encoding/json"
	"slices"
)

// Take is one turn of the history: which seat took how many.
type Take struct {
	Seat Seat `json:"seat"`
	N    int  `json:"n"`
}

// View is what one viewer may see:
//
//	{"config":{...},"pile":P,"turn":T,"seats":N,"you":S,"secret":K,
//	 "history":[{"seat":S,"n":N},...],"over":false}
//
// "you" and "secret" are there for a seat while the game runs, never for a
// spectator. Once over, every viewer gets the same view, without "you" and
// "secret" but with "winner" and "secrets" (every seat's, by seat).
type View struct {
	// Config is the config as the match was started with it.
	Config json.RawMessage `json:"config"`
	Pile   int             `json:"pile"`
	// Turn is the seat to act; once over, the seat that took last.
	Turn    Seat   `json:"turn"`
	Seats   int    `json:"seats"`
	You     *Seat  `json:"you,omitempty"`
	Secret  *int   `json:"secret,omitempty"`
	History []Take `json:"history"`
	Over    bool   `json:"over"`
	Winner  *Seat  `json:"winner,omitempty"`
	Secrets []int  `json:"secrets,omitempty"`
}

// Apply updates a view with events the same viewer was sent, so that a
// client that starts from a view and applies each update's events holds
// the view the server would project for it. Unknown events are ignored.
func (v *View) Apply(events []Event) {
	for _, e := range events {
		switch e.Type {
		case EventTook:
			v.Pile = e.Pile
			v.History = append(v.History, Take{Seat: e.Seat, N: e.N})
			v.Turn = e.Seat
			if e.Pile > 0 && v.Seats > 0 {
				v.Turn = (e.Seat + 1) % v.Seats
			}
		case EventEnd:
			w := e.Winner
			v.Over, v.Winner, v.Turn = true, &w, e.LastTaker
			v.Secrets = slices.Clone(e.Secrets)
			v.You, v.Secret = nil, nil
		}
	}
}
