package tictactoe

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"
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
