package roomd

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/roomd/roomd/core/session"
)

// replay implements `roomd replay`: exit 0 for a valid game, 1 for an
// invalid one, 2 when the input cannot be read or parsed.
func (c Command) replay(args []string) int {
	stdin, stdout, stderr := c.Stdin, c.Stdout, c.Stderr
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	game := fs.String("game", "minesweeper", "the game the record belongs to ("+c.gameIDs()+"); default the record's \"game\", else minesweeper")
	view := fs.Bool("view", false, "also print the final projected view (spectator projection) as \"view\"")
	name, ok := parseFileArg(fs, args, stderr, `Usage: roomd replay [--game ID] [--view] FILE|URL|-

Replays a recorded game {seed, config, log} (the JSON form of the reference
vectors, or a room's replay, which names its game and, for a real-time
match, its ticks; "-" reads standard input) and prints one JSON line
{status, time, valid, reason}, with --view also the final view.
Exit status: 0 valid, 1 invalid, 2 unreadable input.

Flags:
`)
	if !ok {
		return 2
	}
	data, err := readRecord(name, stdin, session.MaxRecordBytes)
	if err != nil {
		fmt.Fprintf(stderr, "roomd replay: %v\n", err)
		return 2
	}
	if !flagSet(fs, "game") {
		// A room's replay (GET /api/rooms/{code}/replay) names its game;
		// the reference vectors do not, and are Minesweeper's.
		var named struct {
			Game string `json:"game"`
		}
		if json.Unmarshal(data, &named) == nil && named.Game != "" {
			*game = named.Game
		}
	}
	reg, err := registryOf(c.Games)
	if err != nil {
		fmt.Fprintf(stderr, "roomd replay: %v\n", err)
		return 2
	}
	g, ok := reg.Lookup(*game)
	if !ok {
		fmt.Fprintf(stderr, "roomd replay: unknown game %q (known: %s)\n", *game, c.gameIDs())
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

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
