package cards

import (
	"testing"
)

// §6: resolution.

const testCards = `[
 {"name": "Whirl and Draw", "type": "spell", "cost": 0, "text": "", "effects": [
  {"do": "damage", "amount": 1, "to": "all_minions"}, {"do": "draw", "count": 1}]},
 {"name": "Master Caller", "type": "minion", "cost": 0, "attack": 0, "health": 1, "text": "Deathrattle: Summon a Cult Master.", "noun": "CALLER",
  "ability": {"when": "deathrattle", "top": "Deathrattle:", "bottom": "Summon a Cult Master.", "effects": [{"do": "summon", "card": "Cult Master", "count": 1}]}},
 {"name": "Baron Caller", "type": "minion", "cost": 0, "attack": 0, "health": 1, "text": "Deathrattle: Summon a Baron.", "noun": "CALLER",
  "ability": {"when": "deathrattle", "top": "Deathrattle:", "bottom": "Summon a Baron.", "effects": [{"do": "summon", "card": "Baron Rivendare", "count": 1}]}},
 {"name": "Leader Egg", "type": "minion", "cost": 0, "attack": 0, "health": 1, "text": "Deathrattle: Summon a Raid Leader.", "noun": "EGG",
  "ability": {"when": "deathrattle", "top": "Deathrattle:", "bottom": "Summon a Raid Leader.", "effects": [{"do": "summon", "card": "Raid Leader", "count": 1}]}},
 {"name": "Kamikaze", "type": "minion", "cost": 0, "attack": 1, "health": 1, "text": "Battlecry: Deal 1 damage to this minion.", "noun": "KAMIKAZE",
  "ability": {"when": "battlecry", "top": "Battlecry:", "bottom": "Deal 1 damage to this minion.", "effects": [{"do": "damage", "amount": 1, "to": "self"}]}},
 {"name": "Double Tap", "type": "spell", "cost": 0, "text": "", "target": "minion", "effects": [
  {"do": "damage", "amount": 1, "to": "chosen"}, {"do": "damage", "amount": 1, "to": "chosen"}]},
 {"name": "Doom Missiles", "type": "spell", "cost": 0, "text": "", "effects": [
  {"do": "destroy", "to": "enemy_minions"}, {"do": "split_damage", "amount": 3, "among": "enemy_minions"}]}
]`

func TestS6_1_DepthFirst(t *testing.T) {
	// The Acolyte's draw, raised by the first effect, resolves before the
	// spell's second effect.
	g := custom(t, Options{Decks: [2][]string{{"Wisp", "Wisp"}, nil}}, testCards)
	ac := summon(t, g, "Acolyte of Pain", 0)
	g.ClearLog()
	ok(t, g.Cast("Whirl and Draw", 0, NoID))
	wantLog(t, g, SpellCast("Whirl and Draw"), Damaged(ac, 1), Triggered(ac, "damaged"), Drew(0, 3), Drew(0, 4))
}

func TestS6_1_SimultaneousEventsThenTriggers(t *testing.T) {
	// Whirlwind damages both minions first; then each target's triggers,
	// targets in order of play, each Queue by order of play.
	g := newGame(t, Options{})
	ac := summon(t, g, "Acolyte of Pain", 0)
	sm := summon(t, g, "Armorsmith", 0)
	g.ClearLog()
	ok(t, g.Cast("Whirlwind", 1, NoID))
	wantLog(t, g, SpellCast("Whirlwind"), Damaged(ac, 1), Damaged(sm, 1),
		Triggered(ac, "damaged"), Fatigue(0), Triggered(sm, "damaged"), ArmorGained(0, 1), // the Acolyte's damage
		Triggered(sm, "damaged"), ArmorGained(0, 1)) // the Armorsmith's own
}

