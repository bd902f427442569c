package cards

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// §3: card definitions, their JSON form, selectors, auras and validation.

func TestS3_1_FieldsRoundTrip(t *testing.T) {
	for _, file := range []string{"cards/starter.json", "cards/invented.json"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		defs, err := DecodeCardFile(data)
		if err != nil {
			t.Fatal(err)
		}
		out, err := json.Marshal(defs)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeCards(out)
		if err != nil {
			t.Fatalf("%s: the canonical form does not decode: %v\n%s", file, err, out)
		}
		if !reflect.DeepEqual(normal(defs), normal(back)) {
			t.Fatalf("%s: round trip differs", file)
		}
		// The canonical form is the file's, member for member.
		var want, got []map[string]any
		var f struct{ Cards json.RawMessage }
		json.Unmarshal(data, &f)
		json.Unmarshal(f.Cards, &want)
		json.Unmarshal(out, &got)
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("%s: canonical JSON differs from the file", file)
		}
	}
	var d CardDef
	ok(t, json.Unmarshal([]byte(`{"name":"X","type":"minion","cost":2.0,"attack":1,"health":1,"text":"","noun":"X","token":true,"keywords":["taunt"]}`), &d))
	if d.Cost != 2 || !d.Token || !d.Taunt() || d.Noun != "X" {
		t.Fatalf("decoded %+v", d)
	}
}

// normal makes nil and empty slices alike for comparison.
func normal(defs []CardDef) []CardDef {
	out := make([]CardDef, len(defs))
	for i, d := range defs {
		d = d.clone()
		if len(d.Keywords) == 0 {
			d.Keywords = nil
		}
		if len(d.Auras) == 0 {
			d.Auras = nil
		}
		if len(d.Effects) == 0 {
			d.Effects = nil
		}
		out[i] = d
	}
	return out
}

func TestS3_2_TriggerWords(t *testing.T) {
	for w, word := range map[When]string{
		Battlecry: "battlecry", Deathrattle: "deathrattle", SelfDamaged: "damaged",
		FriendlyMinionDamaged: "damaged", AfterFriendlySummon: "after_summon",
		AfterOwnerSpell: "after_spell", AfterFriendlyDeath: "after_death", "end_of_turn": "",
	} {
		if got := w.Word(); got != word {
			t.Errorf("%s logs %q, want %q", w, got, word)
		}
	}
}

func TestS3_3_EffectsInListOrder(t *testing.T) {
	g := custom(t, Options{Decks: [2][]string{{"Wisp"}, nil}}, `[
	 {"name": "All In", "type": "spell", "cost": 0, "text": "", "effects": [
	  {"do": "gain_armor", "amount": 2},
	  {"do": "draw", "count": 1},
	  {"do": "summon", "card": "Wisp", "count": 2},
	  {"do": "damage", "amount": 3, "to": "enemy_hero"},
	  {"do": "spawn_text", "word": "WIN"}]}]`)
	ok(t, g.Cast("All In", 0, NoID))
	wantLog(t, g, SpellCast("All In"), ArmorGained(0, 2), Drew(0, 3), Summoned(4), Summoned(5), Damaged(2, 3))
	if r := g.TakeTextRequests(); !slices.Equal(r, []TextRequest{{NoID, "WIN"}}) {
		t.Fatalf("requests %v", r)
	}
	if r := g.TakeTextRequests(); len(r) != 0 {
		t.Fatalf("requests are taken once: %v", r)
	}
}

