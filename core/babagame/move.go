package babagame

import (
	"encoding/json"

	"github.com/roomd/roomd/core/baba"
	"github.com/roomd/roomd/core/session"
)

// Command types.
const (
	// MoveStep is one turn of the engine: {"type":"step","dir":"up"}, with
	// "dir" one of "up", "down", "left", "right".
	MoveStep = "step"
	// MoveUndo reverts the last accepted step: {"type":"undo"}.
	MoveUndo = "undo"
	// MoveRestart reloads the level: {"type":"restart"}.
	MoveRestart = "restart"
)

// Move is a command. Dir means something for MoveStep only.
type Move struct {
	Type string
	Dir  baba.Dir
}

// valid reports whether the move is one a decoder returns.
func (m Move) valid() bool {
	switch m.Type {
	case MoveStep:
		return m.Dir.Valid()
	case MoveUndo, MoveRestart:
		return m.Dir == 0
	}
	return false
}

// MarshalJSON writes {"type":"step","dir":"up"}, {"type":"undo"} or
// {"type":"restart"}.
func (m Move) MarshalJSON() ([]byte, error) {
	if m.Type == MoveStep {
		return []byte(`{"type":"step","dir":"` + m.Dir.String() + `"}`), nil
	}
	return json.Marshal(struct {
		Type string `json:"type"`
	}{m.Type})
}

// UnmarshalJSON decodes a command strictly. Every refusal is a malformed
// *session.Rejection, since no genuine client sends one: an unknown type is
// session.CodeUnknownMove, anything else (not an object, a duplicate key, a
// missing or unknown direction, an unknown field) session.CodeMalformedInput,
// with a reason naming the field.
func (m *Move) UnmarshalJSON(data []byte) error {
	members, err := session.Members(data)
	if err != nil {
		return session.Malformed(session.CodeMalformedInput, "a command must be a JSON object with distinct keys")
	}
	var typ string
	if raw, ok := session.Lookup(members, "type"); !ok || json.Unmarshal(raw, &typ) != nil {
		return session.Malformed(session.CodeMalformedInput, `a command needs a string "type"`)
	}
	switch typ {
	case MoveStep, MoveUndo, MoveRestart:
	default:
		return session.Malformed(session.CodeUnknownMove, "unknown move type %q", session.Clip(typ))
	}
	out := Move{Type: typ}
	for _, mem := range members {
		switch {
		case mem.Key == "type":
		case mem.Key == "dir" && typ == MoveStep:
			var word string
			if json.Unmarshal(mem.Value, &word) != nil {
				return session.Malformed(session.CodeMalformedInput, `step "dir" must be "up", "down", "left" or "right", got %s`, session.Clip(string(mem.Value)))
			}
			d, err := baba.ParseDir(word)
			if err != nil {
				return session.Malformed(session.CodeMalformedInput, `step "dir" must be "up", "down", "left" or "right", got %q`, session.Clip(word))
			}
			out.Dir = d
		default:
			return session.Malformed(session.CodeMalformedInput, "%s has an unknown field %q", typ, session.Clip(mem.Key))
		}
	}
	if _, ok := session.Lookup(members, "dir"); typ == MoveStep && !ok {
		return session.Malformed(session.CodeMalformedInput, `step has no "dir"`)
	}
	*m = out
	return nil
}