func TestS6_1_QueueFixedWhenFilled(t *testing.T) {
	// A Cult Master that enters play while a Death's Queue resolves does
	// not join it...
	g := custom(t, Options{}, testCards)
	caller := summon(t, g, "Master Caller", 0)
	g.ClearLog()
	ok(t, g.Destroy(caller))
	cm := ID(4)
	wantLog(t, g, Destroyed(caller), DeathPhase(1), Triggered(caller, "deathrattle"), Summoned(cm))
	// ...but the Queue of the next Death of the same Phase is filled later,
	// and holds it.
	g = custom(t, Options{}, testCards)
	caller = summon(t, g, "Master Caller", 0)
	w := summon(t, g, "Wisp", 0)
	g.ClearLog()
	ok(t, g.DestroyAll([]ID{caller, w}))
	cm = ID(5)
	wantLog(t, g, Destroyed(caller), Destroyed(w), DeathPhase(1),
		Triggered(caller, "deathrattle"), Summoned(cm),
		Triggered(cm, "after_death"), Fatigue(0))
}

func TestS6_1_LaterPhaseSkipped(t *testing.T) {
	// A played minion that dies in its Battlecry Phase has no After Summon
	// Phase: the Knife Juggler does not throw.
	g := custom(t, Options{}, testCards)
	j := summon(t, g, "Knife Juggler", 0)
	k := addToHand(t, g, "Kamikaze", 0)
	g.ClearLog()
	ok(t, g.Play(k))
	wantLog(t, g, Summoned(k), Triggered(k, "battlecry"), Damaged(k, 1), Destroyed(k), DeathPhase(1))
	// A minion that lives gets it.
	w := summon(t, g, "Wisp", 0)
	wantLog(t, g, Summoned(w), Triggered(j, "after_summon"), Damaged(2, 1))
}

func TestS6_2_EndOfPhaseSteps(t *testing.T) {
	// Aura Update (Health/Attack) comes first, then the Death Creation
	// Step; the aura of a removed Champion goes at the next Aura Update.
	g := newGame(t, Options{})
	ch := summon(t, g, "Stormwind Champion", 0)
	w := summon(t, g, "Wisp", 0)
	wantLog(t, g, Summoned(ch), Summoned(w), StatsChanged(w, 2, 2))
	ok(t, g.Cast("Fireball", 1, ch))
	wantLog(t, g, SpellCast("Fireball"), Damaged(ch, 6), Destroyed(ch), DeathPhase(1), StatsChanged(w, 1, 1))
}

func TestS6_2_ChainedDeathPhases(t *testing.T) {
	g := newGame(t, Options{})
	gh := summon(t, g, "Unstable Ghoul", 0)
	w := summon(t, g, "Wisp", 0)
	ab := summon(t, g, "Abomination", 1)
	ok(t, g.DealDamage(ab, 3))
	g.ClearLog()
	ok(t, g.Destroy(gh))
	wantLog(t, g, Destroyed(gh), DeathPhase(1),
		Triggered(gh, "deathrattle"), Damaged(w, 1), Damaged(ab, 1),
		Destroyed(w), Destroyed(ab), DeathPhase(2),
		Triggered(ab, "deathrattle"), Damaged(1, 2), Damaged(2, 2))
	// Rounds count within one Sequence: the next starts at 1 again.
	y := summon(t, g, "Wisp", 1)
	g.ClearLog()
	ok(t, g.Destroy(y))
	wantLog(t, g, Destroyed(y), DeathPhase(1))
}

func TestS6_2_HeroesNeverRemoved(t *testing.T) {
	g := newGame(t, Options{})
	ok(t, g.DealDamage(1, 31))
	wantLog(t, g, Damaged(1, 31))
	if zone(t, g, 1) != ZoneBoard {
		t.Fatal("a dead hero stays in play")
	}
}

func TestS6_2_RemovedEntitiesDoNotTrigger(t *testing.T) {
	// The rulebook's Cult Master and Bloodfen Raptor under Flamestrike: the
	// Cult Master is removed with the Raptor and draws nothing.
	g := newGame(t, Options{})
	cm := summon(t, g, "Cult Master", 0)
	r := summon(t, g, "Bloodfen Raptor", 0)
	g.ClearLog()
	ok(t, g.Cast("Flamestrike", 1, NoID))
	wantLog(t, g, SpellCast("Flamestrike"), Damaged(cm, 4), Damaged(r, 4), Destroyed(cm), Destroyed(r), DeathPhase(1))
	// A Cult Master that survives draws.
	g = newGame(t, Options{})
	cm = summon(t, g, "Cult Master", 0)
	w := summon(t, g, "Wisp", 0)
	g.ClearLog()
	ok(t, g.Cast("Whirlwind", 1, NoID))
	wantLog(t, g, SpellCast("Whirlwind"), Damaged(cm, 1), Damaged(w, 1), Destroyed(w), DeathPhase(1),
		Triggered(cm, "after_death"), Fatigue(0))
}