func TestS3_4_Selectors(t *testing.T) {
	// Player 0 has two minions, player 1 one; the order of play
	// interleaves them: f1 (3), e1 (4), f2 (5).
	const cards = `[
	 {"name": "Zap", "type": "spell", "cost": 0, "text": "", "target": "character", "effects": [{"do": "damage", "amount": 1, "to": "chosen"}]},
	 {"name": "Selfish", "type": "minion", "cost": 0, "attack": 0, "health": 5, "text": "Battlecry: hit me.", "noun": "S",
	  "ability": {"when": "battlecry", "top": "Battlecry:", "bottom": "hit me.", "effects": [{"do": "damage", "amount": 1, "to": "self"}]}},
	 {"name": "Others", "type": "minion", "cost": 0, "attack": 0, "health": 5, "text": "Battlecry: hit the others.", "noun": "O",
	  "ability": {"when": "battlecry", "top": "Battlecry:", "bottom": "hit the others.", "effects": [{"do": "damage", "amount": 1, "to": "other_friendly_minions"}]}}
	]`
	for _, c := range []struct {
		sel  Selector
		want []ID
	}{
		{EnemyHero, []ID{2}},
		{FriendlyHero, []ID{1}},
		{AllMinions, []ID{3, 4, 5}},
		{EnemyMinions, []ID{4}},
		{FriendlyMinions, []ID{3, 5}},
		{AllCharacters, []ID{1, 2, 3, 4, 5}},
		{EnemyCharacters, []ID{2, 4}},
	} {
		t.Run(string(c.sel), func(t *testing.T) {
			g := custom(t, Options{}, cards+"")
			ok(t, g.RegisterCards([]CardDef{{Name: "Area", Type: Spell, Effects: []Effect{{Do: DoDamage, Amount: 1, To: c.sel}}}}))
			summon(t, g, "Chillwind Yeti", 0)
			summon(t, g, "Chillwind Yeti", 1)
			summon(t, g, "Chillwind Yeti", 0)
			g.ClearLog()
			ok(t, g.Cast("Area", 0, NoID))
			var got []ID
			for _, e := range ofType(g, EventDamaged) {
				got = append(got, e.Target)
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("%s selects %v, want %v (by order of play)", c.sel, got, c.want)
			}
		})
	}
	t.Run("chosen", func(t *testing.T) {
		g := custom(t, Options{}, cards)
		y := summon(t, g, "Chillwind Yeti", 1)
		g.ClearLog()
		ok(t, g.Cast("Zap", 0, y))
		wantLog(t, g, SpellCast("Zap"), Damaged(y, 1))
	})
	t.Run("self", func(t *testing.T) {
		g := custom(t, Options{}, cards)
		summon(t, g, "Wisp", 0)
		s := addToHand(t, g, "Selfish", 0)
		g.ClearLog()
		ok(t, g.Play(s))
		wantLog(t, g, Summoned(s), Triggered(s, "battlecry"), Damaged(s, 1))
	})
	t.Run("other_friendly_minions", func(t *testing.T) {
		g := custom(t, Options{}, cards)
		a := summon(t, g, "Chillwind Yeti", 0)
		summon(t, g, "Chillwind Yeti", 1)
		o := addToHand(t, g, "Others", 0)
		g.ClearLog()
		ok(t, g.Play(o))
		wantLog(t, g, Summoned(o), Triggered(o, "battlecry"), Damaged(a, 1))
	})
	t.Run("random_enemy_character", func(t *testing.T) {
		g := newGame(t, Options{})
		summon(t, g, "Knife Juggler", 0)
		e := summon(t, g, "Chillwind Yeti", 1)
		g.ClearLog()
		summon(t, g, "Wisp", 0)
		d := ofType(g, EventDamaged)
		if len(d) != 1 || (d[0].Target != 2 && d[0].Target != e) {
			t.Fatalf("one enemy character must be hit: %v", d)
		}
	})
}

