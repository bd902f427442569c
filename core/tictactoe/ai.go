package tictactoe

import "github.com/roomd/roomd/core/session"

// Choose picks seat's mark from the view: a square that completes its own
// line (the first, in reading order); else one that blocks the other
// seat's line; else the centre; else a free corner drawn from src; else a
// free square drawn from src. ok is false when the game is over, it is not
// seat's turn, or the view's grid is not a grid.
func (Rules) Choose(v View, seat Seat, src session.Source) (Move, bool) {
	if v.Phase != PhaseActive || v.Turn != seat || seat < 0 || seat >= Seats {
		return Move{}, false
	}
	var b board
	for r, row := range v.Board {
		if len(row) != Size {
			return Move{}, false
		}
		copy(b[r][:], row)
	}
	for _, mark := range []byte{Mark(seat), Mark(1 - seat)} { // win, then block
		if m, ok := b.completing(mark); ok {
			return m, true
		}
	}
	if b[1][1] == Empty {
		return Move{1, 1}, true
	}
	var free []Move
	for _, m := range []Move{{0, 0}, {0, 2}, {2, 0}, {2, 2}} {
		if b[m.R][m.C] == Empty {
			free = append(free, m)
		}
	}
	if len(free) == 0 {
		for r := range Size {
			for c := range Size {
				if b[r][c] == Empty {
					free = append(free, Move{r, c})
				}
			}
		}
	}
	if len(free) == 0 {
		return Move{}, false
	}
	return free[session.Intn(src, len(free))], true
}

// completing returns the first empty square, in reading order, where mark
// would complete a line.
func (b *board) completing(mark byte) (Move, bool) {
	for r := range Size {
		for c := range Size {
			if b[r][c] != Empty {
				continue
			}
			b[r][c] = mark
			_, won := b.lineOf(mark)
			b[r][c] = Empty
			if won {
				return Move{r, c}, true
			}
		}
	}
	return Move{}, false
}
