// Package web is roomd's browser client: plain JavaScript modules, CSS and
// SVG files embedded in the binary and served by Handler. There is no build
// step; the files under static/ are what the browser runs.
//
// URLs:
//
//	/                     the lobby (pick a game, create a room)
//	/r/{CODE}             a room: its lobby, the game, the result
//	/assets/{version}/…   the static files; version is a hash of them all,
//	                      so a page never mixes files of two builds
//
// index.html is served with no-cache for the app routes; assets under the
// current version are immutable. Nothing is loaded from another origin.
//
// static/js/protocol.d.ts, the TypeScript types of the protocol's messages,
// is generated from the protocol's JSON Schema by go generate ./web
// (internal/cmd/tsgen); TestProtocolDeclarations fails when it is out of
// date. The .d.ts files are for editors and type checkers, not served.
package web

//go:generate go run ./internal/cmd/tsgen static/js/protocol.d.ts
//go:generate go run ./internal/cmd/wasmbuild

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

//go:embed static
var embedded embed.FS

// AssetPrefix is the URL path under which the static files are served,
// followed by the build's version.
const AssetPrefix = "/assets/"

// contentTypes are the types of the files the client is made of; a file of
// another kind is not served.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
	".png":  "image/png",
	".json": "application/json",
	".wasm": "application/wasm", // stored gzipped (.wasm.gz)
	".txt":  "text/plain; charset=utf-8",
}

// contentSecurityPolicy allows nothing from another origin: scripts, styles,
// images and the socket all come from roomd.
const contentSecurityPolicy = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// roomRoute matches the app routes that show index.html: a room, and a
// game played on this device.
var roomRoute = regexp.MustCompile(`^/(r/[A-Za-z0-9]{1,32}|play/[a-z0-9][a-z0-9_-]{0,63})/?$`)

type asset struct {
	body  []byte
	ctype string
	etag  string
	// gzipped: body is the file gzip-compressed (a .wasm.gz of static/,
	// served under its name without .gz).
	gzipped bool
}

type handler struct {
	version string
	worker  asset            // /sw.js
	assets  map[string]asset // by path under static/, e.g. "js/app.js"
	index   asset
	start   time.Time
}

// Handler serves the browser client: index.html for the app routes, the
// embedded files under /assets/{version}/, and 404 for anything else.
func Handler() http.Handler {
	h, err := build()
	if err != nil {
		panic("web: " + err.Error()) // the embedded files are part of the binary
	}
	return h
}

// Game is the browser side of a game from outside the client's own tree
// (a program on roomd as a library, GAMES.md): its files, which New serves
// beside the client's own.
type Game struct {
	// ID and RulesVersion are the game's (session.Info).
	ID, RulesVersion string
	// Files holds the game's page module, {ID}.js (served as
	// js/games/{ID}.js, where the client looks for a game's page; it
	// imports the client's modules as ../ui.js, ../i18n.js), its words,
	// i18n/{lang}.json for every language of the client (merged into the
	// language's table; its keys start with "{ID}."), and optionally
	// core.wasm, its WebAssembly core for local play (served gzipped, a
	// module of the local core's manifest of its own).
	Files fs.FS
}

// New returns the client with games' files besides its own: Handler, for
// a server that brings games of its own. A game's page module or a
// language's words missing, an id of the client's own games, or a key
// outside the game's namespace is an error that names it.
func New(games ...Game) (http.Handler, error) {
	if len(games) == 0 {
		return build()
	}
	return newHandler(embedded, games...)
}

// Version returns the hash that names this build's assets.
func Version() string {
	h, err := build()
	if err != nil {
		return ""
	}
	return h.version
}

// build reads the embedded files once.
var build = sync.OnceValues(func() (*handler, error) { return newHandler(embedded) })

