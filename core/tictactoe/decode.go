package tictactoe

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"math"
	"slices"
	"strconv"
)

// object decodes a JSON object into its members with their exact keys
// (encoding/json would match struct fields without regard to case, which
// the published schemas do not). Of duplicate keys the last wins, as in
// encoding/json and JavaScript's JSON.parse alike.
func object(data []byte) (map[string]json.RawMessage, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, err
	}
	if fields == nil {
		return nil, errors.New("null is not an object")
	}
	return fields, nil
}

// unknownKey returns the first key of fields, in sorted order, that is not
// one of known: the same one every time, so that a refusal reads the same.
func unknownKey(fields map[string]json.RawMessage, known ...string) (string, bool) {
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if !slices.Contains(known, k) {
			return k, true
		}
	}
	return "", false
}

// whole returns the value of a JSON number without a fractional part (2 and
// 2.0 alike, as JSON Schema's "integer" reads them); ok is false for any
// other JSON value and for numbers beyond float64.
func whole(raw json.RawMessage) (v float64, ok bool) {
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

// clip shortens s for an error message.
func clip(s string) string {
	const max = 32
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
