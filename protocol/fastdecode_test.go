package protocol

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// checkSame fails unless the fast path either passes data on or decodes it
// exactly as encoding/json does.
func checkSame(t interface{ Fatalf(string, ...any) }, data []byte) bool {
	fast, ok := decodeCommand(data)
	if !ok {
		return false
	}
	slow, err := decodeWire(data)
	if err != nil {
		t.Fatalf("fast path accepted what encoding/json refuses (%v): %s", err, data)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("fast %+v %s, encoding/json %+v %s: %s", fast.Action, fast.Action.Command, slow.Action, slow.Action.Command, data)
	}
	return true
}

func TestDecodeCommandFastPath(t *testing.T) {
	for _, c := range []struct {
		in   string
		fast bool
	}{
		{`{"type":"command","id":"a1","rev":3,"command":{"type":"reveal","r":1,"c":2}}`, true},
		{` { "command" : { "type" : "flag" , "r" : [1, {"x":"}"}] } , "rev":0,"id":"x","type":"command" } `, true},
		{`{"type":"command","id":"a1","rev":18446744073709551615,"command":{}}`, true},
		{`{"type":"command","id":"a1","rev":18446744073709551616,"command":{}}`, false}, // overflows
		{`{"type":"command","id":"a\u0031","rev":3,"command":{}}`, false},               // an escape
		{`{"type":"command","id":"a1","rev":3,"command":{},"x":1}`, false},              // another key
		{`{"type":"command","id":"a1","id":"a2","rev":3,"command":{}}`, false},          // a repeated key
		{`{"Type":"command","id":"a1","rev":3,"command":{}}`, false},                    // encoding/json's case folding
		{`{"type":"command","id":"a1","rev":3.0,"command":{}}`, false},
		{`{"type":"command","id":"a1","rev":-3,"command":{}}`, false},
		{`{"type":"command","id":"a1","rev":03,"command":{}}`, false},
		{`{"type":"command","id":"a1","rev":3,"command":null}`, false},
		{`{"type":"command","id":"a1","rev":3,"command":{"a":}}`, false},
		{`{"type":"command","id":"a1","rev":3,"command":{}} x`, false},
		{`{"type":"command","id":"","rev":3,"command":{}}`, false},
		{`{"type":"command","id":"` + strings.Repeat("a", 65) + `","rev":3,"command":{}}`, false},
		{`{"type":"control","id":"a1","rev":3,"control":{"op":"start"}}`, false},
		{`{"type":"command","id":"a1","command":{}}`, false},
		{`{"type":"command","id":"é","rev":3,"command":{}}`, false},
		{`{}`, false}, {``, false}, {`{"type":"command","id":"a1","rev":3,"command":{"s":"\"}"}}`, true},
	} {
		if got := checkSame(t, []byte(c.in)); got != c.fast {
			t.Errorf("fast path %v, want %v: %s", got, c.fast, c.in)
		}
		// Whatever the path, DecodeClient answers as encoding/json does.
		in, err := DecodeClient([]byte(c.in))
		slow, serr := decodeWire([]byte(c.in))
		if (err == nil) != (serr == nil) || !reflect.DeepEqual(in, slow) {
			t.Errorf("DecodeClient %+v %v, encoding/json %+v %v: %s", in, err, slow, serr, c.in)
		}
	}
}

// TestDecodeCommandMatchesJSON: commands written every way JSON allows —
// key order, spacing, unknown and repeated keys, escapes, numbers of every
// form, nested values — decode on the fast path exactly as through
// encoding/json, or go the general way.
func TestDecodeCommandMatchesJSON(t *testing.T) {
	fast := 0
	rapid.Check(t, func(t *rapid.T) {
		ws := func() string { return rapid.SampledFrom([]string{"", "", " ", "\n\t", "  "}).Draw(t, "ws") }
		str := func(label string) string {
			return rapid.SampledFrom([]string{`"a1"`, `"x"`, `""`, `"a\"b"`, `"\u0061"`, `"é"`, `"command"`, `"control"`, `"` + strings.Repeat("z", 64) + `"`, `"` + strings.Repeat("z", 65) + `"`}).Draw(t, label)
		}
		num := rapid.SampledFrom([]string{"0", "7", "12", "0", "3.5", "-1", "1e2", "01", "18446744073709551615", "18446744073709551616", `"3"`, "null"})
		cmd := rapid.SampledFrom([]string{`{}`, `{"type":"flag","r":1,"c":2}`, `{ "type" : "reveal" }`, `{"a":[1,{"b":"}"}]}`, `{"s":"\\"}`, `[]`, `null`, `{"a":}`, `{`, `"x"`})
		fields := map[string]func() string{
			"type": func() string {
				return rapid.SampledFrom([]string{`"command"`, `"command"`, `"command"`, `"control"`, `"Command"`, `"com\u006dand"`, `1`}).Draw(t, "type")
			},
			"id":      func() string { return str("id") },
			"rev":     func() string { return num.Draw(t, "rev") },
			"command": func() string { return cmd.Draw(t, "command") },
			"Type":    func() string { return `"command"` },
			"extra":   func() string { return `[1,"}"]` },
		}
		keys := rapid.Permutation([]string{"type", "id", "rev", "command"}).Draw(t, "keys")
		switch rapid.IntRange(0, 5).Draw(t, "change") {
		case 1: // one missing
			keys = keys[1:]
		case 2: // one more
			keys = append(keys, rapid.SampledFrom([]string{"type", "id", "rev", "command", "Type", "extra"}).Draw(t, "more"))
		}
		var b strings.Builder
		b.WriteString(ws() + "{")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(ws() + ",")
			}
			fmt.Fprintf(&b, "%s%q%s:%s%s", ws(), k, ws(), ws(), fields[k]())
		}
		b.WriteString(ws() + "}" + ws())
		if checkSame(t, []byte(b.String())) {
			fast++
		}
	})
	if fast == 0 {
		t.Fatal("no generated command took the fast path")
	}
}

// BenchmarkDecodeCommand: a command frame through the fast path and through
// encoding/json, in one run.
//
//	go test -run '^$' -bench DecodeCommand -benchmem ./protocol
func BenchmarkDecodeCommand(b *testing.B) {
	frame := []byte(`{"type":"command","id":"01JDQ7Z8X9Y0A1B2C3D4E5F6G7","rev":1234,"command":{"type":"flag","r":7,"c":15}}`)
	for _, p := range []struct {
		name   string
		decode func([]byte) (Inbound, error)
	}{{"fast", DecodeClient}, {"encoding-json", decodeWire}} {
		b.Run(p.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if in, err := p.decode(frame); err != nil || in.Action == nil {
					b.Fatal(err)
				}
			}
		})
	}
}
