package nim

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/roomd/roomd/core/session"
)

func TestTurnOrder(t *testing.T) {
	for seats := MinSeats; seats <= MaxSeats; seats++ {
		t.Run(fmt.Sprintf("%d seats", seats), func(t *testing.T) {
			s := newSession(t, 1, `{"pile":21}`, seats)
			m := s.Match()
			for i := range 20 {
				want := i % seats
				if got := m.Pending(); !slices.Equal(got, []Seat{want}) {
					t.Fatalf("take %d: pending %v, want [%d]", i, got, want)
				}
				if got := m.View(session.Spectator).(View).Turn; got != want {
					t.Fatalf("take %d: view turn %d, want %d", i, got, want)
				}
				for seat := range seats {
					if _, ok := m.AIMove(seat, session.IntSeed(7).Source()); ok != (seat == want) {
						t.Fatalf("take %d: AIMove(%d) ok=%v, want %v", i, seat, ok, seat == want)
					}
				}
				if _, err := s.Apply(want, take(1)); err != nil {
					t.Fatalf("take %d by seat %d: %v", i, want, err)
				}
			}
		})
	}
}

func TestLegalTakes(t *testing.T) {
	for n := MinTake; n <= MaxTake; n++ {
		t.Run(fmt.Sprintf("take %d", n), func(t *testing.T) {
			s := newSession(t, 1, `{"pile":21}`, 2)
			step, err := s.Apply(0, take(n))
			if err != nil {
				t.Fatalf("take %d: %v", n, err)
			}
			want := []Event{{Type: EventTook, Seat: 0, N: n, Pile: 21 - n}}
			for _, v := range viewers(2) {
				if got := step.Beats(v).([]Event); !slices.EqualFunc(got, want, eventsEqual) {
					t.Errorf("viewer %d: events %+v, want %+v", v, got, want)
				}
			}
			st := stateOf(t, s.Match())
			if st.Pile() != 21-n || st.turn != 1 || !slices.Equal(st.history, []Take{{0, n}}) {
				t.Errorf("after take %d: pile %d turn %d history %v", n, st.Pile(), st.turn, st.history)
			}
		})
	}
}

func eventsEqual(a, b Event) bool {
	return a.Type == b.Type && a.Seat == b.Seat && a.N == b.N && a.Pile == b.Pile &&
		a.Winner == b.Winner && a.LastTaker == b.LastTaker && slices.Equal(a.Secrets, b.Secrets)
}

// stateWith is a match of len(secrets) seats at pile with turn to act.
func stateWith(t *testing.T, pile int, turn Seat, secrets ...int) *State {
	t.Helper()
	s, err := Rules{}.Init(session.IntSeed(0), Config{Pile: pile}, len(secrets))
	if err != nil {
		t.Fatalf("Init: %v", err)
	}
	s.turn, s.secrets = turn, secrets
	return s
}

func TestWinner(t *testing.T) {
	tests := []struct {
		name    string
		secrets []int
		pile    int
		turn    Seat
		n       int
		winner  Seat
	}{
		{"last take differs from secret: taker wins", []int{1, 2}, 3, 0, 3, 0},
		{"last take equals secret: next seat wins", []int{3, 2}, 3, 0, 3, 1},
		{"seat 1 of 2 loses to seat 0", []int{1, 1}, 1, 1, 1, 0},
		{"seat 1 of 2 wins with a take of 2 and secret 1", []int{2, 1}, 2, 1, 2, 1},
		{"three seats: last seat loses, next wraps to 0", []int{1, 1, 2}, 2, 2, 2, 0},
		{"three seats: middle seat loses to seat 2", []int{3, 3, 3}, 3, 1, 3, 2},
		{"four seats: seat 1 loses to seat 2", []int{3, 1, 2, 2}, 1, 1, 1, 2},
		{"four seats: seat 3 loses, seat 0 wins", []int{2, 2, 2, 3}, 3, 3, 3, 0},
		{"four seats: seat 3 wins", []int{2, 2, 2, 3}, 2, 3, 2, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := stateWith(t, tt.pile, tt.turn, tt.secrets...)
			s, events, err := Rules{}.Apply(s, session.Input[Move]{Seat: tt.turn, Move: Move{N: tt.n}})
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			st := Rules{}.Status(s)
			if !st.Over || st.Phase != PhaseOver || !slices.Equal(st.Outcome.Winners, []Seat{tt.winner}) {
				t.Fatalf("status %+v, want over with winner %d", st, tt.winner)
			}
			want := []Event{
				{Type: EventTook, Seat: tt.turn, N: tt.n, Pile: 0},
				{Type: EventEnd, Winner: tt.winner, LastTaker: tt.turn, Secrets: tt.secrets},
			}
			if !slices.EqualFunc(events, want, eventsEqual) {
				t.Errorf("events %+v, want %+v", events, want)
			}
			if p := (Rules{}).Pending(s); len(p) != 0 {
				t.Errorf("pending %v after the end, want none", p)
			}
		})
	}
}