func TestS6_2_DeathQueueByOrderOfPlay(t *testing.T) {
	// The Cult Master is older than the Hoarder: it resolves first.
	g := newGame(t, Options{})
	cm := summon(t, g, "Cult Master", 0)
	h := summon(t, g, "Loot Hoarder", 0)
	g.ClearLog()
	ok(t, g.Destroy(h))
	wantLog(t, g, Destroyed(h), DeathPhase(1), Triggered(cm, "after_death"), Fatigue(0), Triggered(h, "deathrattle"), Fatigue(0))
}

func TestS6_2_NaiveAuraTiming(t *testing.T) {
	run := func(naive bool) int {
		g := newGame(t, Options{})
		if naive {
			g.WithNaiveAuraTiming()
		}
		summon(t, g, "Baron Rivendare", 0)
		summon(t, g, "Loot Hoarder", 0)
		g.ClearLog()
		ok(t, g.Cast("Twisting Nether", 1, NoID))
		return len(ofType(g, EventTriggered))
	}
	// The Baron dies with the Hoarder: removed before Aura Update (Other),
	// he does not double its Deathrattle; the naive order lets him.
	if n := run(false); n != 1 {
		t.Fatalf("correct timing: %d activations, want 1", n)
	}
	if n := run(true); n != 2 {
		t.Fatalf("naive timing: %d activations, want 2", n)
	}
}

func TestS6_3_ArmorAbsorbsFirst(t *testing.T) {
	g := newGame(t, Options{})
	ok(t, g.Cast("Shield Block", 0, NoID))
	wantLog(t, g, SpellCast("Shield Block"), ArmorGained(0, 5), Fatigue(0))
	ok(t, g.DealDamage(1, 3))
	if a, _ := g.Armor(0); a != 2 || health(t, g, 1) != 30 {
		t.Fatalf("armor %d health %d; want 2, 30", a, health(t, g, 1))
	}
	ok(t, g.DealDamage(1, 7))
	// Damaged carries the whole amount, Armor's share included.
	wantLog(t, g, Damaged(1, 3), Damaged(1, 7))
	if a, _ := g.Armor(0); a != 0 || health(t, g, 1) != 25 {
		t.Fatalf("armor %d health %d; want 0, 25", a, health(t, g, 1))
	}
}

func TestS6_3_MortallyWoundedStillTriggers(t *testing.T) {
	// The rulebook's Unstable Ghoul and Acolyte of Pain: the Acolyte at 0
	// Health still draws.
	g := newGame(t, Options{Decks: [2][]string{{"Wisp", "Wisp"}, nil}})
	gh := summon(t, g, "Unstable Ghoul", 1)
	ac := summon(t, g, "Acolyte of Pain", 0)
	g.ClearLog()
	ok(t, g.DealDamage(ac, 2))
	wantLog(t, g, Damaged(ac, 2), Triggered(ac, "damaged"), Drew(0, 3))
	ok(t, g.Destroy(gh))
	wantLog(t, g, Destroyed(gh), DeathPhase(1), Triggered(gh, "deathrattle"), Damaged(ac, 1),
		Triggered(ac, "damaged"), Drew(0, 4), Destroyed(ac), DeathPhase(2))
}

func TestS6_3_DamageTriggers(t *testing.T) {
	// Armorsmith: any friendly minion, itself included; not an enemy's, not
	// a hero's.
	g := newGame(t, Options{})
	sm := summon(t, g, "Armorsmith", 0)
	w := summon(t, g, "Chillwind Yeti", 0)
	e := summon(t, g, "Chillwind Yeti", 1)
	g.ClearLog()
	ok(t, g.DealDamage(w, 1))
	ok(t, g.DealDamage(sm, 1))
	ok(t, g.DealDamage(e, 1))
	ok(t, g.DealDamage(1, 1))
	wantLog(t, g, Damaged(w, 1), Triggered(sm, "damaged"), ArmorGained(0, 1),
		Damaged(sm, 1), Triggered(sm, "damaged"), ArmorGained(0, 1),
		Damaged(e, 1), Damaged(1, 1))
}

