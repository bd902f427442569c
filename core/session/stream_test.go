package session

import (
	"encoding/json"
	"testing"
)

// TestStreamIsTheSeedsSource: a secret seed's Stream draws what its Source
// draws, and a reference seed's what mulberry32 does; a copy of a stream
// goes on alike without moving the original.
func TestStreamIsTheSeedsSource(t *testing.T) {
	var key [SeedBytes]byte
	key[0], key[31] = 7, 9
	for _, seed := range []Seed{SecretSeed(key), IntSeed(42), IntSeed(-1)} {
		src, st := seed.Source(), seed.Stream()
		for i := range 100 {
			if a, b := src.Uint32(), st.Uint32(); a != b {
				t.Fatalf("%v: draw %d: source %d, stream %d", seed, i, a, b)
			}
		}
		cp := st
		a, b := st.Uint32(), cp.Uint32()
		if a != b {
			t.Fatalf("%v: a copy draws %d, the original %d", seed, b, a)
		}
	}
}

// TestStreamResumes: a stream's state, through its JSON form, resumes at
// the same position, for both generators.
func TestStreamResumes(t *testing.T) {
	var key [SeedBytes]byte
	for i := range key {
		key[i] = byte(i * 3)
	}
	for _, seed := range []Seed{SecretSeed(key), IntSeed(12345)} {
		st := seed.Stream()
		for range 37 {
			st.Uint32()
		}
		raw, err := json.Marshal(st.State())
		if err != nil {
			t.Fatal(err)
		}
		var back StreamState
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		again, err := back.Resume()
		if err != nil {
			t.Fatal(err)
		}
		for i := range 50 {
			if a, b := st.Uint32(), again.Uint32(); a != b {
				t.Fatalf("%v (%s): draw %d after resuming: %d, want %d", seed, raw, i, b, a)
			}
		}
	}
	if _, err := (StreamState{Gen: ChaCha8, Draws: MaxResumeDraws + 1}).Resume(); err == nil {
		t.Fatal("a stream resumed after more than MaxResumeDraws draws")
	}
	for _, bad := range []string{`{"key":"00","draws":1}`, `"x"`, `{"key":7}`} {
		var st StreamState
		if err := json.Unmarshal([]byte(bad), &st); err == nil {
			t.Fatalf("%s decoded", bad)
		}
	}
}

// TestAISource: the AI source is a function of the seed, the seat, the
// move and the tick, each of which changes it.
func TestAISource(t *testing.T) {
	var k1, k2 [SeedBytes]byte
	k2[5] = 1
	first := func(s Source) uint64 { return uint64(s.Uint32())<<32 | uint64(s.Uint32()) }
	base := first(SecretSeed(k1).AISource(0, 3, 0))
	if again := first(SecretSeed(k1).AISource(0, 3, 0)); again != base {
		t.Fatalf("the same seed, seat and move drew %x then %x", base, again)
	}
	for name, s := range map[string]Source{
		"another secret": SecretSeed(k2).AISource(0, 3, 0),
		"another seat":   SecretSeed(k1).AISource(1, 3, 0),
		"another move":   SecretSeed(k1).AISource(0, 4, 0),
		"another tick":   SecretSeed(k1).AISource(0, 3, 1),
		"the match's own stream": func() Source {
			st := SecretSeed(k1).Stream()
			return &st
		}(),
	} {
		if first(s) == base {
			t.Errorf("%s draws the same as the base", name)
		}
	}
}