func newHandler(files embed.FS, games ...Game) (*handler, error) {
	root, err := fs.Sub(files, "static")
	if err != nil {
		return nil, err
	}
	root, err = withGames(root, games)
	if err != nil {
		return nil, err
	}
	h := &handler{assets: map[string]asset{}, start: time.Now()}
	var names []string
	err = fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name, gzipped := strings.CutSuffix(p, ".gz")
		ctype, ok := contentTypes[path.Ext(name)]
		if !ok || gzipped && path.Ext(name) != ".wasm" {
			return nil
		}
		body, err := fs.ReadFile(root, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		h.assets[name] = asset{body: body, ctype: ctype, etag: `"` + hex.EncodeToString(sum[:8]) + `"`, gzipped: gzipped}
		names = append(names, name)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// The words: one table per language, served besides the files it is
	// made of (derived from them, so the version below covers it).
	tables, err := bundleTables(root)
	if err != nil {
		return nil, err
	}
	for name, body := range tables {
		sum := sha256.Sum256(body)
		h.assets[name] = asset{body: body, ctype: contentTypes[".json"], etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
	}
	sort.Strings(names)
	all := sha256.New()
	for _, n := range names {
		all.Write([]byte(n))
		all.Write([]byte{0})
		all.Write(h.assets[n].body)
	}
	h.version = hex.EncodeToString(all.Sum(nil))[:12]
	page, ok := h.assets["index.html"]
	if !ok {
		return nil, fs.ErrNotExist
	}
	body := bytes.ReplaceAll(page.body, []byte("{{ASSETS}}"), []byte(AssetPrefix+h.version))
	sum := sha256.Sum256(body)
	h.index = asset{body: body, ctype: page.ctype, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
	delete(h.assets, "index.html")
	// The service worker lives at the root (its scope is the whole site)
	// and names this build's assets.
	if sw, ok := h.assets["sw.js"]; ok {
		body := bytes.ReplaceAll(sw.body, []byte("{{ASSETS}}"), []byte(AssetPrefix+h.version))
		sum := sha256.Sum256(body)
		h.worker = asset{body: body, ctype: sw.ctype, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
		delete(h.assets, "sw.js")
	}
	return h, nil
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	p := r.URL.Path
	switch {
	case p == "/" || p == "/index.html" || roomRoute.MatchString(p):
		h.serve(w, r, h.index, "no-cache")
		return
	case p == "/sw.js" && h.worker.body != nil:
		h.serve(w, r, h.worker, "no-cache")
		return
	case strings.HasPrefix(p, AssetPrefix):
		rest := strings.TrimPrefix(p, AssetPrefix)
		version, name, ok := strings.Cut(rest, "/")
		a, found := h.assets[name]
		if !ok || !found || strings.Contains(name, "..") {
			break
		}
		cache := "public, max-age=31536000, immutable"
		if version != h.version {
			// A page of another build asks: give it today's file, but do
			// not let a cache keep it under the old name.
			cache = "no-cache"
		}
		h.serve(w, r, a, cache)
		return
	case p == "/favicon.ico" || p == "/favicon.svg":
		if a, ok := h.assets["img/favicon.svg"]; ok {
			h.serve(w, r, a, "public, max-age=86400")
			return
		}
	}
	w.Header().Set("Cache-Control", "no-store")
	http.Error(w, "404 page not found", http.StatusNotFound)
}

func (h *handler) serve(w http.ResponseWriter, r *http.Request, a asset, cache string) {
	hdr := w.Header()
	hdr.Set("Content-Type", a.ctype)
	hdr.Set("Cache-Control", cache)
	hdr.Set("ETag", a.etag)
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "same-origin")
	if strings.HasPrefix(a.ctype, "text/html") {
		hdr.Set("Content-Security-Policy", contentSecurityPolicy)
		hdr.Set("X-Frame-Options", "DENY")
	}
	if a.gzipped {
		// Every browser takes gzip; anyone else gets the file as it is.
		hdr.Add("Vary", "Accept-Encoding")
		if !acceptsGzip(r) {
			zr, err := gzip.NewReader(bytes.NewReader(a.body))
			if err != nil {
				http.Error(w, "corrupt asset", http.StatusInternalServerError)
				return
			}
			if r.Method != http.MethodHead {
				io.Copy(w, zr)
			}
			return
		}
		hdr.Set("Content-Encoding", "gzip")
	}
	http.ServeContent(w, r, "", h.start, bytes.NewReader(a.body))
}

// acceptsGzip reports whether the request's Accept-Encoding lists gzip
// (with a weight above 0).
func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(coding), "gzip") && strings.ReplaceAll(params, " ", "") != "q=0" {
			return true
		}
	}
	return false
}

// i18nDir holds the client's words: i18n/{lang}/{part}.json, one table
// ("part.key": text) per part of the client and language.
const i18nDir = "i18n"

// bundleTables merges each language's tables into one, served as
// i18n/{lang}.json: the page loads one file per language (static/js/i18n.js)
// instead of one per part — each a request through the service worker
// before anything is drawn. The parts stay separate files to edit and to
// check (i18n_test.go). A key in two parts of a language is an error.
func bundleTables(root fs.FS) (map[string][]byte, error) {
	langs, err := fs.ReadDir(root, i18nDir)
	if err != nil {
		return nil, nil // no words in this build: the page shows the keys
	}
	out := map[string][]byte{}
	for _, l := range langs {
		if !l.IsDir() {
			continue
		}
		dir := path.Join(i18nDir, l.Name())
		parts, err := fs.Glob(root, path.Join(dir, "*.json"))
		if err != nil {
			return nil, err
		}
		merged := map[string]string{}
		for _, p := range parts {
			raw, err := fs.ReadFile(root, p)
			if err != nil {
				return nil, err
			}
			var table map[string]string
			if err := json.Unmarshal(raw, &table); err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			for k, v := range table {
				if _, dup := merged[k]; dup {
					return nil, fmt.Errorf("%s: key %q is in another table of %s too", p, k, l.Name())
				}
				merged[k] = v
			}
		}
		body, err := json.Marshal(merged) // keys sorted: the same files give the same bytes
		if err != nil {
			return nil, err
		}
		out[dir+".json"] = body
	}
	return out, nil
}
