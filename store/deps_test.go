package store

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLinksNoImplementation: package store imports the standard library
// only (no bbolt, no go-redis, no implementation), and the room layer
// imports the interface, never an implementation: linking room/ links no
// store driver.
func TestLinksNoImplementation(t *testing.T) {
	for _, tc := range []struct {
		dir string
		bad func(path string) bool
		why string
	}{
		{".", func(p string) bool { return strings.Contains(strings.Split(p, "/")[0], ".") },
			"package store is the interface: standard library only"},
		{"../room", func(p string) bool { return strings.HasPrefix(p, "github.com/roomd/roomd/store/") },
			"room/ uses the store interface; cmd/ picks an implementation"},
	} {
		imports := importsOf(t, tc.dir)
		if len(imports) == 0 {
			t.Fatalf("%s: no imports found", tc.dir)
		}
		for p, at := range imports {
			if tc.bad(p) {
				t.Errorf("%s imports %q: %s", at, p, tc.why)
			}
		}
	}
}

// importsOf returns the imports of the non-test Go files in dir, each with
// where it is imported.
func importsOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	out := map[string]string{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			out[p] = fset.Position(imp.Pos()).String()
		}
	}
	return out
}
