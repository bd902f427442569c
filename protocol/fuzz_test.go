package protocol

import (
	"reflect"
	"testing"
	"unicode/utf8"
)

// FuzzDecodeClient feeds DecodeClient arbitrary frames: it never panics;
// what it accepts is exactly one message of its type with its fields within
// their bounds; and an accepted message encodes and decodes to itself.
// The seed corpus is in testdata/fuzz/FuzzDecodeClient.
func FuzzDecodeClient(f *testing.F) {
	for _, s := range []string{
		`{"type":"hello","room":"K7QXMP","name":"Ann","game":{"id":"minesweeper","rulesVersion":"minesweeper/1"}}`,
		`{"type":"hello","room":"K7QXMP","token":"t","epoch":"e","rev":12,"watch":true,"invite":"i"}`,
		`{"type":"command","id":"a1","rev":3,"command":{"type":"reveal","r":1,"c":2}}`,
		`{"type":"control","id":"a2","rev":0,"control":{"op":"settings","settings":{"level":"expert"}}}`,
		`{"type":"control","id":"a3","rev":0,"control":{"op":"access","access":"locked","watchLocked":true}}`,
		`{"type":"resync","id":"r","rev":9}`, `{"type":"ping","t":1.5}`, `{"type":"leave","id":"x","rev":1,"extra":[1,2]}`,
		`[]`, `null`, `{"type":"hello"}`, `{"type":"command","id":"","rev":1,"command":{}}`, "{\"type\":\"hello\",\"room\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSame(t, data) // the fast path decodes as encoding/json, or not at all
		in, err := DecodeClient(data)
		if err != nil {
			return
		}
		set := 0
		if in.Hello != nil {
			set++
			h := in.Hello
			if h.Type != TypeHello || h.Room == "" || len(h.Room) > 32 || len(h.Name) > 64 || len(h.Token) > 128 || len(h.Invite) > 64 {
				t.Fatalf("hello out of bounds: %+v", h)
			}
		}
		if in.Action != nil {
			set++
			a := in.Action
			if !Known(a.Type) || a.Type == TypeHello || a.Type == TypePing || a.ID == "" || len(a.ID) > 64 {
				t.Fatalf("action out of bounds: %+v", a)
			}
			if (a.Type == TypeCommand) != (len(a.Command) > 0) || (a.Type == TypeControl && (a.Control == nil || a.Control.Op == "")) {
				t.Fatalf("action without its payload: %+v", a)
			}
		}
		if in.Ping != nil {
			set++
		}
		if set != 1 || in.Type == "" {
			t.Fatalf("%d messages decoded from %q", set, data)
		}
		var msg any = in.Ping
		switch {
		case in.Hello != nil:
			msg = in.Hello
		case in.Action != nil:
			msg = in.Action
		}
		b, err := Encode(msg)
		if err != nil {
			if !utf8.Valid(data) {
				return // invalid UTF-8 in a string re-encodes differently; nothing to compare
			}
			t.Fatalf("re-encode %+v: %v", msg, err)
		}
		again, err := DecodeClient(b)
		if err != nil {
			t.Fatalf("%s re-encodes as %s, which does not decode: %v", data, b, err)
		}
		if in.Hello != nil && !reflect.DeepEqual(again.Hello, in.Hello) || in.Ping != nil && !reflect.DeepEqual(again.Ping, in.Ping) {
			t.Fatalf("%s: round trip %s gives %+v", data, b, again)
		}
		if in.Action != nil && (again.Action == nil || again.Action.ID != in.Action.ID || again.Action.Rev != in.Action.Rev || again.Action.Type != in.Action.Type) {
			t.Fatalf("%s: round trip %s gives %+v", data, b, again.Action)
		}
	})
}
