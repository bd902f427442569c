package minesweeper

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// EventType names an event.
type EventType uint8

// Event types. Reveal, Flag, Explode and Win are the reference's; End and
// Progress exist only in races.
const (
	EventReveal   EventType = iota + 1 // cells were revealed
	EventFlag                          // a flag was toggled
	EventExplode                       // a mine was revealed: the board is lost
	EventWin                           // every safe cell is revealed
	EventEnd                           // race: the match ended while this board was not won
	EventProgress                      // race: another seat's board changed
)

var eventNames = [...]string{EventReveal: "reveal", EventFlag: "flag", EventExplode: "explode",
	EventWin: "win", EventEnd: "end", EventProgress: "progress"}

func (t EventType) String() string {
	if t >= EventReveal && t <= EventProgress {
		return eventNames[t]
	}
	return fmt.Sprintf("EventType(%d)", t)
}

// RevealedCell is a cell a reveal opened.
type RevealedCell struct {
	R        int `json:"r"`
	C        int `json:"c"`
	Adjacent int `json:"adjacent"`
}

// Pos is a cell address in events: {"r","c"}.
type Pos struct {
	R int `json:"r"`
	C int `json:"c"`
}

// Event is a change to a board. Its JSON, key order included, is the
// reference's in solo and coop:
//
//	{"type":"reveal","cells":[{"r":0,"c":0,"adjacent":0},…]}
//	{"type":"flag","r":1,"c":2,"flagged":true}
//	{"type":"explode","r":1,"c":2,"mines":[{"r":1,"c":2},…]}
//	{"type":"win"}
//
// In a race every event names its board's seat after "type", and two more
// types exist:
//
//	{"type":"reveal","seat":1,"cells":[…]}
//	{"type":"explode","seat":1,"r":1,"c":2}             (mines omitted while the match runs)
//	{"type":"end","seat":1,"mines":[{"r":0,"c":3},…]}  (the match ended; this board lost)
//	{"type":"progress","seat":1,"phase":"active","revealed":12,"safe":71,"flags":2}
//
// A progress event stands for the events of a board the viewer may not see
// while the race runs (see Rules.ProjectEvents).
type Event struct {
	Type EventType
	// Seat is the board's seat; Tagged says it is set (race events only).
	Seat   int
	Tagged bool
	// R, C: flag and explode.
	R, C int
	// Flagged: flag, the new state.
	Flagged bool
	// Cells: reveal, in flood order.
	Cells []RevealedCell
	// Mines: explode and end, every mine row-major. Nil on a race's explode
	// while the match runs (omitted from JSON).
	Mines []Pos
	// Phase, Revealed, Safe and Flags: progress.
	Phase    Phase
	Revealed int
	Safe     int
	Flags    int
}

// MarshalJSON writes the event in the reference's key order.
func (e Event) MarshalJSON() ([]byte, error) {
	if e.Type < EventReveal || e.Type > EventProgress {
		return nil, fmt.Errorf("minesweeper: cannot encode %v", e.Type)
	}
	return e.AppendJSON(nil), nil
}

// AppendJSON appends the event's JSON to b.
func (e Event) AppendJSON(b []byte) []byte {
	b = append(b, `{"type":"`...)
	b = append(b, eventNames[e.Type]...)
	b = append(b, '"')
	if e.Tagged {
		b = appendInt(append(b, `,"seat":`...), e.Seat)
	}
	switch e.Type {
	case EventReveal:
		b = append(b, `,"cells":[`...)
		for i, c := range e.Cells {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendInt(append(b, `{"r":`...), c.R)
			b = appendInt(append(b, `,"c":`...), c.C)
			b = appendInt(append(b, `,"adjacent":`...), c.Adjacent)
			b = append(b, '}')
		}
		b = append(b, ']')
	case EventFlag:
		b = appendRC(b, e.R, e.C)
		b = strconv.AppendBool(append(b, `,"flagged":`...), e.Flagged)
	case EventExplode:
		b = appendRC(b, e.R, e.C)
		if e.Mines != nil {
			b = appendMines(b, e.Mines)
		}
	case EventEnd:
		b = appendMines(b, e.Mines)
	case EventProgress:
		b = append(append(append(b, `,"phase":"`...), phaseNames[e.Phase%4]...), '"')
		b = appendInt(append(b, `,"revealed":`...), e.Revealed)
		b = appendInt(append(b, `,"safe":`...), e.Safe)
		b = appendInt(append(b, `,"flags":`...), e.Flags)
	}
	return append(b, '}')
}

