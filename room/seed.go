package room

import (
	"crypto/rand"
	"encoding/binary"

	"github.com/roomd/roomd/core/session"
)

// newSeed returns a random reference seed in [0, 2^31-1), like the
// reference client's seeds.
func newSeed() session.Seed {
	var b [8]byte
	rand.Read(b[:])
	return session.IntSeed(int64(binary.LittleEndian.Uint64(b[:]) % 0x7fffffff))
}
