package protocol

import (
	"bytes"
	"encoding/json"
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

// checkSameServer fails unless the fast path either passes data on or
// decodes it exactly as encoding/json does.
func checkSameServer(t interface{ Fatalf(string, ...any) }, data []byte) bool {
	fast, ok := decodeHot(data, false, false)
	if !ok {
		return false
	}
	if aliased, ok := decodeHot(bytes.Clone(data), true, false); !ok || !reflect.DeepEqual(aliased, fast) {
		t.Fatalf("aliased (%v) %+v %+v, copied %+v %+v: %s", ok, aliased.Update, aliased.Snapshot, fast.Update, fast.Snapshot, data)
	}
	if checked, ok := decodeHot(bytes.Clone(data), true, true); !ok || !reflect.DeepEqual(checked, fast) {
		// Accepted unchecked, data is valid JSON: bracket-matching its
		// raw parts finds what checking them does.
		t.Fatalf("checked (%v) %+v %+v, copied %+v %+v: %s", ok, checked.Update, checked.Snapshot, fast.Update, fast.Snapshot, data)
	}
	slow, err := decodeServerWire(data)
	if err != nil {
		t.Fatalf("fast path accepted what encoding/json refuses (%v): %s", err, data)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("fast %+v %+v %+v %+v, encoding/json %+v %+v %+v %+v: %s", fast.Receipt, fast.Update, fast.Tick, fast.Snapshot, slow.Receipt, slow.Update, slow.Tick, slow.Snapshot, data)
	}
	return true
}

func TestDecodeHotFastPath(t *testing.T) {
	for _, c := range []struct {
		in   string
		fast bool
	}{
		{`{"type":"receipt","id":"a1","ok":true,"rev":12}`, true},
		{`{"type":"receipt","id":"a1","ok":true,"rev":12,"tick":40}`, true},
		{`{"type":"tick","from":3,"to":5,"tick":81,"beats":[{"t":"move","d":"rl.u"}]}`, true},
		{`{"type":"tick","from":3,"to":3,"tick":82,"beats":[]}`, true},
		{`{"type":"tick","from":3,"to":3,"tick":82,"beats":null}`, false},
		{`{"type":"tick","from":3,"to":3,"tick":-1,"beats":[]}`, false},
		{`{"type":"tick","epoch":"e","from":3,"to":3,"tick":82,"beats":[]}`, false},
		{`{"type":"update","epoch":"e","from":1,"to":2,"by":0,"tick":3}`, false},
		{`{"type":"receipt","id":"a1","ok":false}`, true},
		{`{"type":"receipt","id":"a1","ok":false,"notice":{"code":"stale","message":"x"}}`, false},
		{`{"type":"update","epoch":"e","from":1,"to":2,"by":0,"beats":[{"type":"flag","r":1,"c":2,"flagged":true}]}`, true},
		{` { "beats" : [ 1 , "]" ] , "by" : null , "to" : 9 , "from" : 8 , "epoch" : "e" , "type" : "update" } `, true},
		{`{"type":"update","epoch":"e","from":1,"to":2,"by":null}`, true},
		{`{"type":"update","epoch":"e","from":1,"to":2,"by":-1,"beats":[]}`, false},
		{`{"type":"update","epoch":"e","from":1,"to":2,"by":0,"beats":null}`, false},
		{`{"type":"update","epoch":"e","from":1,"to":2,"by":0,"beats":[],"beats":[1]}`, false},
		{`{"type":"update","epoch":"e","from":1,"to":2,"by":0,"room":{}}`, true},
		{`{"type":"update","epoch":"e","from":1,"to":2,"by":0,"room":null}`, false},
		{`{"type":"update","epoch":"e","from":1,"to":2,"by":0,"room":{"code":5}}`, false},
		{`{"type":"update","epoch":"e","from":1,"to":2,"by":null,"beats":[{"type":"start"}],"room":{"code":"K","phase":"playing","seats":[{"name":"Ann","connected":true}],"version":3},"seat":1,"view":{"phase":"playing","cells":[[0,1],[2,"x"]]},"invite":"abc"}`, true},
		{`{"type":"update","epoch":"e","from":1,"to":2,"by":0,"view":{"phase":"won"},"result":{"outcome":"won","winners":[0],"score":{"ms":1200}}}`, true},
		{`{"type":"update","epoch":"e","from":1,"to":2,"by":0,"view":null,"seat":null}`, true},
		{`{"type":"update","epoch":"e","from":1,"to":2,"by":0,"view":{"a":1,}}`, false},
		{`{"type":"update","epoch":"e","from":1,"to":2,"by":0,"view":"x"}`, false},
		{`{"type":"update","epoch":"e","from":1,"to":2,"by":0,"invite":"a\u0062"}`, false},
		{`{"type":"update","epoch":"e","from":1,"to":2,"by":0,"result":{"status":7}}`, false},
		{`{"type":"snapshot","epoch":"e","rev":7,"seat":0,"view":{"phase":"playing"},"room":{"code":"K","phase":"playing"},"invite":"i"}`, true},
		{`{"type":"snapshot","epoch":"e","rev":7,"seat":null,"view":null,"room":{"code":"K","phase":"lobby"}}`, true},
		{`{"type":"snapshot","epoch":"e","rev":7,"seat":null,"room":{"code":"K"},"tick":9,"result":{"outcome":"lost"}}`, true},
		{`{"type":"snapshot","epoch":"e","rev":7,"from":1}`, false},
		{`{"type":"snapshot","epoch":"e","rev":7,"room":[]}`, false},
		{`{"type":"update","epoch":"e","from":1,"to":2,"by":0,"beats":[1,]}`, false},
		{`{"type":"update","epoch":"e","from":1,"to":2,"by":0,"beats":[]} x`, false},
		{`{"type":"receipt","id":"a1","ok":true,"rev":12,"to":3}`, false},
		{`{"type":"presence","connected":[0]}`, false},
		{`{"type":"receipt","id":"a\u0031","ok":true}`, false},
	} {
		if got := checkSameServer(t, []byte(c.in)); got != c.fast {
			t.Errorf("fast path %v, want %v: %s", got, c.fast, c.in)
		}
		m, err := DecodeServer([]byte(c.in))
		slow, serr := decodeServerWire([]byte(c.in))
		if (err == nil) != (serr == nil) || !reflect.DeepEqual(m, slow) {
			t.Errorf("DecodeServer %+v %v, encoding/json %+v %v: %s", m, err, slow, serr, c.in)
		}
	}
}

// TestDecodeHotMatchesJSON: receipts and updates written every way JSON
// allows decode on the fast path exactly as through encoding/json, or go
// the general way.
func TestDecodeHotMatchesJSON(t *testing.T) {
	fast := 0
	rapid.Check(t, func(t *rapid.T) {
		ws := func() string { return rapid.SampledFrom([]string{"", "", "", " ", "\n"}).Draw(t, "ws") }
		val := map[string]*rapid.Generator[string]{
			"id":     rapid.SampledFrom([]string{`"a1"`, `"a1"`, `""`, `"a\"b"`, `"é"`}),
			"ok":     rapid.SampledFrom([]string{`true`, `false`, `true`, `null`, `1`}),
			"rev":    rapid.SampledFrom([]string{`0`, `12`, `7`, `1.5`, `-1`, `null`}),
			"epoch":  rapid.SampledFrom([]string{`"01JDQ"`, `"01JDQ"`, `""`, `"\u0030"`}),
			"from":   rapid.SampledFrom([]string{`0`, `41`, `41`, `18446744073709551615`, `18446744073709551616`}),
			"to":     rapid.SampledFrom([]string{`1`, `42`, `42`, `4.2`}),
			"by":     rapid.SampledFrom([]string{`0`, `3`, `null`, `0`, `-1`, `2147483648`}),
			"beats":  rapid.SampledFrom([]string{`[]`, `[{"type":"flag","r":1,"c":2,"flagged":true}]`, `[{"a":1}]`, `["]",{"a":[]}]`, `null`, `[1,]`, `{}`}),
			"room":   rapid.SampledFrom([]string{`{"code":"K"}`, `{"code":"K","phase":"playing","seats":[{"name":"A\u00e9","connected":true}]}`, `{}`, `null`, `{"code":1}`, `[]`}),
			"seat":   rapid.SampledFrom([]string{`0`, `2`, `null`, `-1`, `"1"`}),
			"view":   rapid.SampledFrom([]string{`{"phase":"playing","cells":[[0,"x"]]}`, `null`, `[1,2]`, `{"a":"\"}"}`, `"v"`, `{"a":}`}),
			"result": rapid.SampledFrom([]string{`{"outcome":"won","winners":[0]}`, `{}`, `null`, `{"status":1}`}),
			"invite": rapid.SampledFrom([]string{`"inv"`, `""`, `"\u0041"`, `1`}),
			"tick":   rapid.SampledFrom([]string{`0`, `9`, `-2`}),
		}
		var keys []string
		switch rapid.IntRange(0, 2).Draw(t, "kind") {
		case 0:
			keys = rapid.Permutation([]string{"type", "id", "ok", "rev"}).Draw(t, "keys")
			val["type"] = rapid.SampledFrom([]string{`"receipt"`, `"receipt"`, `"receipt"`, `"update"`, `"Receipt"`})
		case 1:
			keys = rapid.Permutation([]string{"type", "epoch", "from", "to", "by", "beats"}).Draw(t, "keys")
			keys = append(keys, subset(t, "room", "seat", "view", "result", "invite")...)
			val["type"] = rapid.SampledFrom([]string{`"update"`, `"update"`, `"update"`, `"receipt"`, `"notice"`})
		default:
			keys = rapid.Permutation([]string{"type", "epoch", "rev", "seat", "view", "room"}).Draw(t, "keys")
			keys = append(keys, subset(t, "tick", "invite", "result")...)
			val["type"] = rapid.SampledFrom([]string{`"snapshot"`, `"snapshot"`, `"snapshot"`, `"update"`})
		}
		if rapid.IntRange(0, 4).Draw(t, "change") == 0 {
			keys = append(keys, rapid.SampledFrom([]string{"type", "id", "ok", "rev", "epoch", "from", "to", "by", "beats", "room", "seat", "view", "result", "invite", "tick"}).Draw(t, "more"))
		}
		var b strings.Builder
		b.WriteString(ws() + "{")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(ws() + ",")
			}
			fmt.Fprintf(&b, "%s%q%s:%s%s", ws(), k, ws(), ws(), val[k].Draw(t, k))
		}
		b.WriteString(ws() + "}")
		if checkSameServer(t, []byte(b.String())) {
			fast++
		}
	})
	if fast == 0 {
		t.Fatal("no generated message took the fast path")
	}
}

