package room

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCleanName(t *testing.T) {
	for in, want := range map[string]string{
		"  Ann  ":                           "Ann",
		"An\u202Ene":                        "Anne", // a right-to-left override
		"A\u200Bn\u200Dn\uFEFF":             "Ann",  // zero-width space, joiner, BOM
		"Ann\x00\x07\n\tBob":                "Ann Bob",
		"Host (2)":                          "Host",
		"Host (2) (3)":                      "Host",
		"ＨＯＳＴ":                              "HOST", // fullwidth: NFKC
		"":                                  "Player",
		"\u202E\u200B":                      "Player",
		"(7)":                               "Player",
		strings.Repeat("é", 100):            strings.Repeat("é", MaxNameRunes),
		"a" + strings.Repeat(" ", 50) + "b": "a b",
		"\xff\xfeAnn":                       "Ann",
	} {
		got := cleanName(in)
		if got != want {
			t.Errorf("cleanName(%q) = %q, want %q", in, got, want)
		}
		if n := utf8.RuneCountInString(got); n > MaxNameRunes || !utf8.ValidString(got) {
			t.Errorf("cleanName(%q) = %q: %d runes", in, got, n)
		}
	}
}

// TestNamesThatImitate: a name that looks like another seat's — another
// case, a fullwidth copy, the room's own " (2)" suffix — gets the room's
// suffix, so no seat passes for another.
func TestNamesThatImitate(t *testing.T) {
	s := lobby(t, "minesweeper", `{"mode":"coop"}`) // the host is "Host"
	for i, asked := range []string{"host", "ＨＯＳＴ", "Host (2)"} {
		e := &entry{Rev: s.Rev + 1, Kind: kindJoin, By: string(rune('a' + i)), Players: []*player{{ID: string(rune('a' + i)), Name: cleanName(asked)}}}
		if _, err := s.apply(e); err != nil {
			t.Fatal(err)
		}
	}
	got := []string{}
	for _, p := range s.Players {
		got = append(got, p.Name)
	}
	if strings.Join(got, "|") != "Host|host (2)|HOST (3)|Host (4)" {
		t.Fatalf("names %q", got)
	}
}