func appendInt(b []byte, v int) []byte { return strconv.AppendInt(b, int64(v), 10) }

func appendRC(b []byte, r, c int) []byte {
	b = appendInt(append(b, `,"r":`...), r)
	return appendInt(append(b, `,"c":`...), c)
}

func appendMines(b []byte, mines []Pos) []byte {
	b = append(b, `,"mines":[`...)
	for i, m := range mines {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendInt(append(b, `{"r":`...), m.R)
		b = appendInt(append(b, `,"c":`...), m.C)
		b = append(b, '}')
	}
	return append(b, ']')
}

type wireCell struct {
	R        *int `json:"r"`
	C        *int `json:"c"`
	Adjacent *int `json:"adjacent"`
}

type wireEvent struct {
	Type     string      `json:"type"`
	Seat     *int        `json:"seat"`
	R        *int        `json:"r"`
	C        *int        `json:"c"`
	Flagged  *bool       `json:"flagged"`
	Cells    *[]wireCell `json:"cells"`
	Mines    *[]wireCell `json:"mines"`
	Phase    *Phase      `json:"phase"`
	Revealed *int        `json:"revealed"`
	Safe     *int        `json:"safe"`
	Flags    *int        `json:"flags"`
}

// UnmarshalJSON decodes any form MarshalJSON writes, checking that each
// type has its fields.
func (e *Event) UnmarshalJSON(data []byte) error {
	var w wireEvent
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("minesweeper event: %w", err)
	}
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return errors.New("minesweeper event: null")
	}
	var out Event
	for t := EventReveal; t <= EventProgress; t++ {
		if w.Type == eventNames[t] {
			out.Type = t
		}
	}
	missing := func(field string) error {
		return fmt.Errorf("minesweeper event: %s event without %s", w.Type, field)
	}
	if w.Seat != nil {
		out.Seat, out.Tagged = *w.Seat, true
	}
	switch out.Type {
	case 0:
		return fmt.Errorf("minesweeper event: unknown type %q", clip([]byte(w.Type)))
	case EventReveal:
		if w.Cells == nil {
			return missing("cells")
		}
		out.Cells = make([]RevealedCell, len(*w.Cells))
		for i, c := range *w.Cells {
			if c.R == nil || c.C == nil || c.Adjacent == nil {
				return missing("r, c and adjacent in every cell")
			}
			out.Cells[i] = RevealedCell{R: *c.R, C: *c.C, Adjacent: *c.Adjacent}
		}
	case EventFlag:
		if w.R == nil || w.C == nil || w.Flagged == nil {
			return missing("r, c and flagged")
		}
		out.R, out.C, out.Flagged = *w.R, *w.C, *w.Flagged
	case EventExplode, EventEnd:
		if out.Type == EventExplode {
			if w.R == nil || w.C == nil {
				return missing("r and c")
			}
			out.R, out.C = *w.R, *w.C
		}
		if w.Mines == nil && (out.Type == EventEnd || !out.Tagged) {
			return missing("mines")
		}
		if w.Mines != nil {
			out.Mines = make([]Pos, len(*w.Mines))
			for i, c := range *w.Mines {
				if c.R == nil || c.C == nil {
					return missing("r and c in every mine")
				}
				out.Mines[i] = Pos{R: *c.R, C: *c.C}
			}
		}
	case EventProgress:
		if w.Seat == nil || w.Phase == nil || w.Revealed == nil || w.Safe == nil || w.Flags == nil {
			return missing("seat, phase, revealed, safe and flags")
		}
		out.Phase, out.Revealed, out.Safe, out.Flags = *w.Phase, *w.Revealed, *w.Safe, *w.Flags
	}
	if (out.Type == EventEnd) && !out.Tagged {
		return missing("seat")
	}
	*e = out
	return nil
}
