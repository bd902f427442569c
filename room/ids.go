package room

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"

	"github.com/oklog/ulid/v2"
)

// codeAlphabet has no easily confused characters (no 0/O, 1/I/L, U/V).
const codeAlphabet = "ABCDEFGHJKMNPQRSTWXYZ23456789"

// CodeLength is the length of a room code.
const CodeLength = 6

// newCode returns a random room code such as "K7QXMP".
func newCode() string {
	var b [CodeLength]byte
	rand.Read(b[:])
	for i := range b {
		b[i] = codeAlphabet[int(b[i])%len(codeAlphabet)]
	}
	return string(b[:])
}

// NewID returns a new ULID string (rooms and connections in logs, players).
func NewID() string { return ulid.Make().String() }

// newToken returns a seat token with 128 random bits.
func newToken() string {
	var b [16]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// hashToken is what a room keeps of a token: its SHA-256, in hex.
func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// tokenMatches compares a presented token with a stored hash in constant time.
func tokenMatches(token, storedHash string) bool {
	if storedHash == "" {
		return false
	}
	h := hashToken(token)
	return subtle.ConstantTimeCompare([]byte(h), []byte(storedHash)) == 1
}

// newSeed returns a random match seed in [0, 2^31-1), like the reference
// client's seeds.
func newSeed() int64 {
	var b [8]byte
	rand.Read(b[:])
	return int64(binary.LittleEndian.Uint64(b[:]) % 0x7fffffff)
}