func TestS6_4_RandomPicksSkipMortallyWounded(t *testing.T) {
	for seed := range uint32(40) {
		g := newGame(t, Options{Seed: seed})
		w := summon(t, g, "Wisp", 1)
		g.ClearLog()
		ok(t, g.Cast("Arcane Missiles", 0, NoID))
		hits := 0
		for _, e := range ofType(g, EventDamaged) {
			if e.Target == w {
				hits++
			}
		}
		if hits > 1 {
			t.Fatalf("seed %d: the Wisp was hit %d times: a mortally wounded minion is no candidate", seed, hits)
		}
		if n := len(ofType(g, EventDamaged)); n != 3 {
			t.Fatalf("seed %d: %d hits", seed, n)
		}
	}
	// No candidate: the hits left are dropped.
	g := newGame(t, Options{})
	w := summon(t, g, "Wisp", 1)
	ok(t, g.DealDamage(2, 30))
	g.ClearLog()
	ok(t, g.Cast("Arcane Missiles", 0, NoID))
	wantLog(t, g, SpellCast("Arcane Missiles"), Damaged(w, 1), Destroyed(w), DeathPhase(1))
}

func TestS6_4_PendingDestroyIsACandidate(t *testing.T) {
	g := custom(t, Options{}, testCards)
	y := summon(t, g, "Chillwind Yeti", 1)
	g.ClearLog()
	ok(t, g.Cast("Doom Missiles", 0, NoID))
	wantLog(t, g, SpellCast("Doom Missiles"), Damaged(y, 1), Damaged(y, 1), Damaged(y, 1), Destroyed(y), DeathPhase(1))
}

func TestS6_4_ChosenIncludesMortallyWounded(t *testing.T) {
	g := custom(t, Options{}, testCards)
	w := summon(t, g, "Wisp", 1)
	g.ClearLog()
	ok(t, g.Cast("Double Tap", 0, w))
	wantLog(t, g, SpellCast("Double Tap"), Damaged(w, 1), Damaged(w, 1), Destroyed(w), DeathPhase(1))
}

func TestS6_5_StatsAuras(t *testing.T) {
	g := newGame(t, Options{})
	a := summon(t, g, "Wisp", 0)
	e := summon(t, g, "Wisp", 1)
	rl := summon(t, g, "Raid Leader", 0)
	wantLog(t, g, Summoned(a), Summoned(e), Summoned(rl), StatsChanged(a, 2, 1))
	b := summon(t, g, "Wisp", 0)
	ch := summon(t, g, "Stormwind Champion", 0)
	// Bonuses add up; StatsChanged by order of play; the enemy's Wisp and
	// the sources themselves get nothing from their own auras.
	wantLog(t, g, Summoned(b), StatsChanged(b, 2, 1), Summoned(ch), StatsChanged(a, 3, 2), StatsChanged(rl, 3, 3), StatsChanged(b, 3, 2), StatsChanged(ch, 7, 6))
	if attack(t, g, e) != 1 {
		t.Fatal("an enemy minion got a friendly aura")
	}
}

func TestS6_5_LosingHealthBonus(t *testing.T) {
	// A damaged minion survives the loss of an aura; an undamaged one goes
	// back to its base.
	g := newGame(t, Options{})
	ch := summon(t, g, "Stormwind Champion", 0)
	hurt := summon(t, g, "Chillwind Yeti", 0)
	whole := summon(t, g, "Chillwind Yeti", 0)
	ok(t, g.DealDamage(hurt, 5))
	if health(t, g, hurt) != 1 || health(t, g, whole) != 6 {
		t.Fatal("setup")
	}
	g.ClearLog()
	ok(t, g.Destroy(ch))
	wantLog(t, g, Destroyed(ch), DeathPhase(1), StatsChanged(hurt, 4, 1), StatsChanged(whole, 4, 5))
	if zone(t, g, hurt) != ZoneBoard {
		t.Fatal("the damaged Yeti died")
	}
}

