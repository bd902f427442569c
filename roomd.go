// Package roomd is the roomd room server as a library: a Go program imports
// it to run a server with roomd's own games, games of its own, or both.
//
//	func main() {
//		os.Exit(roomd.Main(os.Args[1:], append(roomd.BuiltinGames(), roomd.Game{Rules: mygame.Game, Web: mygame.Web()})...))
//	}
//
// is a complete server: it takes roomd's flags and ROOMD_* variables
// (ParseFlags), serves the games over HTTP and WebSockets with the browser
// client, keeps rooms in the embedded store (or Redis, or memory), and has
// roomd's subcommands (replay, verify, probe, and bot: roombot playing its
// games). cmd/roomd is that program
// with the built-in games. New and Run are the same server driven from Go,
// with Options instead of flags.
//
// A game is its rules (core/session's contract, made with session.Define;
// every game must pass core/session/sessiontest.Run, the game kit) and its
// browser files: a page module, its words, and optionally its WebAssembly
// core for local play (web.Game; GAMES.md walks through a whole game in a
// module of its own, under examples/).
//
// The public surface stops here and at the packages its types name:
// core/session (the game contract), transport (Quotas, HTTPConfig, Limit),
// web (a game's files) and cmd/roombot/bot (roombot, a game's Checks). room, store and the rest are roomd's insides;
// their APIs may change.
package roomd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/roomd/roomd/cmd/roombot/bot"
	"github.com/roomd/roomd/core/games"
	"github.com/roomd/roomd/core/session"
	"github.com/roomd/roomd/internal/profile"
	"github.com/roomd/roomd/web"
)

// Game is a game a Server runs.
type Game struct {
	// Rules are the game's rules in erased form (session.Define's result).
	Rules session.Game
	// Web holds the game's browser files (web.Game's Files: {id}.js, the
	// page module; i18n/{lang}.json, its words in every language of the
	// client; optionally core.wasm, its WebAssembly core). Nil for roomd's
	// own games, whose files are the client's.
	Web fs.FS
	// Retired are earlier versions of the rules, under which finished
	// matches are still verified (`roomd verify`); they are never offered
	// for new matches.
	Retired []session.Game
	// Checks are the game's own checks for roombot (`roomd bot`), for
	// what it hides; nil for the generic invariants only. Bots play any
	// game from its rules (its view's Go reducer and its AI; see
	// bot.Game).
	Checks bot.Checks
}

// BuiltinGames returns roomd's own games: Minesweeper, hidden Nim,
// tic-tac-toe, the snake arena, the card duel, Baba and SpellGrid.
func BuiltinGames() []Game {
	var out []Game
	reg := games.Registry()
	for _, info := range reg.Games() {
		g, _ := reg.Lookup(info.ID)
		gm := Game{Rules: g}
		for _, r := range games.Retired() {
			if r.Info().ID == info.ID {
				gm.Retired = append(gm.Retired, r)
			}
		}
		out = append(out, gm)
	}
	return out
}

// registryOf is the games' registry, their retired versions included; two
// games of one id are an error.
func registryOf(gs []Game) (*session.Registry, error) {
	reg := session.NewRegistry()
	for _, g := range gs {
		if g.Rules == nil {
			return nil, errors.New("roomd: a Game without Rules")
		}
		id := g.Rules.Info().ID
		if _, dup := reg.Lookup(id); dup {
			return nil, fmt.Errorf("roomd: two games of id %q", id)
		}
		reg.Register(g.Rules)
		for _, r := range g.Retired {
			reg.Retire(r)
		}
	}
	return reg, nil
}

// webGames are the browser files of the games that bring theirs.
func webGames(gs []Game) ([]web.Game, error) {
	var out []web.Game
	for _, g := range gs {
		if g.Web == nil {
			continue
		}
		info := g.Rules.Info()
		out = append(out, web.Game{ID: info.ID, RulesVersion: info.RulesVersion, Files: g.Web})
	}
	return out, nil
}

// Command is roomd's command line, for Main and for tests: its games and
// where its input and output go.
type Command struct {
	// Games are the games it serves and checks. Nil means BuiltinGames().
	Games []Game
	// Stdin, Stdout and Stderr default to the process's.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// Main runs roomd's command line with args (without the program's name)
// and games (none: BuiltinGames()), and returns the exit status: the
// server by default, until SIGTERM or SIGINT; `replay`, `verify` and
// `probe` as `roomd -h` describes them; `bot`, roombot playing the games.
func Main(args []string, games ...Game) int { return Command{Games: games}.Run(args) }

// Run runs the command line with args; see Main.
func (c Command) Run(args []string) int {
	if c.Games == nil {
		c.Games = BuiltinGames()
	}
	if c.Stdin == nil {
		c.Stdin = os.Stdin
	}
	if c.Stdout == nil {
		c.Stdout = os.Stdout
	}
	if c.Stderr == nil {
		c.Stderr = os.Stderr
	}
	cmd := "serve"
	if len(args) > 0 && (args[0] == "serve" || args[0] == "replay" || args[0] == "verify" || args[0] == "probe" || args[0] == "bot") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "replay":
		return c.replay(args)
	case "verify":
		return c.verify(args)
	case "probe":
		return probe(args, c.Stderr)
	case "bot":
		return c.bot(args)
	}
	return c.serve(args)
}

// serve is the server's command: flags, signals, a profile, New and Run.
func (c Command) serve(args []string) int {
	o, err := ParseFlags(args, c.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(c.Stderr, "roomd: %v\n", err)
		return 2
	}
	o.Games, o.Stdout = c.Games, c.Stdout
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if o.cpuprofile != "" {
		stop, err := profile.StartCPU(o.cpuprofile)
		if err != nil {
			fmt.Fprintf(c.Stderr, "roomd: %v\n", err)
			return 2
		}
		defer stop()
	}
	s, err := New(o)
	if err == nil {
		err = s.Run(ctx)
	}
	if err != nil {
		o.Logger.Error("roomd stopped", "err", err)
		return 1
	}
	return 0
}

// bot is roombot playing the command's games (`roomd bot -h`).
func (c Command) bot(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	var gs []bot.Game
	for _, g := range c.Games {
		gs = append(gs, bot.Game{Rules: g.Rules, Checks: g.Checks})
	}
	return bot.Run(ctx, gs, args, c.Stdout, c.Stderr)
}

// gameIDs lists the games' ids.
func (c Command) gameIDs() string {
	var ids []string
	for _, g := range c.Games {
		ids = append(ids, g.Rules.Info().ID)
	}
	return strings.Join(ids, ", ")
}

func usageHeader() string {
	return `roomd — a real-time WebSocket room server for browser games.

Usage:
  roomd [serve] [flags]       run the server (default)
  roomd replay [flags] FILE   print the verdict of a recorded game (FILE or - for stdin)
  roomd verify FILE|URL|-     check a finished match: its secret against the commitment, its moves against its result
  roomd probe URL             exit 0 if URL answers 200 (a health check for images without curl)
  roomd bot [flags]           roombot playing this server's games against a roomd URL (roomd bot -h)
  roomd script ENGINE         (cmd/roomd only) drive a game engine of seed 003 (baba, cards, spellgrid) with JSON lines on stdin

Every flag can also be set by the environment variable named after it.
`
}

// probe implements `roomd probe URL`.
func probe(args []string, stderr io.Writer) int {
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
