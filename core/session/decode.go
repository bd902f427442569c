package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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

// ErrNotObject is the error of Members for any JSON value but an object.
var ErrNotObject = errors.New("not a JSON object")

// Member is one key and its raw value in a JSON object.
type Member struct {
	Key   string
	Value json.RawMessage
}

// Members splits a JSON object into its members in document order, for
// the strict decoders of configs and commands. It refuses anything but a
// single object, and duplicate keys, which other decoders would read
// differently.
func Members(data []byte) ([]Member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, ErrNotObject
	}
	var out []Member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("object key is not a string")
		}
		for _, m := range out {
			if m.Key == key {
				return nil, fmt.Errorf("duplicate key %q", Clip(key))
			}
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, Member{Key: key, Value: v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data[dec.InputOffset():])) > 0 {
		return nil, errors.New("data after the object")
	}
	return out, nil
}

// Lookup returns the value of key among ms.
func Lookup(ms []Member, key string) (json.RawMessage, bool) {
	for _, m := range ms {
		if m.Key == key {
			return m.Value, true
		}
	}
	return nil, false
}