func TestS3_5_AuraDefinitions(t *testing.T) {
	// A stats aura counts for the other friendly minions only, whatever
	// minions its "to" names (§6.5).
	g := custom(t, Options{}, `[
	 {"name": "Banner", "type": "minion", "cost": 0, "attack": 0, "health": 1, "text": "", "noun": "B",
	  "auras": [{"kind": "stats", "to": "all_minions", "attack": 2, "health": 0}]},
	 {"name": "Curse", "type": "minion", "cost": 0, "attack": 0, "health": 1, "text": "", "noun": "C",
	  "auras": [{"kind": "stats", "to": "enemy_minions", "attack": 5, "health": 5}]}]`)
	mine := summon(t, g, "Wisp", 0)
	theirs := summon(t, g, "Wisp", 1)
	b := summon(t, g, "Banner", 0)
	summon(t, g, "Curse", 0)
	if attack(t, g, mine) != 3 || attack(t, g, theirs) != 1 || attack(t, g, b) != 0 {
		t.Fatalf("attacks %d %d %d; want 3 1 0", attack(t, g, mine), attack(t, g, theirs), attack(t, g, b))
	}

	// A multiplier of scope "both" reaches the other player; "friendly"
	// does not; stacking "add" never multiplies.
	for _, c := range []struct {
		scope, stacking string
		mine, theirs    int
	}{
		{"friendly", "max", 2, 1},
		{"both", "max", 2, 2},
		{"both", "add", 1, 1},
	} {
		g := newGame(t, Options{Decks: [2][]string{{"Wisp", "Wisp", "Wisp"}, {"Wisp", "Wisp", "Wisp"}}})
		ok(t, g.RegisterCards([]CardDef{{Name: "Lich", Type: Minion, Health: 9, Noun: "LICH", Text: "",
			Auras: []Aura{{Kind: MultiplierAura, Trigger: Deathrattle, Factor: 2, Stacking: c.stacking, Scope: c.scope}}}}))
		summon(t, g, "Lich", 0)
		a := summon(t, g, "Loot Hoarder", 0)
		b := summon(t, g, "Loot Hoarder", 1)
		g.ClearLog()
		ok(t, g.DestroyAll([]ID{a, b}))
		var mine, theirs int
		for _, e := range ofType(g, EventDrew) {
			if e.Player == 0 {
				mine++
			} else {
				theirs++
			}
		}
		if mine != c.mine || theirs != c.theirs {
			t.Errorf("scope %s stacking %s: draws %d/%d, want %d/%d", c.scope, c.stacking, mine, theirs, c.mine, c.theirs)
		}
	}
}

