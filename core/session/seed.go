package session

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
)

// SeedBytes is the size of a seed.
const SeedBytes = 32

// Generator names how a seed expands into a stream of random numbers.
type Generator uint8

// Generators.
const (
	// Mulberry32 is the reference core's generator, seeded with a 32-bit
	// integer: reference records, `roomd replay` and every match stored
	// before seeds became secrets use it, bit for bit.
	Mulberry32 Generator = iota + 1
	// ChaCha8 is math/rand/v2's ChaCha8, a cryptographic generator, keyed
	// with the seed's 32 bytes: the seeds of online matches (SecretSeed).
	// Knowing some of its outputs (a board's first cells) tells nothing of
	// the rest, and the key space cannot be searched.
	ChaCha8
)

func (g Generator) String() string {
	switch g {
	case Mulberry32:
		return "mulberry32"
	case ChaCha8:
		return "chacha8"
	}
	return fmt.Sprintf("Generator(%d)", uint8(g))
}

// Seed is a match's randomness: SeedBytes opaque bytes and the generator
// that expands them. Games never look inside: they draw only through
// Source, so how seeds are made — and which generator expands them — can
// change without touching any game. The zero Seed is not a valid seed.
type Seed struct {
	gen  Generator
	data [SeedBytes]byte
}

// IntSeed is the reference's seed n: mulberry32 seeded with ToUint32(n).
// The integer is kept (in the first 8 bytes) so that the seed encodes back
// as the same JSON number.
func IntSeed(n int64) Seed {
	s := Seed{gen: Mulberry32}
	binary.LittleEndian.PutUint64(s.data[:8], uint64(n))
	return s
}

// SecretSeed is a ChaCha8 seed keyed with key: an online match's secret,
// which the host draws from crypto/rand (core never reads randomness
// itself) and discloses only once the match is over.
func SecretSeed(key [SeedBytes]byte) Seed {
	return Seed{gen: ChaCha8, data: key}
}

// Generator returns the seed's generator; 0 for the zero Seed.
func (s Seed) Generator() Generator { return s.gen }

// IsZero reports whether s is the zero Seed (no seed).
func (s Seed) IsZero() bool { return s.gen == 0 }

// Int returns the integer of a reference (mulberry32) seed.
func (s Seed) Int() (int64, bool) {
	if s.gen != Mulberry32 {
		return 0, false
	}
	return int64(binary.LittleEndian.Uint64(s.data[:8])), true
}

// Source returns a new stream at the start of the seed's sequence. Every
// call starts over: a game that needs one stream keeps the first.
func (s Seed) Source() Source {
	switch s.gen {
	case Mulberry32:
		n, _ := s.Int()
		return NewRNG(n)
	case ChaCha8:
		return chachaSource{rand.NewChaCha8(s.data)}
	}
	// The zero Seed: a fixed stream, so that a forgotten seed is found by
	// tests (every match alike) rather than by a crash.
	return NewRNG(0)
}

// chachaSource draws 32-bit numbers from ChaCha8: the high half of each
// 64-bit output.
type chachaSource struct{ c *rand.ChaCha8 }

func (c chachaSource) Uint32() uint32 { return uint32(c.c.Uint64() >> 32) }

// Commitment is the hex SHA-256 of a secret seed's 32 bytes: published when
// a match starts, it binds the host to the seed it discloses at the end
// (sha256(hex-decoded result.seed) must equal it). A reference seed has
// none ("").
func (s Seed) Commitment() string {
	if s.gen != ChaCha8 {
		return ""
	}
	sum := sha256.Sum256(s.data[:])
	return hex.EncodeToString(sum[:])
}

// String is the seed's JSON form without quotes.
func (s Seed) String() string {
	b, _ := s.MarshalJSON()
	return string(bytes.Trim(b, `"`))
}

// MarshalJSON encodes a reference seed as its JSON number (the form of the
// reference's records and of matches stored before secret seeds) and a
// secret seed as a string of 64 hex digits: the form says the generator.
func (s Seed) MarshalJSON() ([]byte, error) {
	switch s.gen {
	case Mulberry32:
		n, _ := s.Int()
		return strconv.AppendInt(nil, n, 10), nil
	case ChaCha8:
		b := make([]byte, 0, 2+2*SeedBytes)
		b = append(b, '"')
		b = hex.AppendEncode(b, s.data[:])
		return append(b, '"'), nil
	case 0:
		return []byte("null"), nil
	}
	return nil, fmt.Errorf("session: seed with unknown generator %v", s.gen)
}

// ErrSeed is wrapped by every seed decoding failure.
var ErrSeed = errors.New("seed must be an integer or a string of 64 hex digits")

// UnmarshalJSON decodes a JSON integer as a reference seed and a string of
// 64 hex digits as a secret (ChaCha8) seed.
func (s *Seed) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var key [SeedBytes]byte
		if len(b) != 2+2*SeedBytes || b[len(b)-1] != '"' {
			return fmt.Errorf("%w: %s", ErrSeed, clipBytes(b))
		}
		if _, err := hex.Decode(key[:], b[1:len(b)-1]); err != nil {
			return fmt.Errorf("%w: %s", ErrSeed, clipBytes(b))
		}
		*s = SecretSeed(key)
		return nil
	}
	if len(b) == 0 || (b[0] != '-' && (b[0] < '0' || b[0] > '9')) {
		return fmt.Errorf("%w: %s", ErrSeed, clipBytes(b))
	}
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&n); err != nil {
		return fmt.Errorf("%w: %s", ErrSeed, clipBytes(b))
	}
	v, err := strconv.ParseInt(n.String(), 10, 64)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrSeed, clipBytes(b))
	}
	*s = IntSeed(v)
	return nil
}

func clipBytes(b []byte) []byte {
	if len(b) > 40 {
		return append(b[:40:40], "…"...)
	}
	return b
}

// Source is a stream of uniformly distributed 32-bit numbers: what a game
// draws its hidden state from.
type Source interface {
	Uint32() uint32
}

// Intn returns an integer in [0, n) from src, computed exactly as the
// reference's floor(next()/2^32 · n). n must be positive and below 2^31.
func Intn(src Source, n int) int { return int((uint64(src.Uint32()) * uint64(n)) >> 32) }

// Float64 returns src's next output scaled to [0, 1), as the reference's
// next()/2^32.
func Float64(src Source) float64 { return float64(src.Uint32()) / 4294967296.0 }
