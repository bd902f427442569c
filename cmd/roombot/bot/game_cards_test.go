package bot

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/roomd/roomd/core/cardgame"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
)

// TestCardsLeaks plays a whole duel of roombot's decks with the AI on
// both seats and feeds what each seat and a spectator got, as frames, to
// the adapter's leak check: nothing may be found. Then each kind of leak,
// put into one frame of its own, must be found: another seat's hand card
// with its name, another seat's draw with its name (one of its deck's, or
// one of no deck's, which only the check of the frame's structure sees), a
// hidden card's name anywhere in a frame, and the id of a card still in a
// deck.
func TestCardsLeaks(t *testing.T) {
	t.Parallel()
	cardsLeaks := gameFor(t, "cards").checkLeaks
	const seed = 4242
	config, _ := json.Marshal(map[string]any{"decks": cardsDecks, "mode": cardgame.ModeDuel})
	res := protocol.Result{Match: 1, Seed: json.RawMessage(fmt.Sprint(seed)), Config: config, Log: json.RawMessage(`[]`)}
	var cfg cardgame.Config
	if err := json.Unmarshal(config, &cfg); err != nil {
		t.Fatal(err)
	}
	deal, err := cardsDeal(session.IntSeed(seed), cfg)
	if err != nil {
		t.Fatalf("the deal of seed %d: %v", seed, err)
	}

	now := 0.0
	s, err := session.NewSession(cardgame.Game, session.IntSeed(seed), config, cardgame.Seats, func() float64 { now += 1000; return now })
	if err != nil {
		t.Fatal(err)
	}
	m := s.Match()
	viewers := []int{0, 1, session.Spectator}
	got := map[int][][]byte{}
	snapshot := func(seat int, view any) []byte {
		v, _ := json.Marshal(view)
		at := "null"
		if seat >= 0 {
			at = fmt.Sprint(seat)
		}
		// The room's settings list both decks: public, not a leak.
		return fmt.Appendf(nil, `{"type":"snapshot","epoch":"e","rev":1,"seat":%s,"view":%s,"room":{"code":"X","phase":"running","settings":%s}}`, at, v, config)
	}
	update := func(rev int, beats any) []byte {
		b, _ := json.Marshal(beats)
		return fmt.Appendf(nil, `{"type":"update","epoch":"e","from":%d,"to":%d,"by":0,"beats":%s}`, rev, rev+1, b)
	}
	for _, v := range viewers {
		got[v] = append(got[v], snapshot(v, m.View(v)))
	}
	for rev := 1; ; rev++ {
		if rev > 5000 {
			t.Fatal("no end after 5000 commands")
		}
		seat := m.Pending()[0]
		raw, ok := m.AIMove(seat, session.IntSeed(7).Source())
		if !ok {
			t.Fatalf("no AI move for seat %d", seat)
		}
		step, err := s.Apply(seat, raw)
		if err != nil {
			t.Fatalf("command %d %s: %v", rev, raw, err)
		}
		if s.Status().Over {
			break // the update that ends the match is not checked
		}
		for _, v := range viewers {
			got[v] = append(got[v], update(rev, step.Beats(v)))
		}
	}
	for _, v := range viewers {
		if fs := cardsLeaks(frames(t, "cards", got[v]...), res, v); len(fs) != 0 {
			t.Fatalf("viewer %d of an honest match: %d findings, the first %+v", v, len(fs), fs[0])
		}
	}

	// The same match at its start: seat 1's first card in hand and its
	// last card in its deck are hidden.
	s, err = session.NewSession(cardgame.Game, session.IntSeed(seed), config, cardgame.Seats, func() float64 { now += 1000; return now })
	if err != nil {
		t.Fatal(err)
	}
	m = s.Match()
	hand, bottom := deal.decks[1][0], deal.decks[1][len(deal.decks[1])-1]
	first := m.View(1) // seat 1's own view, hand names and all
	cases := map[string]struct {
		frame []byte
		seat  int
	}{
		"the other seat's hand to seat 0":    {snapshot(0, first), 0},
		"the other seat's hand to a watcher": {snapshot(session.Spectator, first), session.Spectator},
		"the other seat's draw":              {update(1, []any{map[string]any{"type": "Drew", "player": 1, "id": bottom.id, "card": bottom.name, "cost": 1}}), 0},
		"a draw shown with any name":         {update(1, []any{map[string]any{"type": "Drew", "player": 1, "id": bottom.id, "card": "Flamestrike", "cost": 7}}), 0},
		"a hidden name anywhere":             {update(1, []any{map[string]any{"type": "Triggered", "source": 1, "trigger": hand.name}}), 0},
		"a hidden name to a watcher":         {update(1, []any{map[string]any{"type": "Triggered", "source": 1, "trigger": hand.name}}), session.Spectator},
		"an id still in a deck":              {update(1, []any{map[string]any{"type": "Destroyed", "id": bottom.id}}), 0},
	}
	for name, c := range cases {
		frames := frames(t, "cards", snapshot(c.seat, m.View(c.seat)), c.frame)
		if k := kinds(cardsLeaks(frames, res, c.seat)); k[vLeakSecret] == 0 {
			t.Errorf("%s was not caught: %v", name, k)
		}
	}
}
