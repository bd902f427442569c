package room

import (
	"crypto/rand"
	"encoding/binary"
)

// newSeed returns a random match seed in [0, 2^31-1), like the reference
// client's seeds.
func newSeed() int64 {
	var b [8]byte
	rand.Read(b[:])
	return int64(binary.LittleEndian.Uint64(b[:]) % 0x7fffffff)
}
