package web

import (
	"encoding/json"
	"io/fs"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/roomd/roomd/core/games"
)

// i18nNamespaces are the tables i18n.js loads: one file per part of the
// client, in every language — the app's, local play's, and each built-in
// game's (core/games).
var i18nNamespaces = append([]string{"app", "local"}, games.IDs()...)

var i18nLangs = []string{"en", "ja"}

// readTables reads lang's tables, merged, with the namespace each key came
// from.
func readTables(t *testing.T, lang string) (map[string]string, map[string]string) {
	t.Helper()
	all, from := map[string]string{}, map[string]string{}
	for _, ns := range i18nNamespaces {
		raw, err := os.ReadFile(path.Join("static", "i18n", lang, ns+".json"))
		if err != nil {
			t.Fatalf("%s/%s: %v", lang, ns, err)
		}
		var tbl map[string]string
		if err := json.Unmarshal(raw, &tbl); err != nil {
			t.Fatalf("%s/%s.json: %v", lang, ns, err)
		}
		for k, v := range tbl {
			if !strings.HasPrefix(k, ns+".") {
				t.Errorf("%s/%s.json: key %q is not in its namespace (%s.…)", lang, ns, k, ns)
			}
			if _, dup := all[k]; dup {
				t.Errorf("%s: key %q in two files", lang, k)
			}
			all[k], from[k] = v, ns
		}
	}
	return all, from
}

var placeholder = regexp.MustCompile(`\{(\w+)\}`)

func placeholders(s string) []string {
	var out []string
	for _, m := range placeholder.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// tCall finds the keys the client's modules look up: t('ns.key' …).
var tCall = regexp.MustCompile(`\bt\(\s*['"]([a-z0-9]+\.[A-Za-z0-9_.-]+)['"]`)

// TestTranslationsComplete fails when a string has no translation: every
// key a module looks up with t() is in every language's tables, every
// language has the same keys with the same {placeholders} and no empty
// text, and no table holds a key no module uses.
func TestTranslationsComplete(t *testing.T) {
	t.Parallel()
	tables := map[string]map[string]string{}
	for _, l := range i18nLangs {
		tables[l], _ = readTables(t, l)
	}
	en := tables["en"]
	used := map[string]string{} // key → a file that uses it
	err := fs.WalkDir(os.DirFS("static/js"), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".js") {
			return err
		}
		src, err := os.ReadFile(path.Join("static/js", p))
		if err != nil {
			return err
		}
		for _, m := range tCall.FindAllSubmatch(src, -1) {
			used[string(m[1])] = p
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(used) == 0 {
		t.Fatal("no module looks up a translation")
	}
	for _, k := range slices.Sorted(maps.Keys(used)) {
		for _, l := range i18nLangs {
			if _, ok := tables[l][k]; !ok {
				t.Errorf("%s uses %q, which has no %s text", used[k], k, l)
			}
		}
	}
	for _, l := range i18nLangs {
		for k, v := range tables[l] {
			if strings.TrimSpace(v) == "" {
				t.Errorf("%s: %q is empty", l, k)
			}
			e, ok := en[k]
			if !ok {
				t.Errorf("%s has %q, English does not", l, k)
				continue
			}
			if !slices.Equal(placeholders(v), placeholders(e)) {
				t.Errorf("%s: %q has placeholders %v, English %v", l, k, placeholders(v), placeholders(e))
			}
		}
		for k := range en {
			if _, ok := tables[l][k]; !ok {
				t.Errorf("%q has no %s text", k, l)
			}
		}
	}
	// Keys built at run time ("ms.level." + id) are listed where they are
	// made with a comment `// i18n: ns.prefix.*`; the others must be used.
	dynamic := dynamicPrefixes(t)
	for k := range en {
		if _, ok := used[k]; ok || slices.ContainsFunc(dynamic, func(p string) bool { return strings.HasPrefix(k, p) }) {
			continue
		}
		t.Errorf("%q is in the tables but no module uses it", k)
	}
}

// dynamicPrefixes are the key prefixes modules declare with a comment
// "// i18n: ns.some.prefix.*" where they build keys at run time.
func dynamicPrefixes(t *testing.T) []string {
	t.Helper()
	re := regexp.MustCompile(`i18n: ([a-z0-9]+\.[A-Za-z0-9_.-]*)\*`)
	var out []string
	fs.WalkDir(os.DirFS("static/js"), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".js") {
			return err
		}
		src, _ := os.ReadFile(path.Join("static/js", p))
		for _, m := range re.FindAllSubmatch(src, -1) {
			out = append(out, string(m[1]))
		}
		return nil
	})
	return out
}

