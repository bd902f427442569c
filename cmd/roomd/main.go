// Command roomd is the room server with roomd's own games: a thin main
// over package roomd (the server as a library), whose flags and ROOMD_*
// variables it takes. Subcommands:
//
//	roomd [serve] [flags]     run the server (the default)
//	roomd replay [flags] FILE validate a recorded game by replay
//	roomd verify [flags] FILE check a finished match's secret and outcome
//	roomd probe URL           exit 0 if URL answers 200
//	roomd script ENGINE       drive a seed 003 engine with JSON lines
//
// Run `roomd -h` or `roomd replay -h` for the flags.
package main

import (
	"os"

	"github.com/roomd/roomd"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "script" {
		os.Exit(scriptMain(args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(roomd.Main(args, roomd.BuiltinGames()...))
}
