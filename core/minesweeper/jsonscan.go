package minesweeper

import (
	"encoding/json"
	"math"
	"strconv"
)

// scanner is a small strict JSON reader for the hot decoders (moves): it
// validates everything it passes over, including skipped values, so that
// UnmarshalJSON called directly accepts exactly what encoding/json would.
type scanner struct {
	b []byte
	i int
}

// maxDepth bounds the nesting of skipped values.
const maxDepth = 64

func (p *scanner) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *scanner) peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *scanner) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *scanner) done() bool { p.ws(); return p.i == len(p.b) }

// str reads a string and returns its raw contents (between the quotes) and
// whether it holds escapes.
func (p *scanner) str() (raw []byte, escaped, ok bool) {
	if !p.eat('"') {
		return nil, false, false
	}
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			raw = p.b[start:p.i]
			p.i++
			return raw, escaped, true
		case c < 0x20:
			return nil, false, false
		case c == '\\':
			escaped = true
			p.i++
			if p.i >= len(p.b) {
				return nil, false, false
			}
			switch p.b[p.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i++
			case 'u':
				if p.i+5 > len(p.b) {
					return nil, false, false
				}
				for _, h := range p.b[p.i+1 : p.i+5] {
					if !isHex(h) {
						return nil, false, false
					}
				}
				p.i += 5
			default:
				return nil, false, false
			}
		default:
			p.i++
		}
	}
	return nil, false, false
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// unquote returns the decoded string of raw string contents.
func unquote(raw []byte, escaped bool) string {
	if !escaped {
		return string(raw)
	}
	var s string
	q := make([]byte, 0, len(raw)+2)
	q = append(append(append(q, '"'), raw...), '"')
	if json.Unmarshal(q, &s) != nil {
		return ""
	}
	return s
}

// number reads a number literal by the JSON grammar and reports whether it
// is written as a plain integer (no fraction or exponent).
func (p *scanner) number() (lit []byte, plain, ok bool) {
	start := p.i
	p.eat('-')
	switch {
	case p.eat('0'):
	case p.i < len(p.b) && '1' <= p.b[p.i] && p.b[p.i] <= '9':
		for p.i < len(p.b) && isDigit(p.b[p.i]) {
			p.i++
		}
	default:
		return nil, false, false
	}
	plain = true
	if p.eat('.') {
		plain = false
		if !p.digits() {
			return nil, false, false
		}
	}
	if p.eat('e') || p.eat('E') {
		plain = false
		if !p.eat('+') {
			p.eat('-')
		}
		if !p.digits() {
			return nil, false, false
		}
	}
	return p.b[start:p.i], plain, true
}

func (p *scanner) digits() bool {
	start := p.i
	for p.i < len(p.b) && isDigit(p.b[p.i]) {
		p.i++
	}
	return p.i > start
}

func (p *scanner) literal(word string) bool {
	if len(p.b)-p.i >= len(word) && string(p.b[p.i:p.i+len(word)]) == word {
		p.i += len(word)
		return true
	}
	return false
}

// value skips one JSON value, validating it.
func (p *scanner) value(depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch c := p.peek(); {
	case c == '"':
		_, _, ok := p.str()
		return ok
	case c == '-' || isDigit(c):
		_, _, ok := p.number()
		return ok
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	case c == '[':
		p.i++
		p.ws()
		if p.eat(']') {
			return true
		}
		for {
			p.ws()
			if !p.value(depth + 1) {
				return false
			}
			p.ws()
			if p.eat(']') {
				return true
			}
			if !p.eat(',') {
				return false
			}
		}
	case c == '{':
		p.i++
		p.ws()
		if p.eat('}') {
			return true
		}
		for {
			p.ws()
			if _, _, ok := p.str(); !ok {
				return false
			}
			p.ws()
			if !p.eat(':') {
				return false
			}
			p.ws()
			if !p.value(depth + 1) {
				return false
			}
			p.ws()
			if p.eat('}') {
				return true
			}
			if !p.eat(',') {
				return false
			}
		}
	}
	return false
}

// intResult classifies a number read as a coordinate.
type intResult uint8

const (
	intOK intResult = iota
	intFraction
	intHuge
)

// coordinate converts a number literal to an int: fractions fail, and
// magnitudes beyond 2^31 are reported as huge.
func coordinate(lit []byte, plain bool) (int, intResult) {
	if plain {
		neg := lit[0] == '-'
		digits := lit
		if neg {
			digits = lit[1:]
		}
		if len(digits) > 10 {
			return 0, intHuge
		}
		v := 0
		for _, d := range digits {
			v = v*10 + int(d-'0')
		}
		if v > 1<<31 {
			return 0, intHuge
		}
		if neg {
			v = -v
		}
		return v, intOK
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	switch {
	case err != nil && !math.IsInf(f, 0):
		return 0, intFraction
	case math.Abs(f) > 1<<31:
		return 0, intHuge
	case f != math.Trunc(f):
		return 0, intFraction
	}
	return int(f), intOK
}
