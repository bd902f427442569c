package bot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/roomd/roomd/core/games"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/protocol"
)

// Game is a game roombot plays: its rules, and optionally checks of its
// own. A game roombot has an adapter for (its built-in games, with the same
// rules version) is played through it; any other is played by the default
// follower: views are followed with the game's Go reducer
// (session.FollowerOf: V.Apply), players choose with the game's AI, and
// every generic invariant is checked (receipts, revisions, the followed
// view equal to the server's byte for byte at every snapshot and match
// end, no seed before the end, a spectator's frames no richer than a
// seat's). The game needs a reducer and an AI for that.
type Game struct {
	Rules session.Game
	// Checks are the game's own checks of what clients receive; nil for
	// none beyond the generic invariants.
	Checks Checks
}

// Checks is what a game adds to the default follower when it hides
// something the generic invariants cannot see.
type Checks interface {
	// Leaks checks the frames a client at seat (-1: a spectator) received
	// during a match, before the update that ended it, against the
	// match's result (its seed and outcome, published at its end): nothing
	// hidden until the end may show in them. Each string is one finding,
	// reported as a violation of kind "leak-game".
	Leaks(frames []Frame, res protocol.Result, seat int) []string
}

// Frame is one snapshot or update a client received during a match.
type Frame struct {
	// Raw is the message as received.
	Raw []byte
	// Views are the views in it (a snapshot's, an update's that starts or
	// ends a match), each as the game's own encoder writes it.
	Views []json.RawMessage
	// Beats are an update's events for this client, one JSON value each.
	Beats []json.RawMessage
}

// vLeakGame is a finding of a game's own Checks.
const vLeakGame = "leak-game"

// Builtin returns roomd's own games as roombot plays them: each with its
// adapter (see games.go).
func Builtin() []Game {
	var out []Game
	for _, g := range games.All() {
		out = append(out, Game{Rules: g})
	}
	return out
}

// registryOf makes roombot's registry of games: each game's own adapter
// where roombot has one for its id and rules version, the default
// follower otherwise.
func registryOf(games []Game) (gameRegistry, error) {
	var list []*game
	for _, g := range games {
		if g.Rules == nil {
			return gameRegistry{}, errors.New("roombot: a game without rules")
		}
		in := g.Rules.Info()
		if b, ok := adapters.lookup(in.ID); ok && b.info().RulesVersion == in.RulesVersion && g.Checks == nil {
			list = append(list, b)
			continue
		}
		a, err := newDefaultAdapter(g)
		if err != nil {
			return gameRegistry{}, err
		}
		list = append(list, gameOf[json.RawMessage, json.RawMessage](a))
	}
	return newGameRegistry(list...)
}

// defaultAdapter plays a game from its rules alone (see Game). Its view
// is the game's own encoding of one (a view decoded and encoded again by
// the reducer), its beats one JSON value each.
type defaultAdapter struct {
	rules  session.Game
	f      session.Follower
	checks Checks
}

func newDefaultAdapter(g Game) (defaultAdapter, error) {
	f, err := session.FollowerOf(g.Rules)
	if err != nil {
		return defaultAdapter{}, fmt.Errorf("roombot cannot follow %s: %w", g.Rules.Info().ID, err)
	}
	return defaultAdapter{rules: g.Rules, f: f, checks: g.Checks}, nil
}

func (a defaultAdapter) info() session.Info { return a.rules.Info() }

func (a defaultAdapter) help() string {
	return "                       players choose with the game's AI, views followed with\n" +
		"                       its Go reducer; no settings but --mode\n"
}

func (a defaultAdapter) defaultMode() string {
	if m := a.rules.Info().Modes; len(m) > 0 {
		return m[0].ID
	}
	return ""
}

func (a defaultAdapter) settings(c *config) (json.RawMessage, error) {
	return json.Marshal(struct {
		Mode string `json:"mode"`
	}{c.Mode})
}

func (a defaultAdapter) describe(c *config, s *scenarioInfo) { s.Mode = c.Mode }

func (a defaultAdapter) ineffective(string) bool { return false }

// decodeView decodes raw into the game's view and encodes it again: the
// view in the form the reducer returns, so that a followed view and the
// server's compare byte for byte.
func (a defaultAdapter) decodeView(raw json.RawMessage) (json.RawMessage, error) {
	return a.f.Apply(raw, emptyBeats)
}

var emptyBeats = json.RawMessage("[]")

func (a defaultAdapter) decodeBeats(raw json.RawMessage) ([]json.RawMessage, error) {
	var evs []json.RawMessage
	err := json.Unmarshal(raw, &evs)
	return evs, err
}

// clone returns v: a view is never changed in place, apply replaces it.
func (a defaultAdapter) clone(v json.RawMessage) json.RawMessage { return v }

func (a defaultAdapter) apply(v *json.RawMessage, beats []json.RawMessage) error {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, e := range beats {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(e)
	}
	b.WriteByte(']')
	nv, err := a.f.Apply(*v, b.Bytes())
	if err != nil {
		return err
	}
	*v = nv
	return nil
}

func (a defaultAdapter) choose(v json.RawMessage, seat int) (json.RawMessage, bool) {
	cmd, ok, err := a.f.Choose(v, session.Seat(seat), botChoice)
	return cmd, ok && err == nil
}

func (a defaultAdapter) encode(v json.RawMessage) []byte { return v }

func (a defaultAdapter) quirk(followed, server json.RawMessage) bool { return false }

func (a defaultAdapter) leaks(frames []frame[json.RawMessage, json.RawMessage], res protocol.Result, seat int) []finding {
	if a.checks == nil {
		return nil
	}
	out := make([]Frame, len(frames))
	for i, f := range frames {
		out[i] = Frame{Raw: f.raw, Views: f.views, Beats: f.beats}
	}
	var fs []finding
	for _, s := range a.checks.Leaks(out, res, seat) {
		fs = append(fs, finding{vLeakGame, fmt.Sprintf("match %d: %s", res.Match, s)})
	}
	return fs
}
