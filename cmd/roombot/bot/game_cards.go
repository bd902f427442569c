package bot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"

	"github.com/roomd/roomd/core/cardgame"
	"github.com/roomd/roomd/core/cards"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
)

// cardsAdapter plays the card duel: players choose with the core's duel AI
// from their own view.
//
// Its rooms give the two seats decks with no card in common (cardsDecks),
// so that a card's name in a frame tells whose card it is: the leak check
// scans each frame's bytes for the names of the other seat's cards that
// no frame has shown in play yet, as core/cardgame's own leak test does.
type cardsAdapter struct{}

// cardsDecks are the decks of roombot's rooms, the presets "raiders" and
// "wardens": 20 cards each, no name in both.
var cardsDecks = [cardgame.Seats][]string{mustPreset("raiders"), mustPreset("wardens")}

func mustPreset(name string) []string {
	cards, ok := cardgame.PresetCards(name)
	if !ok {
		panic("roombot: no card deck is named " + name)
	}
	return cards
}

func (cardsAdapter) info() session.Info { return cardgame.Game.Info() }

func (cardsAdapter) help() string {
	return "                       players choose with the duel AI; 2 seats (--ai 1 for the\n" +
		"                       server's AI), each with a 20-card deck of its own\n"
}

func (cardsAdapter) defaultMode() string { return cardgame.ModeDuel }

func (cardsAdapter) settings(c *config) (json.RawMessage, error) {
	return json.Marshal(struct {
		Decks [cardgame.Seats]string `json:"decks"`
		Mode  string                 `json:"mode"`
	}{[cardgame.Seats]string{"raiders", "wardens"}, c.Mode})
}

func (cardsAdapter) describe(c *config, s *scenarioInfo) { s.Mode = c.Mode }

// ineffective: every refusal of the duel's own but the engine's is what a
// view a few milliseconds old explains — an open-loop bot sending again
// before its last update came back plays a card it has played, attacks
// with a minion that has attacked or at one that died, or counts mana it
// has spent.
func (cardsAdapter) ineffective(code string) bool {
	switch code {
	case cardgame.CodeNotInHand, cardgame.CodeNotEnoughMana, cardgame.CodeBoardFull, cardgame.CodeBadTarget,
		cardgame.CodeBadAttacker, cardgame.CodeNotReady, cardgame.CodeBadDefender, cardgame.CodeTaunt, cardgame.CodeNoAttack:
		return true
	}
	return false
}

func (cardsAdapter) decodeView(raw json.RawMessage) (cardgame.View, error) {
	var v cardgame.View
	err := json.Unmarshal(raw, &v)
	return v, err
}

func (cardsAdapter) decodeBeats(raw json.RawMessage) ([]cardgame.Event, error) {
	var evs []cardgame.Event
	err := json.Unmarshal(raw, &evs)
	return evs, err
}

func (cardsAdapter) clone(v cardgame.View) cardgame.View { return v.Clone() }

func (cardsAdapter) apply(v *cardgame.View, beats []cardgame.Event) error {
	*v = v.Apply(beats)
	return nil
}

func (cardsAdapter) choose(v cardgame.View, seat int) (json.RawMessage, bool) {
	return marshalMove(cardgame.Rules{}.Choose(v, seat, botChoice))
}

func (cardsAdapter) encode(v cardgame.View) []byte {
	b, _ := json.Marshal(v)
	return b
}

func (cardsAdapter) quirk(followed, server cardgame.View) bool { return false }

// cardIDs matches every number a frame gives as a card's or a
// character's id.
var cardIDs = regexp.MustCompile(`"(?:id|target|source|attacker|defender)":(\d+)`)

