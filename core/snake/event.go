package snake

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/roomd/roomd/core/session"
)

// EventType names an event.
type EventType uint8

// Event types, with their JSON forms ("t" names the type).
const (
	// EventTurn: a turn was queued for snake S: {"t":"turn","s":2,"d":"up"}.
	// Only seat S sees it.
	EventTurn EventType = iota + 1
	// EventGo: the countdown ended: {"t":"go"}.
	EventGo
	// EventMove: every snake moved, or not: {"t":"move","d":"rl.u"}, one
	// letter per seat in seat order, u, d, l or r for the way it moved and
	// '.' when it did not (it was dead, or dies at this move).
	EventMove
	// EventDie: snake S died trying to enter a cell (which may lie outside
	// the arena): {"t":"die","s":1,"at":[r,c],"why":"wall"}; why is
	// "wall", "body" or "head".
	EventDie
	// EventFood: a food was placed: {"t":"food","at":[r,c]}.
	EventFood
	// EventOver: the match ended: {"t":"over","winners":[0],"why":"last"};
	// why is "last", "draw", "time" or "dead".
	EventOver
)

var eventNames = [...]string{EventTurn: "turn", EventGo: "go", EventMove: "move", EventDie: "die",
	EventFood: "food", EventOver: "over"}

func (t EventType) String() string {
	if t >= EventTurn && t <= EventOver {
		return eventNames[t]
	}
	return fmt.Sprintf("EventType(%d)", uint8(t))
}

// Moves is a move event's "d": one letter per seat.
type Moves struct {
	// N is the number of seats: the letters used of D.
	N int
	// D holds 'u', 'd', 'l' or 'r' for a snake that moved that way, '.'
	// for one that did not.
	D [MaxSeats]byte
}

// String returns the letters, "rl.u".
func (m Moves) String() string { return string(m.D[:min(max(m.N, 0), MaxSeats)]) }

// Event is a delta of one step. Type says which fields mean something.
// Its JSON forms are documented on the event types.
type Event struct {
	Type EventType
	// Seat: turn and die, the snake's seat.
	Seat Seat
	// Dir: turn, the direction queued.
	Dir Dir
	// Moves: move.
	Moves Moves
	// At: die, the cell the snake tried to enter; food, the new food.
	At Cell
	// Why: die (WhyWall, WhyBody, WhyHead) and over (WhyLast, WhyDraw,
	// WhyTime, WhyDead).
	Why string
	// Winners: over, the winning seats, sorted (empty when nobody won).
	Winners []Seat
}

// AppendJSON appends the event's JSON to b, without allocating beyond b's
// growth: the hot path of a room.
func (e *Event) AppendJSON(b []byte) []byte {
	b = append(b, `{"t":"`...)
	if e.Type >= EventTurn && e.Type <= EventOver {
		b = append(b, eventNames[e.Type]...)
	}
	b = append(b, '"')
	switch e.Type {
	case EventTurn:
		b = strconv.AppendInt(append(b, `,"s":`...), int64(e.Seat), 10)
		b = append(b, `,"d":"`...)
		if e.Dir.Valid() {
			b = append(b, dirNames[e.Dir]...)
		}
		b = append(b, '"')
	case EventMove:
		b = append(b, `,"d":"`...)
		b = append(b, e.Moves.D[:min(max(e.Moves.N, 0), MaxSeats)]...)
		b = append(b, '"')
	case EventDie:
		b = strconv.AppendInt(append(b, `,"s":`...), int64(e.Seat), 10)
		b = appendCell(append(b, `,"at":`...), e.At)
		b = appendString(append(b, `,"why":`...), e.Why)
	case EventFood:
		b = appendCell(append(b, `,"at":`...), e.At)
	case EventOver:
		b = append(b, `,"winners":[`...)
		for i, w := range e.Winners {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(w), 10)
		}
		b = appendString(append(b, `],"why":`...), e.Why)
	}
	return append(b, '}')
}

