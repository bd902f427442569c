package cardgame

import (
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/cards"
	"github.com/roomd/roomd/core/session"
)

func TestInfo(t *testing.T) {
	info := Game.Info()
	if info.ID != "cards" || info.Name != "Card duel" || info.RulesVersion != "cards/2" || info.Ranking != nil || info.Tick != nil {
		t.Errorf("info %+v", info)
	}
	if len(info.Modes) != 1 || info.Modes[0] != (session.Mode{ID: "duel", Name: "Duel", MinSeats: 2, MaxSeats: 2, AI: true}) {
		t.Errorf("modes %+v", info.Modes)
	}
	setup, err := Game.Configure(json.RawMessage(`{}`))
	if err != nil || setup.Mode.ID != ModeDuel || setup.Board != "" {
		t.Fatalf("Configure({}) = %+v, %v", setup, err)
	}
	want, _ := json.Marshal(map[string]any{"decks": [2][]string{DefaultDeck, DefaultDeck}, "mode": "duel"})
	if string(setup.Config) != string(want) {
		t.Errorf("canonical config %s, want %s", setup.Config, want)
	}
	if len(DefaultDeck) != MaxDeck || (&Config{Decks: [2][]string{DefaultDeck, DefaultDeck}}).Validate() != nil {
		t.Errorf("the default deck is not a valid deck of %d", MaxDeck)
	}
	for _, seats := range []int{1, 3} {
		if _, err := Game.New(session.IntSeed(1), json.RawMessage(`{}`), seats); err == nil {
			t.Errorf("a match of %d seats was made", seats)
		}
	}
}