// A take equal to the secret that leaves items behind changes nothing.
func TestSecretMattersOnlyOnTheLastTake(t *testing.T) {
	s := stateWith(t, 5, 0, 2, 3)
	s, events, err := Rules{}.Apply(s, session.Input[Move]{Seat: 0, Move: Move{N: 2}})
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if st := (Rules{}).Status(s); st.Over || len(events) != 1 || s.turn != 1 {
		t.Fatalf("status %+v, events %+v, turn %d: want the game to go on with seat 1", st, events, s.turn)
	}
}

// The same games end to end through Game, with seed 1 dealing [2 1].
func TestWinnerThroughGame(t *testing.T) {
	tests := []struct {
		name   string
		pile   int
		takes  []int
		winner Seat
	}{
		{"seat 0 takes 3, not its secret 2, and wins", 3, []int{3}, 0},
		{"seat 0 takes 2, its secret, and loses", 2, []int{2}, 1},
		{"seat 1 takes 1, its secret, and loses", 4, []int{3, 1}, 0},
		{"seat 1 takes 2 and wins", 5, []int{3, 2}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t, 1, fmt.Sprintf(`{"pile":%d}`, tt.pile), 2)
			if got := stateOf(t, s.Match()).Secrets(); !slices.Equal(got, []int{2, 1}) {
				t.Fatalf("seed 1 deals %v, want [2 1]", got)
			}
			playTo(t, s, tt.takes...)
			res, ok := s.Result()
			if !ok || res.Status != PhaseOver || !slices.Equal(res.Outcome.Winners, []Seat{tt.winner}) {
				t.Fatalf("result %+v (ok %v), want winner %d", res, ok, tt.winner)
			}
		})
	}
}

func TestDeal(t *testing.T) {
	deal := func(seed int64, seats int) []int {
		t.Helper()
		s, err := Rules{}.Init(session.IntSeed(seed), Config{}, seats)
		if err != nil {
			t.Fatalf("Init(%d, %d seats): %v", seed, seats, err)
		}
		return s.Secrets()
	}
	t.Run("pinned mulberry32 deals", func(t *testing.T) {
		for _, tt := range []struct {
			seed int64
			want []int
		}{
			{0, []int{1, 1, 1, 1}},
			{1, []int{2, 1, 2, 3}},
			{42, []int{2, 2, 3, 3}},
			{-1, []int{3, 1, 3, 3}},
			{4294967303, []int{1, 1, 3, 3}}, // the same as seed 7
		} {
			if got := deal(tt.seed, 4); !slices.Equal(got, tt.want) {
				t.Errorf("seed %d deals %v, want %v", tt.seed, got, tt.want)
			}
		}
	})
	t.Run("same seed, same deal; seats dealt in order", func(t *testing.T) {
		for seed := int64(-50); seed < 50; seed++ {
			four := deal(seed, 4)
			if again := deal(seed, 4); !slices.Equal(four, again) {
				t.Fatalf("seed %d deals %v then %v", seed, four, again)
			}
			for seats := MinSeats; seats < MaxSeats; seats++ {
				if got := deal(seed, seats); !slices.Equal(got, four[:seats]) {
					t.Fatalf("seed %d deals %v to %d seats, want the prefix of %v", seed, got, seats, four)
				}
			}
		}
	})
	t.Run("seeds spread over every deal, secrets 1 to 3", func(t *testing.T) {
		seen := make(map[[4]int]int)
		var values [4]int
		for seed := range int64(2000) {
			d := deal(seed, 4)
			for _, v := range d {
				if v < 1 || v > 3 {
					t.Fatalf("seed %d deals %v: a secret outside 1..3", seed, d)
				}
				values[v]++
			}
			seen[[4]int(d)]++
		}
		if len(seen) != 81 {
			t.Errorf("2000 seeds gave %d of the 81 deals", len(seen))
		}
		for v := 1; v <= 3; v++ {
			if values[v] < 2400 || values[v] > 2933 {
				t.Errorf("secret %d dealt %d times of 8000, want about a third", v, values[v])
			}
		}
	})
}

