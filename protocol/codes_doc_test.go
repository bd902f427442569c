package protocol

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/roomd/roomd/core/games"
)

// The codes a client can meet, checked against PROTOCOL.md: every close and
// notice code of codes.go has its row (with when it is sent) in §2.3 or
// §2.4, no row names a code the server does not have, and each game's
// section of §5 lists exactly the game: codes the game's rules can refuse a
// command with. The source is parsed, not imported: protocol does not
// depend on the games.

// docSection returns PROTOCOL.md from the heading that starts with head to
// the next heading of the same or a higher level.
func docSection(t *testing.T, doc, head string) string {
	t.Helper()
	start := strings.Index(doc, "\n"+head)
	if start < 0 {
		t.Fatalf("PROTOCOL.md has no heading %q", head)
	}
	level := strings.Index(head, " ") // the number of #s
	rest := doc[start+1+len(head):]
	end := len(rest)
	for _, h := range regexp.MustCompile(`(?m)^#{1,6} `).FindAllStringIndex(rest, -1) {
		if h[1]-h[0]-1 <= level {
			end = h[0]
			break
		}
	}
	return rest[:end]
}

func readDoc(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile("../PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(doc)
}

// stringConsts returns the string and integer constants declared in the
// Go files of dir (tests left out), by name, as their literal text
// (strings unquoted).
func stringConsts(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range parseDir(t, dir) {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok {
						continue
					}
					v := lit.Value
					if lit.Kind == token.STRING {
						v, _ = strconv.Unquote(v)
					}
					out[name.Name] = v
				}
			}
		}
	}
	return out
}

