package nim

import (
	"encoding/json"
	"testing"

	"github.com/roomd/roomd/core/session"
)

// moveCases are commands and how session.DecodeMove takes them: n when
// accepted, else the rejection code (always malformed).
var moveCases = []struct {
	raw  string
	n    int
	code string
}{
	{raw: `{"type":"take","n":1}`, n: 1},
	{raw: `{"type":"take","n":2}`, n: 2},
	{raw: ` {"n":3, "type":"take"} `, n: 3},
	{raw: `{"type":"take","n":2.0}`, n: 2},
	{raw: `{"type":"take","n":0}`, code: session.CodeInvalidMove},
	{raw: `{"type":"take","n":4}`, code: session.CodeInvalidMove},
	{raw: `{"type":"take","n":-1}`, code: session.CodeInvalidMove},
	{raw: `{"type":"take","n":1e9}`, code: session.CodeInvalidMove},
	{raw: `{"type":"take","n":1.5}`, code: session.CodeMalformedInput},
	{raw: `{"type":"take","n":"2"}`, code: session.CodeMalformedInput},
	{raw: `{"type":"take","n":null}`, code: session.CodeMalformedInput},
	{raw: `{"type":"take","n":true}`, code: session.CodeMalformedInput},
	{raw: `{"type":"take","n":[2]}`, code: session.CodeMalformedInput},
	{raw: `{"type":"take","n":1e400}`, code: session.CodeMalformedInput},
	{raw: `{"type":"take"}`, code: session.CodeMalformedInput},
	{raw: `{"n":2}`, code: session.CodeMalformedInput},
	{raw: `{"type":2,"n":2}`, code: session.CodeMalformedInput},
	{raw: `{"type":"take","n":2,"seat":1}`, code: session.CodeMalformedInput},
	{raw: `{"type":"take","n":2,"n":3}`, code: session.CodeMalformedInput},
	{raw: `{"type":"take","N":2}`, code: session.CodeMalformedInput},
	{raw: `{"type":"Take","n":2}`, code: session.CodeUnknownMove},
	{raw: `{"type":"flag","r":1,"c":1}`, code: session.CodeUnknownMove},
	{raw: `{"type":"","n":2}`, code: session.CodeUnknownMove},
	{raw: `{"type":"take","n":2}{}`, code: session.CodeMalformedInput},
	{raw: `{"type":"take","n":2`, code: session.CodeMalformedInput},
	{raw: `[{"type":"take","n":2}]`, code: session.CodeMalformedInput},
	{raw: `"take"`, code: session.CodeMalformedInput},
	{raw: `null`, code: session.CodeMalformedInput},
	{raw: ``, code: session.CodeMalformedInput},
}

func TestDecodeMove(t *testing.T) {
	for _, tt := range moveCases {
		t.Run(tt.raw, func(t *testing.T) {
			m, err := session.DecodeMove[Move](json.RawMessage(tt.raw))
			if tt.code == "" {
				if err != nil || m.N != tt.n {
					t.Fatalf("DecodeMove = %+v, %v; want n %d", m, err, tt.n)
				}
				if got, want := encode(t, m), string(take(tt.n)); got != want {
					t.Errorf("re-encoded as %s, want %s", got, want)
				}
				return
			}
			rej := asRejection(t, err)
			if rej.Code != tt.code || !rej.Malformed {
				t.Errorf("rejection %+v, want malformed %s", rej, tt.code)
			}
		})
	}
}

func FuzzNimMove(f *testing.F) {
	for _, tt := range moveCases {
		f.Add([]byte(tt.raw), 0, uint16(21))
	}
	f.Add([]byte(`{"type":"take","n":3}`), 1, uint16(2))
	f.Add([]byte(`{"type":"take","n":1}`), -1, uint16(1))
	f.Fuzz(func(t *testing.T, data []byte, seat int, pile uint16) {
		m, err := session.DecodeMove[Move](data)
		if err != nil {
			if rej := asRejection(t, err); !rej.Malformed {
				t.Fatalf("decoding refused %q without marking it malformed: %v", data, rej)
			}
		} else {
			if m.N < MinTake || m.N > MaxTake {
				t.Fatalf("decoded %q to %+v", data, m)
			}
			again, err := session.DecodeMove[Move](json.RawMessage(encode(t, m)))
			if err != nil || again != m {
				t.Fatalf("%+v re-decodes to %+v, %v", m, again, err)
			}
		}

		const seats = 3
		config := json.RawMessage(encode(t, Config{Pile: int(pile)%MaxPile + 1}))
		match, err := Game.New(session.IntSeed(7), config, seats)
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		before := everything(t, match, seats)
		step, err := match.Apply(session.Command{Seat: seat, Move: data})
		if err != nil {
			asRejection(t, err)
			if after := everything(t, match, seats); after != before {
				t.Fatalf("rejected %q changed the match:\n%s\nwas\n%s", data, after, before)
			}
			return
		}
		for _, v := range viewers(seats) {
			encode(t, step.Beats(v))
			encode(t, match.View(v))
		}
	})
}
