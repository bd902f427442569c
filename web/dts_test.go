package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/roomd/roomd/protocol"
	"github.com/roomd/roomd/web/internal/tsgen"
)

// TestProtocolDeclarations regenerates static/js/protocol.d.ts from the
// protocol's schema in memory and compares it, byte for byte, with the
// file checked in.
func TestProtocolDeclarations(t *testing.T) {
	t.Parallel()
	want, err := tsgen.Protocol()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("static", "js", "protocol.d.ts")
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: run go generate ./web", err)
	}
	if !bytes.Equal(have, want) {
		hl, wl := strings.Split(string(have), "\n"), strings.Split(string(want), "\n")
		i := 0
		for i < len(hl) && i < len(wl) && hl[i] == wl[i] {
			i++
		}
		line := func(l []string) string {
			if i < len(l) {
				return l[i]
			}
			return "(end of file)"
		}
		t.Fatalf("%s is out of date: run go generate ./web\n  line %d is %q\n  the schema gives %q", path, i+1, line(hl), line(wl))
	}
}

// TestDeclarationsSane checks the .d.ts files without a TypeScript
// compiler: brackets balance, every $defs entry of the schema is declared
// in protocol.d.ts, and every name client.d.ts imports from it exists.
func TestDeclarationsSane(t *testing.T) {
	t.Parallel()
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join("static", "js", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	proto, client := read("protocol.d.ts"), read("client.d.ts")
	for name, src := range map[string]string{"protocol.d.ts": proto, "client.d.ts": client} {
		if err := balanced(src); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}

	schema, err := protocol.Schema()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Defs map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal(schema, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Defs) == 0 {
		t.Fatal("the schema has no $defs: the check would see nothing")
	}
	declared := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^export (?:interface|type) ([A-Za-z_$][\w$]*)`).FindAllStringSubmatch(proto, -1) {
		declared[m[1]] = true
	}
	for name := range doc.Defs {
		if !declared[name] {
			t.Errorf("protocol.d.ts does not declare $defs/%s", name)
		}
	}

	imp := regexp.MustCompile(`(?s)import type \{([^}]*)\} from '\./protocol\.js';`).FindStringSubmatch(client)
	if imp == nil {
		t.Fatal("client.d.ts does not import its message types from ./protocol.js")
	}
	for _, item := range strings.Split(imp[1], ",") {
		name, _, _ := strings.Cut(strings.TrimSpace(item), " as ")
		if name != "" && !declared[name] {
			t.Errorf("client.d.ts imports %s, which protocol.d.ts does not declare", name)
		}
	}
}

// balanced reports the first bracket of src that does not match, outside
// strings and comments.
func balanced(src string) error {
	var stack []rune
	pairs := map[rune]rune{')': '(', ']': '[', '}': '{'}
	line := 1
	for i := 0; i < len(src); i++ {
		c := rune(src[i])
		switch {
		case c == '\n':
			line++
		case strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
			line++
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return fmt.Errorf("line %d: unterminated comment", line)
			}
			line += strings.Count(src[i:i+2+end], "\n")
			i += end + 3
		case c == '"' || c == '\'':
			for i++; i < len(src) && rune(src[i]) != c; i++ {
				if src[i] == '\\' {
					i++
				}
				if src[i] == '\n' {
					return fmt.Errorf("line %d: unterminated string", line)
				}
			}
		case c == '(' || c == '[' || c == '{':
			stack = append(stack, c)
		case pairs[c] != 0:
			if len(stack) == 0 || stack[len(stack)-1] != pairs[c] {
				return fmt.Errorf("line %d: unmatched %c", line, c)
			}
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) > 0 {
		return fmt.Errorf("%d unclosed brackets at the end", len(stack))
	}
	return nil
}
