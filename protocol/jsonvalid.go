package protocol

import "encoding/json"

// validJSON reports what json.Valid(b) reports — whether b is exactly one
// JSON value, with white space around it allowed — in one pass that does
// not call a state function per byte: the fast decoders check every raw
// value they keep (beats, views, commands, batched frames) with it, and a
// board's view is kilobytes. FuzzValidJSON holds it to json.Valid.
func validJSON(b []byte) bool {
	v := validator{scanner: scanner{b: b}}
	v.space()
	ok := v.value(0)
	if v.deep {
		return json.Valid(b)
	}
	v.space()
	return ok && v.i == len(v.b)
}

// maxValidDepth is how deep validJSON recurses: a value nested deeper is
// left to json.Valid, whose scanner keeps its stack on the heap (a frame
// of nested brackets must not grow a goroutine's stack by megabytes).
const maxValidDepth = 64

// validator reads with fastdecode.go's scanner (its white space and
// literals).
type validator struct {
	scanner
	deep bool // nested deeper than maxValidDepth
}

// value reads one value at nesting depth (the brackets around it).
func (v *validator) value(depth int) bool {
	if v.i >= len(v.b) {
		return false
	}
	switch c := v.b[v.i]; {
	case c == '{' || c == '[':
		return v.seq(depth+1, c == '{')
	case c == '"':
		return v.str()
	case c == '-' || c >= '0' && c <= '9':
		return v.number()
	case c == 't':
		return v.literal("true")
	case c == 'f':
		return v.literal("false")
	case c == 'n':
		return v.literal("null")
	}
	return false
}

// seq reads an object (its members) or an array (its elements), from its
// opening bracket to its closing one, at nesting depth.
func (v *validator) seq(depth int, object bool) bool {
	if depth > maxValidDepth {
		v.deep = true
		return false
	}
	end := byte(']')
	if object {
		end = '}'
	}
	v.i++ // { or [
	v.space()
	if v.i < len(v.b) && v.b[v.i] == end {
		v.i++
		return true
	}
	for {
		if object {
			if v.i >= len(v.b) || v.b[v.i] != '"' || !v.str() {
				return false
			}
			v.space()
			if v.i >= len(v.b) || v.b[v.i] != ':' {
				return false
			}
			v.i++
			v.space()
		}
		if !v.value(depth) {
			return false
		}
		v.space()
		if v.i >= len(v.b) {
			return false
		}
		switch v.b[v.i] {
		case ',':
			v.i++
			v.space()
		case end:
			v.i++
			return true
		default:
			return false
		}
	}
}

// str reads a string: no control character, escapes as JSON has them
// (bytes of 0x80 and over are taken as they are, as json.Valid does).
func (v *validator) str() bool {
	v.i++ // "
	for v.i < len(v.b) {
		c := v.b[v.i]
		switch {
		case c == '"':
			v.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			v.i++
			if v.i >= len(v.b) {
				return false
			}
			switch v.b[v.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				v.i++
			case 'u':
				if len(v.b)-v.i < 5 {
					return false
				}
				for _, h := range v.b[v.i+1 : v.i+5] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return false
					}
				}
				v.i += 5
			default:
				return false
			}
		default:
			v.i++
		}
	}
	return false
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (v *validator) number() bool {
	if v.b[v.i] == '-' {
		v.i++
	}
	switch {
	case v.i >= len(v.b):
		return false
	case v.b[v.i] == '0':
		v.i++
	case v.b[v.i] >= '1' && v.b[v.i] <= '9':
		v.digits()
	default:
		return false
	}
	if v.i < len(v.b) && v.b[v.i] == '.' {
		v.i++
		if v.digits() == 0 {
			return false
		}
	}
	if v.i < len(v.b) && (v.b[v.i] == 'e' || v.b[v.i] == 'E') {
		v.i++
		if v.i < len(v.b) && (v.b[v.i] == '+' || v.b[v.i] == '-') {
			v.i++
		}
		if v.digits() == 0 {
			return false
		}
	}
	return true
}

// digits skips a run of digits and returns its length.
func (v *validator) digits() int {
	start := v.i
	for v.i < len(v.b) && v.b[v.i] >= '0' && v.b[v.i] <= '9' {
		v.i++
	}
	return v.i - start
}
