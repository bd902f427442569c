package nim

import (
	"encoding/json"
	"fmt"

	"github.com/roomd/roomd/core/session"
)

// Event types.
const (
	// EventTook is a take: {"type":"took","seat":S,"n":N,"pile":P}, with P
	// the pile left.
	EventTook = "took"
	// EventEnd closes the game and makes every secret public:
	// {"type":"end","winner":W,"lastTaker":S,"secrets":[...]}.
	EventEnd = "end"
)

// Event is a delta a move caused. Type says which fields mean something.
type Event struct {
	Type string

	// EventTook: the seat that took, how many, and the pile left.
	Seat Seat
	N    int
	Pile int

	// EventEnd: the winner, the seat that took the last item, and every
	// seat's secret by seat.
	Winner    Seat
	LastTaker Seat
	Secrets   []int
}

type tookWire struct {
	Type string `json:"type"`
	Seat *Seat  `json:"seat"`
	N    *int   `json:"n"`
	Pile *int   `json:"pile"`
}

type endWire struct {
	Type      string `json:"type"`
	Winner    *Seat  `json:"winner"`
	LastTaker *Seat  `json:"lastTaker"`
	Secrets   []int  `json:"secrets"`
}

// MarshalJSON writes only the fields of the event's type, in a fixed order.
func (e Event) MarshalJSON() ([]byte, error) {
	switch e.Type {
	case EventTook:
		return json.Marshal(tookWire{e.Type, &e.Seat, &e.N, &e.Pile})
	case EventEnd:
		secrets := e.Secrets
		if secrets == nil {
			secrets = []int{}
		}
		return json.Marshal(endWire{e.Type, &e.Winner, &e.LastTaker, secrets})
	default:
		return nil, fmt.Errorf("nim: unknown event type %q", session.Clip(e.Type))
	}
}

// UnmarshalJSON decodes an event of a known type; every field of its type
// must be there.
func (e *Event) UnmarshalJSON(data []byte) error {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return fmt.Errorf("nim event: %w", err)
	}
	switch head.Type {
	case EventTook:
		var w tookWire
		if err := json.Unmarshal(data, &w); err != nil {
			return fmt.Errorf("nim event: %w", err)
		}
		if w.Seat == nil || w.N == nil || w.Pile == nil {
			return fmt.Errorf(`nim event: took needs "seat", "n" and "pile"`)
		}
		*e = Event{Type: EventTook, Seat: *w.Seat, N: *w.N, Pile: *w.Pile}
	case EventEnd:
		var w endWire
		if err := json.Unmarshal(data, &w); err != nil {
			return fmt.Errorf("nim event: %w", err)
		}
		if w.Winner == nil || w.LastTaker == nil || w.Secrets == nil {
			return fmt.Errorf(`nim event: end needs "winner", "lastTaker" and "secrets"`)
		}
		*e = Event{Type: EventEnd, Winner: *w.Winner, LastTaker: *w.LastTaker, Secrets: w.Secrets}
	default:
		return fmt.Errorf("nim event: unknown type %q", session.Clip(head.Type))
	}
	return nil
}
