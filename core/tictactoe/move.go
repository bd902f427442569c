package tictactoe

import (
	"encoding/json"

	"github.com/roomd/roomd/core/session"
)

// MoveMark is the type of the only command.
const MoveMark = "mark"

// Size is the grid's side: rows and columns are numbered 0 to Size-1.
const Size = 3

// Move is a command: mark the square at row R, column C with the mover's
// mark. Its JSON form is {"type":"mark","r":R,"c":C}.
type Move struct {
	R, C int
}

// inside reports whether the square is on the grid.
func (m Move) inside() bool { return m.R >= 0 && m.R < Size && m.C >= 0 && m.C < Size }

type moveWire struct {
	Type string `json:"type"`
	R    int    `json:"r"`
	C    int    `json:"c"`
}

// MarshalJSON writes {"type":"mark","r":R,"c":C}.
func (m Move) MarshalJSON() ([]byte, error) { return json.Marshal(moveWire{MoveMark, m.R, m.C}) }

// UnmarshalJSON decodes a command strictly. Every refusal is a malformed
// *session.Rejection, since no genuine client sends one: an unknown type is
// session.CodeUnknownMove, a square off the grid session.CodeOutOfBounds,
// and anything else (not an object, a missing or non-integer r or c, an
// unknown field) session.CodeMalformedInput.
func (m *Move) UnmarshalJSON(data []byte) error {
	fields, err := object(data)
	if err != nil {
		return session.Malformed(session.CodeMalformedInput, "a command must be a JSON object")
	}
	var typ string
	if raw, ok := fields["type"]; !ok || json.Unmarshal(raw, &typ) != nil {
		return session.Malformed(session.CodeMalformedInput, `a command needs a string "type"`)
	}
	if typ != MoveMark {
		return session.Malformed(session.CodeUnknownMove, "unknown move type %q", session.Clip(typ))
	}
	if k, ok := unknownKey(fields, "type", "r", "c"); ok {
		return session.Malformed(session.CodeMalformedInput, "mark has an unknown field %q", session.Clip(k))
	}
	var at [2]float64
	for i, k := range []string{"r", "c"} {
		raw, ok := fields[k]
		if !ok {
			return session.Malformed(session.CodeMalformedInput, "mark has no %q", k)
		}
		if at[i], ok = session.Whole(raw); !ok {
			return session.Malformed(session.CodeMalformedInput, "mark %q must be an integer, got %s", k, session.Clip(string(raw)))
		}
	}
	if at[0] < 0 || at[0] >= Size || at[1] < 0 || at[1] >= Size {
		return session.Malformed(session.CodeOutOfBounds, "square (%v, %v) is off the %d×%d grid", at[0], at[1], Size, Size)
	}
	*m = Move{R: int(at[0]), C: int(at[1])}
	return nil
}