func TestStatus(t *testing.T) {
	s := newSession(t, 1, `{"pile":4}`, 2)
	check := func(when string, want session.Status, pending []Seat) {
		t.Helper()
		got := s.Status()
		if got.Phase != want.Phase || got.Started != want.Started || got.Over != want.Over || !slices.Equal(got.Outcome.Winners, want.Outcome.Winners) {
			t.Errorf("%s: status %+v, want %+v", when, got, want)
		}
		if p := s.Match().Pending(); !slices.Equal(p, pending) || p == nil {
			t.Errorf("%s: pending %#v, want %v", when, p, pending)
		}
	}
	check("fresh", session.Status{Phase: PhaseActive}, []Seat{0})
	playTo(t, s, 1)
	check("after the first take", session.Status{Phase: PhaseActive, Started: true}, []Seat{1})
	if t0, ok := s.Started(); !ok || t0 != 1000 {
		t.Errorf("clock started at %v (%v), want 1000 from the first take", t0, ok)
	}
	playTo(t, s, 3) // seat 1 takes 3, its secret is 1: it wins
	check("over", session.Status{Phase: PhaseOver, Started: true, Over: true, Outcome: session.Outcome{Winners: []Seat{1}}}, []Seat{})
	if e := s.Elapsed(); e != 1000 {
		t.Errorf("elapsed %v, want 1000", e)
	}
}

func TestRulesRefuseBadMoves(t *testing.T) {
	tests := []struct {
		name      string
		seat      Seat
		n         int
		code      string
		malformed bool
	}{
		{"n 0", 0, 0, session.CodeInvalidMove, true},
		{"n 4", 0, 4, session.CodeInvalidMove, true},
		{"n -1", 0, -1, session.CodeInvalidMove, true},
		{"seat -1", -1, 1, session.CodeNoSuchSeat, true},
		{"seat 2 of 2", 2, 1, session.CodeNoSuchSeat, true},
		{"out of turn", 1, 1, session.CodeNotYourTurn, false},
		{"more than the pile", 0, 3, CodeTooMany, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := stateWith(t, 2, 0, 1, 2)
			before := encode(t, Rules{}.Project(s, session.Spectator)) + fmt.Sprint(s.secrets)
			_, events, err := Rules{}.Apply(s, session.Input[Move]{Seat: tt.seat, Move: Move{N: tt.n}})
			rej := asRejection(t, err)
			if rej.Code != tt.code || rej.Malformed != tt.malformed || events != nil {
				t.Errorf("rejection %+v, events %v; want code %s malformed %v", rej, events, tt.code, tt.malformed)
			}
			if after := encode(t, Rules{}.Project(s, session.Spectator)) + fmt.Sprint(s.secrets); after != before {
				t.Errorf("state changed: %s, was %s", after, before)
			}
		})
	}
}

func TestInfoAndSetup(t *testing.T) {
	info := Game.Info()
	if info.ID != "nim" || info.Name != "Hidden Nim" || info.RulesVersion != "nim/1" {
		t.Errorf("info %+v", info)
	}
	want := session.Mode{ID: "classic", Name: "Hidden Nim", MinSeats: 2, MaxSeats: 4, AI: true}
	if len(info.Modes) != 1 || info.Modes[0] != want {
		t.Errorf("modes %+v, want [%+v]", info.Modes, want)
	}
	for name, schema := range map[string]json.RawMessage{"config": info.ConfigSchema, "command": info.CommandSchema} {
		if !json.Valid(schema) {
			t.Errorf("%s schema is not JSON", name)
		}
	}
	setup, err := Game.Configure(nil)
	if err != nil || setup.Mode != want || setup.Board != "" {
		t.Errorf("Configure(nil) = %+v, %v; want the classic mode and no board", setup, err)
	}
}