func TestS6_5_RemovedChampionStillBuffsDeathPhase(t *testing.T) {
	// Rule 4b: the Champion, removed with the Ghoul, still buffs the Wisp
	// in the Death Phase, so the Ghoul's 1 damage does not kill it.
	g := newGame(t, Options{})
	ch := summon(t, g, "Stormwind Champion", 0)
	w := summon(t, g, "Wisp", 0)
	gh := summon(t, g, "Unstable Ghoul", 1)
	g.ClearLog()
	ok(t, g.DestroyAll([]ID{ch, gh}))
	wantLog(t, g, Destroyed(ch), Destroyed(gh), DeathPhase(1), Triggered(gh, "deathrattle"), Damaged(w, 1), StatsChanged(w, 1, 1))
	if health(t, g, w) != 1 {
		t.Fatal("the Wisp survives with 1 Health")
	}
}

func TestS6_5_Multipliers(t *testing.T) {
	draws := func(barons int, rules []RuleAura, refresh bool) int {
		g := newGame(t, Options{})
		for range barons {
			summon(t, g, "Baron Rivendare", 0)
		}
		ok(t, g.SetRuleAuras(rules))
		if refresh {
			ok(t, g.RefreshAuras())
		}
		h := summon(t, g, "Loot Hoarder", 0)
		g.ClearLog()
		ok(t, g.Destroy(h))
		return len(ofType(g, EventFatigue))
	}
	double := []RuleAura{{Trigger: Deathrattle, Factor: 2}}
	cap := []RuleAura{{Trigger: Deathrattle, Cap: true}}
	for _, c := range []struct {
		name   string
		barons int
		rules  []RuleAura
		want   int
	}{
		{"none", 0, nil, 1},
		{"one Baron", 1, nil, 2},
		{"two Barons give 2, not 4", 2, nil, 2},
		{"a rule aura", 0, double, 2},
		{"a Baron and a rule aura: max", 1, double, 2},
		{"a cap beats a Baron", 1, append(cap, double...), 1},
		{"a rule aura of another trigger", 1, []RuleAura{{Trigger: Battlecry, Factor: 3}}, 2},
	} {
		for _, refresh := range []bool{false, true} {
			if got := draws(c.barons, c.rules, refresh); got != c.want {
				t.Errorf("%s (refresh %v): %d activations, want %d", c.name, refresh, got, c.want)
			}
		}
	}
	// Rule auras enter the snapshot at the next Aura Update (Other).
	g := newGame(t, Options{})
	ok(t, g.SetRuleAuras(double))
	if g.factor(0, Deathrattle) != 1 {
		t.Fatal("a rule aura applied before any Aura Update")
	}
	ok(t, g.RefreshAuras())
	if g.factor(0, Deathrattle) != 2 || g.factor(1, Deathrattle) != 2 {
		t.Fatal("a rule aura is for both players")
	}
	if err := g.SetRuleAuras([]RuleAura{{Trigger: "nope", Factor: 2}}); err == nil {
		t.Fatal("an unknown trigger was accepted")
	}
	if err := g.SetRuleAuras([]RuleAura{{Trigger: Deathrattle}}); err == nil {
		t.Fatal("factor 0 was accepted")
	}
}

func TestS6_5_ActivationsInARow(t *testing.T) {
	// The doubled Deathrattle activates twice before the next entry of the
	// Queue; the Cult Master's ability is not a Deathrattle: once.
	g := newGame(t, Options{})
	summon(t, g, "Baron Rivendare", 0)
	h := summon(t, g, "Loot Hoarder", 0)
	cm := summon(t, g, "Cult Master", 0)
	g.ClearLog()
	ok(t, g.Destroy(h))
	wantLog(t, g, Destroyed(h), DeathPhase(1),
		Triggered(h, "deathrattle"), Fatigue(0), Triggered(h, "deathrattle"), Fatigue(0),
		Triggered(cm, "after_death"), Fatigue(0))
}

