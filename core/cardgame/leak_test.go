package cardgame

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/session"
)

// Two decks with no name in common, so that a name in a seat's stream that
// belongs to the other deck can only have come from the other seat.
var (
	deckA = []string{"Wisp", "Leper Gnome", "Bloodfen Raptor", "Loot Hoarder", "Haunted Creeper", "Novice Engineer",
		"Knife Juggler", "Harvest Golem", "Chillwind Yeti", "Abomination", "Arcane Missiles", "Fireball", "Shield Block"}
	deckB = []string{"Unstable Ghoul", "Acolyte of Pain", "Wild Pyromancer", "Armorsmith", "Raid Leader", "Cult Master",
		"Baron Rivendare", "Stormwind Champion", "Flamestrike", "Twisting Nether", "Hellfire", "Whirlwind", "Arcane Intellect"}
)

// ids matches every number a frame gives as an id.
var ids = regexp.MustCompile(`"(?:id|target|source|attacker|defender)":(\d+)`)

// THE LEAK TEST. Whole AI-vs-AI matches, many seeds: every byte each seat
// and a spectator get (the first views, then each update's projected events
// and the views after it, as JSON) is scanned for the name of any card of
// the other seat's deck that has not been public yet (on a board or in a
// graveyard), for the id of any card still in a deck (which would tell the
// deck order), and for the seed. None may appear.
func TestNoLeaks(t *testing.T) {
	for n := range 40 {
		key := sha256.Sum256(binary.LittleEndian.AppendUint64(nil, uint64(n)))
		seed := session.SecretSeed(key)
		decks := [2][]string{twice(deckA...), twice(deckB...)}
		if n%2 == 1 {
			decks[0], decks[1] = decks[1], decks[0]
		}
		config, _ := json.Marshal(map[string]any{"decks": decks})
		now := 0.0
		s, err := session.NewSession(Game, seed, config, Seats, func() float64 { now += 1000; return now })
		if err != nil {
			t.Fatal(err)
		}
		m := s.Match()
		secrets := []string{seed.String(), strconv.FormatUint(uint64(seed.Source().Uint32()), 10)}
		public := [Seats]map[string]bool{{}, {}}
		scan := func(when string, viewer Seat, frame string) {
			t.Helper()
			snap := stateOf(t, m).g.Snapshot()
			for p := range Seats {
				for _, c := range append(slices.Clone(snap.Players[p].Board), snap.Players[p].Graveyard...) {
					public[p][c.Name] = true
				}
			}
			for _, secret := range secrets {
				if strings.Contains(frame, secret) {
					t.Fatalf("seed %d, %s, viewer %d: the seed %s in %s", n, when, viewer, secret, frame)
				}
			}
			for p := range Seats {
				if p == viewer {
					continue
				}
				for _, name := range decks[p] {
					if !public[p][name] && strings.Contains(frame, name) {
						t.Fatalf("seed %d, %s, viewer %d: seat %d's hidden %q in %s", n, when, viewer, p, name, frame)
					}
				}
			}
			deck := map[string]bool{}
			for p := range Seats {
				for _, c := range snap.Players[p].Deck {
					deck[fmt.Sprint(c.ID)] = true
				}
			}
			for _, sub := range ids.FindAllStringSubmatch(frame, -1) {
				if deck[sub[1]] {
					t.Fatalf("seed %d, %s, viewer %d: id %s of a card in a deck in %s", n, when, viewer, sub[1], frame)
				}
			}
		}
		for _, v := range viewers(Seats) {
			scan("first view", v, encode(t, m.View(v)))
		}
		moves := 0
		selfPlay(t, s, 5000, func(step session.Step) {
			moves++
			for _, v := range viewers(Seats) {
				when := fmt.Sprintf("command %d", moves)
				scan(when, v, encode(t, step.Beats(v)))
				scan(when, v, encode(t, m.View(v)))
			}
		})
	}
}

// A seat's view shows its own hand's names and costs; the other seat and a
// spectator get the same hand ids and nothing more; nobody sees a deck but
// its count.
func TestProjection(t *testing.T) {
	s := newSession(t, 3, `{}`)
	m := s.Match()
	st := stateOf(t, m)
	snap := st.g.Snapshot()
	for _, v := range viewers(Seats) {
		view := viewOf(m, v)
		if v >= 0 && view.Seat != v || v < 0 && view.Seat != session.Spectator {
			t.Errorf("viewer %d: seat %d", v, view.Seat)
		}
		for p := range Seats {
			hand := snap.Players[p].Hand
			if got := view.Players[p].Deck; got != len(snap.Players[p].Deck) {
				t.Errorf("viewer %d, seat %d: deck %d, want %d", v, p, got, len(snap.Players[p].Deck))
			}
			if len(view.Players[p].Hand) != len(hand) {
				t.Fatalf("viewer %d, seat %d: hand %v, want %d cards", v, p, view.Players[p].Hand, len(hand))
			}
			for i, h := range view.Players[p].Hand {
				want := HandCard{ID: hand[i].ID}
				if p == v {
					want.Name, want.Cost = hand[i].Name, hand[i].Cost
				}
				if h != want {
					t.Errorf("viewer %d, seat %d, card %d: %+v, want %+v", v, p, i, h, want)
				}
			}
		}
	}
	if a0, a1, a2 := m.Audience(0), m.Audience(1), m.Audience(session.Spectator); a0 != 0 || a1 != 1 || a2 != 2 {
		t.Errorf("audiences %d %d %d, want 0 1 2", a0, a1, a2)
	}
}
