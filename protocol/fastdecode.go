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
	var (
		typ, id, cmd []byte
		rev          uint64
	)
	seen, ok := s.members(commandKeys, func(k int) (ok bool) {
		switch k {
		case 0:
			typ, ok = s.plainString()
		case 1:
			id, ok = s.plainString()
		case 2:
			rev, ok = s.uint()
		case 3:
			cmd, ok = s.object()
		}
		return ok
	})
	if !ok || seen != 0b1111 || string(typ) != TypeCommand || len(id) == 0 || len(id) > 64 || !json.Valid(cmd) {
		return Inbound{}, false
	}
	a := &Action{Type: TypeCommand, ID: string(id), Rev: rev, Command: append(json.RawMessage(nil), cmd...)}
	return Inbound{Type: TypeCommand, Action: a}, true
}

var commandKeys = []string{"type", "id", "rev", "command"}

// scanner reads JSON tokens from b at i.
type scanner struct {
	b []byte
	i int
}

// members reads the whole of b as one object whose keys are among keys,
// none twice: for each it calls value with the key's index and the scanner
// at its value, which value reads. seen has bit k set for each key k met;
// ok is false for anything else (an empty object, another key, an escape
// in a key, a value that value refused, bytes after the object).
func (s *scanner) members(keys []string, value func(k int) bool) (seen uint32, ok bool) {
	s.space()
	if !s.eat('{') {
		return 0, false
	}
	for {
		s.space()
		if seen != 0 {
			if s.eat('}') {
				break
			}
			if !s.eat(',') {
				return 0, false
			}
			s.space()
		}
		key, good := s.plainString()
		if !good {
			return 0, false // also {}: the general path says what is missing
		}
		s.space()
		if !s.eat(':') {
			return 0, false
		}
		s.space()
		k := -1
		for i, name := range keys {
			if string(key) == name {
				k = i
				break
			}
		}
		if k < 0 || seen&(1<<k) != 0 || !value(k) {
			return 0, false
		}
		seen |= 1 << k
	}
	s.space()
	return seen, s.i == len(s.b)
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

// object skips a JSON object and returns its bytes (see balanced); the
// caller checks them with json.Valid.
func (s *scanner) object() ([]byte, bool) {
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return nil, false
	}
	return s.balanced()
}

// decodeHot is DecodeServer's fast path for the messages nearly every
// frame a client gets is: a receipt with no notice, an update carrying
// only beats (no room, seat, view, result or invite), and a tick. Like decodeCommand it
// answers exactly what the encoding/json path answers, or ok is false and
// the caller decodes the general way.
func decodeHot(data []byte) (m ServerMessage, ok bool) {
	s := scanner{b: data}
	var (
		typ, id, epoch, beats []byte
		okv                   bool
		rev, from, to, tick   uint64
		by                    *int
	)
	seen, ok := s.members(hotKeys, func(k int) (ok bool) {
		switch k {
		case 0:
			typ, ok = s.plainString()
		case 1:
			id, ok = s.plainString()
		case 2:
			okv, ok = s.boolean()
		case 3:
			rev, ok = s.uint()
		case 4:
			epoch, ok = s.plainString()
		case 5:
			from, ok = s.uint()
		case 6:
			to, ok = s.uint()
		case 7:
			if s.literal("null") {
				return true
			}
			var v uint64
			if v, ok = s.uint(); ok && v <= 1<<31-1 {
				n := int(v)
				by = &n
			}
			return ok && by != nil
		case 8:
			beats, ok = s.array()
		case 9:
			tick, ok = s.uint()
		}
		return ok
	})
	const receiptKeys, updateKeys, tickKeys = 0b1000001111, 0b0111110001, 0b1101100001 // by index in hotKeys
	switch {
	case !ok:
		return ServerMessage{}, false
	case string(typ) == TypeReceipt && seen&^receiptKeys == 0 && seen&0b100 != 0: // ok is required
		return ServerMessage{Type: TypeReceipt, Receipt: &Receipt{Type: TypeReceipt, ID: string(id), OK: okv, Rev: rev, Tick: tick}}, true
	case string(typ) == TypeTick && seen&^tickKeys == 0:
		tk := &Tick{Type: TypeTick, From: from, To: to, Tick: tick}
		if beats != nil {
			raw, ok := ownBeats(beats)
			if !ok {
				return ServerMessage{}, false
			}
			tk.Beats = raw
		}
		return ServerMessage{Type: TypeTick, Tick: tk}, true
	case string(typ) == TypeUpdate && seen&^updateKeys == 0:
		u := &Update{Type: TypeUpdate, Epoch: string(epoch), From: from, To: to, By: by}
		if beats != nil {
			raw, ok := ownBeats(beats)
			if !ok {
				return ServerMessage{}, false
			}
			u.Beats = raw
		}
		return ServerMessage{Type: TypeUpdate, Update: u}, true
	}
	return ServerMessage{}, false
}

// ownBeats returns a valid beats array as the message's own copy (the
// frame's bytes are the caller's), as encoding/json's RawMessage does.
func ownBeats(beats []byte) (json.RawMessage, bool) {
	if !json.Valid(beats) {
		return nil, false
	}
	return append(json.RawMessage(nil), beats...), true
}

var hotKeys = []string{"type", "id", "ok", "rev", "epoch", "from", "to", "by", "beats", "tick"}

// boolean reads true or false.
func (s *scanner) boolean() (bool, bool) {
	switch {
	case s.literal("true"):
		return true, true
	case s.literal("false"):
		return false, true
	}
	return false, false
}

// literal reads word (true, false, null) when it is next.
func (s *scanner) literal(word string) bool {
	if len(s.b)-s.i >= len(word) && string(s.b[s.i:s.i+len(word)]) == word {
		s.i += len(word)
		return true
	}
	return false
}

// array skips a JSON array like object does an object; nil when the next
// value is not one.
func (s *scanner) array() ([]byte, bool) {
	if s.i >= len(s.b) || s.b[s.i] != '[' {
		return nil, false
	}
	return s.balanced()
}

// balanced skips the object or array at i (brackets balanced outside
// strings, strings skipped with their escapes) and returns its bytes.
func (s *scanner) balanced() ([]byte, bool) {
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

// splitObjects is SplitServerFrame's fast path for a valid batched frame of
// objects: it finds each element's bounds without decoding, after one
// json.Valid pass over the whole frame; ok is false for anything else (the
// caller then splits, or refuses, the general way).
func splitObjects(batch []byte) (out [][]byte, ok bool) {
	if !json.Valid(batch) {
		return nil, false
	}
	s := scanner{b: batch}
	if !s.eat('[') {
		return nil, false
	}
	for {
		s.space()
		if len(out) == 0 && s.eat(']') {
			break
		}
		obj, good := s.object()
		if !good {
			return nil, false
		}
		out = append(out, obj)
		s.space()
		if s.eat(']') {
			break
		}
		if !s.eat(',') {
			return nil, false
		}
	}
	s.space()
	return out, s.i == len(s.b)
}
