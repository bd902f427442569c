package baba

import "slices"

// ruleSet is a set of rules: pos[X] holds every Y of a rule "X IS Y",
// neg[X] every Y of "X IS NOT Y".
type ruleSet struct {
	pos, neg [maxWords]wordSet
}

// read reads the rules from the board (§3.1–§3.2), adds the implicit TEXT
// IS PUSH (§3.3), applies the post-pass (§3.4) and derives every kind's
// properties (§3.5).
func (b *Baba) read() {
	n := b.width * b.height
	if len(b.scratch.tileWords) != n {
		b.scratch.tileWords = make([]wordSet, n)
	}
	words := b.scratch.tileWords
	for i := range b.objs {
		if o := &b.objs[i]; o.alive && o.kind.text {
			words[b.tile(int(o.x), int(o.y))] |= o.kind.w.set()
		}
	}
	var rs ruleSet
	for i := range b.objs {
		o := &b.objs[i]
		if !o.alive || !o.kind.text || !b.nounSet().has(o.kind.w) {
			continue
		}
		// A subject starts a rule rightwards and downwards. Several text
		// objects on one tile read the same rules again, which the set
		// absorbs.
		x, y := int(o.x), int(o.y)
		subject := o.kind.w
		if x+2 < b.width {
			t := b.tile(x, y)
			b.readFrom(&rs, subject, words[t+1], words[t+2], x+3 < b.width, t+3)
		}
		if y+2 < b.height {
			t := b.tile(x, y)
			w := b.width
			b.readFrom(&rs, subject, words[t+w], words[t+2*w], y+3 < b.height, t+3*w)
		}
	}
	for i := range b.objs {
		if o := &b.objs[i]; o.kind.text {
			words[b.tile(int(o.x), int(o.y))] = 0
		}
	}
	rs.pos[wTEXT] |= wPUSH.set()
	b.rules = rs
	b.active = postPass(rs, b.nounSet())
	b.deriveProps()
}

// readFrom adds the rules whose subject is subject and whose next tiles
// hold the words second, third and (when hasFourth) words[fourth]:
// "subject IS C" for every complement C of the third tile, and, when the
// third tile holds NOT, "subject IS NOT C" for every complement of the
// fourth (§3.1; each tile gives any one of its words, §3.2).
func (b *Baba) readFrom(rs *ruleSet, subject word, second, third wordSet, hasFourth bool, fourth int) {
	if !second.has(wIS) {
		return
	}
	rs.pos[subject] |= third & b.complementSet()
	if hasFourth && third.has(wNOT) {
		rs.neg[subject] |= b.scratch.tileWords[fourth] & b.complementSet()
	}
}

// postPass returns the active rules of a reading (§3.4): every "X IS NOT
// Y" removes "X IS Y" (the same X, literally), then every surviving "X IS
// X" removes every "X IS Y" with Y a noun other than X.
func postPass(rs ruleSet, nouns wordSet) ruleSet {
	act := rs
	for x := range word(maxWords) {
		act.pos[x] &^= rs.neg[x]
	}
	for x := range word(maxWords) {
		if act.pos[x].has(x) {
			act.pos[x] &^= nouns &^ x.set()
		}
	}
	return act
}

// deriveProps computes what the active rules give each kind (§3.5): the
// complements of the rules naming it, less those of the negated rules
// naming it. Nouns among them are its conversion targets (§6.2).
func (b *Baba) deriveProps() {
	all := wordSet(0)
	for w := range word(maxWords) {
		if !b.thingSet().has(w) {
			b.thingProps[w] = 0
			continue
		}
		b.thingProps[w] = (b.active.pos[w] | b.active.pos[wALL]) &^ (b.active.neg[w] | b.active.neg[wALL])
		all |= b.thingProps[w]
	}
	b.textProps = b.active.pos[wTEXT] &^ b.active.neg[wTEXT]
	b.allProps = all | b.textProps
}

// Rules returns every rule of the last reading (§3.3), the implicit TEXT
// IS PUSH and negated rules included, as "BABA IS YOU" and "BABA IS NOT
// YOU", each once, in byte order.
func (b *Baba) Rules() []string { return b.rules.strings(b) }

// ActiveRules returns the rules that survive the post-pass (§3.4), in the
// form and order of Rules.
func (b *Baba) ActiveRules() []string { return b.active.strings(b) }

func (rs *ruleSet) strings(b *Baba) []string {
	var out []string
	for x := range word(maxWords) {
		for s := rs.pos[x]; s != 0; s &= s - 1 {
			out = append(out, b.spell(x)+" IS "+b.spell(s.first()))
		}
		for s := rs.neg[x]; s != 0; s &= s - 1 {
			out = append(out, b.spell(x)+" IS NOT "+b.spell(s.first()))
		}
	}
	slices.Sort(out)
	return out
}
