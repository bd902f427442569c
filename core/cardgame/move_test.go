package cardgame

import (
	"encoding/json"
	"testing"

	"github.com/roomd/roomd/core/session"
)

// moveCases are commands and the code decoding gives them ("" for none).
var moveCases = []struct {
	raw  string
	want Move
	code string
}{
	{`{"type":"play","card":5}`, Play(5, 0), ""},
	{`{"type":"play","card":5,"target":2}`, Play(5, 2), ""},
	{`{"target":2,"card":5.0,"type":"play"}`, Play(5, 2), ""},
	{`{"type":"attack","attacker":9,"defender":1}`, Attack(9, 1), ""},
	{`{"type":"end"}`, End(), ""},
	{`{"type":"concede"}`, Concede(), ""},
	{`{"type":"play","card":4294967295}`, Play(4294967295, 0), ""},
	{`{"type":"play"}`, Move{}, session.CodeMalformedInput},
	{`{"type":"play","card":0}`, Move{}, session.CodeMalformedInput},
	{`{"type":"play","card":4294967296}`, Move{}, session.CodeMalformedInput},
	{`{"type":"play","card":-1}`, Move{}, session.CodeMalformedInput},
	{`{"type":"play","card":1.5}`, Move{}, session.CodeMalformedInput},
	{`{"type":"play","card":"5"}`, Move{}, session.CodeMalformedInput},
	{`{"type":"play","card":null}`, Move{}, session.CodeMalformedInput},
	{`{"type":"play","card":5,"target":0}`, Move{}, session.CodeMalformedInput},
	{`{"type":"play","card":5,"attacker":1}`, Move{}, session.CodeMalformedInput},
	{`{"type":"play","Card":5}`, Move{}, session.CodeMalformedInput},
	{`{"type":"attack","attacker":9}`, Move{}, session.CodeMalformedInput},
	{`{"type":"attack","defender":9}`, Move{}, session.CodeMalformedInput},
	{`{"type":"attack","attacker":9,"defender":1,"card":3}`, Move{}, session.CodeMalformedInput},
	{`{"type":"end","card":1}`, Move{}, session.CodeMalformedInput},
	{`{"type":"concede","seat":1}`, Move{}, session.CodeMalformedInput},
	{`{"type":"play","card":5,"card":6}`, Move{}, session.CodeMalformedInput},
	{`{"type":"mark","r":0,"c":0}`, Move{}, session.CodeUnknownMove},
	{`{"type":"End"}`, Move{}, session.CodeUnknownMove},
	{`{"type":1}`, Move{}, session.CodeMalformedInput},
	{`{}`, Move{}, session.CodeMalformedInput},
	{`[]`, Move{}, session.CodeMalformedInput},
	{`"end"`, Move{}, session.CodeMalformedInput},
	{`null`, Move{}, session.CodeMalformedInput},
	{`{"type":"end"} {}`, Move{}, session.CodeMalformedInput},
}

func TestDecodeMove(t *testing.T) {
	for _, tt := range moveCases {
		t.Run(tt.raw, func(t *testing.T) {
			m, err := session.DecodeMove[Move](json.RawMessage(tt.raw))
			if tt.code == "" {
				if err != nil || m != tt.want {
					t.Fatalf("got %+v, %v, want %+v", m, err, tt.want)
				}
				// The canonical form decodes to the same move.
				b := command(t, m)
				if again, err := session.DecodeMove[Move](b); err != nil || again != m {
					t.Errorf("%s decodes to %+v, %v", b, again, err)
				}
				return
			}
			rej := asRejection(t, err)
			if rej.Code != tt.code || !rej.Malformed {
				t.Errorf("code %s (malformed %v), want %s: %v", rej.Code, rej.Malformed, tt.code, err)
			}
		})
	}
}

func TestMoveJSON(t *testing.T) {
	for _, tt := range []struct {
		m    Move
		want string
	}{
		{Play(5, 0), `{"type":"play","card":5}`},
		{Play(5, 2), `{"type":"play","card":5,"target":2}`},
		{Attack(9, 1), `{"type":"attack","attacker":9,"defender":1}`},
		{End(), `{"type":"end"}`},
		{Concede(), `{"type":"concede"}`},
	} {
		if got := string(command(t, tt.m)); got != tt.want {
			t.Errorf("%+v: %s, want %s", tt.m, got, tt.want)
		}
	}
	if _, err := json.Marshal(Move{Type: "x"}); err == nil {
		t.Errorf("a move of unknown type encoded")
	}
}

func FuzzDecodeMove(f *testing.F) {
	for _, tt := range moveCases {
		f.Add([]byte(tt.raw))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := session.DecodeMove[Move](data)
		if err != nil {
			asRejection(t, err)
			return
		}
		b := command(t, m)
		if again, err := session.DecodeMove[Move](b); err != nil || again != m {
			t.Fatalf("%s: %+v encodes to %s, which decodes to %+v, %v", data, m, b, again, err)
		}
	})
}

// ParseCanonical takes exactly the canonical form of a command, and reads
// it as the strict decoder does; every case of moveCases, canonical or
// not, is either parsed to what the decoder gives or left to it.
func TestParseCanonical(t *testing.T) {
	for _, m := range []Move{Play(5, 0), Play(5, 2), Play(4294967295, 4294967295), Attack(9, 1), End(), Concede()} {
		data, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var got Move
		if !got.ParseCanonical(data) || got != m {
			t.Errorf("ParseCanonical(%s) = %+v, want %+v", data, got, m)
		}
		if b := m.AppendJSON(nil); string(b) != string(data) {
			t.Errorf("AppendJSON %s, MarshalJSON %s", b, data)
		}
	}
	for _, tc := range moveCases {
		var got Move
		if !got.ParseCanonical([]byte(tc.raw)) {
			continue
		}
		if tc.code != "" || got != tc.want {
			t.Errorf("ParseCanonical(%s) = %+v; the decoder gives %+v (code %q)", tc.raw, got, tc.want, tc.code)
		}
	}
	for _, raw := range []string{`{"type":"play","card":05}`, `{"type":"play","card":5,"target":0}`, `{"type":"play","card":42949672950}`,
		`{"type": "end"}`, `{"type":"attack","attacker":9}`, `{"type":"play","card":5}x`} {
		var got Move
		if got.ParseCanonical([]byte(raw)) {
			t.Errorf("ParseCanonical took %s: %+v", raw, got)
		}
	}
}
