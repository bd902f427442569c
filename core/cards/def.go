package cards

// CardType is a card's "type": a minion or a spell (§3.1).
type CardType string

// Card types.
const (
	Minion CardType = "minion"
	Spell  CardType = "spell"
)

// When is an ability's "when": the event it answers (§3.2).
type When string

// Ability triggers (§3.2).
const (
	Battlecry             When = "battlecry"
	Deathrattle           When = "deathrattle"
	SelfDamaged           When = "self_damaged"
	FriendlyMinionDamaged When = "friendly_minion_damaged"
	AfterFriendlySummon   When = "after_friendly_summon"
	AfterOwnerSpell       When = "after_owner_spell"
	AfterFriendlyDeath    When = "after_friendly_death"
)

// Word is the trigger a Triggered event logs for an ability of w (§3.2),
// or "" for an unknown w.
func (w When) Word() string {
	switch w {
	case Battlecry:
		return "battlecry"
	case Deathrattle:
		return "deathrattle"
	case SelfDamaged, FriendlyMinionDamaged:
		return "damaged"
	case AfterFriendlySummon:
		return "after_summon"
	case AfterOwnerSpell:
		return "after_spell"
	case AfterFriendlyDeath:
		return "after_death"
	}
	return ""
}

// Do is an effect's "do" (§3.3).
type Do string

// Effects (§3.3).
const (
	DoDamage      Do = "damage"
	DoSplitDamage Do = "split_damage"
	DoDestroy     Do = "destroy"
	DoDraw        Do = "draw"
	DoGainArmor   Do = "gain_armor"
	DoSummon      Do = "summon"
	DoSpawnText   Do = "spawn_text"
	DoAssemble    Do = "assemble"
)

// Selector is an effect's "to" or "among", or a stats aura's "to": which
// characters, relative to the source's owner (§3.4).
type Selector string

// Selectors (§3.4).
const (
	Chosen               Selector = "chosen"
	Self                 Selector = "self"
	EnemyHero            Selector = "enemy_hero"
	FriendlyHero         Selector = "friendly_hero"
	AllMinions           Selector = "all_minions"
	EnemyMinions         Selector = "enemy_minions"
	FriendlyMinions      Selector = "friendly_minions"
	OtherFriendlyMinions Selector = "other_friendly_minions"
	AllCharacters        Selector = "all_characters"
	EnemyCharacters      Selector = "enemy_characters"
	RandomEnemyCharacter Selector = "random_enemy_character"
)

// TargetKind is a spell's "target": what its chosen target may be (§3.1).
type TargetKind string

// Target kinds.
const (
	NoTargetKind    TargetKind = ""
	TargetCharacter TargetKind = "character"
	TargetMinion    TargetKind = "minion"
)

// AuraKind is an aura's "kind" (§3.5).
type AuraKind string

// Aura kinds.
const (
	StatsAura      AuraKind = "stats"
	MultiplierAura AuraKind = "multiplier"
)

// Stacking and scope of a multiplier aura (§3.5).
const (
	StackMax      = "max"
	StackAdd      = "add" // reserved: such an aura never multiplies (§6.5)
	ScopeFriendly = "friendly"
	ScopeBoth     = "both"
)

// KeywordTaunt is the one keyword (§3.1).
const KeywordTaunt = "taunt"

// FileFormat is the "format" of a card file (§3).
const FileFormat = "roomd-cards/1"

// CardDef is one card definition in the format of §3. Definitions are
// values: the engine keeps its own copies, so a caller may change a
// CardDef after registering it without changing the card.
type CardDef struct {
	Name string
	Type CardType
	Cost int32
	// Attack and Health are a minion's base stats.
	Attack, Health int32
	Text           string
	Set            string
	// Noun names the minion on a SpellGrid (§9): [A-Z]+.
	Noun     string
	Keywords []string
	Token    bool
	Ability  *Ability
	Auras    []Aura
	// Target and Effects are a spell's.
	Target  TargetKind
	Effects []Effect
}

// Ability is a card's one triggered ability (§3.2). Top and Bottom are the
// halves of its text that Assemble swaps (§8).
type Ability struct {
	When    When
	Top     string
	Bottom  string
	Effects []Effect
}

// Effect is one step of a spell or an ability (§3.3). Which fields count
// depends on Do: Amount for damage, split_damage and gain_armor; To for
// damage and destroy; Among for split_damage; Count for draw and summon;
// Card for summon; Word for spawn_text.
type Effect struct {
	Do     Do
	Amount int32
	Count  int32
	To     Selector
	Among  Selector
	Card   string
	Word   string
}

// Aura is a continuous effect of a minion on the board (§3.5). A stats
// aura uses To, Attack and Health; a multiplier aura Trigger, Factor,
// Stacking and Scope.
type Aura struct {
	Kind     AuraKind
	To       Selector
	Attack   int32
	Health   int32
	Trigger  When
	Factor   int32
	Stacking string
	Scope    string
}

// clone returns a deep copy of d.
func (d CardDef) clone() CardDef {
	c := d
	c.Keywords = append([]string(nil), d.Keywords...)
	c.Auras = append([]Aura(nil), d.Auras...)
	c.Effects = append([]Effect(nil), d.Effects...)
	if d.Ability != nil {
		a := *d.Ability
		a.Effects = append([]Effect(nil), a.Effects...)
		c.Ability = &a
	}
	return c
}

// Taunt reports whether the card has the Taunt keyword (which matters to
// the room game's attacks only, §10).
func (d *CardDef) Taunt() bool {
	for _, k := range d.Keywords {
		if k == KeywordTaunt {
			return true
		}
	}
	return false
}

// keywordPrefix is the part of a card's text before its ability's:
// "Taunt. " for a Taunt card (§3.1, §8).
func keywordPrefix(keywords []string) string {
	p := ""
	for _, k := range keywords {
		if k == KeywordTaunt {
			p += "Taunt. "
		}
	}
	return p
}

// abilityText is the text a card with keywords and ability a must have.
func abilityText(keywords []string, a *Ability) string {
	return keywordPrefix(keywords) + a.Top + " " + a.Bottom
}
