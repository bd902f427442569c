package cardgame

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/roomd/roomd/core/cards"
	"github.com/roomd/roomd/core/session"
)

// Deck limits (§10).
const (
	MinDeck     = 1
	MaxDeck     = 30
	MaxCopies   = 2
	inventedSet = "roomd-invented"
)

// DefaultDeck is the deck of a seat whose config names none: two copies
// each of fifteen starter cards, minions from 1 to 7 mana and four spells.
var DefaultDeck = []string{
	"Leper Gnome", "Leper Gnome",
	"Bloodfen Raptor", "Bloodfen Raptor",
	"Loot Hoarder", "Loot Hoarder",
	"Haunted Creeper", "Haunted Creeper",
	"Novice Engineer", "Novice Engineer",
	"Knife Juggler", "Knife Juggler",
	"Unstable Ghoul", "Unstable Ghoul",
	"Harvest Golem", "Harvest Golem",
	"Raid Leader", "Raid Leader",
	"Chillwind Yeti", "Chillwind Yeti",
	"Abomination", "Abomination",
	"Stormwind Champion", "Stormwind Champion",
	"Arcane Missiles", "Arcane Missiles",
	"Shield Block", "Shield Block",
	"Fireball", "Fireball",
}

// Preset is a deck a config may name instead of listing its cards.
type Preset struct {
	Name  string   // what a config says: "classic"
	Title string   // what a lobby shows: "Classic"
	Cards []string // the deck
}

// Presets are the named decks, in the order a lobby offers them: the
// default deck, and two quicker decks of 20 with no card name in common
// (so that a card's name tells whose it is: the leak scans of roombot and
// the browser test rely on it).
var Presets = []Preset{
	{Name: "classic", Title: "Classic — a curve of minions and four spells", Cards: DefaultDeck},
	{Name: "raiders", Title: "Raiders — cheap minions and burn, 20 cards", Cards: twice(
		"Leper Gnome", "Bloodfen Raptor", "Knife Juggler", "Chillwind Yeti", "Fireball",
		"Arcane Missiles", "Wisp", "Harvest Golem", "Raid Leader", "Stormwind Champion")},
	{Name: "wardens", Title: "Wardens — Taunts, card draw and board damage, 20 cards", Cards: twice(
		"Wild Pyromancer", "Unstable Ghoul", "Cult Master", "Abomination", "Loot Hoarder",
		"Novice Engineer", "Haunted Creeper", "Acolyte of Pain", "Hellfire", "Shield Block")},
}

// twice lists each name twice, in order.
func twice(names ...string) []string {
	out := make([]string, 0, 2*len(names))
	for _, n := range names {
		out = append(out, n, n)
	}
	return out
}

// PresetCards returns a copy of the cards of the preset named name.
func PresetCards(name string) ([]string, bool) {
	cards, ok := preset(name)
	return slices.Clone(cards), ok
}

// preset returns the cards of the preset named name.
func preset(name string) ([]string, bool) {
	for _, p := range Presets {
		if p.Name == name {
			return p.Cards, true
		}
	}
	return nil, false
}

// starter maps the name of every card a deck may hold (the starter set's
// cards that are not tokens) to its definition.
var starter = func() map[string]cards.CardDef {
	m := make(map[string]cards.CardDef)
	for _, d := range cards.Library() {
		if !d.Token && d.Set != inventedSet {
			m[d.Name] = d
		}
	}
	return m
}()

// Starter returns the names of the cards a deck may hold, sorted.
func Starter() []string {
	out := make([]string, 0, len(starter))
	for n := range starter {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Config is how a match is set up. Its JSON form is
// {"decks":[DECK0,DECK1],"mode":"duel"}, both optional, where each DECK is
// an array of 1 to 30 card names (at most 2 copies of a name, no token),
// the name of one of Presets, or null for DefaultDeck. The zero value is
// two default decks. A preset's name is read as its cards: the canonical
// form (MarshalJSON) lists every deck's cards.
type Config struct {
	// Decks are the seats' decks, in the order given (the match shuffles
	// them). Nil means DefaultDeck.
	Decks [Seats][]string
}

// UnmarshalJSON decodes a config strictly: an object whose only members are
// "decks", an array of two decks, and "mode", which must be "duel".
func (c *Config) UnmarshalJSON(data []byte) error {
	ms, err := session.Members(data)
	if errors.Is(err, session.ErrNotObject) {
		return errors.New("config must be a JSON object")
	}
	if err != nil {
		return err
	}
	var out Config
	for _, m := range ms {
		switch m.Key {
		case "decks":
			var decks []json.RawMessage
			if err := json.Unmarshal(m.Value, &decks); err != nil || decks == nil || len(decks) != Seats {
				return fmt.Errorf("decks must be an array of %d decks, got %s", Seats, session.Clip(string(m.Value)))
			}
			for p, raw := range decks {
				if string(raw) == "null" {
					continue
				}
				var name string
				if json.Unmarshal(raw, &name) == nil {
					cards, ok := preset(name)
					if !ok {
						return fmt.Errorf("deck %d: no deck is named %q (the named decks are %s)", p, session.Clip(name), presetNames())
					}
					out.Decks[p] = slices.Clone(cards)
					continue
				}
				var names []string
				if err := json.Unmarshal(raw, &names); err != nil || names == nil {
					return fmt.Errorf("deck %d must be an array of card names, a deck's name or null, got %s", p, session.Clip(string(raw)))
				}
				out.Decks[p] = names
			}
		case "mode":
			var mode string
			if err := json.Unmarshal(m.Value, &mode); err != nil || mode != ModeDuel {
				return fmt.Errorf("mode must be %q, got %s", ModeDuel, session.Clip(string(m.Value)))
			}
		default:
			return fmt.Errorf(`unknown config field %q (want "decks" or "mode")`, session.Clip(m.Key))
		}
	}
	if err := out.Validate(); err != nil {
		return err
	}
	*c = out
	return nil
}

// MarshalJSON writes the config in full, defaults applied:
// {"decks":[[...],[...]],"mode":"duel"}.
func (c Config) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Decks [Seats][]string `json:"decks"`
		Mode  string          `json:"mode"`
	}{[Seats][]string{c.deck(0), c.deck(1)}, ModeDuel})
}

// Validate checks every deck: 1 to 30 names of non-token starter cards, at
// most 2 copies of each.
func (c *Config) Validate() error {
	for p, d := range c.Decks {
		if d == nil {
			continue
		}
		if len(d) < MinDeck || len(d) > MaxDeck {
			return fmt.Errorf("deck %d must hold %d to %d cards, got %d", p, MinDeck, MaxDeck, len(d))
		}
		copies := make(map[string]int, len(d))
		for _, name := range d {
			if _, ok := starter[name]; !ok {
				return fmt.Errorf("deck %d: %q is not a starter card a deck may hold", p, session.Clip(name))
			}
			copies[name]++
			if copies[name] > MaxCopies {
				return fmt.Errorf("deck %d: more than %d copies of %q", p, MaxCopies, name)
			}
		}
	}
	return nil
}

// presetNames lists the presets' names, quoted.
func presetNames() string {
	var b strings.Builder
	for i, p := range Presets {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", p.Name)
	}
	return b.String()
}

// deck is seat p's deck, the default applied.
func (c Config) deck(p int) []string {
	if c.Decks[p] == nil {
		return DefaultDeck
	}
	return c.Decks[p]
}
