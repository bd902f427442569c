package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/roomd/roomd/core/session"
)

// replayMain implements `roomd replay`: exit 0 for a valid game, 1 for an
// invalid one, 2 when the input cannot be read or parsed.
func replayMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	game := fs.String("game", "minesweeper", "the game the record belongs to ("+gameIDs()+")")
	view := fs.Bool("view", false, "also print the final projected view (spectator projection) as \"view\"")
	fs.Usage = func() {
		fmt.Fprintf(stderr, `Usage: roomd replay [--game ID] [--view] FILE

Replays a recorded game {seed, config, log} (the JSON form of the reference
vectors; "-" reads standard input) and prints one JSON line
{status, time, valid, reason}, with --view also the final view.
Exit status: 0 valid, 1 invalid, 2 unreadable input.

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	g, ok := registry().Lookup(*game)
	if !ok {
		fmt.Fprintf(stderr, "roomd replay: unknown game %q (known: %s)\n", *game, gameIDs())
		return 2
	}
	name := fs.Arg(0)
	var data []byte
	var err error
	if name == "-" {
		data, err = io.ReadAll(io.LimitReader(stdin, session.MaxRecordBytes+1))
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		fmt.Fprintf(stderr, "roomd replay: %v\n", err)
		return 2
	}
	rec, err := session.DecodeRecord(data)
	if err != nil {
		fmt.Fprintf(stderr, "roomd replay: %s: %v\n", displayName(name), err)
		return 2
	}
	verdict, match := session.ReplayMatch(g, rec)
	out := struct {
		session.Verdict
		View any `json:"view,omitempty"`
	}{Verdict: verdict}
	if *view && match != nil {
		out.View = match.View(session.Spectator)
	}
	line, err := json.Marshal(out)
	if err != nil {
		fmt.Fprintf(stderr, "roomd replay: %v\n", err)
		return 2
	}
	fmt.Fprintln(stdout, string(line))
	if !verdict.Valid {
		return 1
	}
	return 0
}

func displayName(name string) string {
	if name == "-" {
		return "standard input"
	}
	return name
}
