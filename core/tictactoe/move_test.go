package tictactoe

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
	{raw: `{"type":"mark","r":0,"c":0}`, move: Move{0, 0}},
	{raw: `{"type":"mark","r":2,"c":1}`, move: Move{2, 1}},
	{raw: ` {"c":2, "r":1, "type":"mark"} `, move: Move{1, 2}},
	{raw: `{"type":"mark","r":1.0,"c":-0}`, move: Move{1, 0}},
	{raw: `{"type":"mark","r":2e0,"c":0}`, move: Move{2, 0}},
	{raw: `{"type":"mark","r":3,"c":0}`, code: session.CodeOutOfBounds},
	{raw: `{"type":"mark","r":0,"c":-1}`, code: session.CodeOutOfBounds},
	{raw: `{"type":"mark","r":1e9,"c":1}`, code: session.CodeOutOfBounds},
	{raw: `{"type":"mark","r":1.5,"c":1}`, code: session.CodeMalformedInput},
	{raw: `{"type":"mark","r":"1","c":1}`, code: session.CodeMalformedInput},
	{raw: `{"type":"mark","r":null,"c":1}`, code: session.CodeMalformedInput},
	{raw: `{"type":"mark","r":true,"c":1}`, code: session.CodeMalformedInput},
	{raw: `{"type":"mark","r":[1],"c":1}`, code: session.CodeMalformedInput},
	{raw: `{"type":"mark","r":1e400,"c":1}`, code: session.CodeMalformedInput},
	{raw: `{"type":"mark","r":1}`, code: session.CodeMalformedInput},
	{raw: `{"type":"mark"}`, code: session.CodeMalformedInput},
	{raw: `{"r":1,"c":1}`, code: session.CodeMalformedInput},
	{raw: `{"type":1,"r":1,"c":1}`, code: session.CodeMalformedInput},
	{raw: `{"type":"mark","r":1,"c":1,"seat":0}`, code: session.CodeMalformedInput},
	{raw: `{"type":"mark","R":1,"c":1}`, code: session.CodeMalformedInput},
	{raw: `{"type":"Mark","r":1,"c":1}`, code: session.CodeUnknownMove},
	{raw: `{"type":"take","n":1}`, code: session.CodeUnknownMove},
	{raw: `{"type":"","r":1,"c":1}`, code: session.CodeUnknownMove},
	{raw: `{"type":"mark","r":1,"c":1}{}`, code: session.CodeMalformedInput},
	{raw: `{"type":"mark","r":1,"c":1`, code: session.CodeMalformedInput},
	{raw: `[{"type":"mark","r":1,"c":1}]`, code: session.CodeMalformedInput},
	{raw: `"mark"`, code: session.CodeMalformedInput},
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
				if got, want := encode(t, m), string(mark(tt.move.R, tt.move.C)); got != want {
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

// FuzzDecodeMove feeds the command decoder and a match anything: a
// decoded move is on the grid and survives a round trip; a refusal is a
// malformed *session.Rejection; a command the match refuses changes
// nothing. Its seed corpus is moveCases and testdata/fuzz/FuzzDecodeMove.
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
			if !m.inside() {
				t.Fatalf("decoded %q to %+v, off the grid", data, m)
			}
			again, err := session.DecodeMove[Move](json.RawMessage(encode(t, m)))
			if err != nil || again != m {
				t.Fatalf("%+v re-decodes to %+v, %v", m, again, err)
			}
		}

		match, err := Game.New(session.IntSeed(1), nil, Seats)
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		if _, err := match.Apply(session.Command{Seat: 0, Move: mark(1, 1)}); err != nil {
			t.Fatalf("X in the centre: %v", err)
		}
		before := everything(t, match)
		step, err := match.Apply(session.Command{Seat: seat, Move: data})
		if err != nil {
			asRejection(t, err)
			if after := everything(t, match); after != before {
				t.Fatalf("rejected %q changed the match:\n%s\nwas\n%s", data, after, before)
			}
			return
		}
		for _, v := range viewers {
			encode(t, step.Beats(v))
			encode(t, match.View(v))
		}
	})
}
