package session

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
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
)

func (g Generator) String() string {
	switch g {
	case Mulberry32:
		return "mulberry32"
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
	}
	// The zero Seed: a fixed stream, so that a forgotten seed is found by
	// tests (every match alike) rather than by a crash.
	return NewRNG(0)
}

// String is the seed's JSON form without quotes.
func (s Seed) String() string {
	b, _ := s.MarshalJSON()
	return string(bytes.Trim(b, `"`))
}

// MarshalJSON encodes a reference seed as its JSON number (the form of the
// reference's records and of every stored match).
func (s Seed) MarshalJSON() ([]byte, error) {
	switch s.gen {
	case Mulberry32:
		n, _ := s.Int()
		return strconv.AppendInt(nil, n, 10), nil
	case 0:
		return []byte("null"), nil
	}
	return nil, fmt.Errorf("session: seed with unknown generator %v", s.gen)
}

// ErrSeed is wrapped by every seed decoding failure.
var ErrSeed = errors.New("seed must be an integer")

// UnmarshalJSON decodes a JSON integer as a reference seed.
func (s *Seed) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
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
