// Command roomd is the room server. Subcommands:
//
//	roomd [serve] [flags]     run the server (the default)
//	roomd replay [flags] FILE validate a recorded game by replay
//	roomd verify [flags] FILE check a finished match's secret and outcome
//	roomd script ENGINE       drive a seed 003 engine with JSON lines
//
// Run `roomd -h` or `roomd replay -h` for the flags.
package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

func main() {
	args := os.Args[1:]
	cmd := "serve"
	if len(args) > 0 && (args[0] == "serve" || args[0] == "replay" || args[0] == "verify" || args[0] == "probe" || args[0] == "script") {
		cmd, args = args[0], args[1:]
	}
	var code int
	switch cmd {
	case "replay":
		code = replayMain(args, os.Stdin, os.Stdout, os.Stderr)
	case "verify":
		code = verifyMain(args, os.Stdin, os.Stdout, os.Stderr)
	case "probe":
		code = probeMain(args, os.Stderr)
	case "script":
		code = scriptMain(args, os.Stdin, os.Stdout, os.Stderr)
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
  roomd verify FILE|URL|-     check a finished match: its secret against the commitment, its moves against its result
  roomd probe URL             exit 0 if URL answers 200 (a health check for images without curl)
  roomd script ENGINE         drive a game engine of seed 003 (baba, cards, spellgrid) with JSON lines on stdin

Every flag can also be set by the environment variable named after it.
`
}

// probeMain implements `roomd probe URL`.
func probeMain(args []string, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: roomd probe URL")
		return 2
	}
	client := &http.Client{Timeout: 3 * time.Second}
	resp, err := client.Get(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "roomd probe: %v\n", err)
		return 1
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(stderr, "roomd probe: %s answered %s\n", args[0], resp.Status)
		return 1
	}
	return 0
}
