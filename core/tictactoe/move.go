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

// UnmarshalJSON decodes a command strictly (session.Strict: the schema's
// exact keys, each once, "type", "r" and "c" all required, r and c whole
// numbers). Every refusal is a malformed *session.Rejection, since no
// genuine client sends one: an unknown type is session.CodeUnknownMove, a
// square off the grid session.CodeOutOfBounds, and anything else
// session.CodeMalformedInput.
func (m *Move) UnmarshalJSON(data []byte) error {
	var w moveWire
	err := session.Strict(data, &w)
	if err != nil {
		// Another game's command (its other fields unknown here) is an
		// unknown type first.
		var typ string
		if ms, e := session.Members(data); e == nil {
			if raw, ok := session.Lookup(ms, "type"); ok && json.Unmarshal(raw, &typ) == nil && typ != MoveMark {
				w.Type = typ
			}
		}
		if w.Type == "" || w.Type == MoveMark {
			return err
		}
	}
	if w.Type != MoveMark {
		return session.Malformed(session.CodeUnknownMove, "unknown move type %q", session.Clip(w.Type))
	}
	if *m = (Move{R: w.R, C: w.C}); !m.inside() {
		return session.Malformed(session.CodeOutOfBounds, "square (%d, %d) is off the %d×%d grid", w.R, w.C, Size, Size)
	}
	return nil
}
