package cardgame

import (
	"encoding/hex"
	"fmt"
	"maps"
	"strconv"

	"github.com/roomd/roomd/core/cards"
	"github.com/roomd/roomd/core/session"
)

var _ session.Hider[*State] = Rules{}

// Bounds of what one viewer is sent (session.Info.MaxViewBytes and
// MaxEventBytes), from the rules' limits:
//
//   - a Sequence logs at most maxSequenceEvents events (one more is refused,
//     game:Engine, nothing changed: no starter card comes near; the bench's
//     both full boards, Hellfire and four spells log 142), and a command
//     adds its own event, a turn and an end: one step's events are at most
//     maxSequenceEvents+3, each at most maxEventJSON bytes with its comma;
//   - a view shows per seat a hero, 10 hand cards, 7 minions and a
//     graveyard. Every card that dies was in a deck (30) or summoned; a
//     Sequence summons at most 7 per board, so a match of MaxTurns turns,
//     one draw and a few plays each, stays far under maxDead cards in one
//     graveyard; with 40-byte graveyard entries, 100-byte minions and
//     45-byte hand cards that is under 24 KiB per seat.
const (
	maxSequenceEvents = 1024
	maxEventJSON      = 160
	maxDead           = 512
	maxViewBytes      = 2*(200+10*45+7*100+maxDead*40) + 200
	maxEventBytes     = (maxSequenceEvents+3)*maxEventJSON + 2
)

// Secrets lists what viewer must not learn: every card in a zone it cannot
// see — its own deck, the other seat's hand and deck; for a spectator both
// hands and decks — each as a view would show it (`"id":7,"name":"Wisp"`)
// and as a Drew event would (`"id":7,"card":"Wisp"`), and the engine's
// stream (for a secret seed its key is the match's secret). Together they
// are the decks' order, the hands and every future random pick. A card
// leaves the list when it is played, cast or burned: it is public then.
func (Rules) Secrets(s *State, viewer Seat) []session.Secret {
	snap := s.g.Snapshot()
	var out []session.Secret
	card := func(p int, zone string, c cards.CardSnapshot) {
		what := fmt.Sprintf("seat %d's %s card %d, %s", p, zone, c.ID, c.Name)
		id := strconv.FormatUint(uint64(c.ID), 10)
		name := strconv.Quote(c.Name)
		out = append(out,
			session.Secret{What: what, Tell: `"id":` + id + `,"name":` + name},
			session.Secret{What: what + " (drawn)", Tell: `"id":` + id + `,"card":` + name})
	}
	for p := range Seats {
		ps := snap.Players[p]
		if p != viewer {
			for _, c := range ps.Hand {
				card(p, "hand", c)
			}
		}
		for _, c := range ps.Deck {
			card(p, "deck", c)
		}
	}
	st := snap.RNG
	if st.Gen == session.ChaCha8 {
		out = append(out, session.Secret{What: fmt.Sprintf("the engine's stream after %d draws", st.Draws), Tell: hex.EncodeToString(st.Key[:])})
	} else {
		out = append(out, session.Secret{What: "the engine's mulberry32 state", Tell: `"rng":` + strconv.FormatUint(uint64(st.Mulberry), 10)})
	}
	return out
}

// Resample returns a copy of s in which what viewer cannot see is drawn
// again from src: the cards of each seat's hidden zones (for viewer, its
// own deck and the other seat's hand and deck) shuffled among the ids that
// hold them, and the engine's stream keyed anew. The ids, the counts, the
// boards, graveyards and viewer's own hand are kept.
func (Rules) Resample(s *State, viewer Seat, src session.Source) *State {
	c := *s
	c.g = s.g.Clone()
	c.ready = maps.Clone(s.ready)
	snap := c.g.Snapshot()
	for p := range Seats {
		var ids []ID
		if p != viewer {
			for _, h := range snap.Players[p].Hand {
				ids = append(ids, h.ID)
			}
		}
		for _, d := range snap.Players[p].Deck {
			ids = append(ids, d.ID)
		}
		for i := len(ids) - 1; i > 0; i-- {
			if j := session.Intn(src, i+1); j != i {
				if err := c.g.SwapHidden(ids[i], ids[j]); err != nil {
					panic(fmt.Sprintf("cardgame: resample: %v", err)) // a card in a hidden zone that was played: a bug of the engine
				}
			}
		}
	}
	var key [session.SeedBytes]byte
	for i := 0; i < len(key); i += 4 {
		v := src.Uint32()
		key[i], key[i+1], key[i+2], key[i+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
	c.g.Reseed(session.SecretSeed(key).Stream())
	return &c
}
