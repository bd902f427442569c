package minesweeper

// Rejection codes of this game, beyond session's shared ones. All are
// ineffective moves (session.Reject): the reference treats them as silent
// no-ops, so replay skips them. Malformed moves use session's codes
// (game:UnknownMove, game:OutOfBounds, game:InvalidMove, game:Malformed,
// game:NoSuchSeat).
const (
	// CodeNotHidden: a reveal of a cell that is flagged or revealed.
	CodeNotHidden = "game:NotHidden"
	// CodeAlreadyRevealed: a flag on a revealed cell.
	CodeAlreadyRevealed = "game:AlreadyRevealed"
	// CodeNotRevealed: a chord on a cell that is not revealed.
	CodeNotRevealed = "game:NotRevealed"
	// CodeChordUnsatisfied: a chord on a revealed 0, or on a number whose
	// flagged neighbours do not match it.
	CodeChordUnsatisfied = "game:ChordUnsatisfied"
	// CodeNothingToChord: a satisfied chord with no hidden neighbour.
	CodeNothingToChord = "game:NothingToChord"
	// CodeRunOver: a race seat whose board is lost moves while others play.
	CodeRunOver = "game:RunOver"
)
