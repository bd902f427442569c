package cardgame

import "github.com/roomd/roomd/core/session"

// LegacyRulesVersion is the rules version of duels played before the decks
// drew from the match's secret stream.
const LegacyRulesVersion = "cards/1"

// LegacyV1 is the card duel as rules cards/1 played it, for `roomd verify`
// of the matches finished under them (a room that loads a running cards/1
// match ends it "rules-changed" instead). It is registered as a retired
// version (session.Registry.Retire), never offered for new rooms.
var LegacyV1 = session.Define(session.Definition[Config, *State, Move, Event, View]{
	Info:  legacyInfo(),
	Rules: Rules{v1: true},
	Setup: setup,
})

func legacyInfo() session.Info {
	info := Game.Info()
	info.RulesVersion = LegacyRulesVersion
	return info
}

// dealV1 is cards/1's derivation: mulberry32 seeded with the first 32-bit
// output of the seed's source, which shuffles the decks, picks the first
// seat and goes on as the engine's generator. Its 32 bits of state made
// every duel one of 2^32, found from a few seen cards: it stays only to
// verify the duels played under it, the one exception of the entropy guard
// (core/entropy_test.go) beside the reference's integer seeds.
func dealV1(seed session.Seed, config Config) ([Seats][]string, Seat, session.Stream) {
	rng := session.NewRNG(int64(seed.Source().Uint32()))
	decks, first := deal(rng, config)
	return decks, first, session.IntSeed(int64(rng.State())).Stream()
}