// appendCell appends [r,c].
func appendCell(b []byte, at Cell) []byte {
	b = strconv.AppendInt(append(b, '['), int64(at[0]), 10)
	b = strconv.AppendInt(append(b, ','), int64(at[1]), 10)
	return append(b, ']')
}

// appendString appends s as a JSON string. The strings of events and views
// are the package's own words, which need no escaping; anything else is
// escaped by encoding/json.
func appendString(b []byte, s string) []byte {
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x7f || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	return append(append(append(b, '"'), s...), '"')
}

// eventWire is every event's JSON form for encoding/json: only the fields
// of the event's type are set, in this order.
type eventWire struct {
	T       string  `json:"t"`
	S       *Seat   `json:"s,omitempty"`
	D       *string `json:"d,omitempty"`
	At      *Cell   `json:"at,omitempty"`
	Winners *[]Seat `json:"winners,omitempty"`
	Why     *string `json:"why,omitempty"`
}

// wire returns the event's JSON form.
func (e Event) wire() (eventWire, error) {
	w := eventWire{T: e.Type.String()}
	switch e.Type {
	case EventTurn:
		if !e.Dir.Valid() {
			return w, fmt.Errorf("snake: a turn event with no direction")
		}
		d := dirNames[e.Dir]
		w.S, w.D = &e.Seat, &d
	case EventGo:
	case EventMove:
		d := e.Moves.String()
		w.D = &d
	case EventDie:
		w.S, w.At, w.Why = &e.Seat, &e.At, &e.Why
	case EventFood:
		w.At = &e.At
	case EventOver:
		ws := e.Winners
		if ws == nil {
			ws = []Seat{}
		}
		w.Winners, w.Why = &ws, &e.Why
	default:
		return w, fmt.Errorf("snake: unknown event type %d", uint8(e.Type))
	}
	return w, nil
}

// MarshalJSON writes only the fields of the event's type, in a fixed
// order, with encoding/json; AppendJSON writes the same bytes faster.
func (e Event) MarshalJSON() ([]byte, error) {
	w, err := e.wire()
	if err != nil {
		return nil, err
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes an event of a known type; every field of its type
// must be there.
func (e *Event) UnmarshalJSON(data []byte) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return errors.New("snake event: null")
	}
	var w eventWire
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("snake event: %w", err)
	}
	missing := func(fields string) error { return fmt.Errorf("snake event: %s needs %s", w.T, fields) }
	var out Event
	switch w.T {
	case "turn":
		if w.S == nil || w.D == nil {
			return missing(`"s" and "d"`)
		}
		d, ok := ParseDir(*w.D)
		if !ok {
			return fmt.Errorf("snake event: turn to %q", session.Clip(*w.D))
		}
		out = Event{Type: EventTurn, Seat: *w.S, Dir: d}
	case "go":
		out = Event{Type: EventGo}
	case "move":
		if w.D == nil {
			return missing(`"d"`)
		}
		if len(*w.D) > MaxSeats {
			return fmt.Errorf("snake event: move of %d seats", len(*w.D))
		}
		out = Event{Type: EventMove, Moves: Moves{N: len(*w.D)}}
		for i := range len(*w.D) {
			c := (*w.D)[i]
			if c != '.' && dirOfChar(c) == 0 {
				return fmt.Errorf("snake event: move %q", session.Clip(*w.D))
			}
			out.Moves.D[i] = c
		}
	case "die":
		if w.S == nil || w.At == nil || w.Why == nil {
			return missing(`"s", "at" and "why"`)
		}
		out = Event{Type: EventDie, Seat: *w.S, At: *w.At, Why: *w.Why}
	case "food":
		if w.At == nil {
			return missing(`"at"`)
		}
		out = Event{Type: EventFood, At: *w.At}
	case "over":
		if w.Winners == nil || w.Why == nil {
			return missing(`"winners" and "why"`)
		}
		out = Event{Type: EventOver, Winners: slices.Clone(*w.Winners), Why: *w.Why}
		if out.Winners == nil {
			out.Winners = []Seat{}
		}
	default:
		return fmt.Errorf("snake event: unknown type %q", session.Clip(w.T))
	}
	*e = out
	return nil
}
