package session

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

func key(b byte) [SeedBytes]byte {
	var k [SeedBytes]byte
	for i := range k {
		k[i] = b + byte(i)
	}
	return k
}

// A secret seed encodes as 64 hex digits, decodes back to the same seed,
// and draws the high halves of ChaCha8's outputs under its key.
func TestSecretSeedJSON(t *testing.T) {
	s := SecretSeed(key(7))
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	k := key(7)
	if want := `"` + hex.EncodeToString(k[:]) + `"`; string(b) != want {
		t.Fatalf("json = %s, want %s", b, want)
	}
	var back Seed
	if err := json.Unmarshal(b, &back); err != nil || back != s || back.Generator() != ChaCha8 {
		t.Fatalf("round trip = %v (%v), %v", back, back.Generator(), err)
	}
	src, ref := s.Source(), rand.NewChaCha8(key(7))
	for i := range 100 {
		if got, want := src.Uint32(), uint32(ref.Uint64()>>32); got != want {
			t.Fatalf("draw %d = %d, want %d", i, got, want)
		}
	}
	if a, c := s.Source().Uint32(), SecretSeed(key(8)).Source().Uint32(); a == c {
		t.Fatalf("two keys drew the same first number %d", a)
	}
	// Reference seeds keep their number.
	var ref1 Seed
	if err := json.Unmarshal([]byte("2024"), &ref1); err != nil || ref1 != IntSeed(2024) || ref1.Generator() != Mulberry32 {
		t.Fatalf("2024 = %v, %v", ref1, err)
	}
}

// The commitment is the SHA-256 of the 32 secret bytes; a reference seed
// has none.
func TestCommitment(t *testing.T) {
	k := key(1)
	sum := sha256.Sum256(k[:])
	if got := SecretSeed(k).Commitment(); got != hex.EncodeToString(sum[:]) {
		t.Fatalf("commitment = %s", got)
	}
	if got := IntSeed(5).Commitment(); got != "" {
		t.Fatalf("a reference seed's commitment = %q", got)
	}
}

func TestSeedDecodeErrors(t *testing.T) {
	long := `"` + strings.Repeat("ab", SeedBytes) + `"`
	for _, in := range []string{
		`"abc"`, long[:len(long)-3] + `"`, `"` + strings.Repeat("zz", SeedBytes) + `"`,
		`"` + strings.Repeat("ab", SeedBytes+1) + `"`, `1.5`, `true`, `null`,
	} {
		var s Seed
		if err := json.Unmarshal([]byte(in), &s); !errors.Is(err, ErrSeed) {
			t.Errorf("%s: err = %v, want ErrSeed", in, err)
		}
	}
	var s Seed
	if err := json.Unmarshal([]byte(long), &s); err != nil || s.Generator() != ChaCha8 {
		t.Fatalf("64 hex digits: %v, %v", s, err)
	}
}
