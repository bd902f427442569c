package protocol

import (
	"encoding/json"
)

// decodeCommand is DecodeClient's fast path for the message nearly every
// frame is: a command {"type":"command","id":…,"rev":…,"command":{…}},
// its keys in any order. It reads the frame once, by hand, and answers
// exactly what the encoding/json path answers; ok is false for anything it
// does not handle alike — another type, another or a repeated key, an
// escape in a key or string, a number that is not a plain unsigned integer,
// a command that is not an object, a field out of bounds — and the caller
// then decodes the frame the general way (which also names the problem).
func decodeCommand(data []byte) (in Inbound, ok bool) {
	s := scanner{b: data}
	s.space()
	if !s.eat('{') {
		return Inbound{}, false
	}
	var (
		typ, id      []byte
		rev          uint64
		cmd          []byte
		seen         [4]bool
		gotRev, more bool
	)
	for {
		s.space()
		if more {
			if s.eat('}') {
				break
			}
			if !s.eat(',') {
				return Inbound{}, false
			}
			s.space()
		} else if s.eat('}') {
			return Inbound{}, false // {}: the general path says what is missing
		}
		more = true
		key, ok := s.plainString()
		if !ok {
			return Inbound{}, false
		}
		s.space()
		if !s.eat(':') {
			return Inbound{}, false
		}
		s.space()
		var k int
		switch string(key) {
		case "type":
			k = 0
			typ, ok = s.plainString()
		case "id":
			k = 1
			id, ok = s.plainString()
		case "rev":
			k = 2
			rev, ok = s.uint()
			gotRev = ok
		case "command":
			k = 3
			cmd, ok = s.object()
		default:
			return Inbound{}, false
		}
		if !ok || seen[k] {
			return Inbound{}, false
		}
		seen[k] = true
	}
	s.space()
	if s.i != len(s.b) || string(typ) != TypeCommand || len(id) == 0 || len(id) > 64 || !gotRev || cmd == nil {
		return Inbound{}, false
	}
	if !json.Valid(cmd) {
		return Inbound{}, false
	}
	a := &Action{Type: TypeCommand, ID: string(id), Rev: rev, Command: append(json.RawMessage(nil), cmd...)}
	return Inbound{Type: TypeCommand, Action: a}, true
}

// scanner reads JSON tokens from b at i.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) eat(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// plainString reads a string with no escape and only printable ASCII
// (what encoding/json would copy unchanged); false otherwise.
func (s *scanner) plainString() ([]byte, bool) {
	if !s.eat('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], true
		case c < 0x20 || c == '\\' || c >= 0x7f:
			return nil, false
		}
		s.i++
	}
	return nil, false
}

// uint reads a JSON integer that fits a uint64, with no sign, fraction or
// exponent.
func (s *scanner) uint() (uint64, bool) {
	start := s.i
	var v uint64
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		d := uint64(s.b[s.i] - '0')
		if v > (1<<64-1-d)/10 {
			return 0, false
		}
		v = v*10 + d
		s.i++
	}
	n := s.i - start
	if n == 0 || (n > 1 && s.b[start] == '0') {
		return 0, false
	}
	if s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		return 0, false
	}
	return v, true
}

// object skips a JSON object (braces balanced outside strings, strings
// skipped with their escapes) and returns its bytes; the caller checks them
// with json.Valid.
func (s *scanner) object() ([]byte, bool) {
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return nil, false
	}
	start, depth := s.i, 0
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				s.i++
				return s.b[start:s.i], true
			}
		case '"':
			s.i++
			for s.i < len(s.b) && s.b[s.i] != '"' {
				if s.b[s.i] == '\\' {
					s.i++
				}
				s.i++
			}
		}
		s.i++
	}
	return nil, false
}
