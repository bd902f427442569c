// Package bot is roombot, roomd's bot load tester, as a library: bots that
// play real games through the project's Go client against a roomd URL,
// measure latency and throughput, inject faults on purpose, and check the
// server's guarantees while they run. cmd/roombot runs it with roomd's
// built-in games; a server built on package roomd with games of its own
// runs it as its `bot` subcommand, so its bots play those games too, each
// through the default follower (its Go reducer and AI; see Game) unless
// roombot has an adapter of its own for it.
package bot

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/pprof"
)

func slogLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return l, fmt.Errorf("--log-level %q: want debug, info, warn or error", s)
	}
	return l, nil
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	runtime.GC()
	return pprof.WriteHeapProfile(f)
}

// Run is roombot as a library: it plays games (those of a server built on
// package roomd with games of its own; Builtin for roomd's) with args as
// roombot's flags (`roombot -h`). It parses, plays and reports, and returns
// the exit status: 0 when every invariant held, 3 when one was violated, 1
// when the run failed, 2 for bad flags or games roombot cannot play. An
// interrupt (ctx) ends the play early and still reports.
func Run(ctx context.Context, games []Game, args []string, stdout, stderr io.Writer) int {
	reg, err := registryOf(games)
	if err != nil {
		fmt.Fprintf(stderr, "roombot: %v\n", err)
		return 2
	}
	return runWith(ctx, reg, args, stdout, stderr)
}

// run is Run for roomd's built-in games.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runWith(ctx, roombotGames, args, stdout, stderr)
}

func runWith(ctx context.Context, games gameRegistry, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlagsFor(games, args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "roombot: %v\n", err)
		return 2
	}
	level, _ := slogLevel(cfg.LogLevel)
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	if cfg.RatedCfg.Enabled {
		return runRated(ctx, cfg, log, stdout)
	}
	sc := newScenario(cfg, log)
	res, err := sc.run(ctx, newProgress(stdout, cfg.Progress, log))
	if err != nil {
		fmt.Fprintf(stderr, "roombot: %v\n", err)
		if errors.As(err, new(flagError)) {
			return 2
		}
		return 1
	}
	res.Scenario.Args = args
	printSummary(stdout, res)
	status := res.ExitCode
	if cfg.JSON != "" {
		if err := writeJSONFile(cfg.JSON, res); err != nil {
			fmt.Fprintf(stderr, "roombot: %v\n", err)
			status = max(status, 1)
		}
	}
	if cfg.HTML != "" {
		if err := writeHTML(cfg.HTML, res); err != nil {
			fmt.Fprintf(stderr, "roombot: %v\n", err)
			status = max(status, 1)
		}
	}
	return status
}
