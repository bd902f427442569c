package cardgame

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/roomd/roomd/core/cards"
	"github.com/roomd/roomd/core/session"
)

// The command types.
const (
	MovePlay    = "play"
	MoveAttack  = "attack"
	MoveEnd     = "end"
	MoveConcede = "concede"
)

// ID names a hero or a card (§2): heroes are 1 and 2, cards follow.
type ID = cards.ID

// Move is a command. Its JSON forms are:
//
//	{"type":"play","card":ID}                 play a card from the hand
//	{"type":"play","card":ID,"target":ID}     ... on a chosen target
//	{"type":"attack","attacker":ID,"defender":ID}
//	{"type":"end"}                            end the turn
//	{"type":"concede"}                        give up (at any time)
type Move struct {
	Type string
	// Card is the hand card of a play; Target its chosen target (0: none).
	Card, Target ID
	// Attacker and Defender are the characters of an attack.
	Attacker, Defender ID
}

// Play is the command playing card, on target (0 for none).
func Play(card, target ID) Move { return Move{Type: MovePlay, Card: card, Target: target} }

// Attack is the command attacking defender with attacker.
func Attack(attacker, defender ID) Move {
	return Move{Type: MoveAttack, Attacker: attacker, Defender: defender}
}

// End is the command ending the turn.
func End() Move { return Move{Type: MoveEnd} }

// Concede is the command giving up.
func Concede() Move { return Move{Type: MoveConcede} }

// MarshalJSON writes the command's type and its fields.
func (m Move) MarshalJSON() ([]byte, error) {
	switch m.Type {
	case MovePlay:
		if m.Target != 0 {
			return fmt.Appendf(nil, `{"type":"play","card":%d,"target":%d}`, m.Card, m.Target), nil
		}
		return fmt.Appendf(nil, `{"type":"play","card":%d}`, m.Card), nil
	case MoveAttack:
		return fmt.Appendf(nil, `{"type":"attack","attacker":%d,"defender":%d}`, m.Attacker, m.Defender), nil
	case MoveEnd, MoveConcede:
		return fmt.Appendf(nil, `{"type":%q}`, m.Type), nil
	}
	return nil, fmt.Errorf("cardgame: move of unknown type %q", m.Type)
}

// moveFields lists the fields of each command type, "type" aside; the
// first ones of play are required, "target" is optional.
var moveFields = map[string][]string{
	MovePlay:    {"card", "target"},
	MoveAttack:  {"attacker", "defender"},
	MoveEnd:     nil,
	MoveConcede: nil,
}

// UnmarshalJSON decodes a command strictly. Every refusal is a malformed
// *session.Rejection: an unknown type is session.CodeUnknownMove, and
// anything else (not an object, a missing field, an id that is not an
// integer from 1 to 2^32-1, an unknown field, a duplicate key) is
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
	fields, ok := moveFields[typ]
	if !ok {
		return session.Malformed(session.CodeUnknownMove, "unknown move type %q", session.Clip(typ))
	}
	out := Move{Type: typ}
	for _, f := range ms {
		if f.Key == "type" {
			continue
		}
		var dst *ID
		switch {
		case typ == MovePlay && f.Key == "card":
			dst = &out.Card
		case typ == MovePlay && f.Key == "target":
			dst = &out.Target
		case typ == MoveAttack && f.Key == "attacker":
			dst = &out.Attacker
		case typ == MoveAttack && f.Key == "defender":
			dst = &out.Defender
		default:
			return session.Malformed(session.CodeMalformedInput, "%s has an unknown field %q", typ, session.Clip(f.Key))
		}
		v, ok := session.Whole(f.Value)
		if !ok || v < 1 || v > math.MaxUint32 {
			return session.Malformed(session.CodeMalformedInput, "%s %q must be an id (an integer from 1 to %d), got %s",
				typ, f.Key, uint32(math.MaxUint32), session.Clip(string(f.Value)))
		}
		*dst = ID(v)
	}
	for i, f := range fields {
		if typ == MovePlay && i > 0 {
			break // target is optional
		}
		if _, ok := session.Lookup(ms, f); !ok {
			return session.Malformed(session.CodeMalformedInput, "%s has no %q", typ, f)
		}
	}
	*m = out
	return nil
}
