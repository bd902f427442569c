package minesweeper

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/session"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestDecodeMove(t *testing.T) {
	tests := []struct {
		name, in string
		want     Move
		code     string // "" means valid
	}{
		{"reveal", `{"type":"reveal","r":3,"c":4}`, Move{Reveal, 3, 4}, ""},
		{"flag", `{"type":"flag","r":0,"c":0}`, Move{Flag, 0, 0}, ""},
		{"chord", ` {"c": 7, "r": 2, "type": "chord"} `, Move{Chord, 2, 7}, ""},
		{"extra keys kept out", `{"type":"reveal","r":1,"c":1,"seq":9,"x":{"a":[1,null,true]}}`, Move{Reveal, 1, 1}, ""},
		{"integer-valued float", `{"type":"reveal","r":2.0,"c":1e0}`, Move{Reveal, 2, 1}, ""},
		{"negative decodes (Apply refuses it)", `{"type":"reveal","r":-1,"c":0}`, Move{Reveal, -1, 0}, ""},
		{"escaped type", `{"type":"re\u0076eal","r":1,"c":2}`, Move{Reveal, 1, 2}, ""},
		{"escaped key", `{"\u0074ype":"flag","r":1,"c":2}`, Move{Flag, 1, 2}, ""},

		{"unknown type", `{"type":"dig","r":0,"c":0}`, Move{}, session.CodeUnknownMove},
		{"flag/unflag are move events, not moves", `{"type":"unflag","r":0,"c":0}`, Move{}, session.CodeUnknownMove},
		{"type case", `{"type":"Reveal","r":0,"c":0}`, Move{}, session.CodeUnknownMove},
		{"no type", `{"r":0,"c":0}`, Move{}, session.CodeMalformedInput},
		{"type not a string", `{"type":1,"r":0,"c":0}`, Move{}, session.CodeMalformedInput},
		{"missing r", `{"type":"reveal","c":0}`, Move{}, session.CodeMalformedInput},
		{"missing c", `{"type":"reveal","r":0}`, Move{}, session.CodeMalformedInput},
		{"fraction", `{"type":"reveal","r":1.5,"c":0}`, Move{}, session.CodeInvalidMove},
		{"string coordinate", `{"type":"reveal","r":"1","c":0}`, Move{}, session.CodeInvalidMove},
		{"null coordinate", `{"type":"reveal","r":0,"c":null}`, Move{}, session.CodeInvalidMove},
		{"huge coordinate", `{"type":"reveal","r":1e300,"c":0}`, Move{}, session.CodeOutOfBounds},
		{"long coordinate", `{"type":"reveal","r":123456789012,"c":0}`, Move{}, session.CodeOutOfBounds},
		{"duplicate key", `{"type":"reveal","r":0,"r":1,"c":0}`, Move{}, session.CodeMalformedInput},
		{"null", `null`, Move{}, session.CodeMalformedInput},
		{"array", `["reveal",0,0]`, Move{}, session.CodeMalformedInput},
		{"trailing data", `{"type":"reveal","r":0,"c":0}x`, Move{}, session.CodeMalformedInput},
		{"truncated", `{"type":"reveal","r":0,`, Move{}, session.CodeMalformedInput},
		{"bad escape", `{"type":"reveal","r":0,"c":0,"x":"\q"}`, Move{}, session.CodeMalformedInput},
		{"leading zero", `{"type":"reveal","r":01,"c":0}`, Move{}, session.CodeMalformedInput},
		{"empty", ``, Move{}, session.CodeMalformedInput},
	}
	schema := compileSchema(t, CommandSchema)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Through session.DecodeMove, as a match decodes a command, and
			// directly, as a client decoding a logged move.
			for _, decode := range []func() (Move, error){
				func() (Move, error) { return session.DecodeMove[Move](json.RawMessage(tc.in)) },
				func() (Move, error) { var m Move; err := m.UnmarshalJSON([]byte(tc.in)); return m, err },
			} {
				m, err := decode()
				if tc.code == "" {
					if err != nil || m != tc.want {
						t.Fatalf("got %+v, %v; want %+v", m, err, tc.want)
					}
					continue
				}
				rej := rejection(t, err)
				if rej.Code != tc.code || !rej.Malformed {
					t.Errorf("rejection %v (malformed=%v), want code %s, malformed", rej, rej.Malformed, tc.code)
				}
			}
			if tc.code == "" && tc.want.R >= 0 {
				back := mustJSON(t, tc.want)
				var again Move
				if err := json.Unmarshal(back, &again); err != nil || again != tc.want {
					t.Errorf("round trip %s: %+v, %v", back, again, err)
				}
				inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(back)))
				if err != nil || schema.Validate(inst) != nil {
					t.Errorf("command schema refuses %s", back)
				}
			}
		})
	}
}

// ParseCanonical takes exactly the canonical form of a move (AppendJSON),
// reading it as the strict decoder does, and leaves anything else to it.
func TestParseCanonical(t *testing.T) {
	for _, m := range []Move{{Reveal, 0, 0}, {Flag, 15, 29}, {Chord, 7, 3}, {Reveal, 999999999, 10}} {
		data := m.AppendJSON(nil)
		var got Move
		if !got.ParseCanonical(data) || got != m {
			t.Errorf("ParseCanonical(%s) = %+v, want %+v", data, got, m)
		}
	}
	for _, raw := range []string{
		`{"type":"flag","r":05,"c":1}`, `{"type":"flag","r":-1,"c":1}`, `{"type":"flag","r":1000000000,"c":1}`,
		`{"type":"flag","r":1.0,"c":1}`, `{"type": "flag","r":1,"c":1}`, `{"type":"flag","c":1,"r":1}`,
		`{"type":"flag","r":1,"c":1}x`, `{"type":"flag","r":1,"c":1} `, `{"type":"flagx","r":1,"c":1}`,
		`{"type":"dig","r":1,"c":1}`, `{"type":"flag","r":,"c":1}`, `{"type":"flag","r":1,"c":1,"x":2}`,
		`{"type":"flag","r":1}`, `{"type":"re\u0076eal","r":1,"c":2}`, `{"type":"flag","r":1,"c":`,
	} {
		var got Move
		if got.ParseCanonical([]byte(raw)) {
			t.Errorf("ParseCanonical took %s: %+v", raw, got)
		}
	}
}

