// Package wasmbuild builds the browser's local game core: cmd/roomwasm for
// GOOS=js GOARCH=wasm, gzipped, with Go's wasm_exec.js and a manifest, into
// web/static/wasm (embedded in roomd with the rest of the client). web's
// go:generate runs it (web/internal/cmd/wasmbuild); web's tests check that
// what is committed is what this builds.
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

// The files of the output directory.
const (
	ModuleFile   = "core.wasm.gz" // served as core.wasm, gzip-encoded
	LoaderFile   = "wasm_exec.js" // Go's JavaScript support, of the Go that built the module
	ManifestFile = "manifest.json"
)

// Manifest describes the module, for the page (which loads it to know what
// to fetch and which rules the local core plays) and for the tests.
type Manifest struct {
	// Module is the module's URL, relative to the manifest's.
	Module string `json:"module"`
	// Loader is Go's wasm_exec.js, relative to the manifest's URL.
	Loader string `json:"loader"`
	// Bytes and GzipBytes are the module's sizes; SHA256 is the hex digest
	// of its uncompressed bytes.
	Bytes     int    `json:"bytes"`
	GzipBytes int    `json:"gzipBytes"`
	SHA256    string `json:"sha256"`
	// Go is the Go that built it (wasm_exec.js must be the same Go's).
	Go string `json:"go"`
	// Games are the games the module plays, with their rules versions.
	Games []Game `json:"games"`
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

// Compile builds cmd/roomwasm of the module at root and returns the wasm
// bytes and the Go version that built them. The flags make the build
// reproducible: the same sources and Go give the same bytes.
func Compile(ctx context.Context, root string) ([]byte, string, error) {
	tmp, err := os.MkdirTemp("", "roomwasm")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "core.wasm")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w", "-o", out, "./cmd/roomwasm")
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

// Describe returns the manifest of a module.
func Describe(wasm, gz []byte, goVersion string) Manifest {
	sum := sha256.Sum256(wasm)
	return Manifest{Module: "core.wasm", Loader: LoaderFile, Bytes: len(wasm), GzipBytes: len(gz),
		SHA256: hex.EncodeToString(sum[:]), Go: goVersion, Games: Games()}
}

// Build writes the module, the loader and the manifest into dir.
func Build(ctx context.Context, root, dir string) (Manifest, error) {
	wasm, goVersion, err := Compile(ctx, root)
	if err != nil {
		return Manifest{}, err
	}
	loader, err := Loader(ctx)
	if err != nil {
		return Manifest{}, err
	}
	gz := Gzip(wasm)
	m := Describe(wasm, gz, goVersion)
	manifest, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return Manifest{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Manifest{}, err
	}
	for name, b := range map[string][]byte{ModuleFile: gz, LoaderFile: loader, ManifestFile: append(manifest, '\n')} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return Manifest{}, err
		}
	}
	return m, nil
}
