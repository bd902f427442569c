// Command tsgen writes the TypeScript declarations of roomd's protocol,
// generated from its JSON Schema, to the file named by its argument:
//
//	go run ./internal/cmd/tsgen static/js/protocol.d.ts
//
// web/web.go runs it from go generate ./web.
package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/roomd/roomd/web/internal/tsgen"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: tsgen OUTPUT.d.ts")
		os.Exit(2)
	}
	out, err := tsgen.Protocol()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if old, err := os.ReadFile(os.Args[1]); err == nil && bytes.Equal(old, out) {
		return // up to date: leave the file's time alone
	}
	if err := os.WriteFile(os.Args[1], out, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
