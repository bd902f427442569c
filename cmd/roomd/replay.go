package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/roomd/roomd/core/session"
)

// replayMain implements `roomd replay`: exit 0 for a valid game, 1 for an
// invalid one, 2 when the input cannot be read or parsed.
func replayMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	game := fs.String("game", "minesweeper", "the game the record belongs to ("+gameIDs()+")")
	view := fs.Bool("view", false, "also print the final projected view (spectator projection) as \"view\"")
	name, ok := parseFileArg(fs, args, stderr, `Usage: roomd replay [--game ID] [--view] FILE|URL|-

Replays a recorded game {seed, config, log} (the JSON form of the reference
vectors; "-" reads standard input) and prints one JSON line
{status, time, valid, reason}, with --view also the final view.
Exit status: 0 valid, 1 invalid, 2 unreadable input.

Flags:
`)
	if !ok {
		return 2
	}
	g, ok := registry().Lookup(*game)
	if !ok {
		fmt.Fprintf(stderr, "roomd replay: unknown game %q (known: %s)\n", *game, gameIDs())
		return 2
	}
	data, err := readRecord(name, stdin, session.MaxRecordBytes)
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

// parseFileArg parses a subcommand's flags, after which one argument must
// remain (a file, a URL or "-"); false when it does not or the flags do not
// parse (the usage or the error is printed).
func parseFileArg(fs *flag.FlagSet, args []string, stderr io.Writer, usage string) (string, bool) {
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return "", false
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return "", false
	}
	return fs.Arg(0), true
}

func displayName(name string) string {
	if name == "-" {
		return "standard input"
	}
	return name
}
