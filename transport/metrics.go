package transport

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
)

// Metrics are the connections' Prometheus measurements. A nil *Metrics
// records nothing.
type Metrics struct {
	conns       prometheus.Gauge
	opened      prometheus.Counter
	slow        prometheus.Counter
	limited     prometheus.Counter
	invalid     prometheus.Counter
	outboxDrops prometheus.Counter
	relays      prometheus.Gauge
	relayed     prometheus.Counter
	closes      [numReasons]prometheus.Counter
}

// NewMetrics registers the connection metrics on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	f := promauto.With(reg)
	m := &Metrics{
		conns:  f.NewGauge(prometheus.GaugeOpts{Name: "roomd_connections", Help: "Open WebSocket connections."}),
		opened: f.NewCounter(prometheus.CounterOpts{Name: "roomd_connections_opened_total", Help: "WebSocket connections accepted."}),
		slow: f.NewCounter(prometheus.CounterOpts{Name: "roomd_slow_closes_total",
			Help: "Connections closed with 4008 because their outbox overflowed."}),
		limited: f.NewCounter(prometheus.CounterOpts{Name: "roomd_rate_limited_total",
			Help: "Messages refused by a connection's rate limit."}),
		invalid: f.NewCounter(prometheus.CounterOpts{Name: "roomd_invalid_frames_total",
			Help: "Frames that were not valid protocol messages."}),
		outboxDrops: f.NewCounter(prometheus.CounterOpts{Name: "roomd_outbox_drops_total",
			Help: "Frames dropped because a connection's outbox was full."}),
		relays: f.NewGauge(prometheus.GaugeOpts{Name: "roomd_relayed_sockets",
			Help: "Sockets this node relays to the node that owns their room."}),
		relayed: f.NewCounter(prometheus.CounterOpts{Name: "roomd_relayed_sockets_total",
			Help: "Sockets relayed to another node since the start."}),
	}
	closes := f.NewCounterVec(prometheus.CounterOpts{Name: "roomd_closes_total",
		Help: "WebSocket connections ended, by reason (PROTOCOL.md §2.3, README's \"Closes\")."}, []string{"reason"})
	for why := whyPeerClose; why < numReasons; why++ {
		m.closes[why] = closes.WithLabelValues(why.String())
	}
	return m
}

func (m *Metrics) connOpened() {
	if m != nil {
		m.conns.Inc()
		m.opened.Inc()
	}
}

func (m *Metrics) connClosed() {
	if m != nil {
		m.conns.Dec()
	}
}

// closed counts a connection's end (the socket itself is counted out by
// connClosed).
func (m *Metrics) closed(why closeReason) {
	if m != nil && m.closes[why] != nil {
		m.closes[why].Inc()
	}
}

func (m *Metrics) slowClose(dropped int) {
	if m != nil {
		m.slow.Inc()
		m.outboxDrops.Add(float64(dropped))
	}
}

func (m *Metrics) rateLimited() {
	if m != nil {
		m.limited.Inc()
	}
}

func (m *Metrics) invalidFrame() {
	if m != nil {
		m.invalid.Inc()
	}
}

func (m *Metrics) relayOpened() {
	if m != nil {
		m.relays.Inc()
		m.relayed.Inc()
	}
}

func (m *Metrics) relayClosed() {
	if m != nil {
		m.relays.Dec()
	}
}