// Every starter card but the tokens and the invented cards may go in a
// deck, and the config schema lists exactly those.
func TestStarter(t *testing.T) {
	got := Starter()
	if len(got) != 26 || slices.Contains(got, "Damaged Golem") || slices.Contains(got, "Spectral Spider") || slices.Contains(got, "Workshop") {
		t.Errorf("starter cards %v", got)
	}
	var schema struct {
		Defs struct {
			Deck struct {
				OneOf []struct {
					Enum  []string `json:"enum"`
					Items struct {
						Enum []string `json:"enum"`
					} `json:"items"`
				} `json:"oneOf"`
			} `json:"deck"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(Game.Info().ConfigSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if enum := schema.Defs.Deck.OneOf[2].Items.Enum; !slices.Equal(enum, got) {
		t.Errorf("schema lists %v, want %v", enum, got)
	}
	var names []string
	for _, p := range Presets {
		names = append(names, p.Name)
	}
	if enum := schema.Defs.Deck.OneOf[1].Enum; !slices.Equal(enum, names) {
		t.Errorf("schema names the decks %v, want %v", enum, names)
	}
}

var configCases = []struct {
	raw string
	ok  bool
}{
	{`{}`, true},
	{`{"decks":["raiders","wardens"]}`, true},
	{`{"decks":["mill",null]}`, false},
	{`{"decks":[7,null]}`, false},
	{`{"mode":"duel"}`, true},
	{`{"decks":[null,null]}`, true},
	{`{"decks":[["Wisp"],null]}`, true},
	{`{"decks":[["Wisp","Wisp"],["Fireball"]],"mode":"duel"}`, true},
	{`{"decks":[["Wisp","Wisp","Wisp"],null]}`, false},
	{`{"decks":[[],null]}`, false},
	{`{"decks":[["Damaged Golem"],null]}`, false},
	{`{"decks":[["Workshop"],null]}`, false},
	{`{"decks":[["wisp"],null]}`, false},
	{`{"decks":[["Wisp"]]}`, false},
	{`{"decks":[null,null,null]}`, false},
	{`{"decks":null}`, false},
	{`{"decks":[1,null]}`, false},
	{`{"decks":[[1],null]}`, false},
	{`{"decks":{"0":["Wisp"]}}`, false},
	{`{"mode":"classic"}`, false},
	{`{"Decks":[null,null]}`, false},
	{`{"seed":1}`, false},
	{`[]`, false},
	{`"duel"`, false},
}

func TestConfigs(t *testing.T) {
	long := make([]string, 0, 31)
	for _, n := range Starter()[:16] {
		long = append(long, n, n)
	}
	for _, n := range []int{30, 31} {
		raw, _ := json.Marshal(map[string]any{"decks": []any{long[:n], nil}})
		if _, err := Game.Configure(raw); (err == nil) != (n == 30) {
			t.Errorf("a deck of %d: %v", n, err)
		}
	}
	for _, tt := range configCases {
		if _, err := Game.Configure(json.RawMessage(tt.raw)); (err == nil) != tt.ok {
			t.Errorf("Configure(%s) = %v, want ok %v", tt.raw, err, tt.ok)
		}
	}
}

// shuffled is an independent reading of §5 and the package doc: the deck
// order and the first seat a seed gives. A secret seed's numbers are
// ChaCha8's, keyed with the secret, each the high half of a 64-bit output;
// an integer seed's are mulberry32's, seeded with the integer (the
// reference's integer seeds). Under cards/1 (v1) they were mulberry32's
// seeded with the first of those numbers.
func shuffled(seed session.Seed, decks [2][]string, v1 bool) ([2][]string, Seat) {
	mulberry := func(a uint32) func() uint32 {
		return func() uint32 {
			a += 0x6D2B79F5
			t := (a ^ (a >> 15)) * (a | 1)
			t = (t + (t^(t>>7))*(t|61)) ^ t
			return t ^ (t >> 14)
		}
	}
	var next func() uint32
	if n, ok := seed.Int(); ok {
		next = mulberry(uint32(n))
	} else {
		var key [32]byte
		hex.Decode(key[:], []byte(seed.String()))
		c := rand.NewChaCha8(key)
		next = func() uint32 { return uint32(c.Uint64() >> 32) }
	}
	if v1 {
		next = mulberry(next())
	}
	pick := func(n int) int { return int(uint64(next()) * uint64(n) >> 32) }
	var out [2][]string
	for p, d := range decks {
		d = slices.Clone(d)
		for i := len(d) - 1; i >= 1; i-- {
			j := pick(i + 1)
			d[i], d[j] = d[j], d[i]
		}
		out[p] = d
	}
	return out, pick(2)
}

// TestInit: the decks and the first seat are the ones §5 gives, under the
// rules of now and under cards/1's (LegacyV1, what verify checks old
// matches with).
func TestInit(t *testing.T) {
	t.Run("cards/2", func(t *testing.T) { testInit(t, Rules{}) })
	t.Run("cards/1", func(t *testing.T) { testInit(t, Rules{v1: true}) })
}

func testInit(t *testing.T, rules Rules) {
	firsts := map[Seat]bool{}
	for n := range int64(20) {
		seed := session.IntSeed(n)
		if n%2 == 1 {
			seed = session.SecretSeed([32]byte{byte(n)})
		}
		decks := [2][]string{twice(deckA...), twice(deckB...)}
		s, err := rules.Init(seed, Config{Decks: decks}, Seats)
		if err != nil {
			t.Fatal(err)
		}
		order, first := shuffled(seed, decks, rules.v1)
		firsts[first] = true
		if s.first != first || s.active != first || s.turn != 1 || s.mana[first] != 1 || s.max[first] != 1 || s.max[1-first] != 0 {
			t.Errorf("seed %d: first %d active %d turn %d mana %v/%v, want first %d", n, s.first, s.active, s.turn, s.mana, s.max, first)
		}
		snap := s.g.Snapshot()
		var got [2][]string
		next := ID(3)
		for p := range Seats {
			ps := snap.Players[p]
			// Drawn cards are the deck's first ones, in draw order.
			for _, c := range slices.Concat(ps.Hand, ps.Deck) {
				got[p] = append(got[p], c.Name)
			}
			wantHand := SecondHand
			if p == first {
				wantHand = FirstHand + 1
			}
			if len(ps.Hand) != wantHand || len(ps.Deck) != 26-wantHand {
				t.Errorf("seed %d, seat %d: hand %d, deck %d, want hand %d", n, p, len(ps.Hand), len(ps.Deck), wantHand)
			}
			// Ids follow the shuffled order: seat 0's deck, then seat 1's.
			for _, c := range slices.Concat(ps.Hand, ps.Deck) {
				if c.ID != next {
					t.Fatalf("seed %d, seat %d: id %d, want %d", n, p, c.ID, next)
				}
				next++
			}
		}
		if !slices.Equal(got[0], order[0]) || !slices.Equal(got[1], order[1]) {
			t.Errorf("seed %d: decks %v, want %v", n, got, order)
		}
		if s.g.Log() != nil && len(s.g.Log()) != 0 {
			t.Errorf("seed %d: the engine log is not empty", n)
		}
	}
	if !firsts[0] || !firsts[1] {
		t.Errorf("the first seat is always %v", firsts)
	}
}

// fresh is a match of two default decks, its first seat's turn.
func fresh(t *testing.T) *State {
	t.Helper()
	s, err := Rules{}.Init(session.IntSeed(7), Config{}, Seats)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// apply plays m for seat through the typed rules.
func apply(s *State, seat Seat, m Move) ([]Event, error) {
	_, evs, err := Rules{}.Apply(s, session.Input[Move]{Seat: seat, Move: m})
	return evs, err
}

// put puts a new card in seat's hand, or a minion on its board in play
// since before this turn.
func put(t *testing.T, s *State, seat Seat, card string, board bool) ID {
	t.Helper()
	var (
		id  ID
		err error
	)
	if board {
		id, err = s.g.Summon(card, cards.Player(seat))
		s.ready[id] = seat == s.active
	} else {
		id, err = s.g.AddToHand(card, cards.Player(seat))
	}
	if err != nil {
		t.Fatal(err)
	}
	s.g.ClearLog()
	return id
}

// observe is everything about s any viewer can see, and the turn layer.
func observe(t *testing.T, s *State) string {
	t.Helper()
	out := encode(t, Rules{}.Status(s)) + encode(t, Rules{}.Pending(s)) + encode(t, s.g.Snapshot())
	for _, v := range viewers(Seats) {
		out += encode(t, Rules{}.Project(s, v))
	}
	return out
}

func TestRefusals(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, s *State) (Seat, Move)
		code  string
	}{
		{"out of turn", func(t *testing.T, s *State) (Seat, Move) { return 1 - s.active, End() }, session.CodeNotYourTurn},
		{"a seat not in the match", func(t *testing.T, s *State) (Seat, Move) { return 2, End() }, session.CodeNoSuchSeat},
		{"after the end", func(t *testing.T, s *State) (Seat, Move) {
			s.phase, s.winner = PhaseWon, 0
			return s.active, End()
		}, session.CodeGameOver},
		{"the other seat's card", func(t *testing.T, s *State) (Seat, Move) {
			return s.active, Play(put(t, s, 1-s.active, "Wisp", false), 0)
		}, CodeNotInHand},
		{"a card in the deck", func(t *testing.T, s *State) (Seat, Move) {
			deck, _ := s.g.Deck(cards.Player(s.active))
			return s.active, Play(deck[0], 0)
		}, CodeNotInHand},
		{"no such card", func(t *testing.T, s *State) (Seat, Move) { return s.active, Play(999, 0) }, CodeNotInHand},
		{"too dear", func(t *testing.T, s *State) (Seat, Move) {
			return s.active, Play(put(t, s, s.active, "Chillwind Yeti", false), 0)
		}, CodeNotEnoughMana},
		{"a minion with a target", func(t *testing.T, s *State) (Seat, Move) {
			return s.active, Play(put(t, s, s.active, "Wisp", false), 1)
		}, CodeBadTarget},
		{"Fireball without a target", func(t *testing.T, s *State) (Seat, Move) {
			s.mana[s.active] = 10
			return s.active, Play(put(t, s, s.active, "Fireball", false), 0)
		}, CodeBadTarget},
		{"Fireball at a card in a hand", func(t *testing.T, s *State) (Seat, Move) {
			s.mana[s.active] = 10
			other := put(t, s, s.active, "Wisp", false)
			return s.active, Play(put(t, s, s.active, "Fireball", false), other)
		}, CodeBadTarget},
		{"Flamestrike with a target", func(t *testing.T, s *State) (Seat, Move) {
			s.mana[s.active] = 10
			return s.active, Play(put(t, s, s.active, "Flamestrike", false), 1)
		}, CodeBadTarget},
		{"a full board", func(t *testing.T, s *State) (Seat, Move) {
			for range cards.MaxBoard {
				put(t, s, s.active, "Wisp", true)
			}
			return s.active, Play(put(t, s, s.active, "Wisp", false), 0)
		}, CodeBoardFull},
		{"an enemy attacker", func(t *testing.T, s *State) (Seat, Move) {
			return s.active, Attack(put(t, s, 1-s.active, "Wisp", true), ID(2-s.active))
		}, CodeBadAttacker},
		{"summoning sickness", func(t *testing.T, s *State) (Seat, Move) {
			id := put(t, s, s.active, "Bloodfen Raptor", true)
			delete(s.ready, id)
			return s.active, Attack(id, ID(2-s.active))
		}, CodeNotReady},
		{"a hero attacks", func(t *testing.T, s *State) (Seat, Move) {
			return s.active, Attack(ID(1+s.active), ID(2-s.active))
		}, CodeBadAttacker},
		{"no attack", func(t *testing.T, s *State) (Seat, Move) {
			// No starter minion has 0 attack: a test card does.
			dummy := cards.CardDef{Name: "Dummy", Type: cards.Minion, Attack: 0, Health: 1, Noun: "DUMMY"}
			if err := s.g.RegisterCards([]cards.CardDef{dummy}); err != nil {
				t.Fatal(err)
			}
			return s.active, Attack(put(t, s, s.active, "Dummy", true), ID(2-s.active))
		}, CodeNoAttack},
		{"an own defender", func(t *testing.T, s *State) (Seat, Move) {
			return s.active, Attack(put(t, s, s.active, "Bloodfen Raptor", true), ID(1+s.active))
		}, CodeBadDefender},
		{"a defender in a hand", func(t *testing.T, s *State) (Seat, Move) {
			return s.active, Attack(put(t, s, s.active, "Bloodfen Raptor", true), put(t, s, 1-s.active, "Wisp", false))
		}, CodeBadDefender},
		{"past a Taunt", func(t *testing.T, s *State) (Seat, Move) {
			put(t, s, 1-s.active, "Unstable Ghoul", true)
			return s.active, Attack(put(t, s, s.active, "Bloodfen Raptor", true), ID(2-s.active))
		}, CodeTaunt},
		{"past a Taunt at a minion", func(t *testing.T, s *State) (Seat, Move) {
			put(t, s, 1-s.active, "Abomination", true)
			wisp := put(t, s, 1-s.active, "Wisp", true)
			return s.active, Attack(put(t, s, s.active, "Bloodfen Raptor", true), wisp)
		}, CodeTaunt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fresh(t)
			seat, m := tt.setup(t, s)
			before := observe(t, s)
			_, err := apply(s, seat, m)
			if err == nil {
				t.Fatalf("%+v accepted", m)
			}
			rej := asRejection(t, err)
			if rej.Code != tt.code || !strings.HasPrefix(rej.Code, "game:") {
				t.Errorf("code %s (%v), want %s", rej.Code, err, tt.code)
			}
			if after := observe(t, s); after != before {
				t.Errorf("the refusal changed the match")
			}
		})
	}
}

func TestAttack(t *testing.T) {
	s := fresh(t)
	a := s.active
	raptor := put(t, s, a, "Bloodfen Raptor", true) // 3/2
	yeti := put(t, s, 1-a, "Chillwind Yeti", true)  // 4/5
	evs, err := apply(s, a, Attack(raptor, yeti))
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"type":"attack","seat":` + encode(t, a) + `,"attacker":` + encode(t, raptor) + `,"defender":` + encode(t, yeti) + `},` +
		`{"type":"Damaged","target":` + encode(t, raptor) + `,"amount":4},{"type":"Damaged","target":` + encode(t, yeti) + `,"amount":3},` +
		`{"type":"Destroyed","id":` + encode(t, raptor) + `},{"type":"DeathPhase","round":1}]`
	if got := encode(t, evs); got != want {
		t.Errorf("events %s\nwant %s", got, want)
	}
	if h, _ := s.g.Health(yeti); h != 2 {
		t.Errorf("the Yeti has %d health, want 2", h)
	}
	// A minion attacks once a turn; the hero deals nothing back.
	gnome := put(t, s, a, "Leper Gnome", true)
	if _, err := apply(s, a, Attack(gnome, ID(2-a))); err != nil {
		t.Fatal(err)
	}
	if h, _ := s.g.Health(gnome); h != 1 {
		t.Errorf("the attacker took damage from a hero: %d", h)
	}
	if _, err := apply(s, a, Attack(gnome, ID(2-a))); asRejection(t, err).Code != CodeNotReady {
		t.Errorf("a second attack: %v", err)
	}
	// A minion played this turn waits for the next one.
	s.mana[a] = 10
	wisp := put(t, s, a, "Wisp", false)
	if _, err := apply(s, a, Play(wisp, 0)); err != nil {
		t.Fatal(err)
	}
	if _, err := apply(s, a, Attack(wisp, ID(2-a))); asRejection(t, err).Code != CodeNotReady {
		t.Errorf("an attack the turn it came: %v", err)
	}
	for range 2 {
		if _, err := apply(s, s.active, End()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := apply(s, a, Attack(wisp, ID(2-a))); err != nil {
		t.Errorf("an attack the next turn: %v", err)
	}
}

func TestTurns(t *testing.T) {
	s := fresh(t)
	first := s.active
	for turn := 1; turn < 30; turn++ {
		seat := s.active
		if want := first; turn%2 == 0 && seat == want || turn%2 == 1 && seat != want {
			t.Fatalf("turn %d is seat %d's", turn, seat)
		}
		if want := int32(min((turn+1)/2, MaxMana)); s.max[seat] != want || s.mana[seat] != want {
			t.Fatalf("turn %d: mana %d/%d, want %d", turn, s.mana[seat], s.max[seat], want)
		}
		deck, _ := s.g.Deck(cards.Player(1 - seat))
		hand, _ := s.g.Hand(cards.Player(1 - seat))
		evs, err := apply(s, seat, End())
		if err != nil {
			t.Fatal(err)
		}
		if evs[0].Type != EventTurn || evs[0].Seat != 1-seat || evs[0].Turn != turn+1 {
			t.Fatalf("turn %d: events %s", turn, encode(t, evs))
		}
		switch {
		case len(deck) == 0:
			if evs[1].Type != string(cards.EventFatigue) {
				t.Errorf("turn %d: %s, want Fatigue", turn, encode(t, evs))
			}
		case len(hand) >= cards.MaxHand:
			if evs[1].Type != string(cards.EventDrew) || !evs[1].Burned || evs[1].Card == "" {
				t.Errorf("turn %d: %s, want a burned draw", turn, encode(t, evs))
			}
		default:
			if evs[1].Type != string(cards.EventDrew) || evs[1].ID != deck[0] || evs[1].Burned {
				t.Errorf("turn %d: %s, want a draw of %d", turn, encode(t, evs), deck[0])
			}
		}
	}
}

func TestTurnLimit(t *testing.T) {
	s := fresh(t)
	s.turn = MaxTurns - 1
	if _, err := apply(s, s.active, End()); err != nil || s.turn != MaxTurns {
		t.Fatalf("turn %d: %v", s.turn, err)
	}
	evs, err := apply(s, s.active, End())
	if err != nil {
		t.Fatal(err)
	}
	if got := encode(t, evs); got != `[{"type":"end","phase":"draw"}]` {
		t.Errorf("events %s", got)
	}
	st := Rules{}.Status(s)
	if !st.Over || st.Phase != PhaseDraw || len(st.Outcome.Winners) != 0 || !st.Outcome.Ranked || (Rules{}).Pending(s) != nil {
		t.Errorf("status %+v", st)
	}
}

func TestWin(t *testing.T) {
	s := fresh(t)
	a := s.active
	s.mana[a] = 10
	if err := s.g.DealDamage(ID(2-a), 27); err != nil {
		t.Fatal(err)
	}
	s.g.ClearLog()
	fireball := put(t, s, a, "Fireball", false)
	evs, err := apply(s, a, Play(fireball, ID(2-a)))
	if err != nil {
		t.Fatal(err)
	}
	if last := evs[len(evs)-1]; last.Type != EventEnd || last.Winner != a || last.Phase != PhaseWon {
		t.Errorf("events %s", encode(t, evs))
	}
	st := Rules{}.Status(s)
	if !st.Over || !slices.Equal(st.Outcome.Winners, []Seat{a}) || !st.Outcome.Ranked || s.mana[a] != 6 {
		t.Errorf("status %+v, mana %d", st, s.mana[a])
	}
}

// Either seat may concede at any time; the other wins, unranked.
func TestConcede(t *testing.T) {
	for _, conceder := range []Seat{0, 1} {
		s := newSession(t, 5, `{}`)
		step, err := s.Apply(conceder, command(t, Concede()))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := encode(t, step.Beats(session.Spectator)), `[{"type":"end","phase":"conceded","winner":`+encode(t, 1-conceder)+`,"conceded":true}]`; got != want {
			t.Errorf("events %s, want %s", got, want)
		}
		st := s.Status()
		if !st.Over || st.Phase != PhaseConceded || !slices.Equal(st.Outcome.Winners, []Seat{1 - conceder}) || st.Outcome.Ranked {
			t.Errorf("status %+v", st)
		}
		if _, err := s.Apply(1-conceder, command(t, Concede())); asRejection(t, err).Code != session.CodeGameOver {
			t.Errorf("a concession after the end: %v", err)
		}
	}
}

// Every preset is a valid deck of 30, a config may name it for either
// seat, and the canonical form lists its cards; an unknown name is refused
// with the names there are.
func TestPresets(t *testing.T) {
	for _, p := range Presets {
		if err := (&Config{Decks: [2][]string{p.Cards, nil}}).Validate(); err != nil {
			t.Errorf("preset %s: %v", p.Name, err)
		}
		var c Config
		if err := json.Unmarshal([]byte(`{"decks":["`+p.Name+`",null]}`), &c); err != nil {
			t.Fatalf("preset %s: %v", p.Name, err)
		}
		got, _ := json.Marshal(c)
		want, _ := json.Marshal(map[string]any{"decks": [2][]string{p.Cards, DefaultDeck}, "mode": "duel"})
		if string(got) != string(want) {
			t.Errorf("preset %s: canonical %s, want %s", p.Name, got, want)
		}
	}
	raiders, _ := PresetCards("raiders")
	wardens, _ := PresetCards("wardens")
	if len(raiders) != 20 || len(wardens) != 20 || slices.ContainsFunc(raiders, func(n string) bool { return slices.Contains(wardens, n) }) {
		t.Errorf("raiders %v and wardens %v: not two decks of 20 without a name in common", raiders, wardens)
	}
	var c Config
	err := json.Unmarshal([]byte(`{"decks":["mill",null]}`), &c)
	if err == nil || !strings.Contains(err.Error(), `no deck is named "mill"`) || !strings.Contains(err.Error(), `"raiders"`) {
		t.Fatalf("an unknown preset: %v", err)
	}
}
