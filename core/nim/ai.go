package nim

import "github.com/roomd/roomd/core/session"

// Choose picks a take for seat from its own view: the pile and its secret.
// It takes the whole pile when that wins (the count is not its secret);
// otherwise it leaves the next seat a multiple of 4, or failing that a take
// drawn from src among those that leave more than 3, or failing that the
// smallest take; it takes the last item with its own secret, and so loses,
// only when no other take is legal. ok is false
// when it is not seat's turn, the game is over, or the view is not seat's.
func (Rules) Choose(v View, seat Seat, src session.Source) (Move, bool) {
	if v.Over || v.Turn != seat || v.You == nil || *v.You != seat || v.Secret == nil || v.Pile < 1 {
		return Move{}, false
	}
	pile, secret := v.Pile, *v.Secret
	if pile <= MaxTake && pile != secret {
		return Move{N: pile}, true
	}
	var options []int // legal takes, bar a losing last take
	for n := MinTake; n <= min(MaxTake, pile); n++ {
		if n != pile {
			options = append(options, n)
		}
	}
	if len(options) == 0 {
		return Move{N: pile}, true // a pile of 1 and a secret of 1: forced
	}
	for _, n := range options {
		if (pile-n)%4 == 0 {
			return Move{N: n}, true
		}
	}
	var safe []int
	for _, n := range options {
		if pile-n > MaxTake {
			safe = append(safe, n)
		}
	}
	if len(safe) > 0 {
		return Move{N: safe[session.Intn(src, len(safe))]}, true
	}
	return Move{N: options[0]}, true
}
