package core

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// forbiddenImports would give core/ a clock, system randomness or I/O.
var forbiddenImports = map[string]string{
	"time":         "clocks are injected; core/ never reads time",
	"math/rand":    "randomness comes from the seeded RNG (session.RNG)",
	"math/rand/v2": "randomness comes from the seeded RNG (session.RNG)",
	"crypto/rand":  "randomness comes from the seeded RNG (session.RNG)",
	"os":           "core/ does no I/O",
	"os/exec":      "core/ does no I/O",
	"io/ioutil":    "core/ does no I/O",
	"net":          "core/ does no I/O",
	"net/http":     "core/ does no I/O",
	"syscall":      "core/ does no I/O",
}

// chachaFiles may import math/rand/v2, for its seeded ChaCha8 only.
var chachaFiles = map[string]bool{"session/seed.go": true, "session/stream.go": true}

// TestDeterminismGuard fails if any non-test Go file under core/ imports the
// wall clock, system randomness, the OS or the network, or starts a
// goroutine.
func TestDeterminismGuard(t *testing.T) {
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		files++
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if why, bad := forbiddenImports[p]; bad && !(chachaFiles[filepath.ToSlash(path)] && p == "math/rand/v2") {
				t.Errorf("%s imports %q: %s", fset.Position(imp.Pos()), p, why)
			}
		}
		if chachaFiles[filepath.ToSlash(path)] {
			// The one use of math/rand/v2: ChaCha8 keyed with a seed —
			// never its global, system-seeded functions.
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == "rand" && sel.Sel.Name != "NewChaCha8" && sel.Sel.Name != "ChaCha8" {
						t.Errorf("%s uses rand.%s: only the seeded ChaCha8 is allowed", fset.Position(sel.Pos()), sel.Sel.Name)
					}
				}
				return true
			})
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				t.Errorf("%s starts a goroutine: core/ runs on its caller's goroutine", fset.Position(n.Pos()))
			case *ast.SelectorExpr:
				if id, ok := n.X.(*ast.Ident); ok && id.Name == "time" && (n.Sel.Name == "Now" || n.Sel.Name == "Since") {
					t.Errorf("%s reads the wall clock", fset.Position(n.Pos()))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 10 {
		t.Fatalf("checked only %d files: the walk did not find core/", files)
	}
}

// TestDeterminismGuardCatches proves the guard is not blind: it parses a
// forbidden source and expects every kind of violation to be found.
func TestDeterminismGuardCatches(t *testing.T) {
	src := `package x
import ("time"; "math/rand"; "os")
func f() { go func(){}(); _ = time.Now(); _ = rand.Int(); _ = os.Args }`
	f, err := parser.ParseFile(token.NewFileSet(), "x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if _, bad := forbiddenImports[p]; bad {
			found = append(found, p)
		}
	}
	goStmts := 0
	ast.Inspect(f, func(n ast.Node) bool {
		if _, ok := n.(*ast.GoStmt); ok {
			goStmts++
		}
		return true
	})
	if len(found) != 3 || goStmts != 1 {
		t.Fatalf("guard found imports %v and %d go statements; want 3 and 1", found, goStmts)
	}
}
