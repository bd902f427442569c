package cards

import (
	"errors"
	"fmt"
	"slices"
)

// registry is a set of card definitions by name. It is never changed once
// made: a change makes a new registry (with), so games and their backups
// share one freely.
type registry struct {
	byName map[string]*CardDef
}

func (r *registry) lookup(name string) *CardDef {
	if r == nil {
		return nil
	}
	return r.byName[name]
}

// names returns the sorted names of the definitions keep accepts.
func (r *registry) names(keep func(*CardDef) bool) []string {
	if r == nil {
		return nil
	}
	var out []string
	for name, d := range r.byName {
		if keep(d) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// with returns r plus defs, each replacing any definition of its name,
// after validating the whole set (§3.6): a refused batch changes nothing.
func (r *registry) with(defs []CardDef) (*registry, error) {
	next := &registry{byName: make(map[string]*CardDef, len(defs)+r.size())}
	if r != nil {
		for name, d := range r.byName {
			next.byName[name] = d
		}
	}
	var errs []error
	var order []string // the batch's names, each once, in order
	batch := make(map[string]bool, len(defs))
	for i := range defs {
		d := defs[i].clone()
		switch {
		case d.Name == "":
			errs = append(errs, &CardError{Card: fmt.Sprintf("#%d", i), Field: "name", Problem: "must not be empty"})
			continue
		case batch[d.Name]:
			errs = append(errs, &CardError{Card: d.Name, Field: "name", Problem: "is not unique"})
			continue
		}
		batch[d.Name] = true
		order = append(order, d.Name)
		next.byName[d.Name] = &d
	}
	for _, name := range order {
		errs = append(errs, next.check(next.byName[name])...)
	}
	for _, name := range next.names(func(d *CardDef) bool { return !batch[d.Name] }) {
		errs = append(errs, next.check(next.byName[name])...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return next, nil
}

func (r *registry) size() int {
	if r == nil {
		return 0
	}
	return len(r.byName)
}

// Validate checks defs as one set of definitions, as loading does (§3.6):
// unique non-empty names, known types, triggers, effects and selectors, the
// fields each type needs, text that matches the ability's halves, and
// summons of known minions. The error joins one CardError for each
// problem.
func Validate(defs []CardDef) error {
	_, err := (*registry)(nil).with(defs)
	return err
}

// check returns the problems of one definition of r.
func (r *registry) check(d *CardDef) []error {
	var errs []error
	fail := func(field, format string, args ...any) {
		errs = append(errs, &CardError{Card: d.Name, Field: field, Problem: fmt.Sprintf(format, args...)})
	}
	if d.Cost < 0 {
		fail("cost", "must be ≥ 0")
	}
	for i, k := range d.Keywords {
		if k != KeywordTaunt {
			fail(fmt.Sprintf("keywords[%d]", i), "unknown keyword %q (the one keyword is %q)", k, KeywordTaunt)
		} else if slices.Index(d.Keywords, k) != i {
			fail(fmt.Sprintf("keywords[%d]", i), "repeats %q", k)
		}
	}
	switch d.Type {
	case Minion:
		if d.Attack < 0 {
			fail("attack", "must be ≥ 0")
		}
		if d.Health < 1 {
			fail("health", "must be ≥ 1")
		}
		if !isNoun(d.Noun) {
			fail("noun", "must be upper-case letters A-Z, at least one")
		}
		if d.Target != NoTargetKind {
			fail("target", "unknown field for a minion")
		}
		if len(d.Effects) > 0 {
			fail("effects", "unknown field for a minion (a minion's effects are its ability's)")
		}
		if d.Ability != nil {
			a := d.Ability
			if a.When.Word() == "" {
				fail("ability.when", "unknown when %q", a.When)
			}
			if len(a.Effects) == 0 {
				fail("ability.effects", "must not be empty")
			}
			for i, e := range a.Effects {
				r.checkEffect(fmt.Sprintf("ability.effects[%d]", i), e, false, fail)
			}
			if want := abilityText(d.Keywords, a); d.Text != want {
				fail("text", "must be %q (keywords, then top, a space and bottom)", want)
			}
		}
		for i, a := range d.Auras {
			checkAura(fmt.Sprintf("auras[%d]", i), a, fail)
		}
	case Spell:
		switch {
		case d.Attack != 0 || d.Health != 0:
			fail("attack", "a spell has no attack or health")
		case d.Noun != "":
			fail("noun", "unknown field for a spell")
		case len(d.Keywords) > 0:
			fail("keywords", "unknown field for a spell")
		case d.Ability != nil:
			fail("ability", "unknown field for a spell (a spell's effects are its own)")
		case len(d.Auras) > 0:
			fail("auras", "unknown field for a spell")
		}
		if d.Target != NoTargetKind && d.Target != TargetCharacter && d.Target != TargetMinion {
			fail("target", "unknown target %q (character or minion)", d.Target)
		}
		if len(d.Effects) == 0 {
			fail("effects", "a spell must have effects")
		}
		chosen := false
		for i, e := range d.Effects {
			r.checkEffect(fmt.Sprintf("effects[%d]", i), e, true, fail)
			chosen = chosen || e.To == Chosen || e.Among == Chosen
		}
		if chosen && d.Target == NoTargetKind {
			fail("target", "is required: an effect selects the chosen target")
		}
	default:
		fail("type", "unknown type %q (minion or spell)", d.Type)
	}
	return errs
}

// checkEffect checks one effect; a spell's may select its chosen target, an
// ability's may select its own minion (self).
func (r *registry) checkEffect(path string, e Effect, spell bool, fail func(field, format string, args ...any)) {
	selector := func(field string, s Selector, group bool) {
		switch s {
		case Chosen:
			if !spell {
				fail(field, "an ability has no chosen target")
			}
		case Self:
			if spell {
				fail(field, "a spell is not an entity: it has no self")
			}
		case EnemyHero, FriendlyHero, AllMinions, EnemyMinions, FriendlyMinions, OtherFriendlyMinions,
			AllCharacters, EnemyCharacters:
		case RandomEnemyCharacter:
			if group {
				fail(field, "%q picks one character: it cannot be the candidates of split damage", s)
			}
		default:
			fail(field, "unknown selector %q", s)
		}
	}
	positive := func(field string, n int32) {
		if n < 1 {
			fail(path+"."+field, "must be ≥ 1")
		}
	}
	switch e.Do {
	case DoDamage:
		positive("amount", e.Amount)
		selector(path+".to", e.To, false)
	case DoSplitDamage:
		positive("amount", e.Amount)
		selector(path+".among", e.Among, true)
	case DoDestroy:
		selector(path+".to", e.To, false)
	case DoDraw:
		positive("count", e.Count)
	case DoGainArmor:
		positive("amount", e.Amount)
	case DoSummon:
		positive("count", e.Count)
		switch d := r.lookup(e.Card); {
		case d == nil:
			fail(path+".card", "no card is named %q", e.Card)
		case d.Type != Minion:
			fail(path+".card", "%q is not a minion", e.Card)
		}
	case DoSpawnText:
		if e.Word == "" {
			fail(path+".word", "must not be empty")
		}
	case DoAssemble:
	default:
		fail(path+".do", "unknown do %q", e.Do)
	}
}

func checkAura(path string, a Aura, fail func(field, format string, args ...any)) {
	switch a.Kind {
	case StatsAura:
		switch a.To {
		case AllMinions, EnemyMinions, FriendlyMinions, OtherFriendlyMinions:
		default:
			fail(path+".to", "a stats aura selects minions: %q is not one of all_minions, enemy_minions, friendly_minions, other_friendly_minions", a.To)
		}
	case MultiplierAura:
		if a.Trigger.Word() == "" {
			fail(path+".trigger", "unknown trigger %q", a.Trigger)
		}
		if a.Factor < 1 {
			fail(path+".factor", "must be ≥ 1")
		}
		if a.Stacking != StackMax && a.Stacking != StackAdd {
			fail(path+".stacking", "unknown stacking %q (max or add)", a.Stacking)
		}
		if a.Scope != ScopeFriendly && a.Scope != ScopeBoth {
			fail(path+".scope", "unknown scope %q (friendly or both)", a.Scope)
		}
	default:
		fail(path+".kind", "unknown kind %q (stats or multiplier)", a.Kind)
	}
}

// isNoun reports whether s is a Baba noun: [A-Z]+.
func isNoun(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}