func TestS6_5_MultiplierWaitsForAuraUpdate(t *testing.T) {
	// A Baron summoned in a Death Phase does not double the Deathrattles
	// of that Phase: the snapshot changes at Aura Update (Other) only.
	g := custom(t, Options{}, testCards)
	c := summon(t, g, "Baron Caller", 0)
	h := summon(t, g, "Loot Hoarder", 0)
	g.ClearLog()
	ok(t, g.DestroyAll([]ID{c, h}))
	baron := ID(5)
	wantLog(t, g, Destroyed(c), Destroyed(h), DeathPhase(1),
		Triggered(c, "deathrattle"), Summoned(baron),
		Triggered(h, "deathrattle"), Fatigue(0))
}

func TestS6_6_Summon(t *testing.T) {
	// On Summon, then After Summon: the other friendly Knife Juggler
	// throws; a summoned Battlecry minion does not trigger its Battlecry.
	g := newGame(t, Options{})
	j := summon(t, g, "Knife Juggler", 0)
	wantLog(t, g, Summoned(j))
	e := summon(t, g, "Novice Engineer", 0)
	wantLog(t, g, Summoned(e), Triggered(j, "after_summon"), Damaged(2, 1))
	if by, _ := g.SummonedBy(e); by != NoID {
		t.Fatal("an action's summon has no origin")
	}
	// Another player's summon does not trigger it.
	summon(t, g, "Wisp", 1)
	if len(ofType(g, EventTriggered)) != 0 {
		t.Fatal("the Juggler threw for an enemy summon")
	}
}

func TestS6_6_Play(t *testing.T) {
	g := newGame(t, Options{Decks: [2][]string{{"Wisp"}, nil}})
	j := summon(t, g, "Knife Juggler", 0)
	e := addToHand(t, g, "Novice Engineer", 0)
	g.ClearLog()
	ok(t, g.Play(e))
	wantLog(t, g, Summoned(e), Triggered(e, "battlecry"), Drew(0, 3), Triggered(j, "after_summon"), Damaged(2, 1))
	// A Battlecry multiplied by a rule aura activates twice.
	ok(t, g.SetRuleAuras([]RuleAura{{Trigger: Battlecry, Factor: 2}}))
	ok(t, g.RefreshAuras())
	e2 := addToHand(t, g, "Novice Engineer", 0)
	g.ClearLog()
	ok(t, g.Play(e2))
	if n := len(ofType(g, EventTriggered)); n != 3 {
		t.Fatalf("%d activations, want 2 battlecries and the Juggler's", n)
	}
}

func TestS6_6_Cast(t *testing.T) {
	// Spell Text's deaths are processed before After Spell; the round
	// counter runs on through the Sequence.
	g := newGame(t, Options{})
	py := summon(t, g, "Wild Pyromancer", 0)
	w := summon(t, g, "Wisp", 0)
	g.ClearLog()
	ok(t, g.Cast("Whirlwind", 0, NoID))
	wantLog(t, g, SpellCast("Whirlwind"), Damaged(py, 1), Damaged(w, 1), Destroyed(w), DeathPhase(1),
		Triggered(py, "after_spell"), Damaged(py, 1), Destroyed(py), DeathPhase(2))
	// The enemy's spell does not trigger it.
	py = summon(t, g, "Wild Pyromancer", 0)
	g.ClearLog()
	ok(t, g.Cast("Arcane Intellect", 1, NoID))
	wantLog(t, g, SpellCast("Arcane Intellect"), Fatigue(1), Fatigue(1))
}

