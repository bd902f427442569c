package sessiontest

import (
	"encoding/binary"
	"hash/fnv"
	"sync"

	"github.com/roomd/roomd/core/session"
)

// kitRand is the kit's own generator (SplitMix64): it draws the kit's
// secrets, commands and choices, so that a run of the kit is the same every
// time for the same game.
type kitRand struct{ s uint64 }

func newKitRand(label string) *kitRand {
	h := fnv.New64a()
	h.Write([]byte(label))
	return &kitRand{s: h.Sum64()}
}

func (r *kitRand) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Uint32 makes kitRand a session.Source.
func (r *kitRand) Uint32() uint32 { return uint32(r.next() >> 32) }

var (
	birthday sync.Once
	pairs    [][2][session.SeedBytes]byte
)

// collidingPairs is how many pairs of secrets with equal first outputs the
// narrowing check plays.
const collidingPairs = 8

// collidingSecrets returns pairs of secrets whose streams' first 32-bit
// outputs are equal: a birthday search over about 2^18 secrets, done once.
func collidingSecrets() [][2][session.SeedBytes]byte {
	birthday.Do(func() {
		r := newKitRand("birthday")
		seen := make(map[uint32][session.SeedBytes]byte, 1<<18)
		for len(pairs) < collidingPairs {
			var key [session.SeedBytes]byte
			for i := 0; i < len(key); i += 8 {
				binary.LittleEndian.PutUint64(key[i:], r.next())
			}
			first := session.SecretSeed(key).Source().Uint32()
			if other, ok := seen[first]; ok {
				pairs = append(pairs, [2][session.SeedBytes]byte{other, key})
				continue
			}
			seen[first] = key
		}
	})
	return pairs
}
