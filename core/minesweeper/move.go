package minesweeper

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/roomd/roomd/core/session"
)

// MoveType is what a move does.
type MoveType uint8

// Move types. The zero value is no type: Apply refuses it.
const (
	Reveal MoveType = iota + 1
	Flag            // a toggle: hidden ⇄ flagged
	Chord           // reveal the neighbours of a number whose flags match it
)

var moveNames = [...]string{Reveal: "reveal", Flag: "flag", Chord: "chord"}

func (t MoveType) String() string {
	if t >= Reveal && t <= Chord {
		return moveNames[t]
	}
	return fmt.Sprintf("MoveType(%d)", t)
}

// Move is one command: {"type":"reveal"|"flag"|"chord","r":row,"c":col}.
type Move struct {
	Type MoveType
	R, C int
}

// MarshalJSON writes {"type","r","c"}.
func (m Move) MarshalJSON() ([]byte, error) {
	if m.Type < Reveal || m.Type > Chord {
		return nil, fmt.Errorf("minesweeper: cannot encode %v", m.Type)
	}
	return m.AppendJSON(make([]byte, 0, 40)), nil
}

// AppendJSON appends the move's JSON to b.
func (m Move) AppendJSON(b []byte) []byte {
	b = append(b, `{"type":"`...)
	b = append(b, moveNames[m.Type]...)
	b = append(b, `","r":`...)
	b = strconv.AppendInt(b, int64(m.R), 10)
	b = append(b, `,"c":`...)
	b = strconv.AppendInt(b, int64(m.C), 10)
	return append(b, '}')
}

// ParseCanonical recognises a move in its canonical form (AppendJSON)
// without the strict decoder (session.CanonicalParser): the form clients
// send and rooms store. Coordinates are read only as canonical
// non-negative integers of up to nine digits; anything else — other
// spacing, order or number forms, a negative or huge coordinate — is left
// to UnmarshalJSON.
func (m *Move) ParseCanonical(data []byte) bool {
	rest, ok := bytes.CutPrefix(data, []byte(`{"type":"`))
	if !ok {
		return false
	}
	var t MoveType
	for mt := Reveal; mt <= Chord; mt++ {
		if r, ok := bytes.CutPrefix(rest, []byte(moveNames[mt])); ok {
			t, rest = mt, r
			break
		}
	}
	if t == 0 {
		return false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`","r":`)); !ok {
		return false
	}
	r, rest, ok := cutCoord(rest)
	if !ok {
		return false
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"c":`)); !ok {
		return false
	}
	c, rest, ok := cutCoord(rest)
	if !ok || string(rest) != "}" {
		return false
	}
	*m = Move{Type: t, R: r, C: c}
	return true
}

// cutCoord reads a canonical non-negative integer of one to nine digits
// (no leading zero) at the start of b.
func cutCoord(b []byte) (int, []byte, bool) {
	n, i := 0, 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		if i == 9 || (i == 1 && b[0] == '0') {
			return 0, nil, false
		}
		n = n*10 + int(b[i]-'0')
		i++
	}
	if i == 0 {
		return 0, nil, false
	}
	return n, b[i:], true
}

// UnmarshalJSON decodes a move strictly. Errors are *session.Rejection,
// all Malformed: invalid JSON or a non-object, a missing or non-string
// type, or a missing r or c is game:Malformed; an unknown type is
// game:UnknownMove; an r or c that is not an integer (1.5, "1", null) is
// game:InvalidMove, and one beyond ±2^31 game:OutOfBounds. Integer-valued
// numbers such as 2.0 are integers, as in the reference. Other keys are
// ignored; a key given twice is malformed.
func (m *Move) UnmarshalJSON(data []byte) error {
	p := scanner{b: data}
	p.ws()
	if !p.eat('{') {
		return session.Malformed(session.CodeMalformedInput, "a move must be a JSON object")
	}
	var (
		seen      [3]bool
		typ       []byte
		typEsc    bool
		typBad    bool
		coord     [2]int
		coordBad  [2]intResult
		coordKind [2]bool // not a number at all
	)
	syntax := func() error { return session.Malformed(session.CodeMalformedInput, "a move must be valid JSON") }
	p.ws()
	if !p.eat('}') {
		for {
			p.ws()
			key, esc, ok := p.str()
			if !ok {
				return syntax()
			}
			p.ws()
			if !p.eat(':') {
				return syntax()
			}
			p.ws()
			field := -1
			switch k := string(key); {
			case esc:
				field = fieldIndex(unquote(key, true))
			default:
				field = fieldIndex(k)
			}
			switch field {
			case 0:
				if seen[0] {
					return session.Malformed(session.CodeMalformedInput, "type given twice")
				}
				seen[0] = true
				if p.peek() == '"' {
					if typ, typEsc, ok = p.str(); !ok {
						return syntax()
					}
				} else if typBad = true; !p.value(0) {
					return syntax()
				}
			case 1, 2:
				i := field - 1
				if seen[field] {
					return session.Malformed(session.CodeMalformedInput, "%s given twice", "rc"[i:i+1])
				}
				seen[field] = true
				if c := p.peek(); c == '-' || isDigit(c) {
					lit, plain, ok := p.number()
					if !ok {
						return syntax()
					}
					coord[i], coordBad[i] = coordinate(lit, plain)
				} else if coordKind[i] = true; !p.value(0) {
					return syntax()
				}
			default:
				if !p.value(0) {
					return syntax()
				}
			}
			p.ws()
			if p.eat('}') {
				break
			}
			if !p.eat(',') {
				return syntax()
			}
		}
	}
	if !p.done() {
		return syntax()
	}
	var out Move
	switch {
	case !seen[0]:
		return session.Malformed(session.CodeMalformedInput, "a move needs a type")
	case typBad:
		return session.Malformed(session.CodeMalformedInput, "type must be a string")
	}
	name := unquote(typ, typEsc)
	for t := Reveal; t <= Chord; t++ {
		if name == moveNames[t] {
			out.Type = t
		}
	}
	if out.Type == 0 {
		return session.Malformed(session.CodeUnknownMove, "unknown move type %q (want reveal, flag or chord)", clip([]byte(name)))
	}
	for i, name := range [2]string{"r", "c"} {
		switch {
		case !seen[i+1]:
			return session.Malformed(session.CodeMalformedInput, "a %s move needs %s", out.Type, name)
		case coordKind[i] || coordBad[i] == intFraction:
			return session.Malformed(session.CodeInvalidMove, "%s must be an integer", name)
		case coordBad[i] == intHuge:
			return session.Malformed(session.CodeOutOfBounds, "%s is off any board", name)
		}
	}
	out.R, out.C = coord[0], coord[1]
	*m = out
	return nil
}

func fieldIndex(key string) int {
	switch key {
	case "type":
		return 0
	case "r":
		return 1
	case "c":
		return 2
	}
	return -1
}
