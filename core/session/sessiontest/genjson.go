package sessiontest

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/roomd/roomd/core/session"
)

// JSON as Commands writes it: compact, padded or escaped.

func encode(v value) []byte { return appendValue(nil, v) }

func appendValue(b []byte, v value) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, v)
	case lit:
		return append(b, v...)
	case string:
		return appendString(b, v)
	case []value:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, e)
		}
		return append(b, ']')
	case *object:
		b = append(b, '{')
		for i, m := range v.members {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, m.key)
			b = append(b, ':')
			b = appendValue(b, m.val)
		}
		return append(b, '}')
	}
	panic(fmt.Sprintf("sessiontest: no JSON for %T", v))
}

// appendString writes s quoted, escaping only what JSON requires: any
// other byte, even one that is not UTF-8, is written as is.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' || c < 0x20 {
			b = append(b, s[start:i]...)
			if c < 0x20 {
				b = fmt.Appendf(b, `\u%04x`, c)
			} else {
				b = append(b, '\\', c)
			}
			start = i + 1
		}
	}
	return append(append(b, s[start:]...), '"')
}

// shuffle shuffles the members of every object in v.
func shuffle(v value, src session.Source) {
	switch v := v.(type) {
	case []value:
		for _, e := range v {
			shuffle(e, src)
		}
	case *object:
		for i := len(v.members) - 1; i > 0; i-- {
			j := session.Intn(src, i+1)
			v.members[i], v.members[j] = v.members[j], v.members[i]
		}
		for _, m := range v.members {
			shuffle(m.val, src)
		}
	}
}

// appendSpace writes whitespace half of the time (always if force).
func appendSpace(b []byte, src session.Source, force bool) []byte {
	if !force && session.Intn(src, 2) == 0 {
		return b
	}
	for range 1 + session.Intn(src, 3) {
		b = append(b, " \t\n\r"[session.Intn(src, 4)])
	}
	return b
}

// appendPadded writes v with whitespace around its tokens and some
// characters of its strings escaped; force puts whitespace after the first
// token.
func appendPadded(b []byte, v value, src session.Source, force bool) []byte {
	switch v := v.(type) {
	case string:
		return appendEscaped(b, v, src)
	case []value:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(appendSpace(b, src, false), ',')
			}
			b = appendSpace(b, src, force && i == 0)
			b = appendPadded(b, e, src, false)
		}
		return append(appendSpace(b, src, force && len(v) == 0), ']')
	case *object:
		b = append(b, '{')
		for i, m := range v.members {
			if i > 0 {
				b = append(appendSpace(b, src, false), ',')
			}
			b = appendSpace(b, src, force && i == 0)
			b = append(appendSpace(appendEscaped(b, m.key, src), src, false), ':')
			b = appendPadded(appendSpace(b, src, false), m.val, src, false)
		}
		return append(appendSpace(b, src, force && len(v.members) == 0), '}')
	}
	return appendValue(b, v)
}

// appendEscaped writes s quoted, with one character in eight (and half of
// the slashes) written as an escape that means the same.
func appendEscaped(b []byte, s string, src session.Source) []byte {
	b = append(b, '"')
	hex := [2]string{"%04x", "%04X"}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[i]) // not UTF-8: written as is, as appendString does
		case r == '/' && session.Intn(src, 2) == 0:
			b = append(b, `\/`...)
		case r == '"' || r == '\\' || r < 0x20 || session.Intn(src, 8) == 0:
			f := `\u` + hex[session.Intn(src, 2)]
			if r > 0xFFFF {
				r -= 0x10000
				b = fmt.Appendf(b, f+f, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
			} else {
				b = fmt.Appendf(b, f, r)
			}
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