// leaks checks what a client at seat saw of the other seat's hidden cards
// before the end, in three ways:
//
//   - by structure: a hand card of another seat (any seat's, for a
//     spectator) with a name or a cost, a Drew of another seat's with the
//     card's name (unless burned, which is public);
//   - by name: the deal is rebuilt from the result's seed (the package
//     doc of core/cardgame tells how the decks are shuffled and the ids
//     allocated) and each frame's bytes (but the room's info, whose
//     settings list the decks) are scanned for the quoted name of
//     a card of another seat's deck that no frame up to and including this
//     one has shown in play (played, summoned, on a board, in a graveyard),
//     when the viewer's own deck has no card of that name;
//   - by id: no frame names the id of a card no frame has yet shown
//     leaving its deck (drawn, in a hand, in play): that would tell the
//     deck order.
func (cardsAdapter) leaks(frames []frame[cardgame.View, cardgame.Event], res protocol.Result, seat int) []finding {
	var out []finding
	add := func(format string, args ...any) {
		out = append(out, finding{vLeakSecret, fmt.Sprintf("match %d, seat %d: ", res.Match, seat) + fmt.Sprintf(format, args...)})
	}
	var cfg cardgame.Config
	if err := json.Unmarshal(res.Config, &cfg); err != nil {
		return []finding{{vBadFrame, fmt.Sprintf("result config %s: %v", clipBytes(res.Config, 200), err)}}
	}
	deal, err := cardsDeal(resultSeed(res), cfg)
	if err != nil {
		return []finding{{vBadFrame, fmt.Sprintf("match %d: the deal cannot be rebuilt from the result: %v", res.Match, err)}}
	}
	own := map[string]bool{}
	if seat >= 0 && seat < cardgame.Seats {
		for _, c := range deal.decks[seat] {
			own[c.name] = true
		}
	}
	public := map[string]bool{} // names shown in play
	drawn := map[cards.ID]bool{}
	for _, f := range frames {
		// What this frame shows in play or out of a deck.
		for _, v := range f.views {
			for p, sv := range v.Players {
				for _, h := range sv.Hand {
					drawn[h.ID] = true
					if p != seat && (h.Name != "" || h.Cost != 0) {
						add("seat %d's hand card %d shown as %q (cost %d)", p, h.ID, h.Name, h.Cost)
					}
				}
				for _, m := range sv.Board {
					drawn[m.ID], public[m.Name] = true, true
				}
				for _, d := range sv.Graveyard {
					drawn[d.ID], public[d.Name] = true, true
				}
			}
		}
		for _, e := range f.beats {
			switch e.Type {
			case cardgame.EventPlay, string(cards.EventSummoned), string(cards.EventSpellCast):
				drawn[e.ID], public[e.Card] = true, true
			case string(cards.EventDrew):
				drawn[e.ID] = true
				if e.Burned {
					public[e.Card] = true
				} else if e.Seat != seat && (e.Card != "" || e.Cost != 0) {
					add("seat %d drew %d and it was shown as %q", e.Seat, e.ID, e.Card)
				}
			}
		}
		// Names of the other seat's hidden cards, anywhere but in the
		// room's settings, whose decklists are public.
		scanned := withoutRoom(f.raw)
		for p, deck := range deal.decks {
			if p == seat {
				continue
			}
			for _, c := range deck {
				if !own[c.name] && !public[c.name] && bytes.Contains(scanned, []byte(strconv.Quote(c.name))) {
					add("seat %d's hidden %q in %s", p, c.name, clipBytes(f.raw, 300))
					public[c.name] = true // once per name
				}
			}
		}
		// Ids of cards still in a deck.
		for _, m := range cardIDs.FindAllSubmatch(f.raw, -1) {
			n, _ := strconv.ParseUint(string(m[1]), 10, 32)
			id := cards.ID(n)
			if owner, ok := deal.owner[id]; ok && !drawn[id] {
				add("id %d of a card in seat %d's deck in %s", id, owner, clipBytes(f.raw, 300))
				drawn[id] = true // once per id
			}
		}
	}
	return out
}

// withoutRoom returns a frame's members but "room" (the room's info,
// settings and all), or the whole frame when it is not a JSON object.
func withoutRoom(raw []byte) []byte {
	var members map[string]json.RawMessage
	if json.Unmarshal(raw, &members) != nil {
		return raw
	}
	delete(members, "room")
	out, err := json.Marshal(members)
	if err != nil {
		return raw
	}
	return out
}

// dealtCard is a card of a deck as the match dealt it.
type dealtCard struct {
	id   cards.ID
	name string
}

// cardsDealt is a match's deal: each seat's deck, top first, and the
// seat of every card of a deck by id.
type cardsDealt struct {
	decks [cardgame.Seats][]dealtCard
	owner map[cards.ID]int
}

// cardsDeal rebuilds the deal of a match from its seed as core/cardgame
// documents it: the seed's own stream (for a disclosed secret, ChaCha8
// keyed with it, each number the high half of a 64-bit output) shuffles
// seat 0's deck then seat 1's (Fisher–Yates from the last index down to 1,
// j = pick(i+1), pick(n) = (u32 × n) >> 32); the heroes are ids 1 and 2,
// then seat 0's cards from the top, then seat 1's. It checks the
// result against the rules' own deal: the hands each seat sees at the
// start must be the tops of the rebuilt decks.
func cardsDeal(seed session.Seed, cfg cardgame.Config) (cardsDealt, error) {
	full, err := json.Marshal(cfg) // the decks, the defaults applied
	if err != nil {
		return cardsDealt{}, err
	}
	var named struct {
		Decks [cardgame.Seats][]string `json:"decks"`
	}
	if err := json.Unmarshal(full, &named); err != nil {
		return cardsDealt{}, err
	}
	rng := seed.Source()
	out := cardsDealt{owner: map[cards.ID]int{}}
	next := cards.ID(cardgame.Seats + 1)
	for p, names := range named.Decks {
		d := slices.Clone(names)
		for i := len(d) - 1; i > 0; i-- {
			j := int((uint64(rng.Uint32()) * uint64(i+1)) >> 32)
			d[i], d[j] = d[j], d[i]
		}
		for _, name := range d {
			out.decks[p] = append(out.decks[p], dealtCard{next, name})
			out.owner[next] = p
			next++
		}
	}
	st, err := cardgame.Rules{}.Init(seed, cfg, cardgame.Seats)
	if err != nil {
		return cardsDealt{}, err
	}
	for p := range cardgame.Seats {
		for i, h := range (cardgame.Rules{}).Project(st, p).Players[p].Hand {
			if i >= len(out.decks[p]) || out.decks[p][i] != (dealtCard{h.ID, h.Name}) {
				return cardsDealt{}, fmt.Errorf("seat %d's hand card %d is %d %q; the rebuilt deck disagrees", p, i, h.ID, h.Name)
			}
		}
	}
	return out, nil
}
