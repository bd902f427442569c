package tictactoe

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/roomd/roomd/core/session"
)

// Event types.
const (
	// EventMark is a mark: {"type":"mark","seat":S,"r":R,"c":C}.
	EventMark = "mark"
	// EventEnd closes the match, after the mark that ended it:
	// {"type":"end","phase":"won","winner":W,"line":[{"r":R,"c":C},...]}
	// or {"type":"end","phase":"draw"}.
	EventEnd = "end"
)

// Event is a delta a move caused. Type says which fields mean something.
type Event struct {
	Type string

	// EventMark: the seat that marked, and the square.
	Seat Seat
	R, C int

	// EventEnd: the phase ("won" or "draw") and, when won, the winner and
	// the winning line.
	Phase  string
	Winner *Seat
	Line   []Cell
}

// eventWire is both events' JSON form: only the fields of the event's type
// are set, in this order.
type eventWire struct {
	Type   string `json:"type"`
	Seat   *Seat  `json:"seat,omitempty"`
	R      *int   `json:"r,omitempty"`
	C      *int   `json:"c,omitempty"`
	Phase  string `json:"phase,omitempty"`
	Winner *Seat  `json:"winner,omitempty"`
	Line   []Cell `json:"line,omitempty"`
}

// MarshalJSON writes only the fields of the event's type, in a fixed order.
func (e Event) MarshalJSON() ([]byte, error) {
	switch e.Type {
	case EventMark:
		return json.Marshal(eventWire{Type: e.Type, Seat: &e.Seat, R: &e.R, C: &e.C})
	case EventEnd:
		return json.Marshal(eventWire{Type: e.Type, Phase: e.Phase, Winner: e.Winner, Line: e.Line})
	default:
		return nil, fmt.Errorf("tictactoe: unknown event type %q", session.Clip(e.Type))
	}
}

// UnmarshalJSON decodes an event of a known type; every field of its type
// must be there, and a mark's square on the grid.
func (e *Event) UnmarshalJSON(data []byte) error {
	var w eventWire
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("tictactoe event: %w", err)
	}
	switch w.Type {
	case EventMark:
		if w.Seat == nil || w.R == nil || w.C == nil {
			return fmt.Errorf(`tictactoe event: mark needs "seat", "r" and "c"`)
		}
		if *w.Seat < 0 || *w.Seat >= Seats || !(Move{*w.R, *w.C}).inside() {
			return fmt.Errorf("tictactoe event: mark by seat %d on (%d, %d)", *w.Seat, *w.R, *w.C)
		}
		*e = Event{Type: EventMark, Seat: *w.Seat, R: *w.R, C: *w.C}
	case EventEnd:
		switch {
		case w.Phase == PhaseWon && (w.Winner == nil || len(w.Line) != Size):
			return fmt.Errorf(`tictactoe event: a won end needs "winner" and a "line" of %d squares`, Size)
		case w.Phase != PhaseWon && w.Phase != PhaseDraw:
			return fmt.Errorf("tictactoe event: end with phase %q", session.Clip(w.Phase))
		}
		*e = Event{Type: EventEnd, Phase: w.Phase}
		if w.Phase == PhaseWon {
			e.Winner, e.Line = w.Winner, slices.Clone(w.Line)
		}
	default:
		return fmt.Errorf("tictactoe event: unknown type %q", session.Clip(w.Type))
	}
	return nil
}