func TestS6_6_NestedSummonRunsInline(t *testing.T) {
	// The Golem's token enters in the Death Phase, its After Summon step
	// inline: the Juggler throws at once.
	g := newGame(t, Options{})
	j := summon(t, g, "Knife Juggler", 0)
	hg := summon(t, g, "Harvest Golem", 0)
	g.ClearLog()
	ok(t, g.Destroy(hg))
	token := ID(5)
	wantLog(t, g, Destroyed(hg), DeathPhase(1), Triggered(hg, "deathrattle"), Summoned(token), Triggered(j, "after_summon"), Damaged(2, 1))
	if by, _ := g.SummonedBy(token); by != hg {
		t.Fatalf("summonedBy(token) = %d, want the Golem %d", by, hg)
	}
	// A minion summoned in a Phase has its auras from the next Aura Update.
	g = custom(t, Options{}, testCards)
	egg := summon(t, g, "Leader Egg", 0)
	w := summon(t, g, "Wisp", 0)
	g.ClearLog()
	ok(t, g.Destroy(egg))
	wantLog(t, g, Destroyed(egg), DeathPhase(1), Triggered(egg, "deathrattle"), Summoned(5), StatsChanged(w, 2, 1))
}

func TestS6_7_DrawFatigueOverdraw(t *testing.T) {
	g := newGame(t, Options{Decks: [2][]string{{"Wisp", "Chillwind Yeti"}, nil}})
	ok(t, g.Cast("Arcane Intellect", 0, NoID))
	ok(t, g.Cast("Arcane Intellect", 0, NoID))
	wantLog(t, g, SpellCast("Arcane Intellect"), Drew(0, 3), Drew(0, 4), SpellCast("Arcane Intellect"), Fatigue(0), Fatigue(0))
	// Fatigue does nothing else: no damage.
	if health(t, g, 1) != 30 {
		t.Fatal("fatigue dealt damage")
	}
}

func TestS6_8_GameOver(t *testing.T) {
	g := newGame(t, Options{})
	if g.Outcome().Over {
		t.Fatal("over at the start")
	}
	ok(t, g.DealDamage(2, 30))
	if o := g.Outcome(); o != (Outcome{Over: true, Winner: 0}) {
		t.Fatalf("outcome %+v", o)
	}
	// The harness goes on; the first verdict stands.
	ok(t, g.DealDamage(1, 30))
	if o := g.Outcome(); o != (Outcome{Over: true, Winner: 0}) {
		t.Fatalf("outcome %+v", o)
	}
	// Both heroes at once: a draw.
	g = newGame(t, Options{})
	ok(t, g.DealDamage(1, 27))
	ok(t, g.DealDamage(2, 27))
	ok(t, g.Cast("Hellfire", 0, NoID))
	if o := g.Outcome(); o != (Outcome{Over: true, Draw: true}) {
		t.Fatalf("outcome %+v", o)
	}
	// Player 0 alone.
	g = newGame(t, Options{})
	ok(t, g.DealDamage(1, 29))
	summon(t, g, "Leper Gnome", 1)
	ok(t, g.Cast("Whirlwind", 0, NoID))
	if o := g.Outcome(); o != (Outcome{Over: true, Winner: 1}) {
		t.Fatalf("outcome %+v", o)
	}
}

func TestS6_RunawaySequenceFails(t *testing.T) {
	// A Deathrattle that summons its own card and damages it never ends:
	// the call fails and the game is as it was.
	g := custom(t, Options{}, `[{"name": "Phoenix", "type": "minion", "cost": 0, "attack": 0, "health": 1, "noun": "PHOENIX",
	 "text": "Deathrattle: Rise and burn.", "ability": {"when": "deathrattle", "top": "Deathrattle:", "bottom": "Rise and burn.",
	 "effects": [{"do": "summon", "card": "Phoenix", "count": 1}, {"do": "damage", "amount": 1, "to": "all_minions"}]}}]`)
	p := summon(t, g, "Phoenix", 0)
	refused(t, g, ErrRunaway, func() error { return g.Destroy(p) })
	summon(t, g, "Wisp", 0) // still usable
}

func TestS6_ChooserPanicRestores(t *testing.T) {
	g := newGame(t, Options{})
	addToHand(t, g, "Leper Gnome", 0)
	g.SetChooser(func(string, []string) string { panic("boom") })
	before := fingerprint(t, g)
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the chooser's panic was swallowed")
			}
		}()
		g.Cast("Workshop", 0, NoID)
	}()
	if after := fingerprint(t, g); after != before {
		t.Fatalf("a panicking chooser left the game changed:\n%s", diff(before, after))
	}
}
