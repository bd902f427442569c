package web_test

import (
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/roomd/roomd/web"
)

func get(t *testing.T, h http.Handler, method, path string, hdr map[string]string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func body(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestHandlerAppRoutes(t *testing.T) {
	t.Parallel()
	h := web.Handler()
	asset := web.AssetPrefix + web.Version()
	for _, path := range []string{"/", "/index.html", "/r/K7QXMP", "/r/k7qxmp/", "/r/ABC?watch"} {
		t.Run(path, func(t *testing.T) {
			resp := get(t, h, http.MethodGet, path, nil)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d", resp.StatusCode)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			if cc := resp.Header.Get("Cache-Control"); cc != "no-cache" {
				t.Errorf("Cache-Control %q, want no-cache", cc)
			}
			csp := resp.Header.Get("Content-Security-Policy")
			if !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "connect-src 'self'") {
				t.Errorf("Content-Security-Policy %q", csp)
			}
			b := body(t, resp)
			if !strings.Contains(b, `src="`+asset+`/js/app.js"`) || strings.Contains(b, "{{ASSETS}}") {
				t.Errorf("index.html does not point at %s:\n%s", asset, b)
			}
		})
	}
}

func TestHandlerAssets(t *testing.T) {
	t.Parallel()
	h := web.Handler()
	v := web.AssetPrefix + web.Version()
	for _, tc := range []struct{ path, ctype, cache string }{
		{v + "/js/app.js", "text/javascript; charset=utf-8", "immutable"},
		{v + "/js/client.js", "text/javascript; charset=utf-8", "immutable"},
		{v + "/js/games/minesweeper.js", "text/javascript; charset=utf-8", "immutable"},
		{v + "/js/games/minesweeper/settings.js", "text/javascript; charset=utf-8", "immutable"},
		{v + "/js/registry.js", "text/javascript; charset=utf-8", "immutable"},
		{v + "/js/games/snake.js", "text/javascript; charset=utf-8", "immutable"},
		{v + "/js/games/snake/world.js", "text/javascript; charset=utf-8", "immutable"},
		{v + "/img/snake.svg", "image/svg+xml", "immutable"},
		{v + "/css/app.css", "text/css; charset=utf-8", "immutable"},
		{v + "/img/mine.svg", "image/svg+xml", "immutable"},
		{web.AssetPrefix + "0123456789ab/js/app.js", "text/javascript; charset=utf-8", "no-cache"}, // an older page
		{"/favicon.ico", "image/svg+xml", "max-age"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			resp := get(t, h, http.MethodGet, tc.path, nil)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d", resp.StatusCode)
			}
			if ct := resp.Header.Get("Content-Type"); ct != tc.ctype {
				t.Errorf("Content-Type %q, want %q", ct, tc.ctype)
			}
			if cc := resp.Header.Get("Cache-Control"); !strings.Contains(cc, tc.cache) {
				t.Errorf("Cache-Control %q, want %s", cc, tc.cache)
			}
			if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Error("no nosniff")
			}
			etag := resp.Header.Get("ETag")
			if etag == "" {
				t.Fatal("no ETag")
			}
			again := get(t, h, http.MethodGet, tc.path, map[string]string{"If-None-Match": etag})
			if again.StatusCode != http.StatusNotModified {
				t.Errorf("If-None-Match: status %d, want 304", again.StatusCode)
			}
		})
	}
}

func TestHandlerNotFound(t *testing.T) {
	t.Parallel()
	h := web.Handler()
	v := web.AssetPrefix + web.Version()
	for _, path := range []string{
		v + "/js/nope.js", v + "/js/games/nope.js", v + "/js/protocol.d.ts", v + "/js/client.d.ts", v + "/index.html", v + "/", v, web.AssetPrefix, v + "/../web.go", "/js/app.js",
		"/r/", "/r/bad-code!", "/r/ABC/extra", "/nothing", "/web.go",
	} {
		t.Run(path, func(t *testing.T) {
			resp := get(t, h, http.MethodGet, path, nil)
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("status %d, want 404", resp.StatusCode)
			}
		})
	}
}

func TestHandlerMethods(t *testing.T) {
	t.Parallel()
	h := web.Handler()
	if resp := get(t, h, http.MethodPost, "/", nil); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /: status %d, want 405", resp.StatusCode)
	}
	resp := get(t, h, http.MethodHead, "/r/ABC", nil)
	if resp.StatusCode != http.StatusOK || body(t, resp) != "" {
		t.Errorf("HEAD: status %d", resp.StatusCode)
	}
}

// TestNoExternalURLs checks that no file of the client names another
// origin: everything is served by roomd.
func TestNoExternalURLs(t *testing.T) {
	t.Parallel()
	h := web.Handler()
	v := web.AssetPrefix + web.Version()
	// Every file the handler serves: the page, and each file of static/
	// (the .d.ts files are not served).
	paths := []string{"/"}
	err := filepath.WalkDir("static", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".d.ts") || path == filepath.Join("static", "index.html") {
			return err
		}
		// The local core is stored gzipped and served as core.wasm; the
		// service worker is served at the root.
		name := strings.TrimSuffix(filepath.ToSlash(strings.TrimPrefix(path, "static"+string(filepath.Separator))), ".gz")
		if name == "sw.js" {
			paths = append(paths, "/sw.js")
			return nil
		}
		paths = append(paths, v+"/"+name)
		return nil
	})
	if err != nil || len(paths) < 20 {
		t.Fatalf("walking static/: %d files, %v", len(paths), err)
	}
	for _, path := range paths {
		resp := get(t, h, http.MethodGet, path, nil)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: status %d", path, resp.StatusCode)
		}
		b := body(t, resp)
		if strings.HasSuffix(path, ".wasm") {
			continue // compiled Go: it loads nothing (its JavaScript side is wasm_exec.js)
		}
		if strings.HasSuffix(path, "/wasm/wasm_exec.js") {
			// Go's own file, copied as is: its one URL is in a comment.
			b = strings.ReplaceAll(b, "// (temporary workaround for https://github.com/golang/go/issues/28975)", "")
		}
		for _, bad := range []string{"http://", "https://", "//fonts.", "@import"} {
			if i := strings.Index(b, bad); i >= 0 {
				if strings.Contains(b[i:min(len(b), i+40)], "www.w3.org/2000/svg") {
					continue
				}
				t.Errorf("%s names another origin near %q", path, b[max(0, i-20):min(len(b), i+40)])
			}
		}
	}
}
