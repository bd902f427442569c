package bot

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"
)

// progress closes each second of the time series and shows it: a line
// redrawn in place on a terminal, otherwise a log line every --progress.
type progress struct {
	w     io.Writer
	tty   bool
	every time.Duration
	log   *slog.Logger

	once   sync.Once
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newProgress(w io.Writer, every time.Duration, log *slog.Logger) *progress {
	p := &progress{w: w, every: every, log: log, cancel: func() {}}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

func (p *progress) start(sc *scenario) {
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	p.wg.Go(func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		last := time.Now()
		for {
			select {
			case <-ctx.Done():
				sc.st.tick(time.Now())
				return
			case now := <-t.C:
				pt := sc.st.tick(now)
				line := fmt.Sprintf("t=%4.0fs  online=%d  moves/s=%d  p99=%.1fms  refusals/s=%d  errors=%d  violations=%d",
					pt.T, pt.Online, pt.Moves, pt.P99, pt.Refusals, sc.st.errors.Load(), sc.viol.total())
				switch {
				case p.every <= 0:
				case p.tty:
					fmt.Fprintf(p.w, "\r\033[K%s", line)
				case now.Sub(last) >= p.every:
					last = now
					p.log.Info("progress", "t", fmt.Sprintf("%.0fs", pt.T), "online", pt.Online, "moves_per_s", pt.Moves,
						"p99_ms", pt.P99, "refusals_per_s", pt.Refusals, "errors", sc.st.errors.Load(), "violations", sc.viol.total())
				}
			}
		}
	})
}

// stop ends the display; it may be called more than once.
func (p *progress) stop() {
	p.once.Do(func() {
		p.cancel()
		p.wg.Wait()
		if p.tty && p.every > 0 {
			fmt.Fprintln(p.w)
		}
	})
}
