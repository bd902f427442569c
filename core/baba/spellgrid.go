package baba

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// What a SpellGrid (card-engine.md §9) adds to a Baba: card nouns, ids
// issued for other entities, removal of an object, and turns whose
// destroying steps leave the objects of card nouns to the caller. A plain
// Baba (New) uses none of it.

// cardLex is the card nouns of one Baba: word numWords+i is spell[i].
type cardLex struct {
	spell  []string
	kinds  []string // lower case
	byName map[string]word
	set    wordSet
}

// NewWithNouns is New for a SpellGrid: every noun in nouns (upper case
// letters, none of the fixed lexicon; duplicates count once) becomes a
// thing noun of this Baba, whose kind is its lower case. Card nouns are
// subjects and complements of rules like any noun, but never conversion
// targets, and their objects are never converted (they act as if
// protected); an "N IS NOT N" still deletes them. level must not hold
// cards or hand: the SpellGrid places them itself.
func NewWithNouns(level LevelDef, nouns []string) (*Baba, error) {
	lex := &cardLex{byName: map[string]word{}}
	sorted := slices.Clone(nouns)
	slices.Sort(sorted)
	for _, n := range slices.Compact(sorted) {
		if n == "" || strings.Trim(n, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
			return nil, fmt.Errorf("baba: new: %w: card noun %q: want upper-case letters", ErrLevel, n)
		}
		if _, ok := wordsBySpelling[n]; ok {
			return nil, fmt.Errorf("baba: new: %w: card noun %q is a word of the lexicon", ErrLevel, n)
		}
		if int(numWords)+len(lex.spell) >= maxWords {
			return nil, fmt.Errorf("baba: new: %w: more than %d card nouns", ErrLevel, maxWords-int(numWords))
		}
		w := numWords + word(len(lex.spell))
		lex.spell = append(lex.spell, n)
		lex.kinds = append(lex.kinds, strings.ToLower(n))
		lex.byName[n] = w
		lex.set |= w.set()
	}
	b := &Baba{card: lex}
	if err := level.checkWith(b.parseKind); err != nil {
		return nil, fmt.Errorf("baba: new: %w", err)
	}
	b.width, b.height = level.Width, level.Height
	b.objs = make([]object, 0, len(level.Objects))
	b.head = make([]int32, level.Width*level.Height)
	for _, o := range level.Objects {
		k, _ := b.parseKind(o.Kind)
		b.create(k, o.X, o.Y)
	}
	b.read()
	return b, nil
}

// isCard reports whether k is a thing of a card noun.
func (k kind) isCard() bool { return !k.text && k.w >= numWords }

// parseKind is the package's parseKind with this Baba's card nouns.
func (b *Baba) parseKind(s string) (kind, bool) {
	if k, ok := parseKind(s); ok || b.card == nil {
		return k, ok
	}
	if spelling, ok := strings.CutPrefix(s, textPrefix); ok {
		w, ok := b.card.byName[spelling]
		return kind{w: w, text: true}, ok
	}
	if s != strings.ToLower(s) {
		return kind{}, false
	}
	w, ok := b.card.byName[strings.ToUpper(s)]
	return kind{w: w}, ok
}

// spell returns a word's spelling.
func (b *Baba) spell(w word) string {
	if w < numWords {
		return w.String()
	}
	return b.card.spell[w-numWords]
}

func (b *Baba) kindString(k kind) string {
	switch {
	case k.w < numWords:
		return k.String()
	case k.text:
		return textPrefix + b.card.spell[k.w-numWords]
	}
	return b.card.kinds[k.w-numWords]
}

// nounSet, complementSet and thingSet are the lexicon's sets with the card
// nouns: subjects, complements, and nouns that name their own things.
func (b *Baba) nounSet() wordSet {
	if b.card == nil {
		return nounWords
	}
	return nounWords | b.card.set
}

func (b *Baba) complementSet() wordSet {
	if b.card == nil {
		return complements
	}
	return complements | b.card.set
}

func (b *Baba) thingSet() wordSet {
	if b.card == nil {
		return thingNouns
	}
	return thingNouns | b.card.set
}

// smite destroys an object hit by a destroying step, unless the turn keeps
// the objects of card nouns (StepWith): then it is set aside for the
// caller, alive.
func (b *Baba) smite(i int) {
	if b.keep && b.objs[i].kind.isCard() && b.objs[i].alive {
		if id := ID(i + 1); !slices.Contains(b.kept, id) {
			b.kept = append(b.kept, id)
		}
		return
	}
	b.destroy(i)
}

// Reserve issues a new id that no object will ever have, for an entity of
// a SpellGrid that is not on the grid (a hero, a card in hand): ids stay
// one space (card-engine.md §9). PosOf reports it destroyed; HasProperty
// false.
func (b *Baba) Reserve() (ID, error) {
	if uint64(len(b.objs)) >= math.MaxUint32 {
		return 0, fmt.Errorf("baba: reserve: %w", ErrTooMany)
	}
	b.objs = append(b.objs, object{})
	return ID(len(b.objs)), nil
}

// Remove destroys a live object and re-reads the rules; removing a
// destroyed object does nothing. An id never issued is an error.
func (b *Baba) Remove(id ID) error {
	i, err := b.index(id)
	if err != nil {
		return fmt.Errorf("baba: remove: %w", err)
	}
	if b.objs[i].alive {
		b.destroy(i)
		b.read()
	}
	return nil
}

// StepWith is Step for a SpellGrid (card-engine.md §9 seam 2). Its
// destroying steps are the movement (its OPEN/SHUT pairs), the
// conversion (N IS NOT N) and each hazard. An object of a card noun that
// such a step hits is not destroyed: after the step, hit gets the ids of
// all of them, in the order they were hit, and may change the Baba (place,
// remove) before the turn goes on. The rules the hazards and the win
// check use stay those read after the conversion, whatever hit does; the
// turn's last reading reads the board as it is.
func (b *Baba) StepWith(d Dir, hit func(ids []ID)) {
	b.keep = true
	b.movement(d)
	b.flush(hit)
	b.read()
	b.convert()
	b.flush(hit)
	b.read()
	for _, h := range [...]word{wSINK, wHOT, wDEFEAT} {
		b.hazard(h)
		b.flush(hit)
	}
	b.keep = false
	b.winCheck()
	b.read()
}

// MoveWith is Move for a SpellGrid: the movement's OPEN/SHUT pairs leave
// the objects of card nouns to hit, as in StepWith; then the rules are
// re-read.
func (b *Baba) MoveWith(d Dir, hit func(ids []ID)) {
	b.keep = true
	b.movement(d)
	b.flush(hit)
	b.keep = false
	b.read()
}

// flush hands the objects kept by the last destroying step to hit, then
// restores the rules read before it.
func (b *Baba) flush(hit func(ids []ID)) {
	if len(b.kept) == 0 {
		return
	}
	ids := b.kept
	b.kept = nil
	if hit == nil {
		for _, id := range ids {
			b.destroy(int(id) - 1)
		}
		return
	}
	rules, active, thing, text, all := b.rules, b.active, b.thingProps, b.textProps, b.allProps
	b.keep = false
	hit(ids)
	b.keep = true
	b.rules, b.active, b.thingProps, b.textProps, b.allProps = rules, active, thing, text, all
}

// ValidKind reports whether s is a kind of this Baba: a kind of the
// lexicon (the package's ValidKind) or one of its card nouns.
func (b *Baba) ValidKind(s string) bool {
	_, ok := b.parseKind(s)
	return ok
}
