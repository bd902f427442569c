package bot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"

	"github.com/roomd/roomd/core/session"
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
	// queue plays beats from decodeBeats like applyDecoded, but for a game
	// whose adapter may play several updates' beats in one call (see
	// batchApplier) only when the view is next read (choose, encode,
	// compare, setDecoded, applyDecoded, sync); for any other game at
	// once. raw, the beats' bytes, names them in a failure: failures
	// returns those since it was last called.
	queue(beats any, raw []byte)
	failures() []applyFailure
	sync()
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
	// compareDecoded is compare of raw as decodeView gave it (server;
	// nil: a null view), for a bot that has decoded it already. When raw
	// is the followed view's own encoding the views are equal without
	// encoding the server's.
	compareDecoded(raw json.RawMessage, server any) (equal, quirk bool, detail string, err error)
}

// viewFollower follows a view of type V with beats of type E.
type viewFollower[V, E any] struct {
	a    adapter[V, E]
	view V
	ok   bool
	enc  []byte // compareDecoded's encoding of the view: a buffer kept between checks

	queued []queuedBeats[E] // beats not played yet, oldest first
	batch  []E              // the queued beats in one list: a buffer kept between plays
	failed []applyFailure
}

// maxQueued bounds the updates whose beats a follower keeps unplayed.
const maxQueued = 64

// queuedBeats are one update's beats, kept to be played with the next.
type queuedBeats[E any] struct {
	evs []E
	raw []byte
}

// applyFailure is one update's beats that did not play on the followed
// view.
type applyFailure struct {
	raw []byte
	err error
}

// appendEncoder is what an adapter adds whose encode can append to a
// buffer: the followed view is encoded for every check into one kept
// buffer instead of a new one grown from nothing.
type appendEncoder[V any] interface {
	// appendEncode appends encode's bytes of v to b.
	appendEncode(b []byte, v V) []byte
}

// batchApplier is what an adapter adds whose apply of several updates'
// beats in one call leaves a view as applying them one update after
// another would, as long as they all play. Such beats are queued until the
// view is read: a player's at its next move (the updates of its own move
// and of the others' since), a spectator's at its next check (every
// update of the room until then): each play has a cost of its own (a
// Minesweeper board's copies its dense board, so that a failed update
// leaves it as it was).
type batchApplier[V any] interface {
	// batches reports whether beats played on v may be batched.
	batches(v V) bool
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
	f.sync() // the beats before the new view fail (or not) as they would have
	tv, ok := v.(V)
	if !ok {
		var zero V
		f.view, f.ok = zero, false
		return
	}
	f.view, f.ok = f.a.clone(tv), true
}

func (f *viewFollower[V, E]) applyDecoded(beats any) error {
	f.sync()
	evs, _ := beats.([]E)
	if !f.ok || len(evs) == 0 {
		return nil
	}
	return f.a.apply(&f.view, evs)
}

func (f *viewFollower[V, E]) queue(beats any, raw []byte) {
	evs, _ := beats.([]E)
	if !f.ok || len(evs) == 0 {
		return
	}
	if ba, ok := f.a.(batchApplier[V]); ok && ba.batches(f.view) {
		f.queued = append(f.queued, queuedBeats[E]{evs, raw})
		if len(f.queued) >= maxQueued {
			f.sync() // a spectator without checks reads its view at the end only
		}
		return
	}
	if err := f.applyDecoded(evs); err != nil {
		f.failed = append(f.failed, applyFailure{raw, err})
	}
}

func (f *viewFollower[V, E]) failures() []applyFailure {
	out := f.failed
	f.failed = nil
	return out
}

func (f *viewFollower[V, E]) sync() {
	switch len(f.queued) {
	case 0:
		return
	case 1:
		f.play(f.queued[0])
	default:
		saved := f.a.clone(f.view)
		f.batch = f.batch[:0]
		for _, q := range f.queued {
			f.batch = append(f.batch, q.evs...)
		}
		err := f.a.apply(&f.view, f.batch)
		clear(f.batch) // the buffer keeps no events alive
		if err != nil {
			// Played one update after another instead, from the view
			// before: what a follower that never batched would hold, and
			// each failure named with its own update's beats.
			f.view = saved
			for _, q := range f.queued {
				f.play(q)
			}
		}
	}
	clear(f.queued)
	f.queued = f.queued[:0]
}

// play applies one update's queued beats, keeping a failure.
func (f *viewFollower[V, E]) play(q queuedBeats[E]) {
	if err := f.a.apply(&f.view, q.evs); err != nil {
		f.failed = append(f.failed, applyFailure{q.raw, err})
	}
}

func (f *viewFollower[V, E]) have() bool { return f.ok }

func (f *viewFollower[V, E]) choose(seat int) (json.RawMessage, bool) {
	f.sync()
	if !f.ok {
		return nil, false
	}
	return f.a.choose(f.view, seat)
}

func (f *viewFollower[V, E]) encode() []byte {
	f.sync()
	if !f.ok {
		return []byte("null")
	}
	return f.a.encode(f.view)
}

func (f *viewFollower[V, E]) encodePublic() []byte {
	f.sync()
	if pe, ok := f.a.(publicEncoder[V]); ok && f.ok {
		return pe.encodePublic(f.view)
	}
	return f.encode()
}

func (f *viewFollower[V, E]) compare(server json.RawMessage) (bool, bool, string, error) {
	sv, err := f.decodeView(server)
	if err != nil {
		return false, false, "", err
	}
	return f.compareDecoded(server, sv)
}

func (f *viewFollower[V, E]) compareDecoded(raw json.RawMessage, server any) (bool, bool, string, error) {
	sv, ok := server.(V)
	if !ok { // a null view
		return !f.ok, false, "the server has no view", nil
	}
	var mine []byte
	if ae, ok := f.a.(appendEncoder[V]); ok && f.ok {
		f.sync()
		f.enc = ae.appendEncode(f.enc[:0], f.view)
		mine = f.enc
	} else {
		mine = f.encode() // encode plays what is queued
	}
	if bytes.Equal(mine, raw) {
		return true, false, "", nil
	}
	theirs := f.a.encode(sv)
	if bytes.Equal(mine, theirs) {
		return true, false, "", nil
	}
	detail := fmt.Sprintf("followed %s\nserver   %s", clipBytes(mine, 600), clipBytes(theirs, 600))
	return false, f.ok && f.a.quirk(f.view, sv), detail, nil
}

// botChoice is the source the game AIs draw from when they choose a bot's
// move: math/rand/v2's global generator (safe for concurrent use, as
// adapters must be). A bot knows no match's secret, so it cannot use the
// match's AI source (session.Seed.AISource) as the server's AI seats do.
var botChoice session.Source = globalSource{}

type globalSource struct{}

func (globalSource) Uint32() uint32 { return rand.Uint32() }

// marshalMove encodes a move an AI chose, for adapters' choose.
func marshalMove(mv any, ok bool) (json.RawMessage, bool) {
	if !ok {
		return nil, false
	}
	if m, ok := mv.(json.Marshaler); ok {
		// The game's own encoder, without encoding/json's reflection and
		// second pass over its output: once per move.
		b, err := m.MarshalJSON()
		return b, err == nil
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
