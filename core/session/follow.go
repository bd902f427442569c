package session

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Follower is a game's client side in erased form, driven with the JSON a
// viewer is sent: what a page (through the WebAssembly core) and a bot need
// to follow a match from its views and events, and to play it with the
// game's AI, without a line of code for the game.
type Follower interface {
	// Apply plays beats (the JSON array of one update's events for a
	// viewer) on view (that viewer's projection, as sent) and returns the
	// view after them: the one the server would send that viewer now.
	Apply(view, beats json.RawMessage) (json.RawMessage, error)
	// Choose asks the game's AI for seat's next command from seat's own
	// view, drawing from src; ok is false when the game has no AI or the
	// AI has no move for seat now.
	Choose(view json.RawMessage, seat Seat, src Source) (command json.RawMessage, ok bool, err error)
}

// ErrNoReducer is returned by FollowerOf for a game whose view has no Go
// reducer.
var ErrNoReducer = errors.New("session: the game's view has no Apply method")

// FollowerOf returns g's Follower, for a game made by Define whose view
// type V has a reducer: a method Apply(events []E) on *V (or V), returning
// nothing, an error, or the new V — the Go form of what a client does with
// an update, which each game's page once wrote again in JavaScript.
func FollowerOf(g Game) (Follower, error) {
	f, ok := g.(interface{ follower() (Follower, error) })
	if !ok {
		return nil, fmt.Errorf("session: %T was not made by Define", g)
	}
	return f.follower()
}

// reducerOf finds V's reducer.
func reducerOf[V, E any]() func(*V, []E) error {
	var v V
	switch any(&v).(type) {
	case interface{ Apply([]E) error }:
		return func(v *V, evs []E) error { return any(v).(interface{ Apply([]E) error }).Apply(evs) }
	case interface{ Apply([]E) }:
		return func(v *V, evs []E) error { any(v).(interface{ Apply([]E) }).Apply(evs); return nil }
	case interface{ Apply([]E) V }:
		return func(v *V, evs []E) error { *v = any(v).(interface{ Apply([]E) V }).Apply(evs); return nil }
	}
	return nil
}

type follower[C, S, M, E, V any] struct {
	g      *erased[C, S, M, E, V]
	reduce func(*V, []E) error
}

func (g *erased[C, S, M, E, V]) follower() (Follower, error) {
	r := reducerOf[V, E]()
	if r == nil {
		return nil, fmt.Errorf("%w (%s)", ErrNoReducer, g.d.Info.ID)
	}
	return &follower[C, S, M, E, V]{g: g, reduce: r}, nil
}

func (f *follower[C, S, M, E, V]) Apply(view, beats json.RawMessage) (json.RawMessage, error) {
	var v V
	if err := json.Unmarshal(view, &v); err != nil {
		return nil, fmt.Errorf("%s view: %w", f.g.d.Info.ID, err)
	}
	var evs []E
	if err := json.Unmarshal(beats, &evs); err != nil {
		return nil, fmt.Errorf("%s events: %w", f.g.d.Info.ID, err)
	}
	if err := f.reduce(&v, evs); err != nil {
		return nil, fmt.Errorf("%s events: %w", f.g.d.Info.ID, err)
	}
	return json.Marshal(v)
}

func (f *follower[C, S, M, E, V]) Choose(view json.RawMessage, seat Seat, src Source) (json.RawMessage, bool, error) {
	if f.g.ai == nil {
		return nil, false, nil
	}
	var v V
	if err := json.Unmarshal(view, &v); err != nil {
		return nil, false, fmt.Errorf("%s view: %w", f.g.d.Info.ID, err)
	}
	mv, ok := f.g.ai.Choose(v, seat, src)
	if !ok {
		return nil, false, nil
	}
	raw, err := canonical(mv)
	return raw, err == nil, err
}
