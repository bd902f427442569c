package nim

import (
	"encoding/json"

	"github.com/roomd/roomd/core/session"
)

// MoveTake is the type of the only command.
const MoveTake = "take"

// MinTake and MaxTake bound the items one take removes.
const (
	MinTake = 1
	MaxTake = 3
)

// Move is a command: take N items (MinTake to MaxTake) from the pile. Its
// JSON form is {"type":"take","n":N}.
type Move struct {
	N int
}

type moveWire struct {
	Type string `json:"type"`
	N    int    `json:"n"`
}

// MarshalJSON writes {"type":"take","n":N}.
func (m Move) MarshalJSON() ([]byte, error) { return json.Marshal(moveWire{MoveTake, m.N}) }

// UnmarshalJSON decodes a command strictly. Every refusal is a malformed
// *session.Rejection: an unknown type is session.CodeUnknownMove, an n
// outside 1 to 3 is session.CodeInvalidMove, and anything else (not an
// object, a missing or non-integer n, an unknown field, a duplicate key) is
// session.CodeMalformedInput.
func (m *Move) UnmarshalJSON(data []byte) error {
	ms, err := session.Members(data)
	if err != nil {
		return session.Malformed(session.CodeMalformedInput, "move: %v", err)
	}
	rawType, ok := session.Lookup(ms, "type")
	if !ok {
		return session.Malformed(session.CodeMalformedInput, `move has no "type"`)
	}
	var typ string
	if err := json.Unmarshal(rawType, &typ); err != nil {
		return session.Malformed(session.CodeMalformedInput, `move "type" must be a string`)
	}
	if typ != MoveTake {
		return session.Malformed(session.CodeUnknownMove, "unknown move type %q", session.Clip(typ))
	}
	for _, f := range ms {
		if f.Key != "type" && f.Key != "n" {
			return session.Malformed(session.CodeMalformedInput, "take has an unknown field %q", session.Clip(f.Key))
		}
	}
	rawN, ok := session.Lookup(ms, "n")
	if !ok {
		return session.Malformed(session.CodeMalformedInput, `take has no "n"`)
	}
	n, ok := session.Whole(rawN)
	if !ok {
		return session.Malformed(session.CodeMalformedInput, `take "n" must be an integer, got %s`, session.Clip(string(rawN)))
	}
	if n < MinTake || n > MaxTake {
		return session.Malformed(session.CodeInvalidMove, "take n must be 1, 2 or 3, got %v", n)
	}
	*m = Move{N: int(n)}
	return nil
}