func TestS3_6_Validation(t *testing.T) {
	const minion = `"type": "minion", "cost": 1, "attack": 1, "health": 1, "text": "", "noun": "X"`
	const spell = `"type": "spell", "cost": 1, "text": ""`
	for _, c := range []struct {
		name, json, card, field string
	}{
		{"not an object", `[3]`, "#0", ""},
		{"no name", `[{` + minion + `}]`, "#0", "name"},
		{"empty name", `[{"name": "", ` + minion + `}]`, "#0", "name"},
		{"duplicate name", `[{"name": "A", ` + minion + `}, {"name": "A", ` + minion + `}]`, "A", "name"},
		{"unknown field", `[{"name": "A", ` + minion + `, "rarity": "rare"}]`, "A", "rarity"},
		{"field case", `[{"name": "A", ` + minion + `, "Cost": 1}]`, "A", "Cost"},
		{"duplicate key", `[{"name": "A", ` + minion + `, "cost": 2}]`, "#0", ""},
		{"unknown type", `[{"name": "A", "type": "weapon", "cost": 1, "text": ""}]`, "A", "type"},
		{"no type", `[{"name": "A", "cost": 1, "text": ""}]`, "A", "type"},
		{"no cost", `[{"name": "A", "type": "spell", "text": "", "effects": [{"do": "draw", "count": 1}]}]`, "A", "cost"},
		{"negative cost", `[{"name": "A", "type": "minion", "cost": -1, "attack": 1, "health": 1, "text": "", "noun": "X"}]`, "A", "cost"},
		{"fractional cost", `[{"name": "A", "type": "minion", "cost": 1.5, "attack": 1, "health": 1, "text": "", "noun": "X"}]`, "A", "cost"},
		{"string cost", `[{"name": "A", "type": "minion", "cost": "1", "attack": 1, "health": 1, "text": "", "noun": "X"}]`, "A", "cost"},
		{"no text", `[{"name": "A", "type": "minion", "cost": 1, "attack": 1, "health": 1, "noun": "X"}]`, "A", "text"},
		{"minion without attack", `[{"name": "A", "type": "minion", "cost": 1, "health": 1, "text": "", "noun": "X"}]`, "A", "attack"},
		{"minion without health", `[{"name": "A", "type": "minion", "cost": 1, "attack": 1, "text": "", "noun": "X"}]`, "A", "health"},
		{"minion without noun", `[{"name": "A", "type": "minion", "cost": 1, "attack": 1, "health": 1, "text": ""}]`, "A", "noun"},
		{"lower-case noun", `[{"name": "A", "type": "minion", "cost": 1, "attack": 1, "health": 1, "text": "", "noun": "Xy"}]`, "A", "noun"},
		{"zero health", `[{"name": "A", "type": "minion", "cost": 1, "attack": 1, "health": 0, "text": "", "noun": "X"}]`, "A", "health"},
		{"negative attack", `[{"name": "A", "type": "minion", "cost": 1, "attack": -1, "health": 1, "text": "", "noun": "X"}]`, "A", "attack"},
		{"minion with effects", `[{"name": "A", ` + minion + `, "effects": []}]`, "A", "effects"},
		{"spell with attack", `[{"name": "A", ` + spell + `, "attack": 1, "effects": [{"do": "draw", "count": 1}]}]`, "A", "attack"},
		{"spell without effects", `[{"name": "A", ` + spell + `}]`, "A", "effects"},
		{"spell with empty effects", `[{"name": "A", ` + spell + `, "effects": []}]`, "A", "effects"},
		{"chosen without target", `[{"name": "A", ` + spell + `, "effects": [{"do": "damage", "amount": 1, "to": "chosen"}]}]`, "A", "target"},
		{"unknown target", `[{"name": "A", ` + spell + `, "target": "hero", "effects": [{"do": "damage", "amount": 1, "to": "chosen"}]}]`, "A", "target"},
		{"spell with self", `[{"name": "A", ` + spell + `, "effects": [{"do": "damage", "amount": 1, "to": "self"}]}]`, "A", "effects[0].to"},
		{"unknown do", `[{"name": "A", ` + spell + `, "effects": [{"do": "heal", "amount": 1}]}]`, "A", "effects[0].do"},
		{"no do", `[{"name": "A", ` + spell + `, "effects": [{"amount": 1}]}]`, "A", "effects[0].do"},
		{"unknown to", `[{"name": "A", ` + spell + `, "effects": [{"do": "damage", "amount": 1, "to": "everyone"}]}]`, "A", "effects[0].to"},
		{"field of another do", `[{"name": "A", ` + spell + `, "effects": [{"do": "draw", "count": 1, "amount": 1}]}]`, "A", "effects[0].amount"},
		{"missing amount", `[{"name": "A", ` + spell + `, "effects": [{"do": "damage", "to": "enemy_hero"}]}]`, "A", "effects[0].amount"},
		{"zero count", `[{"name": "A", ` + spell + `, "effects": [{"do": "draw", "count": 0}]}]`, "A", "effects[0].count"},
		{"random among", `[{"name": "A", ` + spell + `, "effects": [{"do": "split_damage", "amount": 2, "among": "random_enemy_character"}]}]`, "A", "effects[0].among"},
		{"summon unknown", `[{"name": "A", ` + spell + `, "effects": [{"do": "summon", "card": "Nobody", "count": 1}]}]`, "A", "effects[0].card"},
		{"summon a spell", `[{"name": "A", ` + spell + `, "effects": [{"do": "summon", "card": "Fireball", "count": 1}]}]`, "A", "effects[0].card"},
		{"empty word", `[{"name": "A", ` + spell + `, "effects": [{"do": "spawn_text", "word": ""}]}]`, "A", "effects[0].word"},
		{"unknown when", `[{"name": "A", "type": "minion", "cost": 1, "attack": 1, "health": 1, "text": "At end: draw.", "noun": "X",
		  "ability": {"when": "end_of_turn", "top": "At end:", "bottom": "draw.", "effects": [{"do": "draw", "count": 1}]}}]`, "A", "ability.when"},
		{"ability without bottom", `[{"name": "A", "type": "minion", "cost": 1, "attack": 1, "health": 1, "text": "", "noun": "X",
		  "ability": {"when": "deathrattle", "top": "Deathrattle:", "effects": [{"do": "draw", "count": 1}]}}]`, "A", "ability.bottom"},
		{"ability with chosen", `[{"name": "A", "type": "minion", "cost": 1, "attack": 1, "health": 1, "text": "Deathrattle: hit.", "noun": "X",
		  "ability": {"when": "deathrattle", "top": "Deathrattle:", "bottom": "hit.", "effects": [{"do": "damage", "amount": 1, "to": "chosen"}]}}]`, "A", "ability.effects[0].to"},
		{"text mismatch", `[{"name": "A", "type": "minion", "cost": 1, "attack": 1, "health": 1, "text": "Deathrattle: draw", "noun": "X",
		  "ability": {"when": "deathrattle", "top": "Deathrattle:", "bottom": "Draw a card.", "effects": [{"do": "draw", "count": 1}]}}]`, "A", "text"},
		{"text without Taunt", `[{"name": "A", "type": "minion", "cost": 1, "attack": 1, "health": 1, "text": "Deathrattle: Draw a card.", "noun": "X", "keywords": ["taunt"],
		  "ability": {"when": "deathrattle", "top": "Deathrattle:", "bottom": "Draw a card.", "effects": [{"do": "draw", "count": 1}]}}]`, "A", "text"},
		{"unknown keyword", `[{"name": "A", ` + minion + `, "keywords": ["charge"]}]`, "A", "keywords[0]"},
		{"token not bool", `[{"name": "A", ` + minion + `, "token": 1}]`, "A", "token"},
		{"unknown aura kind", `[{"name": "A", ` + minion + `, "auras": [{"kind": "cost"}]}]`, "A", "auras[0].kind"},
		{"stats aura to a hero", `[{"name": "A", ` + minion + `, "auras": [{"kind": "stats", "to": "friendly_hero", "attack": 1, "health": 1}]}]`, "A", "auras[0].to"},
		{"stats aura without health", `[{"name": "A", ` + minion + `, "auras": [{"kind": "stats", "to": "all_minions", "attack": 1}]}]`, "A", "auras[0].health"},
		{"multiplier of unknown trigger", `[{"name": "A", ` + minion + `, "auras": [{"kind": "multiplier", "trigger": "end_of_turn", "factor": 2, "stacking": "max", "scope": "both"}]}]`, "A", "auras[0].trigger"},
		{"multiplier scope", `[{"name": "A", ` + minion + `, "auras": [{"kind": "multiplier", "trigger": "deathrattle", "factor": 2, "stacking": "max", "scope": "enemy"}]}]`, "A", "auras[0].scope"},
		{"multiplier stacking", `[{"name": "A", ` + minion + `, "auras": [{"kind": "multiplier", "trigger": "deathrattle", "factor": 2, "stacking": "min", "scope": "both"}]}]`, "A", "auras[0].stacking"},
		{"multiplier factor", `[{"name": "A", ` + minion + `, "auras": [{"kind": "multiplier", "trigger": "deathrattle", "factor": 0, "stacking": "max", "scope": "both"}]}]`, "A", "auras[0].factor"},
		{"spell with noun", `[{"name": "A", ` + spell + `, "noun": "X", "effects": [{"do": "draw", "count": 1}]}]`, "A", "noun"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := newGame(t, Options{})
			before := fingerprint(t, g)
			defs, err := DecodeCards([]byte(c.json))
			if err == nil {
				err = g.RegisterCards(defs)
			}
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, ErrInvalidCard) {
				t.Fatalf("%v is not an ErrInvalidCard", err)
			}
			var ce *CardError
			if !errors.As(err, &ce) || ce.Card != c.card || ce.Field != c.field {
				t.Fatalf("error %v names card %q field %q; want %q, %q", err, ce.Card, ce.Field, c.card, c.field)
			}
			if !strings.Contains(err.Error(), c.card) || !strings.Contains(err.Error(), c.field) {
				t.Fatalf("message %q must name the card and the field", err)
			}
			if fingerprint(t, g) != before {
				t.Fatal("a refused batch changed the game")
			}
		})
	}
	// A batch is refused whole: its good cards are not registered either.
	g := newGame(t, Options{})
	err := g.RegisterCards([]CardDef{
		{Name: "Good", Type: Minion, Health: 1, Noun: "GOOD"},
		{Name: "Bad", Type: Minion, Health: 0, Noun: "BAD"},
	})
	if err == nil {
		t.Fatal("accepted")
	}
	if _, ok := g.Card("Good"); ok {
		t.Fatal("the good card of a refused batch was registered")
	}
	// The set is checked as a whole: replacing a summoned token by a spell
	// breaks Harvest Golem, and is refused.
	err = g.RegisterCards([]CardDef{{Name: "Damaged Golem", Type: Spell, Effects: []Effect{{Do: DoDraw, Count: 1}}}})
	var ce *CardError
	if !errors.As(err, &ce) || ce.Card != "Harvest Golem" || ce.Field != "ability.effects[0].card" {
		t.Fatalf("error %v", err)
	}
	if err := Validate(Library()); err != nil {
		t.Fatalf("the library does not validate: %v", err)
	}
	// A card file must say its format.
	if _, err := DecodeCardFile([]byte(`{"format": "roomd-cards/2", "cards": []}`)); err == nil {
		t.Fatal("a file of another format was accepted")
	}
	if _, err := DecodeCardFile([]byte(`{"format": "roomd-cards/1", "cards": [], "x": 1}`)); err == nil {
		t.Fatal("a file with an unknown field was accepted")
	}
}

