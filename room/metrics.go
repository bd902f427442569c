package room

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// Metrics are the rooms' Prometheus measurements. A nil *Metrics records
// nothing, so tests and tools need not set one up.
type Metrics struct {
	actions     *prometheus.CounterVec
	rejected    *prometheus.CounterVec
	latency     *prometheus.HistogramVec
	appendTime  prometheus.Histogram
	appendBatch prometheus.Histogram
	appendFail  prometheus.Counter
	resyncs     prometheus.Counter
	reconnects  prometheus.Counter
	encoded     prometheus.Counter
	sent        prometheus.Counter
	panics      *prometheus.CounterVec
	aiStopped   *prometheus.CounterVec
	hooksDrop   prometheus.Counter
	tickLate    *prometheus.HistogramVec
	tickTime    *prometheus.HistogramVec
	tickBytes   *prometheus.HistogramVec
	tickSkipped *prometheus.CounterVec
	renewTime   prometheus.Histogram
	renewFail   prometheus.Counter
	moves       prometheus.Counter
	takeovers   prometheus.Counter
}

// NewMetrics registers the rooms' metrics on reg. Register a manager's
// Collector too for the count of live rooms.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	f := promauto.With(reg)
	mt := &Metrics{
		actions: f.NewCounterVec(prometheus.CounterOpts{Name: "roomd_actions_accepted_total",
			Help: "Accepted actions (changes stored and published), by kind."}, []string{"kind"}),
		rejected: f.NewCounterVec(prometheus.CounterOpts{Name: "roomd_actions_rejected_total",
			Help: "Refused actions, by notice code (game:* codes come from the game's rules)."}, []string{"reason"}),
		latency: f.NewHistogramVec(prometheus.HistogramOpts{Name: "roomd_command_latency_seconds",
			Help:    "From a command's arrival at the room to its update leaving for the clients (stored first).",
			Buckets: prometheus.ExponentialBuckets(25e-6, 2, 16)}, []string{"game"}),
		appendTime: f.NewHistogram(prometheus.HistogramOpts{Name: "roomd_store_append_seconds",
			Help: "Time of one room's store append (a batch of entries).", Buckets: prometheus.ExponentialBuckets(10e-6, 2, 18)}),
		appendBatch: f.NewHistogram(prometheus.HistogramOpts{Name: "roomd_store_append_entries",
			Help: "Entries per room append.", Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128}}),
		appendFail: f.NewCounter(prometheus.CounterOpts{Name: "roomd_store_append_failures_total",
			Help: "Appends the store refused; their actions were answered storage-unavailable."}),
		resyncs: f.NewCounter(prometheus.CounterOpts{Name: "roomd_resyncs_total",
			Help: "Snapshots sent to repair a client's view: resync actions and stale refusals."}),
		reconnects: f.NewCounter(prometheus.CounterOpts{Name: "roomd_reconnects_total",
			Help: "Hellos that took a seat back with its token."}),
		encoded: f.NewCounter(prometheus.CounterOpts{Name: "roomd_update_encodings_total",
			Help: "Update messages encoded (one per distinct view of each change)."}),
		sent: f.NewCounter(prometheus.CounterOpts{Name: "roomd_update_deliveries_total",
			Help: "Update messages handed to connections (encodings are shared)."}),
		hooksDrop: f.NewCounter(prometheus.CounterOpts{Name: "roomd_webhook_events_dropped_total",
			Help: "Webhook events dropped because the outbox was full."}),
		panics: f.NewCounterVec(prometheus.CounterOpts{Name: "roomd_engine_panics_total",
			Help: "Panics of a game's code (rules, projection, AI) that a room recovered from, by game."}, []string{"game"}),
		aiStopped: f.NewCounterVec(prometheus.CounterOpts{Name: "roomd_ai_stopped_total",
			Help: "AI seats stopped for a match after failing three times in a row (a panic, or a move the rules refused), by game."}, []string{"game"}),
		tickLate: f.NewHistogramVec(prometheus.HistogramOpts{Name: "roomd_tick_lateness_seconds",
			Help:    "How late a real-time room's ticks ran against their schedule (the first of those run at once), by game.",
			Buckets: []float64{0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25}}, []string{"game"}),
		tickTime: f.NewHistogramVec(prometheus.HistogramOpts{Name: "roomd_tick_duration_seconds",
			Help:    "Time to run one tick of a real-time room: the game's step and the tick messages' encoding, by game.",
			Buckets: prometheus.ExponentialBuckets(5e-6, 2, 14)}, []string{"game"}),
		tickBytes: f.NewHistogramVec(prometheus.HistogramOpts{Name: "roomd_tick_bytes",
			Help:    "Bytes of one tick message, per audience of each tick (one encoding each), by game.",
			Buckets: prometheus.ExponentialBuckets(32, 2, 10)}, []string{"game"}),
		tickSkipped: f.NewCounterVec(prometheus.CounterOpts{Name: "roomd_ticks_skipped_total",
			Help: "Ticks a real-time room dropped after a stall (past the catch-up bound), by game."}, []string{"game"}),
		renewTime: f.NewHistogram(prometheus.HistogramOpts{Name: "roomd_lease_renew_seconds",
			Help: "Time to renew all of this node's room leases (one pipelined round trip per batch).", Buckets: prometheus.ExponentialBuckets(50e-6, 2, 16)}),
		renewFail: f.NewCounter(prometheus.CounterOpts{Name: "roomd_lease_renew_failures_total",
			Help: "Lease renewals that failed (the store did not answer): the rooms' leases may expire."}),
		moves: f.NewCounter(prometheus.CounterOpts{Name: "roomd_rooms_moved_total",
			Help: "Rooms this node handed to another node (drain, or an operator's move)."}),
		takeovers: f.NewCounter(prometheus.CounterOpts{Name: "roomd_rooms_taken_over_total",
			Help: "Rooms this node took over after another node's lease on them expired (that node died or stalled)."}),
	}
	return mt
}

