package cardgame

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

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
	if _, ok := moveFields[m.Type]; !ok {
		return nil, fmt.Errorf("cardgame: move of unknown type %q", m.Type)
	}
	return m.AppendJSON(make([]byte, 0, 48)), nil
}

// AppendJSON appends the command's canonical form to b — what a room
// stores (session.JSONAppender); a move of an unknown type, which no
// decoder returns, is written as its type alone.
func (m Move) AppendJSON(b []byte) []byte {
	switch m.Type {
	case MovePlay:
		b = append(b, `{"type":"play","card":`...)
		b = strconv.AppendUint(b, uint64(m.Card), 10)
		if m.Target != 0 {
			b = append(b, `,"target":`...)
			b = strconv.AppendUint(b, uint64(m.Target), 10)
		}
		return append(b, '}')
	case MoveAttack:
		b = append(b, `{"type":"attack","attacker":`...)
		b = strconv.AppendUint(b, uint64(m.Attacker), 10)
		b = append(b, `,"defender":`...)
		b = strconv.AppendUint(b, uint64(m.Defender), 10)
		return append(b, '}')
	}
	b = append(b, `{"type":`...)
	b = appendString(b, m.Type)
	return append(b, '}')
}

// ParseCanonical recognises a command in its canonical form (AppendJSON)
// without encoding/json (session.CanonicalParser): the form clients send.
// Anything else — other spacing, order or number forms — is left to the
// strict decoder.
func (m *Move) ParseCanonical(data []byte) bool {
	switch string(data) {
	case `{"type":"end"}`:
		*m = End()
		return true
	case `{"type":"concede"}`:
		*m = Concede()
		return true
	}
	if rest, ok := bytes.CutPrefix(data, []byte(`{"type":"play","card":`)); ok {
		card, rest, ok := cutID(rest)
		if !ok {
			return false
		}
		if string(rest) == "}" {
			*m = Play(card, 0)
			return true
		}
		if rest, ok = bytes.CutPrefix(rest, []byte(`,"target":`)); !ok {
			return false
		}
		target, rest, ok := cutID(rest)
		if !ok || string(rest) != "}" {
			return false
		}
		*m = Play(card, target)
		return true
	}
	if rest, ok := bytes.CutPrefix(data, []byte(`{"type":"attack","attacker":`)); ok {
		attacker, rest, ok := cutID(rest)
		if !ok {
			return false
		}
		if rest, ok = bytes.CutPrefix(rest, []byte(`,"defender":`)); !ok {
			return false
		}
		defender, rest, ok := cutID(rest)
		if !ok || string(rest) != "}" {
			return false
		}
		*m = Attack(attacker, defender)
		return true
	}
	return false
}

// cutID reads an id (1 to 2^32-1, no leading zero) at the start of b.
func cutID(b []byte) (ID, []byte, bool) {
	i := 0
	for i < len(b) && i < 11 && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i == 0 || b[0] == '0' {
		return 0, nil, false
	}
	v, err := strconv.ParseUint(string(b[:i]), 10, 32)
	if err != nil {
		return 0, nil, false
	}
	return ID(v), b[i:], true
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
