package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/coder/websocket"

	"github.com/roomd/roomd/internal/finetimer"
	"github.com/roomd/roomd/internal/profile"
)

// loader holds a run's clients.
type loader struct {
	cfg    config
	rest   *http.Client // the API and /metrics
	ws     *http.Client // socket upgrades, kept apart from the API's pool
	wsURLs []string     // cfg.Nodes' socket URLs
	st     *stats
}

// stats are a run's measurements. Counters count moves sent in the window.
type stats struct {
	t0               time.Time
	winStart, winEnd time.Duration // the window, since t0
	running          atomic.Bool   // t0 is set: the run has started
	closing          atomic.Bool   // sockets are being closed on purpose

	sent, receipts, updates atomic.Int64
	done                    atomic.Int64 // receipted and updated, or refused
	frames                  atomic.Int64 // frames received inside the window
	specUpdates             atomic.Int64 // updates spectators received inside the window
	lost, behind            atomic.Int64

	mu                    sync.Mutex
	receiptLat, updateLat *hdrhistogram.Histogram // µs
	specLat               *hdrhistogram.Histogram // µs, send → a spectator's copy (in the window)
	refusals              map[string]int64
}

// delivered records a spectator's update that took d from its move's send,
// when it came inside the window.
func (s *stats) delivered(d time.Duration) {
	s.record(&s.specLat, d)
}

func (s *stats) record(h **hdrhistogram.Histogram, d time.Duration) {
	s.mu.Lock()
	_ = (*h).RecordValue(max(1, min(d.Microseconds(), histMax)))
	s.mu.Unlock()
}

func (s *stats) refusal(code string) {
	s.mu.Lock()
	s.refusals[code]++
	s.mu.Unlock()
}

const histMax = 60_000_000 // µs

func newStats() *stats {
	return &stats{receiptLat: hdrhistogram.New(1, histMax, 3), updateLat: hdrhistogram.New(1, histMax, 3),
		specLat: hdrhistogram.New(1, histMax, 3), refusals: map[string]int64{}}
}

// load sets every room up, runs the open loop through the warm-up and the
// window, waits for the window's answers, and closes everything.
func load(ctx context.Context, cfg config) (*result, error) {
	l := &loader{cfg: cfg,
		rest: &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: cfg.Parallel}},
		ws:   &http.Client{Transport: &http.Transport{}},
		st:   newStats()}
	for _, n := range cfg.Nodes {
		l.wsURLs = append(l.wsURLs, "ws"+strings.TrimPrefix(n, "http")+"/ws")
	}
	defer l.rest.CloseIdleConnections()
	defer l.ws.CloseIdleConnections()
	l.st.winStart, l.st.winEnd = cfg.Warmup, cfg.Warmup+cfg.Duration
	setupStart := time.Now()
	players, err := l.setupRooms(ctx)
	if err != nil {
		return nil, fmt.Errorf("setting up: %w", err)
	}
	setup := time.Since(setupStart)
	defer l.closeAll(players)

	timers, closeTimers, err := sendTimers(players, cfg.CoarseTimers)
	if err != nil {
		return nil, err
	}
	defer closeTimers()
	st := l.st
	st.t0 = time.Now()
	st.running.Store(true)
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	var senders sync.WaitGroup
	for _, p := range players {
		if p.watch {
			continue // a spectator only reads (its reader started with its room)
		}
		timer := timers[0]
		timers = timers[1:]
		senders.Add(1)
		go func() {
			defer senders.Done()
			defer timer.Close()
			p.sendLoop(runCtx, cfg.Rate, timer)
		}()
	}
	defer senders.Wait()
	defer stop()

	sleepUntil(ctx, st.t0.Add(st.winStart))
	cpu0, err0 := l.serverCPU(ctx)
	tool0 := profile.ProcessCPU()
	sleepUntil(ctx, st.t0.Add(st.winEnd))
	cpu1, err1 := l.serverCPU(ctx)
	tool1 := profile.ProcessCPU()
	if err := errors.Join(err0, err1, ctx.Err()); err != nil {
		return nil, fmt.Errorf("server CPU from /metrics: %w", err)
	}
	senders.Wait()
	for deadline := time.Now().Add(cfg.Drain); st.done.Load() < st.sent.Load() && time.Now().Before(deadline); {
		sleepUntil(ctx, time.Now().Add(10*time.Millisecond))
	}
	return l.result(len(players), setup, cpu1-cpu0, tool1-tool0), nil
}

// closeAll closes every socket and waits for its reader to stop.
func (l *loader) closeAll(players []*player) {
	l.st.closing.Store(true)
	var wg sync.WaitGroup
	for _, p := range players {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if p.ws != nil {
				p.ws.Close(websocket.StatusNormalClosure, "")
			}
			if p.readDone != nil {
				<-p.readDone
			}
		}()
	}
	wg.Wait()
}

func sleepUntil(ctx context.Context, t time.Time) {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-ctx.Done():
	case <-timer.C:
	}
}

// serverCPU is the CPU seconds of every node, added up.
func (l *loader) serverCPU(ctx context.Context) (float64, error) {
	sum := 0.0
	for _, n := range l.cfg.Nodes {
		cpu, err := scrapeCPU(ctx, l.rest, n+"/metrics")
		if err != nil {
			return 0, err
		}
		sum += cpu
	}
	return sum, nil
}

// scrapeCPU reads process_cpu_seconds_total from a Prometheus text endpoint.
func scrapeCPU(ctx context.Context, client *http.Client, url string) (float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("%s answered %s", url, resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if ok && (name == "process_cpu_seconds_total" || strings.HasPrefix(name, "process_cpu_seconds_total{")) {
			value, _, _ = strings.Cut(strings.TrimSpace(value), " ")
			return strconv.ParseFloat(value, 64)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("%s has no process_cpu_seconds_total", url)
}

// sendTimers returns a timer for each player that sends, in players' order:
// Sleepers on one finetimer.Clock (one timerfd for them all: a timerfd each
// would take 9,900 descriptors beside 19,800 sockets, past this machine's
// 20,000), or the runtime's timers; and what releases them.
func sendTimers(players []*player, coarse bool) ([]finetimer.Sleeper, func(), error) {
	clock, err := finetimer.NewClock()
	if coarse {
		clock, err = finetimer.NewCoarseClock(), nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("the players' clock: %w", err)
	}
	var timers []finetimer.Sleeper
	for _, p := range players {
		if p.watch {
			continue
		}
		timers = append(timers, clock.Sleeper())
	}
	return timers, func() { clock.Close() }, nil
}