func (m *Metrics) observeAppend(d time.Duration, entries int, err error) {
	if m == nil {
		return
	}
	m.appendTime.Observe(d.Seconds())
	m.appendBatch.Observe(float64(entries))
	if err != nil {
		m.appendFail.Inc()
	}
}

func (m *Metrics) observeAccepted(kind string) {
	if m != nil {
		m.actions.WithLabelValues(kind).Inc()
	}
}

func (m *Metrics) observeCommand(game string, received, published time.Time) {
	if m != nil && !received.IsZero() {
		m.latency.WithLabelValues(game).Observe(published.Sub(received).Seconds())
	}
}

func (m *Metrics) observeResync() {
	if m != nil {
		m.resyncs.Inc()
	}
}

func (m *Metrics) observeReconnect() {
	if m != nil {
		m.reconnects.Inc()
	}
}

func (m *Metrics) observeRejected(code string) {
	if m != nil {
		m.rejected.WithLabelValues(code).Inc()
	}
}

func (m *Metrics) observeHooksDropped(n int) {
	if m != nil {
		m.hooksDrop.Add(float64(n))
	}
}

func (m *Metrics) observePanic(game string) {
	if m != nil {
		m.panics.WithLabelValues(game).Inc()
	}
}

func (m *Metrics) observeAIStopped(game string) {
	if m != nil {
		m.aiStopped.WithLabelValues(game).Inc()
	}
}

func (m *Metrics) observeFanout(encodings, deliveries int) {
	if m != nil {
		m.encoded.Add(float64(encodings))
		m.sent.Add(float64(deliveries))
	}
}

func (m *Metrics) observeTickLateness(game string, late time.Duration, skipped int) {
	if m == nil {
		return
	}
	m.tickLate.WithLabelValues(game).Observe(max(late, 0).Seconds())
	m.tickSkipped.WithLabelValues(game).Add(float64(skipped)) // the series shows 0 until a tick is skipped
}

func (m *Metrics) observeTickDuration(game string, d time.Duration) {
	if m != nil {
		m.tickTime.WithLabelValues(game).Observe(d.Seconds())
	}
}

func (m *Metrics) observeTickBytes(game string, n int) {
	if m != nil {
		m.tickBytes.WithLabelValues(game).Observe(float64(n))
	}
}

// Collector returns a Prometheus collector of the manager's live rooms by
// game and phase.
func (m *Manager) Collector() prometheus.Collector { return roomCollector{m} }

// roomCollector reports live rooms by game and phase at scrape time, from
// each room's published info (no actor is disturbed).
type roomCollector struct{ m *Manager }

var roomsDesc = prometheus.NewDesc("roomd_rooms", "Live rooms, by game and phase.", []string{"game", "phase"}, nil)

func (c roomCollector) Describe(ch chan<- *prometheus.Desc) { ch <- roomsDesc }

func (c roomCollector) Collect(ch chan<- prometheus.Metric) {
	type key struct{ game, phase string }
	counts := map[key]int{}
	for _, r := range c.m.Rooms() {
		info := r.Info()
		counts[key{info.Game.ID, info.Phase}]++
	}
	for k, n := range counts {
		ch <- prometheus.MustNewConstMetric(roomsDesc, prometheus.GaugeValue, float64(n), k.game, k.phase)
	}
}

func (m *Metrics) observeRenew(d time.Duration, err error) {
	if m == nil {
		return
	}
	m.renewTime.Observe(d.Seconds())
	if err != nil {
		m.renewFail.Inc()
	}
}

func (m *Metrics) observeMoves(n int) {
	if m != nil {
		m.moves.Add(float64(n))
	}
}

// ObserveTakeover counts a room taken over from a node whose lease expired.
func (m *Metrics) ObserveTakeover() {
	if m != nil {
		m.takeovers.Inc()
	}
}
