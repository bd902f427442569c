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
	if !ok || seen != 0b1111 || string(typ) != TypeCommand || len(id) == 0 || len(id) > 64 || !validJSON(cmd) {
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
// caller checks them with validJSON (json.Valid's answer).
func (s *scanner) object() ([]byte, bool) {
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return nil, false
	}
	return s.balanced()
}

// decodeHot is DecodeServer's fast path for what nearly every frame a
// client gets is: a receipt with no notice, an update (its beats, and the
// room, seat, view, result and invite it may carry), a snapshot, and a
// tick. Like decodeCommand it reads the frame once, by hand, and answers
// exactly what the encoding/json path answers, or ok is false and the
// caller decodes the general way. Beats and views stay raw (checked as
// they are skipped, copied unless aliased); a room and a result are read
// by hand too (decodeRoom, decodeResult). The general path read a whole
// message with a board's view four times (its type, then the message,
// each a validation and a decoding pass).
//
// With alias set the message's raw parts (beats, view) are slices of data,
// which the caller hands over, rather than copies. With checked set data
// is known to be valid JSON (a batched frame's element, checked as it was
// split): the raw parts are then only bracket-matched.
func decodeHot(data []byte, alias, checked bool) (m ServerMessage, ok bool) {
	s := scanner{b: data}
	// Beats and views are checked as they are read (validValue).
	own := func(v []byte) json.RawMessage { return append(json.RawMessage(nil), v...) }
	if alias {
		own = func(v []byte) json.RawMessage { return v }
	}
	rawPart := s.validValue
	if checked {
		rawPart = s.balanced
	}
	var (
		typ, id, epoch, beats, room, result, view, invite []byte
		okv                                               bool
		rev, from, to, tick                               uint64
		by, seat                                          *int
	)
	// seatOrNull reads a seat number or null (nil).
	seatOrNull := func() (*int, bool) {
		if s.literal("null") {
			return nil, true
		}
		v, ok := s.uint()
		if !ok || v > 1<<31-1 {
			return nil, false
		}
		n := int(v)
		return &n, true
	}
	seen, ok := s.members(hotKeys, func(k int) (ok bool) {
		switch k {
		case hkType:
			typ, ok = s.plainString()
		case hkID:
			id, ok = s.plainString()
		case hkOK:
			okv, ok = s.boolean()
		case hkRev:
			rev, ok = s.uint()
		case hkEpoch:
			epoch, ok = s.plainString()
		case hkFrom:
			from, ok = s.uint()
		case hkTo:
			to, ok = s.uint()
		case hkBy:
			by, ok = seatOrNull()
		case hkBeats:
			if s.i < len(s.b) && s.b[s.i] == '[' {
				beats, ok = rawPart()
			}
		case hkTick:
			tick, ok = s.uint()
		case hkRoom:
			room, ok = s.object()
		case hkSeat:
			seat, ok = seatOrNull()
		case hkView: // an object, an array or null
			switch {
			case s.literal("null"):
				view, ok = s.b[s.i-4:s.i], true
			case s.i < len(s.b) && (s.b[s.i] == '{' || s.b[s.i] == '['):
				view, ok = rawPart()
			}
		case hkResult:
			result, ok = s.object()
		case hkInvite:
			invite, ok = s.plainString()
		}
		return ok
	})
	const (
		receiptKeys  = 1<<hkType | 1<<hkID | 1<<hkOK | 1<<hkRev | 1<<hkTick
		updateKeys   = 1<<hkType | 1<<hkEpoch | 1<<hkFrom | 1<<hkTo | 1<<hkBy | 1<<hkBeats | 1<<hkRoom | 1<<hkSeat | 1<<hkView | 1<<hkResult | 1<<hkInvite
		snapshotKeys = 1<<hkType | 1<<hkEpoch | 1<<hkRev | 1<<hkSeat | 1<<hkView | 1<<hkRoom | 1<<hkTick | 1<<hkInvite | 1<<hkResult
		tickKeys     = 1<<hkType | 1<<hkFrom | 1<<hkTo | 1<<hkBeats | 1<<hkTick
	)
	if !ok {
		return ServerMessage{}, false
	}
	switch string(typ) {
	case TypeReceipt:
		if seen&^receiptKeys != 0 || seen&(1<<hkOK) == 0 { // ok is required
			return ServerMessage{}, false
		}
		return ServerMessage{Type: TypeReceipt, Receipt: &Receipt{Type: TypeReceipt, ID: string(id), OK: okv, Rev: rev, Tick: tick}}, true
	case TypeTick:
		if seen&^tickKeys != 0 {
			return ServerMessage{}, false
		}
		tk := &Tick{Type: TypeTick, From: from, To: to, Tick: tick}
		if beats != nil {
			tk.Beats = own(beats)
		}
		return ServerMessage{Type: TypeTick, Tick: tk}, true
	case TypeUpdate:
		if seen&^updateKeys != 0 {
			return ServerMessage{}, false
		}
		u := &Update{Type: TypeUpdate, Epoch: string(epoch), From: from, To: to, By: by, Seat: seat, Invite: string(invite)}
		if beats != nil {
			u.Beats = own(beats)
		}
		if view != nil {
			u.View = own(view)
		}
		if room != nil {
			if u.Room, ok = decodeRoom(room); !ok {
				return ServerMessage{}, false
			}
		}
		if u.Result, ok = decodeResult(result, alias); !ok {
			return ServerMessage{}, false
		}
		return ServerMessage{Type: TypeUpdate, Update: u}, true
	case TypeSnapshot:
		if seen&^snapshotKeys != 0 {
			return ServerMessage{}, false
		}
		sn := &Snapshot{Type: TypeSnapshot, Epoch: string(epoch), Rev: rev, Seat: seat, Tick: tick, Invite: string(invite)}
		var raw json.RawMessage // as encoding/json leaves it: nil when absent
		if view != nil {
			raw = own(view)
		}
		sn.View = raw
		if room != nil {
			r, ok := decodeRoom(room)
			if !ok {
				return ServerMessage{}, false
			}
			sn.Room = *r
		}
		if sn.Result, ok = decodeResult(result, alias); !ok {
			return ServerMessage{}, false
		}
		return ServerMessage{Type: TypeSnapshot, Snapshot: sn}, true
	}
	return ServerMessage{}, false
}

// hotKeys are the keys decodeHot reads, by index (the hk constants).
var hotKeys = []string{"type", "id", "ok", "rev", "epoch", "from", "to", "by", "beats", "tick", "room", "seat", "view", "result", "invite"}

const (
	hkType = iota
	hkID
	hkOK
	hkRev
	hkEpoch
	hkFrom
	hkTo
	hkBy
	hkBeats
	hkTick
	hkRoom
	hkSeat
	hkView
	hkResult
	hkInvite
)

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
// objects: it finds each element's bounds without decoding, checking each
// as validJSON does while it skips it (the brackets and commas between
// them it reads itself); ok is false for anything else (the caller then
// splits, or refuses, the general way).
func splitObjects(batch []byte) (out [][]byte, ok bool) {
	s := scanner{b: batch}
	if !s.eat('[') {
		return nil, false
	}
	for {
		s.space()
		if len(out) == 0 && s.eat(']') {
			break
		}
		if s.i >= len(s.b) || s.b[s.i] != '{' {
			return nil, false
		}
		obj, good := s.validValue()
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
