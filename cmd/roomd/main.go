// Command roomd is the room server. Subcommands:
//
//	roomd [serve] [flags]     run the server (the default)
//	roomd replay [flags] FILE validate a recorded game by replay
//
// Run `roomd -h` or `roomd replay -h` for the flags.
package main

import (
	"fmt"
	"os"
)

func main() {
	args := os.Args[1:]
	cmd := "serve"
	if len(args) > 0 && (args[0] == "serve" || args[0] == "replay") {
		cmd, args = args[0], args[1:]
	}
	var code int
	switch cmd {
	case "replay":
		code = replayMain(args, os.Stdin, os.Stdout, os.Stderr)
	default:
		code = serveMain(args, os.Stdout, os.Stderr)
	}
	os.Exit(code)
}

func usageHeader() string {
	return `roomd — a real-time WebSocket room server for browser games.

Usage:
  roomd [serve] [flags]       run the server (default)
  roomd replay [flags] FILE   print the verdict of a recorded game (FILE or - for stdin)

Every flag can also be set by the environment variable named after it.
`
}

func fprintf(w interface{ Write([]byte) (int, error) }, format string, args ...any) {
	fmt.Fprintf(w, format, args...)
}
