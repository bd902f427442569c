package cardgame

import (
	"encoding/json"
	"testing"

	"github.com/roomd/roomd/core/session"
)

// BenchmarkTurn measures one turn through the erased Match API: the active
// seat's AI plays until it ends its turn (each command chosen, applied and
// its events projected for both seats and a spectator). A new match starts
// whenever one ends; that setup is not timed.
func BenchmarkTurn(b *testing.B) {
	var (
		m    session.Match
		seed int64
	)
	start := func() {
		b.StopTimer()
		var err error
		if m, err = Game.New(session.IntSeed(seed), json.RawMessage(`{}`), Seats); err != nil {
			b.Fatal(err)
		}
		seed++
		b.StartTimer()
	}
	start()
	b.ReportAllocs()
	for b.Loop() {
		if m.Status().Over {
			start()
		}
		for {
			seat := m.Pending()[0]
			raw, _ := m.AIMove(seat, session.IntSeed(7).Source())
			step, err := m.Apply(session.Command{Seat: seat, Move: raw})
			if err != nil {
				b.Fatal(err)
			}
			for _, v := range []session.Seat{0, 1, session.Spectator} {
				_ = step.Beats(v)
			}
			if m.Status().Over || m.Pending()[0] != seat {
				break
			}
		}
	}
}
