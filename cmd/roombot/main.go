// Command roombot is roomd's bot load tester: bots that play real games
// through the project's Go client against a roomd URL, measure latency and
// throughput, inject faults on purpose, and check the server's guarantees
// while they run. Run `roombot -h` for the options. It is package bot with
// roomd's built-in games.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/roomd/roomd/cmd/roombot/bot"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second interrupt kills at once
	}()
	code := bot.Run(ctx, bot.Builtin(), os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
