package room

import (
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/roomd/roomd/core/session"
)

// TestSecretsAreRandom: a room's default seeds are ChaCha8 secrets of 32
// bytes; no two of 10,000 are alike, and their bits are balanced (a
// constant or counter-like byte would show), so a secret cannot be
// guessed from the ones disclosed before it.
func TestSecretsAreRandom(t *testing.T) {
	const n = 10_000
	seen := make(map[session.Seed]bool, n)
	var ones [session.SeedBytes * 8]int
	for range n {
		s := newSeed()
		if s.Generator() != session.ChaCha8 {
			t.Fatalf("generator %v, want chacha8", s.Generator())
		}
		if seen[s] {
			t.Fatalf("a secret repeated within %d matches", len(seen))
		}
		seen[s] = true
		raw, _ := json.Marshal(s)
		var hexKey string
		json.Unmarshal(raw, &hexKey)
		key, err := hex.DecodeString(hexKey)
		if err != nil || len(key) != session.SeedBytes {
			t.Fatalf("secret %s: %v", raw, err)
		}
		for i, b := range key {
			for j := range 8 {
				ones[i*8+j] += int(b>>j) & 1
			}
		}
	}
	// Each bit is set in n/2 ± 5σ (σ = √n/2 = 50) of the secrets.
	for i, c := range ones {
		if c < n/2-250 || c > n/2+250 {
			t.Fatalf("bit %d of the secret is set in %d of %d secrets", i, c, n)
		}
	}
}
