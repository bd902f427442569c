package protocol

import (
	"encoding/json"
	"strings"
	"testing"
)

var validSeeds = []string{
	``, ` `, `{}`, `[]`, `""`, `0`, `-0`, `-`, `01`, `1.`, `1.5`, `1e5`, `1E+5`, `1e-5`, `1e`, `.5`, `-.5`, `1.5e`,
	`true`, `false`, `null`, `nul`, `truex`, `tru`, `"\u00e9"`, `"\u00g9"`, `"\u00"`, `"\x"`, `"\/"`, "\"\x01\"", "\"\x7f\"",
	"\"\xff\xfe\"", `"a`, `"\"`, `{"a":1}`, `{"a":1,}`, `{"a"}`, `{"a":}`, `{a:1}`, `{"a":1 "b":2}`, `[1,]`, `[,1]`, `[1 2]`,
	` [ 1 , { "a" : [ true , null ] } ] `, `[1]]`, `{}}`, `[[[]]]`, `1 2`, "\t\n\r{}\n", "\v{}", `{"a":1}x`,
	`{"config":{"level":"expert"},"phase":"won","cells":[{"r":1,"c":2,"status":"revealed","adjacent":3}]}`,
}

func TestValidJSON(t *testing.T) {
	for _, s := range validSeeds {
		if got, want := validJSON([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("validJSON(%q) = %v, json.Valid %v", s, got, want)
		}
	}
	for _, n := range []int{maxValidDepth - 1, maxValidDepth, maxValidDepth + 1, 9999, 10000, 10001} {
		for _, pair := range [][2]string{{"[", "]"}, {`{"a":`, "}"}} {
			s := strings.Repeat(pair[0], n) + "1" + strings.Repeat(pair[1], n)
			if got, want := validJSON([]byte(s)), json.Valid([]byte(s)); got != want {
				t.Errorf("depth %d %s: validJSON %v, json.Valid %v", n, pair[0], got, want)
			}
		}
	}
}

// FuzzValidJSON: validJSON answers as json.Valid on any input.
func FuzzValidJSON(f *testing.F) {
	for _, s := range validSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := validJSON(data), json.Valid(data); got != want {
			t.Fatalf("validJSON(%q) = %v, json.Valid %v", data, got, want)
		}
	})
}

// BenchmarkValidJSON: a 16×16 board's view (200 cells), by validJSON and
// by json.Valid, in one run.
//
//	go test -run '^$' -bench ValidJSON -benchmem ./protocol
func BenchmarkValidJSON(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"config":{"level":"intermediate"},"phase":"won","cells":[`)
	for i := range 200 {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"r":12,"c":7,"status":"revealed","adjacent":2}`)
	}
	sb.WriteString(`]}`)
	view := []byte(sb.String())
	for _, p := range []struct {
		name  string
		valid func([]byte) bool
	}{{"validJSON", validJSON}, {"json.Valid", json.Valid}} {
		b.Run(p.name, func(b *testing.B) {
			b.SetBytes(int64(len(view)))
			for b.Loop() {
				if !p.valid(view) {
					b.Fatal("invalid")
				}
			}
		})
	}
}
