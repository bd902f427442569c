package baba

import (
	"errors"
	"slices"
	"testing"
)

// §2: the words, their classes, and the table in byte order (conversion
// targets are taken in that order, §6.2).
func TestS2_LexiconWordsAndClasses(t *testing.T) {
	var spellings []string
	for w := range numWords {
		spellings = append(spellings, w.String())
	}
	if !slices.IsSorted(spellings) {
		t.Fatalf("the lexicon is not in byte order: %v", spellings)
	}
	classes := map[wordClass][]string{
		classThing:    {"BABA", "DOOR", "FLAG", "KEKE", "KEY", "LAVA", "ROCK", "SKULL", "WALL", "WATER"},
		classSpecial:  {"ALL", "TEXT"},
		classMeta:     {"BATTLECRY", "DEATHRATTLE"},
		classProperty: {"DEFEAT", "DOUBLE", "FLOAT", "HOT", "MELT", "OPEN", "PUSH", "SHUT", "SINK", "STOP", "WIN", "YOU"},
		classOperator: {"IS", "NOT"},
	}
	n := 0
	for class, words := range classes {
		for _, s := range words {
			w, ok := wordsBySpelling[s]
			if !ok || lexicon[w].class != class {
				t.Errorf("%s: class %v, in lexicon %v; want class %v", s, lexicon[w].class, ok, class)
			}
			n++
		}
	}
	if n != int(numWords) {
		t.Fatalf("the lexicon has %d words; the table %d", numWords, n)
	}
}

// §2: a kind is the lower case of a thing noun or "text:" and any word;
// nothing else, in New and in Place alike.
func TestS2_ValidKinds(t *testing.T) {
	valid := []string{"baba", "keke", "rock", "wall", "flag", "water", "lava", "skull", "key", "door",
		"text:BABA", "text:TEXT", "text:ALL", "text:DEATHRATTLE", "text:BATTLECRY", "text:YOU",
		"text:FLOAT", "text:DOUBLE", "text:IS", "text:NOT"}
	invalid := []string{"", "Baba", "BABA", "text", "all", "text:baba", "text:", "text:AND", "text:HAS",
		"text:GNOME", "gnome", "you", "deathrattle", "text: BABA", "text:BABA ", "TEXT:BABA", "double"}
	for _, k := range valid {
		if !ValidKind(k) {
			t.Errorf("ValidKind(%q) = false", k)
		}
		b := build(t, level(1, 1))
		if _, err := b.Place(k, 0, 0); err != nil {
			t.Errorf("Place(%q): %v", k, err)
		}
		if _, err := New(level(1, 1, obj(k, 0, 0))); err != nil {
			t.Errorf("New with %q: %v", k, err)
		}
	}
	for _, k := range invalid {
		if ValidKind(k) {
			t.Errorf("ValidKind(%q) = true", k)
		}
		b := build(t, level(1, 1))
		unchanged(t, b, func() error {
			_, err := b.Place(k, 0, 0)
			if !errors.Is(err, ErrKind) {
				t.Errorf("Place(%q): %v; want ErrKind", k, err)
			}
			return err
		})
		if _, err := New(level(1, 1, obj(k, 0, 0))); !errors.Is(err, ErrKind) {
			t.Errorf("New with %q: %v; want ErrKind", k, err)
		}
	}
}

// §2: the words the lexicon deliberately lacks read as nothing, and their
// kinds are refused.
func TestS2_AbsentWords(t *testing.T) {
	for _, w := range []string{"AND", "HAS", "MAKE", "ON", "NEAR", "LONELY", "FACING", "MOVE", "SHIFT", "PULL", "WEAK", "TELE", "EMPTY", "LEVEL"} {
		if ValidKind("text:" + w) {
			t.Errorf("text:%s is a kind", w)
		}
	}
}