// subset draws some of keys, in their order.
func subset(t *rapid.T, keys ...string) []string {
	var out []string
	for _, k := range keys {
		if rapid.Bool().Draw(t, "with "+k) {
			out = append(out, k)
		}
	}
	return out
}

// FuzzDecodeServer: whatever the frame, DecodeServer's fast path answers
// as encoding/json does or passes the frame on, and DecodeServer never
// panics.
func FuzzDecodeServer(f *testing.F) {
	for _, s := range []string{
		`{"type":"receipt","id":"a1","ok":true,"rev":12}`,
		`{"type":"update","epoch":"e","from":1,"to":2,"by":0,"beats":[{"type":"flag","r":1,"c":2,"flagged":true}]}`,
		`{"type":"update","epoch":"e","from":1,"to":2,"by":null,"beats":["]",{"a":"\""}]}`,
		`{"type":"presence","connected":[0],"spectators":1}`, `[]`, `{}`,
		`{"type":"tick","from":3,"to":5,"tick":81,"beats":[{"t":"move","d":"rl.u"}]}`,
		`{"type":"receipt","id":"a1","ok":true,"rev":12,"tick":82}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSameServer(t, data)
		checkFrame(t, data)
	})
}

// TestSplitObjects: a batched frame splits into the same messages on the
// fast path as through encoding/json, and anything else goes the general
// way.
func TestSplitObjects(t *testing.T) {
	for _, c := range []struct {
		in   string
		fast bool
	}{
		{`[{"type":"receipt","id":"a","ok":true,"rev":2},{"type":"update","beats":["]","}"]}]`, true},
		{` [ {"a":1} , {"b":[{}]} ] `, true},
		{`[]`, true},
		{`[{"a":1},]`, false},
		{`[{"a":1},2]`, false},
		{`[{"a":1}`, false},
		{`[{"a":"\"]"}]`, true},
	} {
		checkFrame(t, []byte(c.in))
		if ok := checkSplit(t, []byte(c.in)); ok != c.fast {
			t.Errorf("fast path %v, want %v: %s", ok, c.fast, c.in)
		}
	}
}

// checkSplit fails unless the fast split, where it answers, splits data as
// encoding/json does, and SplitServerFrame fails where encoding/json does.
func checkSplit(t interface{ Fatalf(string, ...any) }, data []byte) bool {
	fast, ok := splitObjects(bytes.TrimLeft(data, " \t\r\n"))
	var raws []json.RawMessage
	err := json.Unmarshal(data, &raws)
	if ok && (err != nil || len(raws) != len(fast)) {
		t.Fatalf("fast path split %q; encoding/json %d parts, %v: %s", fast, len(raws), err, data)
	}
	for i := range fast {
		if ok && !bytes.Equal(fast[i], raws[i]) {
			t.Fatalf("part %d: %s, want %s", i, fast[i], raws[i])
		}
	}
	if got, gerr := SplitServerFrame(data); len(bytes.TrimLeft(data, " \t\r\n")) > 0 && bytes.TrimLeft(data, " \t\r\n")[0] == '[' &&
		((gerr == nil) != (err == nil) || (err == nil && len(got) != len(raws))) {
		t.Fatalf("SplitServerFrame %q %v; encoding/json %d parts, %v: %s", got, gerr, len(raws), err, data)
	}
	return ok
}

func FuzzSplitServerFrame(f *testing.F) {
	for _, s := range []string{`[{"type":"receipt","id":"a","ok":true,"rev":2},{"type":"update","beats":["]","}"]}]`,
		` [ {"a":1} , {"b":[{}]} ] `, `[]`, `[{"a":1},]`, `[{"a":"\"]"}]`, `[{"a":[[[[1]]]]}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSplit(t, data)
		checkFrame(t, data)
	})
}

// checkFrame fails unless DecodeServerFrameOwned gives what
// SplitServerFrame and DecodeServer give message by message.
func checkFrame(t interface{ Fatalf(string, ...any) }, data []byte) {
	type out struct {
		raw string
		m   ServerMessage
		bad bool
	}
	var want []out
	parts, werr := SplitServerFrame(data)
	for _, raw := range parts {
		m, err := DecodeServer(raw)
		want = append(want, out{string(raw), m, err != nil})
	}
	var got []out
	gerr := DecodeServerFrameOwned(bytes.Clone(data), func(raw []byte, m ServerMessage, err error) bool {
		got = append(got, out{string(raw), m, err != nil})
		return true
	})
	if (gerr != nil) != (werr != nil) || !reflect.DeepEqual(got, want) {
		t.Fatalf("DecodeServerFrameOwned %+v (%v), want %+v (%v): %s", got, gerr, want, werr, data)
	}
}

// BenchmarkDecodeUpdate: a flag toggle's update, as a client gets it,
// through the fast path and through encoding/json, in one run.
//
//	go test -run '^$' -bench DecodeUpdate -benchmem ./protocol
func BenchmarkDecodeUpdate(b *testing.B) {
	frame := []byte(`{"type":"update","epoch":"01JDQ7Z8X9Y0A1B2C3D4E5F6G7","from":1233,"to":1234,"by":1,"beats":[{"type":"flag","r":7,"c":15,"flagged":true}]}`)
	for _, p := range []struct {
		name   string
		decode func([]byte) (ServerMessage, error)
	}{{"fast", DecodeServer}, {"encoding-json", decodeServerWire}} {
		b.Run(p.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if m, err := p.decode(frame); err != nil || m.Update == nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecodeMatchEnd: the update that ends a Minesweeper match on an
// intermediate board (its view with 200 cells, the room, the result) and a
// snapshot with the same view, through the fast path and through
// encoding/json, in one run.
//
//	go test -run '^$' -bench DecodeMatchEnd -benchmem ./protocol
func BenchmarkDecodeMatchEnd(b *testing.B) {
	var view strings.Builder
	view.WriteString(`{"config":{"level":"intermediate","rows":16,"cols":16,"mines":40},"phase":"won","cells":[`)
	for i := range 200 {
		if i > 0 {
			view.WriteByte(',')
		}
		fmt.Fprintf(&view, `{"r":%d,"c":%d,"status":"revealed","adjacent":%d}`, i/16, i%16, i%4)
	}
	view.WriteString(`]}`)
	room := `{"code":"K7PQ2M","game":{"id":"minesweeper","rulesVersion":"minesweeper/3"},"mode":"coop","phase":"ended","host":0,"seats":[{"name":"bot-1","connected":true,"ready":true},{"name":"bot-2","connected":true,"ready":true}],"spectators":0,"match":3,"settings":{"mode":"coop","level":"intermediate"}}`
	frames := map[string]string{
		"update": `{"type":"update","epoch":"01JDQ7Z8X9Y0A1B2C3D4E5F6G7","from":1233,"to":1234,"by":1,"beats":[{"type":"reveal","seat":1,"r":7,"c":15,"cells":[{"r":7,"c":15,"adjacent":2}]},{"type":"end","phase":"won"}],"room":` + room +
			`,"view":` + view.String() + `,"result":{"match":3,"status":"won","time":81234,"winners":[0,1],"seed":"` + strings.Repeat("ab", 32) + `","commitment":"` + strings.Repeat("cd", 32) + `","config":{"level":"intermediate"},"log":[{"seat":0,"command":{"type":"reveal","r":1,"c":1}}]}}`,
		"snapshot": `{"type":"snapshot","epoch":"01JDQ7Z8X9Y0A1B2C3D4E5F6G7","rev":1234,"seat":1,"view":` + view.String() + `,"room":` + room + `}`,
	}
	for _, kind := range []string{"update", "snapshot"} {
		frame := []byte(frames[kind])
		if _, ok := decodeHot(frame, false, false); !ok {
			b.Fatalf("%s: not on the fast path", kind)
		}
		for _, p := range []struct {
			name   string
			decode func([]byte) (ServerMessage, error)
		}{{"fast", DecodeServer}, {"encoding-json", decodeServerWire}} {
			b.Run(kind+"/"+p.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(frame)))
				for b.Loop() {
					if _, err := p.decode(frame); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
