// Command wasmbuild writes the browser's local game core into
// web/static/wasm (see web/internal/wasmbuild). Run by go generate in web/:
//
//	go generate ./web
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/roomd/roomd/web/internal/wasmbuild"
)

func main() {
	// go generate runs in web/; the module's root is its parent.
	root, err := filepath.Abs("..")
	if err != nil {
		fmt.Fprintln(os.Stderr, "wasmbuild:", err)
		os.Exit(1)
	}
	m, err := wasmbuild.Build(context.Background(), root, filepath.Join("static", "wasm"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "wasmbuild:", err)
		os.Exit(1)
	}
	for _, mod := range m.Modules {
		fmt.Printf("static/wasm: %s %d bytes, %d gzipped (%s)\n", mod.URL, mod.Bytes, mod.GzipBytes, m.Go)
	}
}
