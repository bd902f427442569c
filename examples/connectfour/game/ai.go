package connectfour

import "github.com/roomd/roomd/core/session"

// Choose drops into a column drawn from src among those not full: the AI
// plays at random, from the match's AI source (derived from its secret, so
// a replay makes the same choices and no player can compute them first).
func (Rules) Choose(v View, seat int, src session.Source) (Move, bool) {
	if v.Phase != PhaseActive || v.Turn != seat {
		return Move{}, false
	}
	var open []int
	for c := range Cols {
		if len(v.Grid[0]) == Cols && v.Grid[0][c] == '.' {
			open = append(open, c)
		}
	}
	if len(open) == 0 {
		return Move{}, false
	}
	return Move{Type: "drop", Col: open[session.Intn(src, len(open))]}, true
}
