// Command roombot is roomd's bot load tester: bots that play real games
// through the project's Go client against a roomd URL, measure latency and
// throughput, inject faults on purpose, and check the server's guarantees
// while they run. Run `roombot -h` for the options.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second interrupt kills at once
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

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

// run is the whole program: parse, play, report. It returns the exit
// status: 0 when every invariant held, 3 when one was violated, 1 when the
// run failed, 2 for bad flags. An interrupt (ctx) ends the play early and
// still reports.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "roombot: %v\n", err)
		return 2
	}
	level, _ := slogLevel(cfg.LogLevel)
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
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