func TestMoveMarshal(t *testing.T) {
	tests := []struct {
		m    Move
		want string
	}{
		{Move{Reveal, 0, 0}, `{"type":"reveal","r":0,"c":0}`},
		{Move{Flag, 15, 29}, `{"type":"flag","r":15,"c":29}`},
		{Move{Chord, 3, 11}, `{"type":"chord","r":3,"c":11}`},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			if got := string(mustJSON(t, tc.m)); got != tc.want {
				t.Errorf("got %s", got)
			}
		})
	}
	if _, err := json.Marshal(Move{}); err == nil {
		t.Error("a move without a type encodes")
	}
}

func TestEventJSONRoundTrip(t *testing.T) {
	tests := []string{
		`{"type":"reveal","cells":[{"r":0,"c":0,"adjacent":0},{"r":0,"c":1,"adjacent":2}]}`,
		`{"type":"reveal","cells":[]}`,
		`{"type":"flag","r":1,"c":2,"flagged":true}`,
		`{"type":"flag","r":1,"c":2,"flagged":false}`,
		`{"type":"explode","r":1,"c":2,"mines":[{"r":0,"c":3},{"r":1,"c":2}]}`,
		`{"type":"win"}`,
		`{"type":"reveal","seat":1,"cells":[{"r":4,"c":4,"adjacent":1}]}`,
		`{"type":"explode","seat":0,"r":1,"c":2}`,
		`{"type":"explode","seat":0,"r":1,"c":2,"mines":[{"r":1,"c":2}]}`,
		`{"type":"win","seat":2}`,
		`{"type":"end","seat":3,"mines":[]}`,
		`{"type":"progress","seat":1,"phase":"active","revealed":12,"safe":71,"flags":3}`,
	}
	for _, in := range tests {
		t.Run(in, func(t *testing.T) {
			var e Event
			if err := json.Unmarshal([]byte(in), &e); err != nil {
				t.Fatal(err)
			}
			if got := string(mustJSON(t, e)); got != in {
				t.Errorf("round trip %s", got)
			}
		})
	}
	bad := []string{`{"type":"boom"}`, `{"type":"flag","r":1}`, `{"type":"explode","r":1,"c":1}`,
		`{"type":"end","mines":[]}`, `{"type":"progress","seat":1}`,
		`{"type":"progress","seat":1,"phase":"active","revealed":12,"safe":71}`, `{"type":"reveal"}`, `null`, `[]`}
	for _, in := range bad {
		t.Run("bad "+in, func(t *testing.T) {
			var e Event
			if err := json.Unmarshal([]byte(in), &e); err == nil {
				t.Errorf("decoded %+v", e)
			}
		})
	}
}

func TestViewJSONRoundTrip(t *testing.T) {
	tests := []string{
		`{"config":{"rows":2,"cols":2,"mines":1},"phase":"fresh","cells":[]}`,
		`{"config":{"rows":2,"cols":2,"mines":1,"id":"x"},"phase":"lost","cells":[{"r":0,"c":0,"status":"revealed","adjacent":1,"mine":false},{"r":0,"c":1,"status":"flagged"},{"r":1,"c":1,"status":"hidden","mine":true}]}`,
		`{"config":{"level":"beginner","mode":"race"},"phase":"active","mode":"race","boards":[{"seat":0,"phase":"active","revealed":3,"safe":71,"flags":1,"cells":[{"r":0,"c":0,"status":"revealed","adjacent":1,"mine":false},{"r":0,"c":1,"status":"flagged"}]},{"seat":1,"phase":"fresh","revealed":0,"safe":71,"flags":0}]}`,
		`{"config":{"level":"beginner","mode":"race"},"phase":"active","mode":"race","boards":[{"seat":0,"phase":"active","revealed":3,"safe":71,"flags":1},{"seat":1,"phase":"fresh","revealed":0,"safe":71,"flags":0}]}`,
	}
	for _, in := range tests {
		t.Run(in, func(t *testing.T) {
			var v View
			if err := json.Unmarshal([]byte(in), &v); err != nil {
				t.Fatal(err)
			}
			if got := string(mustJSON(t, v)); got != in {
				t.Errorf("round trip %s", got)
			}
		})
	}
	bad := []string{
		`{"config":{"rows":2,"cols":2,"mines":1},"phase":"fresh"}`,
		`{"config":{"rows":2,"cols":2,"mines":1},"phase":"fresh","cells":[{"r":2,"c":0,"status":"flagged"}]}`,
		`{"config":{"rows":2,"cols":2,"mines":9},"phase":"fresh","cells":[]}`,
		`{"config":{"rows":2,"cols":2,"mines":1},"phase":"won","mode":"race"}`,
		`{"config":{"rows":2,"cols":2,"mines":1},"phase":"nope","cells":[]}`,
	}
	for _, in := range bad {
		t.Run("bad "+in, func(t *testing.T) {
			var v View
			if err := json.Unmarshal([]byte(in), &v); err == nil {
				t.Errorf("decoded %+v", v)
			}
		})
	}
}
