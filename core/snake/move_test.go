package snake

import (
	"encoding/json"
	"testing"

	"github.com/roomd/roomd/core/session"
)

// moveCases are commands and how session.DecodeMove takes them: the move
// when accepted, else the rejection code (always malformed).
var moveCases = []struct {
	raw  string
	move Move
	code string
}{
	{raw: `{"type":"turn","dir":"up"}`, move: Move{Up}},
	{raw: `{"type":"turn","dir":"down"}`, move: Move{Down}},
	{raw: `{"type":"turn","dir":"left"}`, move: Move{Left}},
	{raw: ` {"dir":"right", "type":"turn"} `, move: Move{Right}},
	{raw: `{"type":"turn","dir":"\u0075p"}`, move: Move{Up}},
	{raw: `{"type":"turn","dir":"UP"}`, code: session.CodeMalformedInput},
	{raw: `{"type":"turn","dir":"north"}`, code: session.CodeMalformedInput},
	{raw: `{"type":"turn","dir":""}`, code: session.CodeMalformedInput},
	{raw: `{"type":"turn","dir":null}`, code: session.CodeMalformedInput},
	{raw: `{"type":"turn","dir":1}`, code: session.CodeMalformedInput},
	{raw: `{"type":"turn","dir":["up"]}`, code: session.CodeMalformedInput},
	{raw: `{"type":"turn"}`, code: session.CodeMalformedInput},
	{raw: `{"dir":"up"}`, code: session.CodeMalformedInput},
	{raw: `{"type":1,"dir":"up"}`, code: session.CodeMalformedInput},
	{raw: `{"type":null,"dir":"up"}`, code: session.CodeMalformedInput},
	{raw: `{"type":"turn","dir":"up","seat":0}`, code: session.CodeMalformedInput},
	{raw: `{"type":"turn","Dir":"up"}`, code: session.CodeMalformedInput},
	{raw: `{"type":"turn","dir":"up","dir":"down"}`, code: session.CodeMalformedInput},
	{raw: `{"type":"Turn","dir":"up"}`, code: session.CodeUnknownMove},
	{raw: `{"type":"mark","r":1,"c":1}`, code: session.CodeUnknownMove},
	{raw: `{"type":"","dir":"up"}`, code: session.CodeUnknownMove},
	{raw: `{"type":"turn","dir":"up"}{}`, code: session.CodeMalformedInput},
	{raw: `{"type":"turn","dir":"up"`, code: session.CodeMalformedInput},
	{raw: `[{"type":"turn","dir":"up"}]`, code: session.CodeMalformedInput},
	{raw: `"up"`, code: session.CodeMalformedInput},
	{raw: `null`, code: session.CodeMalformedInput},
	{raw: ``, code: session.CodeMalformedInput},
}

func TestDecodeMove(t *testing.T) {
	for _, tt := range moveCases {
		t.Run(tt.raw, func(t *testing.T) {
			m, err := session.DecodeMove[Move](json.RawMessage(tt.raw))
			if tt.code == "" {
				if err != nil || m != tt.move {
					t.Fatalf("DecodeMove = %+v, %v; want %+v", m, err, tt.move)
				}
				if got, want := encode(t, m), string(command(tt.move.Dir)); got != want {
					t.Errorf("re-encoded as %s, want %s", got, want)
				}
				if got := string(m.AppendJSON(nil)); got != string(command(tt.move.Dir)) {
					t.Errorf("AppendJSON wrote %s", got)
				}
				return
			}
			rej := asRejection(t, err)
			if rej.Code != tt.code || !rej.Malformed {
				t.Errorf("rejection %+v, want malformed %s", rej, tt.code)
			}
		})
	}
	if _, err := json.Marshal(Move{}); err == nil {
		t.Error("a move with no direction encoded")
	}
}

// FuzzDecodeMove feeds the command decoder and a match anything: a
// decoded move has a direction and survives a round trip; a refusal is a
// malformed *session.Rejection; an input is either refused by Check and
// not logged, or queued, and the tick it takes effect at runs.
func FuzzDecodeMove(f *testing.F) {
	for _, tt := range moveCases {
		f.Add([]byte(tt.raw), 0)
	}
	f.Fuzz(func(t *testing.T, data []byte, seat int) {
		m, err := session.DecodeMove[Move](data)
		if err != nil {
			if rej := asRejection(t, err); !rej.Malformed {
				t.Fatalf("decoding refused %q without marking it malformed: %v", data, rej)
			}
		} else {
			if !m.Dir.Valid() {
				t.Fatalf("decoded %q to %+v, no direction", data, m)
			}
			again, err := session.DecodeMove[Move](json.RawMessage(encode(t, m)))
			if err != nil || again != m {
				t.Fatalf("%+v re-decodes to %+v, %v", m, again, err)
			}
		}
		s, err := session.NewSession(Game, session.IntSeed(1), nil, 2, nil)
		if err != nil {
			t.Fatal(err)
		}
		tick, err := s.Input(seat, data, 0)
		if err != nil {
			asRejection(t, err)
			if len(s.Log()) != 0 {
				t.Fatalf("a refused input was logged")
			}
			return
		}
		if tick != 1 || len(s.Log()) != 1 {
			t.Fatalf("queued for tick %d, log %v", tick, s.Log())
		}
		if _, err := s.Advance(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestParseCanonical: the fast path takes exactly the four canonical
// commands, and decodes them as the strict decoder does; anything else
// (other spacing, other order, other values) is left to the strict decoder.
func TestParseCanonical(t *testing.T) {
	for d := Up; d <= Right; d++ {
		raw := Move{Dir: d}.AppendJSON(nil)
		var fast, strict Move
		if !fast.ParseCanonical(raw) {
			t.Fatalf("%s: not taken by the fast path", raw)
		}
		if err := strict.UnmarshalJSON(raw); err != nil || fast != strict {
			t.Fatalf("%s: fast %v, strict %v (%v)", raw, fast, strict, err)
		}
		m, err := session.DecodeMove[Move](raw)
		if err != nil || m != fast {
			t.Fatalf("%s: DecodeMove %v %v", raw, m, err)
		}
	}
	for _, raw := range []string{`{"dir":"up","type":"turn"}`, `{"type":"turn", "dir":"up"}`, `{"type":"turn","dir":"UP"}`,
		`{"type":"turn","dir":"up","x":1}`, `{"type":"turn","dir":"up"}x`} {
		var m Move
		if m.ParseCanonical([]byte(raw)) {
			t.Errorf("the fast path took %s", raw)
		}
	}
}
