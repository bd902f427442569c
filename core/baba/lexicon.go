package baba

import (
	"math/bits"
	"strings"
)

// The lexicon (§2). Words are numbered in byte order of their spelling, so
// that iterating a wordSet from its lowest bit visits words in sort.Strings
// order (conversion targets, §6.2, rely on it).
type word uint8

const (
	wALL word = iota
	wBABA
	wBATTLECRY
	wDEATHRATTLE
	wDEFEAT
	wDOOR
	wDOUBLE
	wFLAG
	wFLOAT
	wHOT
	wIS
	wKEKE
	wKEY
	wLAVA
	wMELT
	wNOT
	wOPEN
	wPUSH
	wROCK
	wSHUT
	wSINK
	wSKULL
	wSTOP
	wTEXT
	wWALL
	wWATER
	wWIN
	wYOU
	numWords
)

// maxWords bounds the words of one Baba: the fixed lexicon and, in a
// SpellGrid, its card nouns (NewWithNouns), each one bit of a wordSet.
const maxWords = 64

// wordClass is a word's row of the lexicon's table.
type wordClass uint8

const (
	classThing    wordClass = iota // names its own things: ROCK names kind "rock"
	classSpecial                   // TEXT, ALL
	classMeta                      // DEATHRATTLE, BATTLECRY: names no grid object
	classProperty                  // YOU, WIN, …, and the multiplier DOUBLE
	classOperator                  // IS, NOT
)

var lexicon = [numWords]struct {
	spelling string
	class    wordClass
}{
	wALL:         {"ALL", classSpecial},
	wBABA:        {"BABA", classThing},
	wBATTLECRY:   {"BATTLECRY", classMeta},
	wDEATHRATTLE: {"DEATHRATTLE", classMeta},
	wDEFEAT:      {"DEFEAT", classProperty},
	wDOOR:        {"DOOR", classThing},
	wDOUBLE:      {"DOUBLE", classProperty},
	wFLAG:        {"FLAG", classThing},
	wFLOAT:       {"FLOAT", classProperty},
	wHOT:         {"HOT", classProperty},
	wIS:          {"IS", classOperator},
	wKEKE:        {"KEKE", classThing},
	wKEY:         {"KEY", classThing},
	wLAVA:        {"LAVA", classThing},
	wMELT:        {"MELT", classProperty},
	wNOT:         {"NOT", classOperator},
	wOPEN:        {"OPEN", classProperty},
	wPUSH:        {"PUSH", classProperty},
	wROCK:        {"ROCK", classThing},
	wSHUT:        {"SHUT", classProperty},
	wSINK:        {"SINK", classProperty},
	wSKULL:       {"SKULL", classThing},
	wSTOP:        {"STOP", classProperty},
	wTEXT:        {"TEXT", classSpecial},
	wWALL:        {"WALL", classThing},
	wWATER:       {"WATER", classThing},
	wWIN:         {"WIN", classProperty},
	wYOU:         {"YOU", classProperty},
}

func (w word) String() string { return lexicon[w].spelling }

// wordSet is a set of words, one bit each.
type wordSet uint64

func (w word) set() wordSet { return 1 << w }

func (s wordSet) has(w word) bool { return s&w.set() != 0 }

// first returns the lowest word of a non-empty set.
func (s wordSet) first() word { return word(bits.TrailingZeros64(uint64(s))) }

// count returns the number of words in s.
func (s wordSet) count() int { return bits.OnesCount64(uint64(s)) }

// Word classes as sets.
var (
	thingNouns  wordSet // nouns that name their own things: conversion targets
	nounWords   wordSet // every noun: the possible subjects of a rule
	complements wordSet // every noun and property
)

// wordsBySpelling finds a word by its upper-case spelling.
var wordsBySpelling = map[string]word{}

func init() {
	for w := range numWords {
		wordsBySpelling[lexicon[w].spelling] = w
		kindSpellings.thing[w] = strings.ToLower(lexicon[w].spelling)
		kindSpellings.text[w] = textPrefix + lexicon[w].spelling
		switch lexicon[w].class {
		case classThing:
			thingNouns |= w.set()
			nounWords |= w.set()
			complements |= w.set()
		case classSpecial, classMeta:
			nounWords |= w.set()
			complements |= w.set()
		case classProperty:
			complements |= w.set()
		}
	}
}

// kind is what an object is: a thing of a thing noun, or a text object of
// any word.
type kind struct {
	w    word
	text bool
}

// textPrefix starts the kind of every text object (§1).
const textPrefix = "text:"

// parseKind reads a kind (§2): the lower case of a thing noun ("rock"), or
// "text:" and any word of the lexicon ("text:ROCK", "text:IS"). Nothing
// else is a kind, other cases included ("Rock", "text:rock").
func parseKind(s string) (kind, bool) {
	if spelling, ok := strings.CutPrefix(s, textPrefix); ok {
		w, ok := wordsBySpelling[spelling]
		return kind{w: w, text: true}, ok
	}
	if s != strings.ToLower(s) {
		return kind{}, false
	}
	w, ok := wordsBySpelling[strings.ToUpper(s)]
	if !ok || !thingNouns.has(w) {
		return kind{}, false
	}
	return kind{w: w}, true
}

// kindSpellings are the kinds' strings, computed once: thing[w] is "rock"
// for ROCK, text[w] is "text:ROCK".
var kindSpellings struct{ thing, text [numWords]string }

func (k kind) String() string {
	if k.text {
		return kindSpellings.text[k.w]
	}
	return kindSpellings.thing[k.w]
}

// names returns the nouns that name an object of kind k (§3.5): a thing is
// named by its own noun and by ALL, a text object by TEXT only.
func (k kind) names() wordSet {
	if k.text {
		return wTEXT.set()
	}
	return k.w.set() | wALL.set()
}
