package roomd_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The package boundaries of ARCHITECTURE.md, checked on the source:
// dependencies point one way (core ← room ← transport ← cmd, protocol
// shared, storage behind an interface). core/determinism_test.go checks
// what core/ may import from the standard library; this checks what each
// part may import from the project, and what the bot links.

const module = "github.com/roomd/roomd"

// rule forbids packages under from importing packages under any of deny,
// unless the import is also under one of allow.
type rule struct {
	from  string
	deny  []string
	allow []string
	why   string
}

var rules = []rule{
	{from: "core", deny: []string{""}, allow: []string{"core"}, why: "core imports nothing of the project but core"},
	{from: "protocol", deny: []string{""}, allow: []string{"core"}, why: "protocol imports only core, where it must"},
	{from: "room", deny: []string{"transport", "store/memstore", "store/boltstore", "store/redisstore", "store/storetest", "cmd", "web"},
		why: "room never imports transport or a store implementation"},
	{from: "transport", deny: []string{"core", "store", "cmd", "web"},
		why: "transport never imports core/* or store/* (games and storage reach it only through room)"},
	{from: "store", deny: []string{"core", "room", "transport", "protocol", "cmd", "web"}, why: "store imports no game and nothing above it"},
	{from: "internal", deny: []string{""}, allow: []string{"internal"}, why: "internal helpers are leaves"},
	{from: "examples", deny: []string{""}, allow: publicAPI,
		why: "a game outside roomd's tree uses the public API only: package roomd, core/session (the game contract, sessiontest the kit), protocol and transport/client (the wire and the Go client), web/wasmcore and web/webtest, cmd/roombot/bot (roombot)"},
}

// exceptions are the imports a rule would forbid that are allowed, each
// exactly (package, import) and why. Adding one is a decision to state in
// ARCHITECTURE.md.
var exceptions = []struct{ pkg, dep, why string }{
	{"transport/local", "store/memstore", "package local wires a room in this process over a store that keeps nothing, as cmd/ wires one over a real store"},
}

func excepted(pkg, dep string) bool {
	return slices.ContainsFunc(exceptions, func(e struct{ pkg, dep, why string }) bool { return e.pkg == pkg && e.dep == dep })
}

// publicAPI are the packages a program on roomd as a library imports: the
// top layer, package roomd (the module's root, "."), and what its types
// and a game's tests name. Below them are roomd's insides.
var publicAPI = []string{".", "core/session", "protocol", "transport/client", "web/wasmcore", "web/webtest", "cmd/roombot/bot"}

// top is the public API's layer: only commands and the examples import it.
func topImporters(graph map[string][]string) []string {
	var bad []string
	for pkg, deps := range graph {
		if pkg == "." || under(pkg, "cmd") || under(pkg, "examples") {
			continue
		}
		if slices.Contains(deps, ".") {
			bad = append(bad, pkg+" imports the root package roomd: it is the top layer, above every other")
		}
	}
	return bad
}

// stdlibOnly are packages that import nothing outside the standard library
// and the project: the store interface links no database driver.
var stdlibOnly = []string{"store"}

// links forbids a command from linking packages, directly or not.
var links = map[string][]string{
	"cmd/roombot": {"room", "store"},
}

// under reports whether pkg (module-relative) is dir or below it; "" is
// every package of the module.
func under(pkg, dir string) bool {
	return dir == "" || pkg == dir || strings.HasPrefix(pkg, dir+"/")
}

