package babagame

import (
	"encoding/json"
	"testing"

	"github.com/roomd/roomd/core/baba"
	"github.com/roomd/roomd/core/session"
)

// moveCases are commands and how session.DecodeMove takes them: the move
// when accepted, else the rejection code (always malformed). dup marks a
// duplicate key, which the decoder refuses and a JSON Schema cannot.
var moveCases = []struct {
	raw  string
	move Move
	code string
	dup  bool
}{
	{raw: `{"type":"step","dir":"up"}`, move: Move{MoveStep, baba.Up}},
	{raw: `{"type":"step","dir":"down"}`, move: Move{MoveStep, baba.Down}},
	{raw: `{"type":"step","dir":"left"}`, move: Move{MoveStep, baba.Left}},
	{raw: ` {"dir":"right", "type":"step"} `, move: Move{MoveStep, baba.Right}},
	{raw: `{"type":"undo"}`, move: Move{Type: MoveUndo}},
	{raw: `{"type":"restart"}`, move: Move{Type: MoveRestart}},
	{raw: `{"type":"step","dir":"Up"}`, code: session.CodeMalformedInput},
	{raw: `{"type":"step","dir":"north"}`, code: session.CodeMalformedInput},
	{raw: `{"type":"step","dir":0}`, code: session.CodeMalformedInput},
	{raw: `{"type":"step","dir":null}`, code: session.CodeMalformedInput},
	{raw: `{"type":"step"}`, code: session.CodeMalformedInput},
	{raw: `{"type":"step","dir":"up","seat":0}`, code: session.CodeMalformedInput},
	{raw: `{"type":"step","Dir":"up"}`, code: session.CodeMalformedInput},
	{raw: `{"type":"undo","dir":"up"}`, code: session.CodeMalformedInput},
	{raw: `{"type":"restart","level":"x"}`, code: session.CodeMalformedInput},
	{raw: `{"type":"step","dir":"up","dir":"down"}`, code: session.CodeMalformedInput, dup: true},
	{raw: `{"type":"undo","type":"undo"}`, code: session.CodeMalformedInput, dup: true},
	{raw: `{"dir":"up"}`, code: session.CodeMalformedInput},
	{raw: `{"type":1}`, code: session.CodeMalformedInput},
	{raw: `{"type":"Step","dir":"up"}`, code: session.CodeUnknownMove},
	{raw: `{"type":"redo"}`, code: session.CodeUnknownMove},
	{raw: `{"type":""}`, code: session.CodeUnknownMove},
	{raw: `{"type":"undo"}{}`, code: session.CodeMalformedInput},
	{raw: `{"type":"undo"`, code: session.CodeMalformedInput},
	{raw: `[{"type":"undo"}]`, code: session.CodeMalformedInput},
	{raw: `"undo"`, code: session.CodeMalformedInput},
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
				again, err := session.DecodeMove[Move](json.RawMessage(encode(t, m)))
				if err != nil || again != m {
					t.Errorf("re-encoded as %s, which decodes to %+v, %v", encode(t, m), again, err)
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

// The canonical forms of the commands.
func TestEncodeMove(t *testing.T) {
	for m, want := range map[Move]string{
		{MoveStep, baba.Left}:  `{"type":"step","dir":"left"}`,
		{Type: MoveUndo}:       `{"type":"undo"}`,
		{Type: MoveRestart}:    `{"type":"restart"}`,
		{MoveStep, baba.Right}: `{"type":"step","dir":"right"}`,
	} {
		if got := encode(t, m); got != want {
			t.Errorf("%+v encodes as %s, want %s", m, got, want)
		}
	}
}

// FuzzDecodeMove feeds the command decoder and a match anything: a decoded
// move is valid and survives a round trip; a refusal is a malformed
// *session.Rejection; a command the match refuses changes nothing. Its
// seed corpus is moveCases and testdata/fuzz/FuzzDecodeMove.
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
			if !m.valid() {
				t.Fatalf("decoded %q to %+v, not a command", data, m)
			}
			again, err := session.DecodeMove[Move](json.RawMessage(encode(t, m)))
			if err != nil || again != m {
				t.Fatalf("%+v re-decodes to %+v, %v", m, again, err)
			}
		}

		match, err := Game.New(session.IntSeed(1), json.RawMessage(`{"control":"turns"}`), 2)
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		if _, err := match.Apply(session.Command{Seat: 0, Move: step('r')}); err != nil {
			t.Fatalf("a first step: %v", err)
		}
		before := everything(t, match, 2)
		st, err := match.Apply(session.Command{Seat: seat, Move: data})
		if err != nil {
			asRejection(t, err)
			if after := everything(t, match, 2); after != before {
				t.Fatalf("rejected %q changed the match:\n%s\nwas\n%s", data, after, before)
			}
			return
		}
		for _, v := range []Seat{0, 1, session.Spectator} {
			encode(t, st.Beats(v))
			encode(t, match.View(v))
		}
	})
}