func TestS3_7_StarterSet(t *testing.T) {
	lib := Library()
	if len(lib) != 30 {
		t.Fatalf("%d built-in cards, want 28 starters and 2 invented", len(lib))
	}
	if !slices.IsSortedFunc(lib, func(a, b CardDef) int { return strings.Compare(a.Name, b.Name) }) {
		t.Fatal("Library is not sorted")
	}
	g := newGame(t, Options{})
	for _, c := range []struct {
		name                 string
		cost, attack, health int32
	}{
		{"Wisp", 0, 1, 1}, {"Chillwind Yeti", 4, 4, 5}, {"Abomination", 5, 4, 4}, {"Baron Rivendare", 4, 1, 7},
		{"Stormwind Champion", 7, 6, 6}, {"Rune Scribe", 1, 1, 1}, {"Spectral Spider", 1, 1, 1},
	} {
		d, ok := g.Card(c.name)
		if !ok || d.Cost != c.cost || d.Attack != c.attack || d.Health != c.health {
			t.Errorf("%s: %+v", c.name, d)
		}
	}
	if d, _ := g.Card("Abomination"); !d.Taunt() {
		t.Error("Abomination has Taunt")
	}
	if d, _ := g.Card("Workshop"); d.Type != Spell || d.Effects[0].Do != DoAssemble {
		t.Error("Workshop")
	}
	// Defining a card with NewGame's Options adds it to the set.
	g = custom(t, Options{}, `[{"name": "Wisp", "type": "minion", "cost": 9, "attack": 9, "health": 9, "text": "", "noun": "WISP"}]`)
	if c := must[int32](t)(g.Cost(summon(t, g, "Wisp", 0))); c != 9 {
		t.Fatalf("Options.Cards must replace the built-in Wisp: cost %d", c)
	}
}
