package session

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
)

// Helpers for games' strict decoders of configs and commands.

// Whole returns the value of a JSON number without a fractional part (2 and
// 2.0 alike, as JSON Schema's "integer" reads them); ok is false for any
// other JSON value and for numbers beyond float64.
func Whole(raw json.RawMessage) (v float64, ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || f != math.Trunc(f) {
		return 0, false
	}
	return f, true
}

// Clip shortens client input quoted in an error message to 32 bytes, so a
// refusal never echoes more than that of what a client sent.
func Clip(s string) string {
	const max = 32
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
