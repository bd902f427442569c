package room

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// MaxNameRunes bounds a display name.
const MaxNameRunes = 32

// suffix is the form the room gives a name another seat has: " (2)".
var suffix = regexp.MustCompile(`\s*\(\d+\)$`)

// cleanName is a display name as the room keeps it: NFKC-normalised; no
// control, format (bidi overrides, zero-width characters), private-use or
// line-breaking characters; spaces collapsed; at most MaxNameRunes runes;
// and without a trailing " (n)", which only the room gives (so nobody can
// pass for another seat's duplicate). Empty becomes "Player".
func cleanName(name string) string {
	out, _ := cleanRunes(name, MaxNameRunes)
	for {
		trimmed := strings.TrimSpace(suffix.ReplaceAllString(out, ""))
		if trimmed == out {
			break
		}
		out = trimmed
	}
	if out == "" {
		return "Player"
	}
	return out
}

// cleanRunes is text as a room keeps what people type (names, chat):
// NFKC-normalised; no control, format (bidi overrides, zero-width
// characters), private-use or line-breaking characters; spaces collapsed
// and trimmed; at most max runes — cut reports that there were more.
func cleanRunes(text string, max int) (out string, cut bool) {
	text = norm.NFKC.String(strings.ToValidUTF8(text, ""))
	var b strings.Builder
	space := false
	n := 0
	for _, r := range text {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs, unicode.Zl, unicode.Zp), unicode.Is(unicode.Variation_Selector, r):
			continue
		}
		if space {
			if n+1 >= max {
				return strings.TrimSpace(b.String()), true
			}
			b.WriteByte(' ')
			n++
			space = false
		}
		if n == max {
			return strings.TrimSpace(b.String()), true
		}
		b.WriteRune(r)
		n++
	}
	return strings.TrimSpace(b.String()), false
}

// firstName is the first of names that is not blank.
func firstName(names ...string) string {
	for _, n := range names {
		if strings.TrimSpace(n) != "" {
			return n
		}
	}
	return ""
}

// nameKey is what two names that look alike have in common: letters folded
// to lower case, spaces gone.
func nameKey(name string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return unicode.ToLower(r)
	}, name)
}

// uniqueName returns name, or name with the lowest free " (n)" suffix when
// another seat has a name that looks the same.
func (s *state) uniqueName(name string) string {
	taken := func(n string) bool {
		key := nameKey(n)
		for _, p := range s.Players {
			if nameKey(p.Name) == key {
				return true
			}
		}
		return false
	}
	if !taken(name) {
		return name
	}
	for i := 2; ; i++ {
		if n := name + " (" + strconv.Itoa(i) + ")"; !taken(n) {
			return n
		}
	}
}
