package session

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
)

// Stream is a seed's stream of random numbers as a value that can be
// copied, saved and resumed: what a game keeps in its state when it draws
// after Init (a card engine's random effects), so that a copy of the state
// copies its generator and a checkpoint can carry its position.
//
// For a secret seed it is the same stream as Seed.Source (ChaCha8 keyed
// with the seed's 32 bytes, each 32-bit draw the high half of a 64-bit
// output), and its state is the key and the number of draws made. For a
// reference seed it is mulberry32, whose whole state is one uint32. The
// zero Stream is mulberry32 seeded with 0.
type Stream struct {
	gen   Generator
	m     RNG
	c     rand.ChaCha8
	key   [SeedBytes]byte
	draws uint64
}

// Stream returns the seed's stream at its start.
func (s Seed) Stream() Stream {
	switch s.gen {
	case ChaCha8:
		return chachaStream(s.data, 0)
	case Mulberry32:
		n, _ := s.Int()
		return Stream{gen: Mulberry32, m: *NewRNG(n)}
	}
	return Stream{gen: Mulberry32}
}

// chachaStream is ChaCha8 keyed with key, after draws draws.
func chachaStream(key [SeedBytes]byte, draws uint64) Stream {
	st := Stream{gen: ChaCha8, c: *rand.NewChaCha8(key), key: key}
	for range draws {
		st.c.Uint64()
	}
	st.draws = draws
	return st
}

// Generator returns the stream's generator; 0 for the zero Stream.
func (st *Stream) Generator() Generator { return st.gen }

// Uint32 returns the next 32-bit number.
func (st *Stream) Uint32() uint32 {
	if st.gen == ChaCha8 {
		st.draws++
		return uint32(st.c.Uint64() >> 32)
	}
	return st.m.Uint32()
}

// State returns what the stream needs to resume where it is.
func (st *Stream) State() StreamState {
	if st.gen == ChaCha8 {
		return StreamState{Gen: ChaCha8, Key: st.key, Draws: st.draws}
	}
	return StreamState{Gen: Mulberry32, Mulberry: st.m.State()}
}

// StreamState is a Stream's position. Its JSON form says the generator: a
// mulberry32 stream is its state, a number (the form card engine snapshots
// had before streams); a ChaCha8 stream is {"key": 64 hex digits, "draws":
// N}. It holds a secret's key: it belongs in a checkpoint, never in a view.
type StreamState struct {
	Gen      Generator
	Mulberry uint32
	Key      [SeedBytes]byte
	Draws    uint64
}

// MaxResumeDraws bounds the draws Resume replays to reach a ChaCha8 stream's
// position (each costs about as much as a draw).
const MaxResumeDraws = 1 << 24

// Resume returns the stream at this position.
func (s StreamState) Resume() (Stream, error) {
	switch s.Gen {
	case ChaCha8:
		if s.Draws > MaxResumeDraws {
			return Stream{}, fmt.Errorf("session: a stream resumed after %d draws, more than %d", s.Draws, MaxResumeDraws)
		}
		return chachaStream(s.Key, s.Draws), nil
	case Mulberry32, 0:
		return Stream{gen: Mulberry32, m: RNG{a: s.Mulberry}}, nil
	}
	return Stream{}, fmt.Errorf("session: a stream of unknown generator %v", s.Gen)
}

// MarshalJSON encodes the state in the form its generator has.
func (s StreamState) MarshalJSON() ([]byte, error) {
	if s.Gen == ChaCha8 {
		return json.Marshal(struct {
			Key   string `json:"key"`
			Draws uint64 `json:"draws"`
		}{hex.EncodeToString(s.Key[:]), s.Draws})
	}
	return strconv.AppendUint(nil, uint64(s.Mulberry), 10), nil
}

// UnmarshalJSON decodes either form.
func (s *StreamState) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '{' {
		var w struct {
			Key   string `json:"key"`
			Draws uint64 `json:"draws"`
		}
		if err := json.Unmarshal(b, &w); err != nil {
			return fmt.Errorf("session: stream state: %w", err)
		}
		var key [SeedBytes]byte
		if n, err := hex.Decode(key[:], []byte(w.Key)); err != nil || n != SeedBytes || len(w.Key) != 2*SeedBytes {
			return errors.New("session: stream state: key must be 64 hex digits")
		}
		*s = StreamState{Gen: ChaCha8, Key: key, Draws: w.Draws}
		return nil
	}
	var n uint32
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("session: stream state: %w", err)
	}
	*s = StreamState{Gen: Mulberry32, Mulberry: n}
	return nil
}

// AISource returns the stream an AI of seat draws from when it chooses the
// match's move'th command (for a fixed-step game, its input for tick):
// ChaCha8 keyed with SHA-256 of a label, the seed's generator and bytes,
// seat, move and tick. It is derived from the match's secret, so no client
// can compute it before the secret is disclosed at the match's end, and a
// replay of the match draws the same.
func (s Seed) AISource(seat Seat, move int, tick uint64) Source {
	var buf [len(aiLabel) + 1 + SeedBytes + 8 + 8 + 8]byte
	n := copy(buf[:], aiLabel)
	buf[n] = byte(s.gen)
	n++
	n += copy(buf[n:], s.data[:])
	binary.LittleEndian.PutUint64(buf[n:], uint64(int64(seat)))
	binary.LittleEndian.PutUint64(buf[n+8:], uint64(move))
	binary.LittleEndian.PutUint64(buf[n+16:], tick)
	st := chachaStream(sha256.Sum256(buf[:]), 0)
	return &st
}

const aiLabel = "roomd/ai-source/v1"
