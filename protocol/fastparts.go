package protocol

import (
	"encoding/json"
	"strconv"
)

// decodeResult decodes a result's object (nil: none): by hand when it is
// in the form roomd writes, else through encoding/json. With alias set its
// raw parts (seed, config, log, detail) are slices of b, which the caller
// hands over; a match's log is its every move.
func decodeResult(b []byte, alias bool) (*Result, bool) {
	if b == nil {
		return nil, true
	}
	r := new(Result)
	if decodeResultFast(b, r, alias) {
		return r, true
	}
	*r = Result{}
	return r, json.Unmarshal(b, r) == nil
}

// decodeResultFast is decodeRoomFast's counterpart for a result.
func decodeResultFast(b []byte, r *Result, alias bool) bool {
	s := scanner{b: b}
	raw := func(p *json.RawMessage) bool {
		v, ok := s.validValue()
		if alias {
			*p = v
		} else {
			*p = append(json.RawMessage(nil), v...)
		}
		return ok
	}
	_, ok := s.members(resultKeys, func(k int) bool {
		switch k {
		case 0:
			return s.int(&r.Match)
		case 1:
			return s.str(&r.Status)
		case 2:
			return s.float(&r.TimeMs)
		case 3:
			return s.ints(&r.Winners)
		case 4:
			return raw(&r.Seed)
		case 5:
			return s.int64(&r.SealedUntil)
		case 6:
			return s.str(&r.Commitment)
		case 7:
			return raw(&r.Config)
		case 8:
			return raw(&r.Log)
		case 9:
			v, ok := s.uint()
			r.Ticks = v
			return ok
		case 10:
			return raw(&r.Detail)
		}
		return false
	})
	return ok
}

var resultKeys = []string{"match", "status", "time", "winners", "seed", "sealedUntil", "commitment", "config", "log", "ticks", "detail"}

// decodeRoom decodes a room's object: by hand (decodeRoomFast) when it is
// in the form roomd writes, else through encoding/json. Rooms come with
// every update that starts or ends a match, and encoding/json's reflection
// over them was a third of a Go client's decoding (BENCHMARKS.md,
// "roombot's own CPU"); results likewise (decodeResult).
func decodeRoom(b []byte) (*Room, bool) {
	r := new(Room)
	if decodeRoomFast(b, r) {
		return r, true
	}
	*r = Room{} // the fast path may have set some fields
	return r, json.Unmarshal(b, r) == nil
}

// decodeRoomFast reads a room's object once and gives exactly what
// json.Unmarshal gives, or false for anything it does not read alike (as
// decodeHot does: another or a repeated key, an escape or non-ASCII in a
// string, a number that is not a plain unsigned integer where an integer
// goes, a null where a value goes, a nested object that is empty).
func decodeRoomFast(b []byte, r *Room) bool {
	s := scanner{b: b}
	_, ok := s.members(roomKeys, func(k int) bool {
		switch k {
		case rkCode:
			return s.str(&r.Code)
		case rkPhase:
			return s.str(&r.Phase)
		case rkHost:
			if s.literal("null") {
				return true
			}
			r.Host = new(int)
			return s.int(r.Host)
		case rkSeats:
			if s.literal("null") {
				return true
			}
			r.Seats = []SeatInfo{}
			return s.elements(func() bool {
				var seat SeatInfo
				ok := s.nested(seatKeys, func(sub *scanner, k int) bool {
					switch k {
					case 0:
						return sub.int(&seat.Seat)
					case 1:
						return sub.str(&seat.Name)
					case 2:
						return sub.bool(&seat.Ready)
					case 3:
						return sub.bool(&seat.AI)
					case 4:
						return sub.bool(&seat.Connected)
					case 5:
						return sub.bool(&seat.Muted)
					case 6:
						return sub.str(&seat.Player)
					}
					return false
				})
				r.Seats = append(r.Seats, seat)
				return ok
			})
		case rkSettings:
			v, ok := s.validValue()
			r.Settings = append(json.RawMessage(nil), v...)
			return ok
		case rkMode:
			return s.str(&r.Mode)
		case rkMinSeats:
			return s.int(&r.MinSeats)
		case rkMaxSeats:
			return s.int(&r.MaxSeats)
		case rkAI:
			return s.bool(&r.AI)
		case rkGame:
			return s.nested(gameKeys, func(sub *scanner, k int) bool {
				switch k {
				case 0:
					return sub.str(&r.Game.ID)
				case 1:
					return sub.str(&r.Game.Build)
				case 2:
					return sub.str(&r.Game.RulesVersion)
				}
				return false
			})
		case rkConnected:
			return s.ints(&r.Connected)
		case rkSpectators:
			return s.int(&r.Spectators)
		case rkFrozen:
			return s.bool(&r.Frozen)
		case rkMatch:
			return s.int(&r.Match)
		case rkClocks:
			return s.nested(clockKeys, func(sub *scanner, k int) bool {
				switch k {
				case 0:
					return sub.int64(&r.Clocks.Now)
				case 1:
					return sub.float(&r.Clocks.ElapsedMs)
				case 2:
					return sub.bool(&r.Clocks.Running)
				case 3:
					return sub.float(&r.Clocks.StartedAt)
				}
				return false
			})
		case rkAccess:
			return s.str(&r.Access)
		case rkWatchLocked:
			return s.bool(&r.WatchLocked)
		case rkSpectatorChat:
			return s.bool(&r.SpectatorChat)
		case rkCommitment:
			return s.str(&r.Commitment)
		case rkDaily:
			return s.str(&r.Daily)
		case rkHz:
			return s.int(&r.Hz)
		case rkPaused:
			return s.bool(&r.Paused)
		}
		return false
	})
	return ok
}

