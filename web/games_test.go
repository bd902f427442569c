package web

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

// TestOutsideGame: a game brought by a program on roomd as a library is
// served beside the client's own: its page module where the client loads
// pages, its words in each language's table, its core as a module of the
// local core's manifest; a game missing a part, or clashing with the
// client's own, is refused naming it.
func TestOutsideGame(t *testing.T) {
	t.Parallel()
	files := fstest.MapFS{
		"dots.js":      {Data: []byte(`export const id = 'dots';`)},
		"i18n/en.json": {Data: []byte(`{"dots.title":"Dots"}`)},
		"i18n/ja.json": {Data: []byte(`{"dots.title":"ドット"}`)},
		"core.wasm":    {Data: []byte("\x00asm not really")},
	}
	h, err := New(Game{ID: "dots", RulesVersion: "dots/1", Files: files})
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		body, _ := io.ReadAll(rec.Body)
		return rec.Code, string(body)
	}
	_, index := get("/")
	prefix := regexp.MustCompile(`/assets/[0-9a-f]+`).FindString(index)
	if prefix == "" || prefix == "/assets/"+Version() {
		t.Fatalf("the assets' version %q: the game's files must change it from the client's own %s", prefix, Version())
	}
	if code, body := get(prefix + "/js/games/dots.js"); code != 200 || !strings.Contains(body, "'dots'") {
		t.Fatalf("the page module: %d %s", code, body)
	}
	if code, _ := get(prefix + "/js/games/tictactoe.js"); code != 200 {
		t.Fatalf("the client's own page: %d", code)
	}
	for lang, want := range map[string]string{"en": "Dots", "ja": "ドット"} {
		_, body := get(prefix + "/i18n/" + lang + ".json")
		var table map[string]string
		json.Unmarshal([]byte(body), &table)
		if table["dots.title"] != want || table["tictactoe.board"] == "" {
			t.Fatalf("%s table: dots.title %q, tictactoe.board %q", lang, table["dots.title"], table["tictactoe.board"])
		}
	}
	_, body := get(prefix + "/wasm/manifest.json")
	var m struct {
		Modules []struct {
			Name, URL string
			Games     []string
		}
		Games []struct{ ID, RulesVersion string }
	}
	json.Unmarshal([]byte(body), &m)
	found := false
	for _, mod := range m.Modules {
		found = found || mod.Name == "dots" && mod.URL == "core-dots.wasm" && len(mod.Games) == 1 && mod.Games[0] == "dots"
	}
	if !found || len(m.Modules) < 3 || m.Games[len(m.Games)-1].RulesVersion != "dots/1" {
		t.Fatalf("manifest %s", body)
	}
	if code, body := get(prefix + "/wasm/core-dots.wasm"); code != 200 || body != "\x00asm not really" {
		t.Fatalf("the core: %d %q", code, body)
	}

	without := func(name string) fstest.MapFS {
		out := fstest.MapFS{}
		for k, v := range files {
			if k != name {
				out[k] = v
			}
		}
		return out
	}
	for name, c := range map[string]struct {
		g    Game
		want string
	}{
		"no page":         {Game{ID: "dots", Files: without("dots.js")}, "page module"},
		"no Japanese":     {Game{ID: "dots", Files: without("i18n/ja.json")}, "words in ja"},
		"a built-in id":   {Game{ID: "nim", Files: files}, "has a game of that id"},
		"a bad id":        {Game{ID: "Dots!", Files: files}, "an id is"},
		"a foreign key":   {Game{ID: "dots", Files: fstest.MapFS{"dots.js": files["dots.js"], "i18n/en.json": {Data: []byte(`{"app.title":"x"}`)}, "i18n/ja.json": files["i18n/ja.json"]}}, "namespace"},
		"no files at all": {Game{ID: "dots"}, "no files"},
	} {
		if _, err := New(c.g); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, c.want)
		}
	}
}