// hardCoded finds user-visible English left in a module: a text, title,
// placeholder or aria-label given as a literal, or a literal child of h().
var hardCoded = regexp.MustCompile(`(?:\btext:|\btitle:|\bplaceholder:|'aria-label':|\}, )\s*['"` + "`" + `][A-Za-z][a-z]+[ ,.!?:'a-z]`)

// TestNoHardCodedStrings fails when a module of the client shows a
// literal English string instead of looking it up (TestTranslationsComplete
// then checks the lookups). Lines marked `// i18n-ok` (a brand name, a
// code shown as is) are exempt.
func TestNoHardCodedStrings(t *testing.T) {
	t.Parallel()
	err := fs.WalkDir(os.DirFS("static/js"), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".js") {
			return err
		}
		src, err := os.ReadFile(path.Join("static/js", p))
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(src), "\n") {
			trim := strings.TrimSpace(line)
			if strings.HasPrefix(trim, "//") || strings.HasPrefix(trim, "*") || strings.Contains(line, "i18n-ok") {
				continue
			}
			if m := hardCoded.FindString(line); m != "" {
				t.Errorf("static/js/%s:%d: a literal string shown to players (%s…): use t()", p, i+1, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestTranslationsBundled: the page's one table per language
// (i18n/{lang}.json, merged by the handler) holds every part's words and
// nothing else; a key in two parts, or a part that is not a table of
// strings, is refused when the handler is built.
func TestTranslationsBundled(t *testing.T) {
	t.Parallel()
	h := Handler()
	for _, l := range i18nLangs {
		want, _ := readTables(t, l)
		req := httptest.NewRequest(http.MethodGet, AssetPrefix+Version()+"/i18n/"+l+".json", nil)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" ||
			!strings.Contains(rec.Header().Get("Cache-Control"), "immutable") {
			t.Fatalf("%s: %d %q %q", l, rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get("Cache-Control"))
		}
		var got map[string]string
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		if !maps.Equal(got, want) {
			t.Errorf("%s: the bundle has %d keys, the parts %d", l, len(got), len(want))
		}
	}
	for name, files := range map[string]fstest.MapFS{
		"a key twice": {
			"i18n/en/app.json":  {Data: []byte(`{"app.x": "X"}`)},
			"i18n/en/game.json": {Data: []byte(`{"app.x": "Y"}`)},
		},
		"not strings": {"i18n/en/app.json": {Data: []byte(`{"app.x": 1}`)}},
		"not JSON":    {"i18n/en/app.json": {Data: []byte(`{"app.x": `)}},
	} {
		if _, err := bundleTables(files); err == nil {
			t.Errorf("%s: bundled", name)
		}
	}
	got, err := bundleTables(fstest.MapFS{
		"i18n/en/app.json":  {Data: []byte(`{"app.x": "X"}`)},
		"i18n/en/game.json": {Data: []byte(`{"game.y": "Y"}`)},
		"i18n/ja/app.json":  {Data: []byte(`{"app.x": "エックス"}`)},
	})
	if err != nil || string(got["i18n/en.json"]) != `{"app.x":"X","game.y":"Y"}` || string(got["i18n/ja.json"]) != `{"app.x":"エックス"}` {
		t.Errorf("bundled %q, %v", got, err)
	}
}