func parseDir(t *testing.T, dir string) []*ast.File {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	fset := token.NewFileSet()
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// TestCodesDocumented: every Close* and Code* constant has its row in
// PROTOCOL.md (§2.3 for close codes, §2.4 for notice codes), and every row
// is a constant.
func TestCodesDocumented(t *testing.T) {
	doc := readDoc(t)
	consts := stringConsts(t, ".")
	closeRows := rowKeys(docSection(t, doc, "### 2.3"), `(?m)^\| \**(\d{4})\**\s*\|`)
	noticeRows := rowKeys(docSection(t, doc, "### 2.4"), "(?m)^\\| `([a-z-]+)`\\s*\\|")
	closes, notices := map[string]bool{}, map[string]bool{}
	for name, v := range consts {
		switch {
		case strings.HasPrefix(name, "Close"):
			closes[v] = true
			if !closeRows[v] {
				t.Errorf("%s = %s has no row in PROTOCOL.md §2.3", name, v)
			}
		case strings.HasPrefix(name, "Code"):
			notices[v] = true
			if !noticeRows[v] {
				t.Errorf("%s = %q has no row in PROTOCOL.md §2.4", name, v)
			}
		}
	}
	for v := range closeRows {
		if !closes[v] {
			t.Errorf("PROTOCOL.md §2.3 lists close code %s, which protocol/codes.go does not have", v)
		}
	}
	for v := range noticeRows {
		if !notices[v] {
			t.Errorf("PROTOCOL.md §2.4 lists notice code %q, which protocol/codes.go does not have", v)
		}
	}
	if len(closes) < 10 || len(notices) < 20 {
		t.Fatalf("found %d close and %d notice constants in codes.go", len(closes), len(notices))
	}
}

func rowKeys(section, pattern string) map[string]bool {
	keys := map[string]bool{}
	for _, m := range regexp.MustCompile(pattern).FindAllStringSubmatch(section, -1) {
		keys[m[1]] = true
	}
	return keys
}

// notOnTheWire are the game codes a room never sends as they are, and why.
var notOnTheWire = map[string]string{
	"game:Malformed":     "a command the game cannot read is refused with invalid-command (room/state.go)",
	"game:InvalidConfig": "settings the game refuses are refused with invalid-settings (or 400 over HTTP)",
	"game:NoSuchSeat":    "a room only plays the seats of its match",
}

// gameSections are the §5 headings of the games under core/, by package:
// "### " and the game's name (core/games, the one list of games).
func gameSections() map[string]string {
	pkg := regexp.MustCompile(`/core/(\w+)\.Config\b`)
	out := map[string]string{}
	for _, g := range games.All() {
		// The erased game's type names its Config type, in the game's package.
		if m := pkg.FindStringSubmatch(reflect.TypeOf(g).String()); m != nil {
			out[m[1]] = "### " + g.Info().Name
		}
	}
	return out
}

// TestGameCodesDocumented: each game's section of PROTOCOL.md §5 lists
// exactly the game: codes its rules refuse commands with (session.Reject,
// session.Malformed, or a session.Rejection, in the game's package or in
// core/session, whose match runs every game), less those a room never
// sends as they are; and no game: code appears in PROTOCOL.md that no game
// sends.
func TestGameCodesDocumented(t *testing.T) {
	doc := readDoc(t)
	session := stringConsts(t, "../core/session")
	shared := refusalCodes(t, "../core/session", session, session)
	dirs, err := filepath.Glob("../core/*")
	if err != nil {
		t.Fatal(err)
	}
	gameCode := regexp.MustCompile(`game:[A-Za-z]+`)
	sentByAny := map[string]bool{}
	sections := gameSections()
	found := 0
	for _, dir := range dirs {
		name := filepath.Base(dir)
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || name == "session" {
			continue
		}
		own := refusalCodes(t, dir, session, stringConsts(t, dir))
		if len(own) == 0 {
			continue // not a game (core/grid)
		}
		found++
		sent := map[string]bool{}
		for c := range own {
			sent[c] = true
		}
		for c := range shared {
			sent[c] = true
		}
		for c := range notOnTheWire {
			delete(sent, c)
		}
		head, ok := sections[name]
		if !ok {
			t.Errorf("core/%s refuses commands with %v but is not a game of core/games (its sections: %v)", name, sorted(sent), sections)
			continue
		}
		listed := map[string]bool{}
		for _, c := range gameCode.FindAllString(docSection(t, doc, head), -1) {
			listed[c] = true
		}
		for c := range sent {
			sentByAny[c] = true
			if !listed[c] {
				t.Errorf("%s: core/%s can refuse a command with %s; PROTOCOL.md does not list it there", head, name, c)
			}
		}
		for c := range listed {
			if !sent[c] {
				t.Errorf("%s: PROTOCOL.md lists %s, which core/%s never sends", head, c, name)
			}
		}
	}
	if found < len(sections) {
		t.Fatalf("found %d games under core/, core/games lists %d", found, len(sections))
	}
	for _, c := range gameCode.FindAllString(doc, -1) {
		if !sentByAny[c] {
			t.Errorf("PROTOCOL.md mentions %s, which no game sends", c)
		}
	}
}

// refusalCodes returns the codes of the refusals built in dir: the first
// argument of Reject and Malformed (session's, or session.Reject and
// session.Malformed elsewhere) and the Code of a Rejection literal,
// resolved through session's constants and the package's own.
func refusalCodes(t *testing.T, dir string, session, local map[string]string) map[string]bool {
	t.Helper()
	inSession := filepath.Base(dir) == "session"
	codes := map[string]bool{}
	resolve := func(e ast.Expr) {
		var v string
		var ok bool
		switch x := e.(type) {
		case *ast.BasicLit:
			v, _ = strconv.Unquote(x.Value)
			ok = x.Kind == token.STRING
		case *ast.Ident:
			v, ok = local[x.Name]
		case *ast.SelectorExpr:
			if pkg, isIdent := x.X.(*ast.Ident); isIdent && pkg.Name == "session" {
				v, ok = session[x.Sel.Name]
			}
		}
		if !ok || !strings.HasPrefix(v, "game:") {
			t.Errorf("%s: a refusal whose code cannot be told from the source (%T); give it a constant", dir, e)
			return
		}
		codes[v] = true
	}
	named := func(e ast.Expr, names ...string) bool {
		switch x := e.(type) {
		case *ast.Ident:
			return inSession && slices.Contains(names, x.Name)
		case *ast.SelectorExpr:
			pkg, ok := x.X.(*ast.Ident)
			return ok && pkg.Name == "session" && slices.Contains(names, x.Sel.Name)
		}
		return false
	}
	for _, f := range parseDir(t, dir) {
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.FuncDecl:
				// Reject and Malformed themselves build a Rejection of
				// their argument: their callers are what counts.
				return !(inSession && x.Recv == nil && (x.Name.Name == "Reject" || x.Name.Name == "Malformed"))
			case *ast.CallExpr:
				if named(x.Fun, "Reject", "Malformed") && len(x.Args) > 0 {
					resolve(x.Args[0])
				}
			case *ast.CompositeLit:
				if x.Type != nil && named(x.Type, "Rejection") {
					for _, el := range x.Elts {
						if kv, ok := el.(*ast.KeyValueExpr); ok {
							if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Code" {
								resolve(kv.Value)
							}
						}
					}
				}
			}
			return true
		})
	}
	return codes
}

func sorted(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestTerminalMatchesTable: Terminal and ForgetsToken say what the
// "client" column of PROTOCOL.md §2.3 says for each code: "stop" or
// "closed" means terminal, "forget the token" that the token goes.
func TestTerminalMatchesTable(t *testing.T) {
	row := regexp.MustCompile(`(?m)^\| (\d{4}) \|.*\| ([^|]+) \|$`)
	rows := row.FindAllStringSubmatch(docSection(t, readDoc(t), "### 2.3"), -1)
	if len(rows) < 10 {
		t.Fatalf("found %d rows in §2.3", len(rows))
	}
	for _, m := range rows {
		code, _ := strconv.Atoi(m[1])
		client := m[2]
		stop := strings.HasPrefix(client, "stop") || strings.HasPrefix(client, "closed")
		forget := strings.Contains(client, "forget the token")
		if Terminal(code) != stop {
			t.Errorf("Terminal(%d) = %v; PROTOCOL.md says %q", code, Terminal(code), client)
		}
		if ForgetsToken(code) != forget {
			t.Errorf("ForgetsToken(%d) = %v; PROTOCOL.md says %q", code, ForgetsToken(code), client)
		}
	}
}
