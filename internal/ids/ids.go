// Package ids makes every identifier roomd hands out: ULIDs for rooms,
// connections and players, room codes, seat tokens (and what is kept of
// them), and client action ids. All randomness here is crypto/rand.
package ids

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"strings"

	"github.com/oklog/ulid/v2"
)

// CodeAlphabet has no easily confused characters (no 0/O, 1/I/L, U/V).
const CodeAlphabet = "ABCDEFGHJKMNPQRSTWXYZ23456789"

// CodeLength is the length of a room code.
const CodeLength = 6

// Code returns a random room code such as "K7QXMP".
func Code() string {
	var b [CodeLength]byte
	rand.Read(b[:])
	for i := range b {
		b[i] = CodeAlphabet[int(b[i])%len(CodeAlphabet)]
	}
	return string(b[:])
}

// IsCode reports whether s has the form of a room code.
func IsCode(s string) bool {
	if len(s) != CodeLength {
		return false
	}
	for i := range len(s) {
		if strings.IndexByte(CodeAlphabet, s[i]) < 0 {
			return false
		}
	}
	return true
}

// New returns a new ULID string (rooms and connections in logs, players,
// epochs).
func New() string { return ulid.Make().String() }

// Token returns a seat token with 128 random bits.
func Token() string {
	var b [16]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// HashToken is what a room keeps of a token: its SHA-256, in hex.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// TokenMatches compares a presented token with a stored hash in constant
// time.
func TokenMatches(token, storedHash string) bool {
	if storedHash == "" {
		return false
	}
	h := HashToken(token)
	return subtle.ConstantTimeCompare([]byte(h), []byte(storedHash)) == 1
}

// Action returns a fresh random client action id (24 hex digits).
func Action() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
