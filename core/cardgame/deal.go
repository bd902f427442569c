package cardgame

import (
	"slices"

	"github.com/roomd/roomd/core/session"
)

// deal shuffles both decks and picks the first seat, drawing from src (§5):
// seat 0's deck, then seat 1's, each by Fisher–Yates from the last index
// down to 1 with j = Intn(i+1), then the first seat with Intn(2).
func deal(src session.Source, config Config) (decks [Seats][]string, first Seat) {
	for p := range decks {
		d := slices.Clone(config.deck(p))
		for i := len(d) - 1; i > 0; i-- {
			j := session.Intn(src, i+1)
			d[i], d[j] = d[j], d[i]
		}
		decks[p] = d
	}
	return decks, session.Intn(src, 2)
}
