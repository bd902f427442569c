package cardgame

import (
	"encoding/json"
	"testing"

	"github.com/roomd/roomd/core/session"
	"pgregory.net/rapid"
)

// candidates lists commands the active seat might send from its view:
// every play, with every target, and every attack of every minion on every
// enemy character, legal or not, and the end of the turn.
func candidates(v View, seat Seat) []Move {
	me, foe := v.Players[seat], v.Players[1-seat]
	chars := []ID{v.Players[0].Hero.ID, v.Players[1].Hero.ID}
	for _, sv := range v.Players {
		for _, m := range sv.Board {
			chars = append(chars, m.ID)
		}
	}
	out := []Move{End()}
	for _, h := range me.Hand {
		out = append(out, Play(h.ID, 0))
		for _, c := range chars {
			out = append(out, Play(h.ID, c))
		}
	}
	for _, m := range me.Board {
		out = append(out, Attack(m.ID, foe.Hero.ID))
		for _, f := range foe.Board {
			out = append(out, Attack(m.ID, f.ID))
		}
	}
	return out
}

// randomConfig draws two valid decks (or a default one) from the starter
// cards.
func randomConfig(t *rapid.T) Config {
	var c Config
	for p := range c.Decks {
		if rapid.IntRange(0, 4).Draw(t, "default deck") == 0 {
			continue
		}
		names := rapid.SliceOfNDistinct(rapid.SampledFrom(Starter()), 1, 15, rapid.ID[string]).Draw(t, "names")
		for _, n := range names {
			c.Decks[p] = append(c.Decks[p], n)
			if rapid.Bool().Draw(t, "two") {
				c.Decks[p] = append(c.Decks[p], n)
			}
		}
	}
	return c
}

// randomMatch plays a random match: each command the AI's, a random
// candidate (often refused), or now and then a concession. After every
// command it checks that a refusal changed nothing, and that for every
// viewer the view followed through the projected events equals the
// server's view, byte for byte.
func randomMatch(t *rapid.T) *session.GameSession {
	config := json.RawMessage(`{}`)
	if rapid.Bool().Draw(t, "own decks") {
		b, err := json.Marshal(randomConfig(t))
		if err != nil {
			t.Fatal(err)
		}
		config = b
	}
	s := newSession(t, rapid.Int64().Draw(t, "seed"), string(config))
	m := s.Match()
	followed := map[Seat]View{}
	for _, v := range viewers(Seats) {
		followed[v] = viewOf(m, v)
	}
	for i := 0; !s.Status().Over; i++ {
		if i >= 20000 {
			t.Fatalf("no end after %d commands", i)
		}
		seat := m.Pending()[0]
		var raw json.RawMessage
		switch k := rapid.IntRange(0, 99).Draw(t, "kind"); {
		case k < 60:
			raw, _ = m.AIMove(seat, session.IntSeed(7).Source())
		case k < 99:
			raw = command(t, rapid.SampledFrom(candidates(followed[seat], seat)).Draw(t, "command"))
		default:
			raw = command(t, Concede())
			seat = rapid.IntRange(0, 1).Draw(t, "conceder")
		}
		before := everything(t, m, Seats)
		step, err := s.Apply(seat, raw)
		if err != nil {
			if rej := asRejection(t, err); rej.Malformed {
				t.Fatalf("command %d: %s malformed: %v", i, raw, err)
			}
			if after := everything(t, m, Seats); after != before {
				t.Fatalf("command %d: refused %s changed the match:\n%s\n%s", i, raw, before, after)
			}
			continue
		}
		for _, v := range viewers(Seats) {
			evs := step.Beats(v).([]Event)
			followed[v] = followed[v].Apply(evs)
			if got, want := encode(t, followed[v]), encode(t, m.View(v)); got != want {
				t.Fatalf("command %d (%s), viewer %d: followed view\n%s\nserver's\n%s\nevents %s", i, raw, v, got, want, encode(t, evs))
			}
		}
	}
	return s
}

func TestFollowedViews(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { randomMatch(t) })
}
