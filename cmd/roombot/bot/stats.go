package bot

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Latency histograms, in microseconds, from 1 µs to 5 minutes, 3 digits.
const (
	histMin = 1
	histMax = 300_000_000
	histSig = 3
)

func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(histMin, histMax, histSig) }

func recordHist(h *hdrhistogram.Histogram, d time.Duration) {
	us := d.Microseconds()
	if us < histMin {
		us = histMin
	}
	if us > histMax {
		us = histMax
	}
	_ = h.RecordValue(us)
}

// Latency kinds.
const (
	latMove     = "move"      // send → receipt and update (accepted moves)
	latRefused  = "refused"   // send → refusal receipt
	latJoin     = "join"      // create/join → socket → first snapshot
	latSpectate = "spectate"  // player's send → spectator's update
	latResume   = "reconnect" // socket lost → online again
	latHold     = "slow-hold" // how long a slow spectator stopped reading
)

var latKinds = []string{latMove, latRefused, latJoin, latSpectate, latResume, latHold, latStall}

// stats collects every measurement of a run. Histograms are under one
// mutex (a few thousand records a second); counters are atomic or under
// their own mutex.
type stats struct {
	start time.Time

	mu    sync.Mutex
	hists map[string]*hdrhistogram.Histogram
	sec   *hdrhistogram.Histogram // moves of the current second
	codes map[string]int64        // counted things by name (refusals, errors, closes…)

	moves      atomic.Int64 // accepted moves
	sent       atomic.Int64 // commands sent
	refusals   atomic.Int64 // expected refusals
	errors     atomic.Int64 // unexpected refusals and failures
	joins      atomic.Int64
	online     atomic.Int64 // sockets online now
	deliveries atomic.Int64 // updates received by spectators
	ticks      atomic.Int64 // tick messages the bots received (real-time games)
	msgBytes   atomic.Int64 // bytes of the messages the bots' transports handed them
	wireBytes  atomic.Int64 // bytes read from the bots' sockets
	// rtLeakFrames counts a real-time game's frames (ticks, snapshots,
	// updates) checked for leaks as they came.
	rtLeakFrames atomic.Int64
	measuring    atomic.Bool // inside the measured window

	series   []point
	serMu    sync.Mutex
	lastSnap point
}

// point is one second of the run.
type point struct {
	T          float64 `json:"t"` // seconds since the start
	Moves      int64   `json:"moves"`
	Sent       int64   `json:"sent"`
	Refusals   int64   `json:"refusals"`
	Errors     int64   `json:"errors"`
	Joins      int64   `json:"joins"`
	Online     int64   `json:"online"`
	Deliveries int64   `json:"deliveries"`
	P50        float64 `json:"p50Ms"`
	P99        float64 `json:"p99Ms"`
	Max        float64 `json:"maxMs"`
}

func newStats() *stats {
	s := &stats{start: time.Now(), hists: map[string]*hdrhistogram.Histogram{}, sec: newHist(), codes: map[string]int64{}}
	for _, k := range latKinds {
		s.hists[k] = newHist()
	}
	return s
}

// latency records one measurement. Moves and deliveries go into the
// summary histograms only inside the measured window (the per-second
// series shows the whole run); joins, reconnects and holds always do.
func (s *stats) latency(kind string, d time.Duration) {
	inWindow := s.measuring.Load()
	s.mu.Lock()
	switch kind {
	case latMove:
		recordHist(s.sec, d)
		if inWindow {
			recordHist(s.hists[kind], d)
		}
	case latRefused, latSpectate:
		if inWindow {
			recordHist(s.hists[kind], d)
		}
	default:
		recordHist(s.hists[kind], d)
	}
	s.mu.Unlock()
}

// count adds n to a named counter, e.g. "refused/game:NotHidden".
func (s *stats) count(name string, n int64) {
	s.mu.Lock()
	s.codes[name] += n
	s.mu.Unlock()
}

func (s *stats) counts() map[string]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.codes)
}

// tick closes one second of the time series.
func (s *stats) tick(now time.Time) point {
	s.mu.Lock()
	p := point{T: now.Sub(s.start).Seconds()}
	if s.sec.TotalCount() > 0 {
		p.P50 = float64(s.sec.ValueAtQuantile(50)) / 1000
		p.P99 = float64(s.sec.ValueAtQuantile(99)) / 1000
		p.Max = float64(s.sec.Max()) / 1000
	}
	s.sec.Reset()
	s.mu.Unlock()
	cur := point{Moves: s.moves.Load(), Sent: s.sent.Load(), Refusals: s.refusals.Load(), Errors: s.errors.Load(),
		Joins: s.joins.Load(), Deliveries: s.deliveries.Load()}
	s.serMu.Lock()
	defer s.serMu.Unlock()
	p.Moves, p.Sent = cur.Moves-s.lastSnap.Moves, cur.Sent-s.lastSnap.Sent
	p.Refusals, p.Errors = cur.Refusals-s.lastSnap.Refusals, cur.Errors-s.lastSnap.Errors
	p.Joins, p.Deliveries = cur.Joins-s.lastSnap.Joins, cur.Deliveries-s.lastSnap.Deliveries
	p.Online = s.online.Load()
	s.lastSnap = cur
	s.series = append(s.series, p)
	return p
}

func (s *stats) timeSeries() []point {
	s.serMu.Lock()
	defer s.serMu.Unlock()
	return slices.Clone(s.series)
}

// latencySummary is one histogram's figures, in milliseconds.
type latencySummary struct {
	Count int64   `json:"count"`
	Mean  float64 `json:"meanMs"`
	P50   float64 `json:"p50Ms"`
	P90   float64 `json:"p90Ms"`
	P99   float64 `json:"p99Ms"`
	P999  float64 `json:"p999Ms"`
	Max   float64 `json:"maxMs"`
	// Percentiles is the HDR distribution for plotting: percentile → ms.
	Percentiles []percentilePoint `json:"percentiles,omitempty"`
}

type percentilePoint struct {
	Percentile float64 `json:"percentile"`
	Ms         float64 `json:"ms"`
}

func summarize(h *hdrhistogram.Histogram, withCurve bool) latencySummary {
	if h.TotalCount() == 0 {
		return latencySummary{}
	}
	ms := func(v int64) float64 { return float64(v) / 1000 }
	s := latencySummary{Count: h.TotalCount(), Mean: h.Mean() / 1000, P50: ms(h.ValueAtQuantile(50)),
		P90: ms(h.ValueAtQuantile(90)), P99: ms(h.ValueAtQuantile(99)), P999: ms(h.ValueAtQuantile(99.9)), Max: ms(h.Max())}
	if withCurve {
		// Log-spaced percentiles: 0, 50, 75, 87.5, … up to 99.999 and 100.
		for i := 0; i <= 17; i++ {
			q := 100 * (1 - 1/float64(int64(1)<<i))
			s.Percentiles = append(s.Percentiles, percentilePoint{q, ms(h.ValueAtQuantile(q))})
		}
		s.Percentiles = append(s.Percentiles, percentilePoint{100, ms(h.Max())})
	}
	return s
}

func (s *stats) summaries() map[string]latencySummary {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]latencySummary{}
	for k, h := range s.hists {
		out[k] = summarize(h, true)
	}
	return out
}
