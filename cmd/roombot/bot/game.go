package bot

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
)

// adapter is what roombot knows of one game: how to follow its views, play
// it, and check what the server sends of it. V is the game's view and E
// one beat, as the game's Go package decodes them. Adapters hold nothing:
// the zero value is ready and safe for concurrent use. Each lives in a
// file game_<id>.go and is registered in games.go.
type adapter[V, E any] interface {
	gameSetup
	// decodeView decodes a view the server sent (never a JSON null).
	decodeView(raw json.RawMessage) (V, error)
	// decodeBeats decodes one update's beats (never a JSON null).
	decodeBeats(raw json.RawMessage) ([]E, error)
	// clone returns a copy of v that apply may change without changing v:
	// a decoded view is also kept for the leak checks.
	clone(v V) V
	// apply plays beats on a followed view, as a client does.
	apply(v *V, beats []E) error
	// choose returns seat's next command chosen from v, or false when seat
	// has no move now (not its turn, its board is over, the game is over).
	choose(v V, seat int) (json.RawMessage, bool)
	// encode encodes v with the game's own encoder: the followed view and
	// the server's are equal when their encodings are, byte for byte.
	encode(v V) []byte
	// quirk reports whether followed differs from the server's view only
	// in a way the game's beats cannot carry (false for most games).
	quirk(followed, server V) bool
	// leaks checks the frames a client at seat (-1: a spectator) received
	// during a match, before the update that ended it, against the
	// match's result: nothing hidden until the end may show in them. The
	// seed is checked for every game (see checkLeaks).
	leaks(frames []frame[V, E], res protocol.Result, seat int) []finding
}

// tickChecker is what the adapter of a real-time game adds: the check of
// one tick's beats as they arrive. Tick frames are far too many to keep
// until the match's seed is published (see bot.onTick), so what a tick may
// not show whatever the result is checked at once.
type tickChecker[E any] interface {
	// tickLeaks checks the beats of one tick a client at seat (-1: a
	// spectator) received while the match ran.
	tickLeaks(beats []E, seat int) []finding
	// inputsShown counts the beats of one tick that show an input of
	// seat's taking effect: at most one per input of seat's that took
	// effect at that tick.
	inputsShown(beats []E, seat int) int
}

// publicEncoder is what an adapter adds whose views hold a seat's own
// secrets that the end of a match does not always disclose (a real-time
// match its room ended, by a resignation, keeps each snake's queued turns
// its player's): the view every member of the room may share.
type publicEncoder[V any] interface {
	// encodePublic encodes v without what only its viewer may see.
	encodePublic(v V) []byte
}

// gameSetup is the part of an adapter that does not depend on its types:
// what the game is and how the scenario's flags set up one of its rooms.
type gameSetup interface {
	// info is the game as roombot was built with it: its id, name and
	// rules version (the core package's session.Info).
	info() session.Info
	// help documents, for -h, how the bots play the game and the flags
	// of its own (indented lines, each ending with a newline).
	help() string
	// defaultMode is the mode played when --mode is not given.
	defaultMode() string
	// settings returns the room settings of c, whose Mode is one the
	// server offers; an error names a flag whose value the game refuses.
	settings(c *config) (json.RawMessage, error)
	// describe fills in the game's settings in the report's scenario.
	describe(c *config, s *scenarioInfo)
	// ineffective reports whether a refusal code of the game's own means
	// a move that would change nothing: a view stale by a few
	// milliseconds explains it (co-op players racing for one cell).
	ineffective(code string) bool
}

// frame is one snapshot or update a client received during a match: its
// bytes, and the view and beats in it as the game's decoder read them.
type frame[V, E any] struct {
	raw   []byte
	views []V
	beats []E
}

// game is an adapter with its types erased, as the bots use it.
type game struct {
	gameSetup
	// newFollower returns a follower without a view.
	newFollower func() follower
	// checkLeaks checks frames a client at seat received during a match
	// against its result (see adapter.leaks).
	checkLeaks func(frames []matchFrame, res protocol.Result, seat int) []finding
	// realtime is set for a game with a tick rate (session.Info.Tick): its
	// matches advance on the room's timer, and its players act on ticks.
	realtime bool
	// checkTick checks one tick's decoded beats, and inputsShown counts
	// seat's inputs in them (see tickChecker); both nil for a game whose
	// adapter has no such checks.
	checkTick   func(beats any, seat int) []finding
	inputsShown func(beats any, seat int) int
}

// gameOf erases an adapter's types.
func gameOf[V, E any](a adapter[V, E]) *game {
	g := &game{
		gameSetup:   a,
		newFollower: func() follower { return &viewFollower[V, E]{a: a} },
		checkLeaks: func(frames []matchFrame, res protocol.Result, seat int) []finding {
			return checkLeaks(a, frames, res, seat)
		},
		realtime: a.info().Tick != nil,
	}
	if tc, ok := a.(tickChecker[E]); ok {
		g.checkTick = func(beats any, seat int) []finding {
			evs, _ := beats.([]E)
			return tc.tickLeaks(evs, seat)
		}
		g.inputsShown = func(beats any, seat int) int {
			evs, _ := beats.([]E)
			return tc.inputsShown(evs, seat)
		}
	}
	return g
}

// checkLeaks looks for the match's seed in every frame, then hands the
// frames, typed, to the game's own check.
func checkLeaks[V, E any](a adapter[V, E], frames []matchFrame, res protocol.Result, seat int) []finding {
	var out []finding
	seedIn := seedFinder(res.Seed)
	typed := make([]frame[V, E], 0, len(frames))
	for _, f := range frames {
		if why := seedIn(f.raw); why != "" {
			out = append(out, finding{vLeakSeed, fmt.Sprintf("match %d: %s in %s", res.Match, why, clipBytes(f.raw, 300))})
		}
		tf := frame[V, E]{raw: f.raw}
		for _, v := range f.views {
			if v, ok := v.(V); ok {
				tf.views = append(tf.views, v)
			}
		}
		tf.beats, _ = f.beats.([]E)
		typed = append(typed, tf)
	}
	return append(out, a.leaks(typed, res, seat)...)
}

// gameRegistry holds roombot's games, in the order registered.
type gameRegistry struct {
	byID  map[string]*game
	order []*game
}

func newGameRegistry(games ...*game) (gameRegistry, error) {
	r := gameRegistry{byID: map[string]*game{}}
	for _, g := range games {
		id := g.info().ID
		if _, dup := r.byID[id]; dup {
			return gameRegistry{}, fmt.Errorf("roombot: game %s given twice", id)
		}
		r.byID[id] = g
		r.order = append(r.order, g)
	}
	return r, nil
}

func (r gameRegistry) lookup(id string) (*game, bool) {
	g, ok := r.byID[id]
	return g, ok
}

// ids lists the games' ids, comma-separated.
func (r gameRegistry) ids() string {
	ids := make([]string, len(r.order))
	for i, g := range r.order {
		ids[i] = g.info().ID
	}
	return strings.Join(ids, ", ")
}

// help documents every game for -h.
func (r gameRegistry) help() string {
	var b strings.Builder
	for _, g := range r.order {
		in := g.info()
		fmt.Fprintf(&b, "    %-18s %s, rules %s; default mode %s\n", in.ID, in.Name, in.RulesVersion, g.defaultMode())
		b.WriteString(g.help())
	}
	return b.String()
}
