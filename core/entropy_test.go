package core

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The entropy guard: a match's hidden state may depend on its 256-bit
// secret only through generators at least as wide. No generator with less
// than 128 bits of state (mulberry32, a math/rand or PCG seeded with one
// number) is ever seeded from a match secret or from a Source's output.
// Today's card duel bug was one such line: mulberry32 seeded with the
// secret's first 32-bit output, which made every duel one of 2^32.

// narrowOK are the files (from the module root) that may call
// session.NewRNG or seed a generator from a number: the reference's
// integer seeds (mulberry32 is the reference's generator, and an integer
// seed is all the state it has), and cards/1's derivation, kept only to
// verify the duels played under it.
var narrowOK = map[string]string{
	"core/session/rng.go":     "mulberry32 itself",
	"core/session/seed.go":    "IntSeed: the reference's integer seeds",
	"core/session/stream.go":  "IntSeed's stream: the reference's integer seeds",
	"core/cardgame/legacy.go": "cards/1's derivation, for `roomd verify` of the duels played under it",
}

// seeders are the functions and methods that make or seed a generator from
// numbers: given a Source's output, they narrow it.
var seeders = map[string]bool{
	"NewRNG": true, "IntSeed": true, "NewPCG": true, "NewSource": true, "NewZipf": true,
	"Seed": true, "Mulberry": true, "NewMulberry": true,
}

// draws are the methods whose result is a stream's output.
var draws = map[string]bool{"Uint32": true, "Uint64": true, "Int64": true, "Int63": true, "Int31": true, "Int": true, "Float64": true}

// entropyFindings reports the narrowings in one parsed file, path being
// its name from the module root.
func entropyFindings(fset *token.FileSet, f *ast.File, path string) []string {
	if _, ok := narrowOK[path]; ok {
		return nil
	}
	var out []string
	drawsIn := func(e ast.Node) bool {
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				if sel, ok := c.Fun.(*ast.SelectorExpr); ok && draws[sel.Sel.Name] && len(c.Args) == 0 {
					found = true
				}
			}
			return !found
		})
		return found
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			name := ""
			switch fn := n.Fun.(type) {
			case *ast.Ident:
				name = fn.Name
			case *ast.SelectorExpr:
				name = fn.Sel.Name
			}
			switch {
			case name == "NewRNG":
				out = append(out, fmt.Sprintf("%s: session.NewRNG makes a 32-bit generator: only the reference's integer seeds may (%s)", fset.Position(n.Pos()), strings.Join(okFiles(), ", ")))
			case seeders[name] && slicesAny(n.Args, drawsIn):
				out = append(out, fmt.Sprintf("%s: %s is seeded from a stream's output: a narrower seed than the stream's", fset.Position(n.Pos()), name))
			}
		case *ast.KeyValueExpr:
			if k, ok := n.Key.(*ast.Ident); ok && strings.Contains(strings.ToLower(k.Name), "seed") && drawsIn(n.Value) {
				out = append(out, fmt.Sprintf("%s: field %s is set from a stream's output: a narrower seed than the stream's", fset.Position(n.Pos()), k.Name))
			}
		}
		return true
	})
	return out
}

func okFiles() []string {
	var out []string
	for f := range narrowOK {
		out = append(out, f)
	}
	return out
}

func slicesAny(args []ast.Expr, f func(ast.Node) bool) bool {
	for _, a := range args {
		if f(a) {
			return true
		}
	}
	return false
}

// TestEntropyGuard walks every non-test Go file of the module (games from
// other modules under examples/ included) for a narrowed seed.
func TestEntropyGuard(t *testing.T) {
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != ".." {
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
		rel := filepath.ToSlash(strings.TrimPrefix(path, ".."+string(filepath.Separator)))
		for _, msg := range entropyFindings(fset, f, rel) {
			t.Error(msg)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 200 {
		t.Fatalf("checked only %d files: the walk did not find the module", files)
	}
	for f := range narrowOK {
		if _, err := fs.Stat(osDirFS(".."), f); err != nil {
			t.Errorf("the guard's exception %s: %v (remove it from narrowOK)", f, err)
		}
	}
}

// TestEntropyGuardCatches: the guard finds the duel's old line planted in
// a game package, and the other ways of narrowing a stream, and passes
// what is wide enough (a key filled from eight outputs) or not from a
// stream at all (a reference seed from a record's integer).
func TestEntropyGuardCatches(t *testing.T) {
	bad := map[string]string{
		"the duel's cards/1 line":  `rng := session.NewRNG(int64(seed.Source().Uint32()))`,
		"NewRNG of anything":       `rng := session.NewRNG(n)`,
		"an IntSeed of a draw":     `s := session.IntSeed(int64(src.Uint32()))`,
		"a PCG seeded from a draw": `r := rand.New(rand.NewPCG(src.Uint64(), 1))`,
		"an engine's Seed option":  `g, _ := cards.NewGame(cards.Options{Seed: seed.Source().Uint32()})`,
	}
	good := map[string]string{
		"a key of eight outputs": `for i := 0; i < 32; i += 4 { binary.LittleEndian.PutUint32(key[i:], src.Uint32()) }`,
		"a reference seed":       `s := session.IntSeed(rec.N)`,
		"an engine's own stream": `g, _ := cards.NewGame(cards.Options{Stream: seed.Stream()})`,
		"a pick":                 `j := session.Intn(src, 2)`,
	}
	check := func(name, stmt string, path string) []string {
		src := "package cardgame\nfunc f() {\n" + stmt + "\n}\n"
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return entropyFindings(fset, f, path)
	}
	for name, stmt := range bad {
		if got := check(name, stmt, "core/cardgame/rules.go"); len(got) == 0 {
			t.Errorf("%s (%s) planted in core/cardgame/rules.go: not found", name, stmt)
		}
	}
	for name, stmt := range good {
		if got := check(name, stmt, "core/cardgame/rules.go"); len(got) != 0 {
			t.Errorf("%s (%s): %v", name, stmt, got)
		}
	}
	if got := check("the exception", bad["the duel's cards/1 line"], "core/cardgame/legacy.go"); len(got) != 0 {
		t.Errorf("the cards/1 exception is refused: %v", got)
	}
}

func osDirFS(dir string) fs.FS { return os.DirFS(dir) }
