package spellgridgame

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/roomd/roomd/core/session"
)

// moveCases are commands with the code their decoding gives ("" for none)
// and, when accepted, their canonical form.
var moveCases = []struct {
	raw, code, canonical string
}{
	{`{"type":"step","dir":"up"}`, "", `{"type":"step","dir":"up"}`},
	{`{"dir":"left","type":"step"}`, "", `{"type":"step","dir":"left"}`},
	{`{"type":"cast","card":"Fireball","target":12}`, "", `{"type":"cast","card":"Fireball","target":12}`},
	{`{"type":"cast","card":"Fireball","target":12.0}`, "", `{"type":"cast","card":"Fireball","target":12}`},
	{`{"type":"cast","card":"Whirlwind"}`, "", `{"type":"cast","card":"Whirlwind"}`},
	{`{"type":"play","card":"Rune Scribe","x":2,"y":2}`, "", `{"type":"play","card":"Rune Scribe","x":2,"y":2}`},
	{`{"type":"play","card":"Rune Scribe","x":63,"y":0}`, "", `{"type":"play","card":"Rune Scribe","x":63,"y":0}`},
	{`{"type":"undo"}`, "", `{"type":"undo"}`},
	{`{"type":"restart"}`, "", `{"type":"restart"}`},
	{`{"type":"play","card":"Rune Scribe","x":64,"y":0}`, session.CodeOutOfBounds, ""},
	{`{"type":"play","card":"Rune Scribe","x":-1,"y":0}`, session.CodeOutOfBounds, ""},
	{`{"type":"jump"}`, session.CodeUnknownMove, ""},
	{`{"type":"Step","dir":"up"}`, session.CodeUnknownMove, ""},
	{`{"type":"step"}`, session.CodeMalformedInput, ""},
	{`{"type":"step","dir":"north"}`, session.CodeMalformedInput, ""},
	{`{"type":"step","dir":"Up"}`, session.CodeMalformedInput, ""},
	{`{"type":"step","dir":null}`, session.CodeMalformedInput, ""},
	{`{"type":"step","dir":"up","Dir":"up"}`, session.CodeMalformedInput, ""},
	{`{"type":"cast"}`, session.CodeMalformedInput, ""},
	{`{"type":"cast","card":""}`, session.CodeMalformedInput, ""},
	{`{"type":"cast","card":7}`, session.CodeMalformedInput, ""},
	{`{"type":"cast","card":"Fireball","target":0}`, session.CodeMalformedInput, ""},
	{`{"type":"cast","card":"Fireball","target":-3}`, session.CodeMalformedInput, ""},
	{`{"type":"cast","card":"Fireball","target":1.5}`, session.CodeMalformedInput, ""},
	{`{"type":"cast","card":"Fireball","target":"12"}`, session.CodeMalformedInput, ""},
	{`{"type":"cast","card":"Fireball","target":null}`, session.CodeMalformedInput, ""},
	{`{"type":"cast","card":"Fireball","target":4294967296}`, session.CodeMalformedInput, ""},
	{`{"type":"cast","card":"Fireball","x":1}`, session.CodeMalformedInput, ""},
	{`{"type":"play","card":"Rune Scribe","x":2}`, session.CodeMalformedInput, ""},
	{`{"type":"play","card":"Rune Scribe","x":2,"y":"2"}`, session.CodeMalformedInput, ""},
	{`{"type":"play","card":"Rune Scribe","x":2,"y":2,"target":1}`, session.CodeMalformedInput, ""},
	{`{"type":"undo","n":2}`, session.CodeMalformedInput, ""},
	{`{"type":null}`, session.CodeMalformedInput, ""},
	{`{}`, session.CodeMalformedInput, ""},
	{`[]`, session.CodeMalformedInput, ""},
	{`"step"`, session.CodeMalformedInput, ""},
	{`null`, session.CodeMalformedInput, ""},
}

func TestDecodeMove(t *testing.T) {
	for _, tt := range moveCases {
		t.Run(tt.raw, func(t *testing.T) {
			m, err := session.DecodeMove[Move](json.RawMessage(tt.raw))
			if tt.code == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if got := encode(t, m); got != tt.canonical {
					t.Fatalf("canonical %s, want %s", got, tt.canonical)
				}
				return
			}
			var rej *session.Rejection
			if !errors.As(err, &rej) || rej.Code != tt.code || !rej.Malformed {
				t.Fatalf("error %v, want a malformed %s", err, tt.code)
			}
		})
	}
}

func FuzzDecodeMove(f *testing.F) {
	for _, tt := range moveCases {
		f.Add(tt.raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		m, err := session.DecodeMove[Move](json.RawMessage(raw))
		if err != nil {
			var rej *session.Rejection
			if !errors.As(err, &rej) || !rej.Malformed {
				t.Fatalf("%s: error %v is no malformed rejection", raw, err)
			}
			return
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		again, err := session.DecodeMove[Move](b)
		if err != nil || again != m {
			t.Fatalf("%s: canonical %s decodes to %+v, %v", raw, b, again, err)
		}
	})
}

// A repeated key, which a JSON Schema cannot see, is refused: decoders
// would read it differently.
func TestDecodeMove_RepeatedKey(t *testing.T) {
	for _, raw := range []string{`{"type":"step","dir":"up","dir":"down"}`, `{"type":"undo","type":"restart"}`} {
		_, err := session.DecodeMove[Move](json.RawMessage(raw))
		var rej *session.Rejection
		if !errors.As(err, &rej) || rej.Code != session.CodeMalformedInput || !rej.Malformed {
			t.Errorf("%s: error %v, want a malformed %s", raw, err, session.CodeMalformedInput)
		}
	}
}
