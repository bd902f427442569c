// Package wasmbuild builds the browser's local game core: cmd/roomwasm for
// GOOS=js GOARCH=wasm, once per module (Modules: each a build tag and its
// games, so that no module is more than a phone should load), gzipped,
// with Go's wasm_exec.js and a manifest, into web/static/wasm (embedded in
// roomd with the rest of the client). web's go:generate runs it
// (web/internal/cmd/wasmbuild); web's tests check that what is committed
// is what this builds, and that the modules hold every game once.
package wasmbuild

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/roomd/roomd/core/games"
)

// The files of the output directory besides the modules (core-{name}.wasm.gz,
// served as core-{name}.wasm, gzip-encoded).
const (
	LoaderFile   = "wasm_exec.js" // Go's JavaScript support, of the Go that built the modules
	ManifestFile = "manifest.json"
)

// Module is one build of cmd/roomwasm: its name, the build tag that picks
// its games (cmd/roomwasm/games_{name}.go), and their ids.
type Module struct {
	Name  string
	Games []string
}

// Modules are the builds, one per group of core/games: the first games in
// one, seed 003's in another (apart, 1.30 and 1.50 MB gzipped; together
// more than either).
var Modules = modules()

func modules() []Module {
	var out []Module
	for _, g := range games.Groups() {
		m := Module{Name: g.Name}
		for _, gm := range g.Games {
			m.Games = append(m.Games, gm.Info().ID)
		}
		out = append(out, m)
	}
	return out
}

// Tag is the build tag of a module.
func (m Module) Tag() string { return "roomwasm_" + m.Name }

// File is the module's file in the output directory.
func (m Module) File() string { return "core-" + m.Name + ".wasm.gz" }

// Manifest describes the modules, for the page (which loads it to know
// what to fetch for a game and which rules the local core plays) and for
// the tests.
type Manifest struct {
	// Loader is Go's wasm_exec.js, relative to the manifest's URL.
	Loader string `json:"loader"`
	// Go is the Go that built them (wasm_exec.js must be the same Go's).
	Go string `json:"go"`
	// Modules are the modules, each with its games.
	Modules []ModuleInfo `json:"modules"`
	// Games are every game of the modules, with their rules versions.
	Games []Game `json:"games"`
}

// ModuleInfo is one module in the manifest.
type ModuleInfo struct {
	Name string `json:"name"`
	// URL is the module's, relative to the manifest's.
	URL string `json:"url"`
	// Bytes and GzipBytes are its sizes; SHA256 is the hex digest of its
	// uncompressed bytes.
	Bytes     int      `json:"bytes"`
	GzipBytes int      `json:"gzipBytes"`
	SHA256    string   `json:"sha256"`
	Games     []string `json:"games"`
}

// Game is one game of the module.
type Game struct {
	ID           string `json:"id"`
	RulesVersion string `json:"rulesVersion"`
}

// Games lists the games of this build, as the module plays them.
func Games() []Game {
	var out []Game
	for _, in := range games.Registry().Games() {
		out = append(out, Game{in.ID, in.RulesVersion})
	}
	return out
}

// Compile builds module m of cmd/roomwasm of the Go module at root and
// returns the wasm bytes and the Go version that built them. The flags
// make the build reproducible: the same sources and Go give the same bytes.
func Compile(ctx context.Context, root string, m Module) ([]byte, string, error) {
	tmp, err := os.MkdirTemp("", "roomwasm")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "core.wasm")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false", "-tags", m.Tag(), "-ldflags=-s -w", "-o", out, "./cmd/roomwasm")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0", "GOFLAGS=")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, "", fmt.Errorf("go build ./cmd/roomwasm: %v\n%s", err, msg)
	}
	wasm, err := os.ReadFile(out)
	if err != nil {
		return nil, "", err
	}
	ver, err := exec.CommandContext(ctx, "go", "env", "GOVERSION").Output()
	if err != nil {
		return nil, "", fmt.Errorf("go env GOVERSION: %v", err)
	}
	return wasm, strings.TrimSpace(string(ver)), nil
}

// Loader returns the wasm_exec.js of the Go on the PATH.
func Loader(ctx context.Context) ([]byte, error) {
	root, err := exec.CommandContext(ctx, "go", "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOROOT: %v", err)
	}
	return os.ReadFile(filepath.Join(strings.TrimSpace(string(root)), "lib", "wasm", "wasm_exec.js"))
}

// Gzip compresses b at the best level, with no name or time in the header:
// the same bytes give the same output.
func Gzip(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// Describe returns the manifest entry of module m built as wasm.
func Describe(m Module, wasm, gz []byte) ModuleInfo {
	sum := sha256.Sum256(wasm)
	return ModuleInfo{Name: m.Name, URL: strings.TrimSuffix(m.File(), ".gz"), Bytes: len(wasm), GzipBytes: len(gz),
		SHA256: hex.EncodeToString(sum[:]), Games: m.Games}
}

// Build writes every module, the loader and the manifest into dir, and
// removes the files of modules that are no more.
func Build(ctx context.Context, root, dir string) (Manifest, error) {
	loader, err := Loader(ctx)
	if err != nil {
		return Manifest{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Manifest{}, err
	}
	old, _ := filepath.Glob(filepath.Join(dir, "*.wasm.gz"))
	for _, f := range old {
		os.Remove(f)
	}
	man := Manifest{Loader: LoaderFile, Games: Games()}
	for _, m := range Modules {
		wasm, goVersion, err := Compile(ctx, root, m)
		if err != nil {
			return Manifest{}, err
		}
		gz := Gzip(wasm)
		if err := os.WriteFile(filepath.Join(dir, m.File()), gz, 0o644); err != nil {
			return Manifest{}, err
		}
		man.Go = goVersion
		man.Modules = append(man.Modules, Describe(m, wasm, gz))
	}
	manifest, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		return Manifest{}, err
	}
	for name, b := range map[string][]byte{LoaderFile: loader, ManifestFile: append(manifest, '\n')} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return Manifest{}, err
		}
	}
	return man, nil
}
