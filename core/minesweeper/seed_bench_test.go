package minesweeper

import (
	"crypto/rand"
	"testing"

	"github.com/roomd/roomd/core/session"
)

// BenchmarkNewMatchExpert: what starting an expert match costs the host
// with each generator — the seed (a secret from crypto/rand for ChaCha8),
// the initial state, and the first reveal, which places the 99 mines from
// the seed. BENCHMARKS.md compares the two in one run.
func BenchmarkNewMatchExpert(b *testing.B) {
	cfg := Config{Rows: 16, Cols: 30, Mines: 99}
	seeds := map[string]func(i int) session.Seed{
		"mulberry32": func(i int) session.Seed { return session.IntSeed(int64(i)) },
		"chacha8": func(int) session.Seed {
			var key [session.SeedBytes]byte
			_, _ = rand.Read(key[:])
			return session.SecretSeed(key)
		},
	}
	for _, name := range []string{"mulberry32", "chacha8"} {
		seed := seeds[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				s, err := NewState(seed(i), cfg, 1)
				if err != nil {
					b.Fatal(err)
				}
				if _, _, err := (Rules{}).Apply(s, session.Input[Move]{Move: Move{Reveal, 8, 15}}); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
