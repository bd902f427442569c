package snake

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/roomd/roomd/core/session"
)

// errNotObject is the error of members for any JSON value but an object.
var errNotObject = errors.New("not a JSON object")

// member is one key and its raw value in a JSON object.
type member struct {
	key   string
	value json.RawMessage
}

// members splits a JSON object into its members in document order. It
// refuses anything but a single object, and duplicate keys, which other
// decoders would read differently.
func members(data []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errNotObject
	}
	var out []member
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
			if m.key == key {
				return nil, fmt.Errorf("duplicate key %q", session.Clip(key))
			}
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{key: key, value: v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("data after the object")
	}
	return out, nil
}

// lookup returns the value of key among ms.
func lookup(ms []member, key string) (json.RawMessage, bool) {
	for _, m := range ms {
		if m.key == key {
			return m.value, true
		}
	}
	return nil, false
}
