package spellgridgame

import (
	"encoding/json"
	"slices"
	"unicode/utf8"

	"github.com/roomd/roomd/core/baba"
	"github.com/roomd/roomd/core/session"
)

// The types of the commands.
const (
	MoveStep    = "step"
	MoveCast    = "cast"
	MovePlay    = "play"
	MoveUndo    = "undo"
	MoveRestart = "restart"
)

// MaxCardName bounds a card name in a command, in characters.
const MaxCardName = 64

// Move is a command. Its JSON forms are
//
//	{"type":"step","dir":"up"}                    one turn; dir is up, down, left or right
//	{"type":"cast","card":"Fireball","target":12} a spell from the hand; target is optional
//	{"type":"play","card":"Rune Scribe","x":2,"y":2}
//	{"type":"undo"}
//	{"type":"restart"}
type Move struct {
	Type string
	// Dir is a step's direction.
	Dir baba.Dir
	// Card is the card of a cast or a play.
	Card string
	// Target is a cast's target, a live minion's id; 0 for none.
	Target baba.ID
	// X and Y are a play's tile.
	X, Y int
}

// MarshalJSON writes the command's canonical form: only its type's
// members, in the order above.
func (m Move) MarshalJSON() ([]byte, error) {
	switch m.Type {
	case MoveStep:
		return json.Marshal(struct {
			Type string   `json:"type"`
			Dir  baba.Dir `json:"dir"`
		}{m.Type, m.Dir})
	case MoveCast:
		return json.Marshal(struct {
			Type   string  `json:"type"`
			Card   string  `json:"card"`
			Target baba.ID `json:"target,omitempty"`
		}{m.Type, m.Card, m.Target})
	case MovePlay:
		return json.Marshal(struct {
			Type string `json:"type"`
			Card string `json:"card"`
			X    int    `json:"x"`
			Y    int    `json:"y"`
		}{m.Type, m.Card, m.X, m.Y})
	}
	return json.Marshal(struct {
		Type string `json:"type"`
	}{m.Type})
}

// UnmarshalJSON decodes a command strictly. Every refusal is a malformed
// *session.Rejection, since no genuine client sends one: an unknown type is
// session.CodeUnknownMove, a tile off the largest level session.CodeOutOfBounds,
// and anything else session.CodeMalformedInput.
func (m *Move) UnmarshalJSON(data []byte) error {
	ms, err := session.Members(data)
	if err != nil {
		return session.Malformed(session.CodeMalformedInput, "a command must be a JSON object: %v", err)
	}
	var typ string
	if raw, ok := session.Lookup(ms, "type"); !ok || json.Unmarshal(raw, &typ) != nil || string(raw) == "null" {
		return session.Malformed(session.CodeMalformedInput, `a command needs a string "type"`)
	}
	known := map[string][]string{
		MoveStep:    {"type", "dir"},
		MoveCast:    {"type", "card", "target"},
		MovePlay:    {"type", "card", "x", "y"},
		MoveUndo:    {"type"},
		MoveRestart: {"type"},
	}
	keys, ok := known[typ]
	if !ok {
		return session.Malformed(session.CodeUnknownMove, "unknown move type %q", session.Clip(typ))
	}
	for _, mb := range ms {
		if !slices.Contains(keys, mb.Key) {
			return session.Malformed(session.CodeMalformedInput, "%s has an unknown field %q", typ, session.Clip(mb.Key))
		}
	}
	out := Move{Type: typ}
	switch typ {
	case MoveStep:
		raw, ok := session.Lookup(ms, "dir")
		var word string
		if !ok || json.Unmarshal(raw, &word) != nil || string(raw) == "null" {
			return session.Malformed(session.CodeMalformedInput, `step needs a string "dir"`)
		}
		if out.Dir, err = baba.ParseDir(word); err != nil {
			return session.Malformed(session.CodeMalformedInput, "dir must be up, down, left or right, got %q", session.Clip(word))
		}
	case MoveCast, MovePlay:
		raw, ok := session.Lookup(ms, "card")
		if !ok || json.Unmarshal(raw, &out.Card) != nil || string(raw) == "null" {
			return session.Malformed(session.CodeMalformedInput, `%s needs a string "card"`, typ)
		}
		if n := utf8.RuneCountInString(out.Card); n == 0 || n > MaxCardName {
			return session.Malformed(session.CodeMalformedInput, "card must be a name of 1 to %d characters", MaxCardName)
		}
		if typ == MoveCast {
			if raw, ok := session.Lookup(ms, "target"); ok {
				v, whole := session.Whole(raw)
				if !whole || v < 1 || v > 1<<32-1 {
					return session.Malformed(session.CodeMalformedInput, "target must be an id from 1 to 4294967295, got %s", session.Clip(string(raw)))
				}
				out.Target = baba.ID(v)
			}
			break
		}
		var at [2]float64
		for i, k := range []string{"x", "y"} {
			raw, ok := session.Lookup(ms, k)
			if !ok {
				return session.Malformed(session.CodeMalformedInput, "play has no %q", k)
			}
			if at[i], ok = session.Whole(raw); !ok {
				return session.Malformed(session.CodeMalformedInput, "play %q must be an integer, got %s", k, session.Clip(string(raw)))
			}
		}
		if at[0] < 0 || at[0] >= baba.MaxSide || at[1] < 0 || at[1] >= baba.MaxSide {
			return session.Malformed(session.CodeOutOfBounds, "tile (%v, %v) is off every level", at[0], at[1])
		}
		out.X, out.Y = int(at[0]), int(at[1])
	}
	*m = out
	return nil
}