// imports parses every non-test Go file of the module and returns, per
// package directory, its imports of the module (module-relative) and of
// other modules (full paths, prefixed "ext:").
func imports(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			rel, ok := strings.CutPrefix(p, module+"/")
			if p == module {
				rel, ok = ".", true // the public API, package roomd
			}
			if !ok && strings.Contains(strings.Split(p, "/")[0], ".") {
				rel, ok = "ext:"+p, true
			}
			if ok && !slices.Contains(out[dir], rel) {
				out[dir] = append(out[dir], rel)
			}
		}
		if _, ok := out[dir]; !ok {
			out[dir] = nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// violations lists every import that breaks a rule, and every forbidden
// package a command links.
func violations(graph map[string][]string) []string {
	var bad []string
	for _, pkg := range stdlibOnly {
		for _, dep := range graph[pkg] {
			if strings.HasPrefix(dep, "ext:") {
				bad = append(bad, pkg+" imports "+strings.TrimPrefix(dep, "ext:")+": it is an interface, it links no driver")
			}
		}
	}
	for pkg, deps := range graph {
		for _, r := range rules {
			if !under(pkg, r.from) {
				continue
			}
			for _, dep := range deps {
				if strings.HasPrefix(dep, "ext:") {
					continue
				}
				denied := slices.ContainsFunc(r.deny, func(d string) bool { return under(dep, d) })
				allowed := under(dep, r.from) || slices.ContainsFunc(r.allow, func(a string) bool { return under(dep, a) })
				if denied && !allowed && !excepted(pkg, dep) {
					bad = append(bad, pkg+" imports "+dep+": "+r.why)
				}
			}
		}
	}
	for cmd, forbidden := range links {
		seen := map[string]bool{}
		var walk func(string)
		walk = func(p string) {
			if seen[p] {
				return
			}
			seen[p] = true
			for _, d := range graph[p] {
				walk(d)
			}
		}
		walk(cmd)
		for p := range seen {
			for _, f := range forbidden {
				if under(p, f) {
					bad = append(bad, cmd+" links "+p)
				}
			}
		}
	}
	bad = append(bad, topImporters(graph)...)
	slices.Sort(bad)
	return bad
}

func TestPackageBoundaries(t *testing.T) {
	graph := imports(t)
	for _, must := range []string{".", "core/session", "room", "transport", "store", "protocol", "cmd/roombot"} {
		if _, ok := graph[must]; !ok {
			t.Fatalf("package %s not found: the walk is blind", must)
		}
	}
	for _, v := range violations(graph) {
		t.Error(v)
	}
}

// TestPackageBoundariesCatch proves the check is not blind: a graph with
// one breach of each kind gives one violation each.
func TestPackageBoundariesCatch(t *testing.T) {
	graph := map[string][]string{
		"core/x":           {"protocol"},
		"protocol":         {"room"},
		"room":             {"store/boltstore", "transport/client", "core/session", "store"},
		"transport":        {"core/minesweeper", "room", "store"},
		"transport/admin":  {"room", "store/memstore"},
		"transport/local":  {"room", "store/memstore", "store/boltstore"},
		"store/memstore":   {"core/session", "store"},
		"cmd/roombot":      {"transport/client"},
		"transport/client": {"protocol", "internal/ids"},
		"internal/ids":     {"store/memstore"},
		"store/boltstore":  {"store"},
		"core/session":     nil,
		"core/minesweeper": {"core/session"},
		"store":            {"ext:go.etcd.io/bbolt"},
		".":                {"room", "transport", "store/boltstore"},
		"room/x":           {"."},
		"cmd/roomd":        {"."},
		"examples/game":    {".", "core/session", "room"},
	}
	got := violations(graph)
	want := []string{
		"cmd/roombot links room", // through transport/client → protocol → room
		"cmd/roombot links store",
		"cmd/roombot links store/boltstore",
		"cmd/roombot links store/memstore",
		"core/x imports protocol",
		"examples/game imports room",
		"internal/ids imports store/memstore",
		"protocol imports room",
		"room imports store/boltstore",
		"room imports transport/client",
		"room/x imports the root package roomd",
		"store imports go.etcd.io/bbolt",
		"store/memstore imports core/session",
		"transport imports core/minesweeper",
		"transport imports store",
		"transport/admin imports store/memstore",
		"transport/local imports store/boltstore",
	}
	var short []string
	for _, v := range got {
		short = append(short, strings.SplitN(v, ":", 2)[0])
	}
	if !slices.Equal(short, want) {
		t.Fatalf("violations:\n%s\nwant:\n%s", strings.Join(short, "\n"), strings.Join(want, "\n"))
	}
}
