package web_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// findNode returns Node's path; the test is skipped without one unless
// CI=true.
func findNode(t *testing.T) string {
	t.Helper()
	name := "node"
	if p := os.Getenv("NODE"); p != "" {
		name = p
	}
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("node is not installed (CI=true): %v", err)
		}
		t.Skipf("node is not installed; skipping (set NODE): %v", err)
	}
	return p
}

// TestClientModuleNode runs testdata/client_test.js under Node, where there
// is no DOM, no WebSocket and no localStorage: the client module must work
// from its ports alone (a fake socket, a fake clock, memory tokens).
func TestClientModuleNode(t *testing.T) { runNodeScript(t, "client_test.js") }

// TestClientTicksNode runs testdata/client_tick_test.js under Node: the
// ticks of a real-time match (PROTOCOL.md §2.7) applied while they follow
// the revision and the last tick, a gap in either answered by one resync
// with the ticks after it dropped until the snapshot, the snapshot's and a
// new match's tick, and a resync refused for now asked again.
func TestClientTicksNode(t *testing.T) { runNodeScript(t, "client_tick_test.js") }

// TestLocalRunnerNode runs testdata/local_runner_test.js under Node: the
// local session runner on the committed WebAssembly core — a game against
// the AI to its end, undo by policy (limited, refused, counted), the
// pass-and-play hand-off screen hiding every hand and beat, the daily
// board the same on one date and another on the next, and saves that
// restore the same game or say why they cannot.
func TestLocalRunnerNode(t *testing.T) { runNodeScript(t, "local_runner_test.js") }

// TestAPIModuleNode runs testdata/api_test.js under Node: leaderboard
// entries of either shape ({name, value} or {name, time}).
func TestAPIModuleNode(t *testing.T) { runNodeScript(t, "api_test.js") }

// runNodeScript evaluates a testdata script, an expression whose value is
// a list of failures, as an ES module under Node, with ASSETS replaced by a
// file: URL of static/.
func runNodeScript(t *testing.T, name string) { t.Helper(); runNodeScriptWith(t, name, nil) }

// runNodeScriptWith is runNodeScript with more words of the script
// replaced: each key of with by its value.
func runNodeScriptWith(t *testing.T, name string, with map[string]string) {
	t.Helper()
	node := findNode(t)
	script, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	js := strings.ReplaceAll(string(script), "ASSETS", staticURL(t))
	for k, v := range with {
		js = strings.ReplaceAll(js, k, v)
	}
	runNodeModule(t, name, node, "const failures = await ("+js+");\nprocess.stdout.write(JSON.stringify(failures), () => process.exit(0));\n")
}

// staticURL is a file: URL of static/, for modules Node imports.
func staticURL(t *testing.T) string {
	t.Helper()
	static, err := filepath.Abs("static")
	if err != nil {
		t.Fatal(err)
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(static)}).String()
}

// runNodeModule runs prog, an ES module that writes a JSON list of
// failures to its standard output, under Node, and reports each failure.
func runNodeModule(t *testing.T, name, node, prog string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--input-type=module")
	cmd.Stdin = strings.NewReader(prog)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", name, err, stderr.String())
	}
	var failures []string
	if err := json.Unmarshal(out, &failures); err != nil {
		t.Fatalf("node %s printed %q: %v\n%s", name, out, err, stderr.String())
	}
	for _, f := range failures {
		t.Errorf("%s: %s", name, f)
	}
}

// TestClientModuleStandalone checks that client.js imports nothing and
// touches no DOM: its code (comments aside) names no document or window
// and has no import.
func TestClientModuleStandalone(t *testing.T) {
	t.Parallel()
	f, err := os.Open(filepath.Join("static", "js", "client.js"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	banned := []*regexp.Regexp{
		regexp.MustCompile(`\bdocument\b`), regexp.MustCompile(`\bwindow\b`),
		regexp.MustCompile(`^\s*import\b`), regexp.MustCompile(`\bimport\s*\(`), regexp.MustCompile(`^\s*export\b.*\bfrom\b`),
	}
	inComment := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		code := stripComments(sc.Text(), &inComment)
		for _, re := range banned {
			if re.MatchString(code) {
				t.Errorf("client.js:%d: %s: the client module must not use the page (%s)", n, strings.TrimSpace(sc.Text()), re)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// stripComments returns a line's code without its comments; inComment
// carries a block comment across lines. Strings are not parsed: a "//" in
// one cuts the rest of the line, which only hides code from the check.
func stripComments(line string, inComment *bool) string {
	var b strings.Builder
	for len(line) > 0 {
		if *inComment {
			end := strings.Index(line, "*/")
			if end < 0 {
				return b.String()
			}
			line = line[end+2:]
			*inComment = false
			continue
		}
		block, lineC := strings.Index(line, "/*"), strings.Index(line, "//")
		switch {
		case lineC >= 0 && (block < 0 || lineC < block):
			b.WriteString(line[:lineC])
			return b.String()
		case block >= 0:
			b.WriteString(line[:block])
			line = line[block+2:]
			*inComment = true
		default:
			b.WriteString(line)
			return b.String()
		}
	}
	return b.String()
}
