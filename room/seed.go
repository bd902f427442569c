package room

import (
	"crypto/rand"

	"github.com/roomd/roomd/core/session"
)

// newSeed returns a new match's secret: 32 bytes from crypto/rand keying
// ChaCha8. Only the store and this process know it until the match is over
// (PROTOCOL.md, "Fair play").
func newSeed() session.Seed {
	var key [session.SeedBytes]byte
	_, _ = rand.Read(key[:]) // crypto/rand.Read never fails (Go ≥ 1.24)
	return session.SecretSeed(key)
}
