package cards

import (
	"errors"
	"fmt"
)

// Errors of the harness calls (§4). Each failed call wraps one of them
// with the call's name and what it was given; a failed call changes
// nothing and logs nothing.
var (
	ErrUnknownCard  = errors.New("no card of that name")
	ErrUnknownID    = errors.New("no entity has that id")
	ErrNoSuchPlayer = errors.New("no such player (players are 0 and 1)")
	ErrNotAMinion   = errors.New("not a minion")
	ErrNotASpell    = errors.New("not a spell")
	ErrBoardFull    = errors.New("the board is full")
	ErrNotInHand    = errors.New("not in a hand")
	ErrNotInPlay    = errors.New("not in play")
	ErrTarget       = errors.New("wrong target")
	ErrToken        = errors.New("a token cannot go in a deck")
	ErrHero         = errors.New("a hero is not a card")
	ErrNoStats      = errors.New("a spell has no attack or health")
	// ErrInvalidCard is wrapped by every CardError.
	ErrInvalidCard = errors.New("invalid card definition")
	// ErrAssemble is wrapped by every AssembleError.
	ErrAssemble = errors.New("AssembleError")
	// ErrRunaway fails a Sequence that logs more than 65536 events (or
	// Options.MaxEvents) or
	// nests more than 256 activations one inside another: cards that loop
	// for ever (a Deathrattle that summons its own card and damages it)
	// end that way, with the state as before the call.
	ErrRunaway = errors.New("the sequence does not end")
)

// CardError is a card definition refused at load (§3.6). It names the card
// and the field.
type CardError struct {
	// Card is the card's name, or "#i", its index in the list, when it has
	// no name.
	Card string
	// Field is the field's path in the card, such as "effects[0].to"; ""
	// for the card as a whole.
	Field   string
	Problem string
}

func (e *CardError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("card %q: %s", e.Card, e.Problem)
	}
	return fmt.Sprintf("card %q: %s: %s", e.Card, e.Field, e.Problem)
}

// Is makes errors.Is(err, ErrInvalidCard) true.
func (e *CardError) Is(target error) bool { return target == ErrInvalidCard }

// AssembleError is Assemble's refusal (§8): an unknown card, a card
// without an ability, a half that is neither "top" nor "bottom", or a text
// that the swap leaves unchanged.
type AssembleError struct {
	Base, Donor, Half string
	Problem           string
}

func (e *AssembleError) Error() string {
	return fmt.Sprintf("AssembleError: assemble(%q, %q, %q): %s", e.Base, e.Donor, e.Half, e.Problem)
}

// Is makes errors.Is(err, ErrAssemble) true.
func (e *AssembleError) Is(target error) bool { return target == ErrAssemble }
