package main

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// follower is a bot's own picture of the match: it starts from a view the
// server sent (a snapshot's, or the update's that starts or ends a match)
// and applies every other update's beats, as a client does. Players
// choose their moves from it. viewFollower is the one implementation, over
// a game's adapter.
type follower interface {
	// decodeView decodes a view the server sent; nil for a null view (a
	// lobby). decodeBeats decodes one update's beats.
	decodeView(raw json.RawMessage) (any, error)
	decodeBeats(raw json.RawMessage) (any, error)
	// setDecoded replaces the view with one from decodeView (nil clears
	// it); applyDecoded plays beats from decodeBeats.
	setDecoded(v any)
	applyDecoded(beats any) error
	have() bool
	// choose returns seat's next command, or false when seat has no move
	// now (not its turn, its board is over, the game is over).
	choose(seat int) (json.RawMessage, bool)
	// encode re-encodes the followed view with the game's own encoder;
	// encodePublic without what only its viewer may see (see
	// publicEncoder; encode's bytes for a game that hides nothing there).
	encode() []byte
	encodePublic() []byte
	// compare re-encodes a view the server sent and compares it with the
	// followed one, byte for byte. quirk is true when they differ only in a
	// way the game's events cannot carry (Minesweeper's partial chord on a
	// lost board, see minesweeper.View.Apply).
	compare(server json.RawMessage) (equal, quirk bool, detail string, err error)
}

// viewFollower follows a view of type V with beats of type E.
type viewFollower[V, E any] struct {
	a    adapter[V, E]
	view V
	ok   bool
}

func (f *viewFollower[V, E]) decodeView(raw json.RawMessage) (any, error) {
	if isNull(raw) {
		return nil, nil
	}
	v, err := f.a.decodeView(raw)
	if err != nil {
		return nil, err
	}
	return v, nil
}

func (f *viewFollower[V, E]) decodeBeats(raw json.RawMessage) (any, error) {
	if isNull(raw) {
		return nil, nil
	}
	evs, err := f.a.decodeBeats(raw)
	if err != nil {
		return nil, err
	}
	return evs, nil
}

func (f *viewFollower[V, E]) setDecoded(v any) {
	tv, ok := v.(V)
	if !ok {
		var zero V
		f.view, f.ok = zero, false
		return
	}
	f.view, f.ok = f.a.clone(tv), true
}

func (f *viewFollower[V, E]) applyDecoded(beats any) error {
	evs, _ := beats.([]E)
	if !f.ok || len(evs) == 0 {
		return nil
	}
	return f.a.apply(&f.view, evs)
}

func (f *viewFollower[V, E]) have() bool { return f.ok }

func (f *viewFollower[V, E]) choose(seat int) (json.RawMessage, bool) {
	if !f.ok {
		return nil, false
	}
	return f.a.choose(f.view, seat)
}

func (f *viewFollower[V, E]) encode() []byte {
	if !f.ok {
		return []byte("null")
	}
	return f.a.encode(f.view)
}

func (f *viewFollower[V, E]) encodePublic() []byte {
	if pe, ok := f.a.(publicEncoder[V]); ok && f.ok {
		return pe.encodePublic(f.view)
	}
	return f.encode()
}

func (f *viewFollower[V, E]) compare(server json.RawMessage) (bool, bool, string, error) {
	if isNull(server) {
		return !f.ok, false, "the server has no view", nil
	}
	sv, err := f.a.decodeView(server)
	if err != nil {
		return false, false, "", err
	}
	mine, theirs := f.encode(), f.a.encode(sv)
	if bytes.Equal(mine, theirs) {
		return true, false, "", nil
	}
	detail := fmt.Sprintf("followed %s\nserver   %s", clipBytes(mine, 600), clipBytes(theirs, 600))
	return false, f.ok && f.a.quirk(f.view, sv), detail, nil
}

// marshalMove encodes a move an AI chose, for adapters' choose.
func marshalMove(mv any, ok bool) (json.RawMessage, bool) {
	if !ok {
		return nil, false
	}
	b, err := json.Marshal(mv)
	return b, err == nil
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

func clipBytes(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
