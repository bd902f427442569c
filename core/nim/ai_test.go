package nim

import (
	"fmt"
	"slices"
	"testing"

	"github.com/roomd/roomd/core/session"
)

func seatView(seat Seat, pile, secret int) View {
	return View{Pile: pile, Turn: seat, Seats: 2, You: &seat, Secret: &secret, History: []Take{}}
}

func TestChoose(t *testing.T) {
	tests := []struct {
		name         string
		pile, secret int
		want         int
	}{
		{"takes the whole pile of 3 with secret 1", 3, 1, 3},
		{"takes the whole pile of 1 with secret 3", 1, 3, 1},
		{"takes the whole pile of 2 with secret 1", 2, 1, 2},
		{"never takes the last 3 with secret 3", 3, 3, 1},
		{"never takes the last 2 with secret 2", 2, 2, 1},
		{"a pile of 1 with secret 1 is forced", 1, 1, 1},
		{"leaves 4 from 5", 5, 1, 1},
		{"leaves 4 from 6", 6, 2, 2},
		{"leaves 4 from 7", 7, 3, 3},
		{"leaves 20 from 21", 21, 2, 1},
		{"from 8, leaves more than 3", 8, 1, 1},
		{"from 4, the smallest take", 4, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, ok := Rules{}.Choose(seatView(0, tt.pile, tt.secret), 0, session.IntSeed(7).Source())
			if !ok || m.N != tt.want {
				t.Errorf("Choose = %+v, %v; want take %d", m, ok, tt.want)
			}
		})
	}
}

func TestChooseOnlyOnItsTurn(t *testing.T) {
	over := seatView(0, 0, 2)
	over.Over = true
	spectator := seatView(0, 5, 2)
	spectator.You, spectator.Secret = nil, nil
	tests := []struct {
		name string
		view View
		seat Seat
	}{
		{"another seat's turn", seatView(1, 5, 2), 0},
		{"the game is over", over, 0},
		{"a spectator's view", spectator, 0},
		{"another seat's view", seatView(0, 5, 2), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if m, ok := (Rules{}).Choose(tt.view, tt.seat, session.IntSeed(7).Source()); ok {
				t.Errorf("Choose = %+v, want no move", m)
			}
		})
	}
}

// Every choice is legal, wins when a win is there, and loses by its own
// secret only when forced.
func TestChooseIsLegal(t *testing.T) {
	for pile := 1; pile <= 40; pile++ {
		for secret := 1; secret <= 3; secret++ {
			m, ok := Rules{}.Choose(seatView(0, pile, secret), 0, session.IntSeed(7).Source())
			switch {
			case !ok || m.N < MinTake || m.N > min(MaxTake, pile):
				t.Errorf("pile %d secret %d: %+v, %v is not a legal take", pile, secret, m, ok)
			case pile <= MaxTake && pile != secret && m.N != pile:
				t.Errorf("pile %d secret %d: took %d, missing the win", pile, secret, m.N)
			case m.N == pile && m.N == secret && pile != 1:
				t.Errorf("pile %d secret %d: took the last items with its secret", pile, secret)
			}
		}
	}
}

// The AI plays whole games against itself without a refusal, and Go clients
// that follow the events hold the server's views throughout.
func TestAISelfPlay(t *testing.T) {
	for seats := MinSeats; seats <= MaxSeats; seats++ {
		for _, pile := range []int{1, 2, 3, 4, 5, 8, 21, 100} {
			t.Run(fmt.Sprintf("%d seats, pile %d", seats, pile), func(t *testing.T) {
				t.Parallel()
				winners := make(map[Seat]int)
				for seed := range int64(100) {
					winners[selfPlay(t, seed, seats, pile)]++
				}
				if pile >= 21 && len(winners) < 2 {
					t.Errorf("100 seeds, one winner: %v", winners)
				}
			})
		}
	}
}

// selfPlay plays one game with the AI at every seat and returns its winner.
func selfPlay(t *testing.T, seed int64, seats, pile int) Seat {
	t.Helper()
	s := newSession(t, seed, fmt.Sprintf(`{"pile":%d}`, pile), seats)
	m := s.Match()
	follow := newClients(t, m, seats)
	for turn := 0; !m.Status().Over; turn++ {
		if turn >= pile {
			t.Fatalf("seed %d: no end after %d takes from %d", seed, turn, pile)
		}
		var acted bool
		for seat := range seats {
			command, ok := m.AIMove(seat, session.IntSeed(7).Source())
			if ok != slices.Contains(m.Pending(), seat) {
				t.Fatalf("seed %d: AIMove(%d) ok=%v with pending %v", seed, seat, ok, m.Pending())
			}
			if !ok {
				continue
			}
			step, err := s.Apply(seat, command)
			if err != nil {
				t.Fatalf("seed %d: seat %d's AI move %s refused: %v", seed, seat, command, err)
			}
			follow.step(t, m, step)
			acted = true
			break
		}
		if !acted {
			t.Fatalf("seed %d: no seat could act, pending %v", seed, m.Pending())
		}
	}
	for seat := range seats {
		if command, ok := m.AIMove(seat, session.IntSeed(7).Source()); ok {
			t.Fatalf("seed %d: AIMove(%d) = %s after the end", seed, seat, command)
		}
	}
	return s.Status().Outcome.Winners[0]
}
