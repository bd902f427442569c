package cards

import "slices"

// Assemble and the chooser (§8).

// Half is the half of an ability Assemble replaces (§8).
type Half string

// Halves.
const (
	HalfTop    Half = "top"    // the trigger phrase: "when" and "top"
	HalfBottom Half = "bottom" // the effect phrase: "bottom" and "effects"
)

// AssembledSuffix ends the name of every assembled card.
const AssembledSuffix = " (Assembled)"

// Assemble registers a copy of base whose half is donor's (§8) as
// "<base> (Assembled)", replacing any card of that name, and returns the
// name. The copy keeps base's cost, stats, keywords, noun and auras; its
// text is regenerated. Its error is an *AssembleError.
func (g *Game) Assemble(base, donor string, half Half) (string, error) {
	d, err := assembled(g.s.reg, base, donor, half)
	if err != nil {
		return "", err
	}
	reg, err := g.s.reg.with([]CardDef{d})
	if err != nil {
		return "", &AssembleError{Base: base, Donor: donor, Half: string(half), Problem: err.Error()}
	}
	g.s.reg = reg
	return d.Name, nil
}

// assembled returns the definition Assemble registers.
func assembled(reg *registry, base, donor string, half Half) (CardDef, error) {
	fail := func(problem string) (CardDef, error) {
		return CardDef{}, &AssembleError{Base: base, Donor: donor, Half: string(half), Problem: problem}
	}
	b, d := reg.lookup(base), reg.lookup(donor)
	switch {
	case half != HalfTop && half != HalfBottom:
		return fail(`the half must be "top" or "bottom"`)
	case b == nil:
		return fail("no card is named " + quote(base))
	case d == nil:
		return fail("no card is named " + quote(donor))
	case b.Ability == nil:
		return fail(quote(base) + " has no ability")
	case d.Ability == nil:
		return fail(quote(donor) + " has no ability")
	}
	c := b.clone()
	c.Name = base + AssembledSuffix
	if half == HalfTop {
		c.Ability.When, c.Ability.Top = d.Ability.When, d.Ability.Top
	} else {
		c.Ability.Bottom, c.Ability.Effects = d.Ability.Bottom, slices.Clone(d.Ability.Effects)
	}
	c.Text = abilityText(c.Keywords, c.Ability)
	if c.Text == b.Text {
		return fail("the text is unchanged: " + quote(c.Text))
	}
	return c, nil
}

func quote(s string) string { return string(appendJSONString(nil, s)) }

// assembleEffect is the assemble effect (§8): the chooser picks a base
// among the minion cards in owner's hand that have an ability, a donor
// among the registered non-token cards with one, and a half; the first
// hand card of the base's name becomes the assembled card, keeping its
// id. An empty list, an answer not among the options or an AssembleError
// makes the effect do nothing.
func (g *Game) assembleEffect(owner Player) {
	var bases []string
	for _, id := range g.s.sides[owner].hand {
		if d := g.s.ents[id].def; d.Type == Minion && d.Ability != nil && !slices.Contains(bases, d.Name) {
			bases = append(bases, d.Name)
		}
	}
	slices.Sort(bases)
	donors := g.s.reg.names(func(d *CardDef) bool { return !d.Token && d.Ability != nil })
	if len(bases) == 0 || len(donors) == 0 {
		return
	}
	base, ok := g.choose("base", bases)
	if !ok {
		return
	}
	donor, ok := g.choose("donor", donors)
	if !ok {
		return
	}
	half, ok := g.choose("half", []string{string(HalfTop), string(HalfBottom)})
	if !ok {
		return
	}
	d, err := assembled(g.s.reg, base, donor, Half(half))
	if err != nil {
		return
	}
	reg, err := g.s.reg.with([]CardDef{d})
	if err != nil {
		return
	}
	g.s.reg = reg
	for _, id := range g.s.sides[owner].hand {
		if e := &g.s.ents[id]; e.def.Name == base && e.def.Type == Minion && e.def.Ability != nil {
			e.def = reg.lookup(d.Name)
			return
		}
	}
}

// choose asks the chooser and reports whether its answer is an option.
func (g *Game) choose(kind string, options []string) (string, bool) {
	if g.chooser == nil {
		return options[0], true
	}
	answer := g.chooser(kind, slices.Clone(options))
	return answer, slices.Contains(options, answer)
}