// roomKeys are Room's JSON keys, by index (the rk constants).
var roomKeys = []string{"code", "phase", "host", "seats", "settings", "mode", "minSeats", "maxSeats", "ai", "game",
	"connected", "spectators", "frozen", "match", "clocks", "access", "watchLocked", "spectatorChat", "commitment",
	"daily", "hz", "paused"}

const (
	rkCode = iota
	rkPhase
	rkHost
	rkSeats
	rkSettings
	rkMode
	rkMinSeats
	rkMaxSeats
	rkAI
	rkGame
	rkConnected
	rkSpectators
	rkFrozen
	rkMatch
	rkClocks
	rkAccess
	rkWatchLocked
	rkSpectatorChat
	rkCommitment
	rkDaily
	rkHz
	rkPaused
)

var (
	seatKeys  = []string{"seat", "name", "ready", "ai", "connected", "muted", "player"}
	gameKeys  = []string{"id", "build", "rulesVersion"}
	clockKeys = []string{"now", "elapsedMs", "running", "startedAt"}
)

// str reads a plain string (see plainString) into *p.
func (s *scanner) str(p *string) bool {
	v, ok := s.plainString()
	*p = string(v)
	return ok
}

// bool reads true or false into *p.
func (s *scanner) bool(p *bool) bool {
	v, ok := s.boolean()
	*p = v
	return ok
}

// int reads a plain unsigned integer (see uint) that fits an int into *p.
func (s *scanner) int(p *int) bool {
	v, ok := s.uint()
	*p = int(v)
	return ok && v <= uint64(int(^uint(0)>>1))
}

// int64 reads a plain unsigned integer that fits an int64 into *p.
func (s *scanner) int64(p *int64) bool {
	v, ok := s.uint()
	*p = int64(v)
	return ok && v <= 1<<63-1
}

// ints reads an array of plain unsigned integers into *p, as encoding/json
// does: null leaves it nil, [] makes it empty.
func (s *scanner) ints(p *[]int) bool {
	if s.literal("null") {
		return true
	}
	*p = []int{}
	return s.elements(func() bool {
		var n int
		ok := s.int(&n)
		*p = append(*p, n)
		return ok
	})
}

// float reads a number into *p, as encoding/json does (strconv.ParseFloat
// of its literal).
func (s *scanner) float(p *float64) bool {
	if s.i >= len(s.b) {
		return false
	}
	v := validator{scanner: *s}
	if !v.number() {
		return false
	}
	f, err := strconv.ParseFloat(string(s.b[s.i:v.i]), 64)
	s.i = v.i
	*p = f
	return err == nil
}

// validValue reads one JSON value, checking it as validJSON does, and
// returns its bytes; false for a value nested deeper than validJSON reads
// by hand.
func (s *scanner) validValue() ([]byte, bool) {
	v := validator{scanner: *s}
	if !v.value(0) || v.deep {
		return nil, false
	}
	raw := s.b[s.i:v.i]
	s.i = v.i
	return raw, true
}

// elements reads an array, calling elem with the scanner at each element,
// which elem reads.
func (s *scanner) elements(elem func() bool) bool {
	if !s.eat('[') {
		return false
	}
	s.space()
	if s.eat(']') {
		return true
	}
	for {
		s.space()
		if !elem() {
			return false
		}
		s.space()
		if s.eat(']') {
			return true
		}
		if !s.eat(',') {
			return false
		}
	}
}

// nested reads an object value with members (keys among keys, none twice,
// not empty), calling value with a scanner over the object.
func (s *scanner) nested(keys []string, value func(sub *scanner, k int) bool) bool {
	obj, ok := s.object()
	if !ok {
		return false
	}
	sub := &scanner{b: obj}
	_, ok = sub.members(keys, func(k int) bool { return value(sub, k) })
	return ok
}
