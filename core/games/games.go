// Package games is the one list of roomd's built-in games: the server's
// registry, roombot's games, the browser's local core (cmd/roomwasm) and
// every test table are derived from it. The games are in groups, each a
// package of its own (classic, seed003) and one WebAssembly module of the
// local core, so that a module links only its own games; a new built-in
// game is one line in one group.
package games

import (
	"cmp"
	"slices"

	"github.com/roomd/roomd/core/cardgame"
	"github.com/roomd/roomd/core/games/classic"
	"github.com/roomd/roomd/core/games/seed003"
	"github.com/roomd/roomd/core/session"
)

// Group is one group of games: a package under core/games.
type Group struct {
	// Name is the group's package name, and the name of its WebAssembly
	// module.
	Name  string
	Games []session.Game
}

// Groups lists the groups.
func Groups() []Group {
	return []Group{{"classic", classic.Games()}, {"seed003", seed003.Games()}}
}

// Registry returns a new registry of every game, with the retired rules
// versions that finished matches may still be verified under.
func Registry() *session.Registry {
	r := session.NewRegistry(All()...)
	for _, g := range Retired() {
		r.Retire(g)
	}
	return r
}

// Retired lists the retired rules versions of the games.
func Retired() []session.Game { return []session.Game{cardgame.LegacyV1} }

// All lists every game of this build, by id.
func All() []session.Game {
	var out []session.Game
	for _, g := range Groups() {
		out = append(out, g.Games...)
	}
	slices.SortFunc(out, func(a, b session.Game) int { return cmp.Compare(a.Info().ID, b.Info().ID) })
	return out
}

// IDs lists every game's id, in order.
func IDs() []string {
	var ids []string
	for _, g := range All() {
		ids = append(ids, g.Info().ID)
	}
	return ids
}
