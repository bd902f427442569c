package roomd

import (
	"context"
	"errors"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/boltstore"
	"github.com/roomd/roomd/store/memstore"
	"github.com/roomd/roomd/store/redisstore"
)

var (
	_ store.Backend = (*memstore.Memory)(nil)
	_ store.Backend = (*boltstore.Bolt)(nil)
	_ store.Backend = (*redisstore.Redis)(nil)
)

// storeConfig chooses and configures a store. The zero value is the
// embedded bbolt store in defaultDataDir.
type storeConfig struct {
	// redisURL selects Redis (redis://[user:pass@]host:port/db). Empty means
	// the embedded store.
	redisURL string
	// redis configures the Redis store.
	redis redisstore.RedisOptions
	// dataDir is the embedded store's directory. Empty means defaultDataDir.
	dataDir string
	// bolt configures the embedded store.
	bolt boltstore.BoltOptions
	// memory selects the in-memory store: nothing survives the process.
	// It may not be combined with redisURL.
	memory bool
}

// openStore opens the store cfg chooses: Redis when redisURL is set, memory
// when memory is set, else bbolt in dataDir. This is the one place that
// links every implementation.
func openStore(ctx context.Context, cfg storeConfig) (store.Backend, error) {
	switch {
	case cfg.memory && cfg.redisURL != "":
		return nil, errors.New("--memory and --redis are exclusive")
	case cfg.memory:
		return memstore.New(), nil
	case cfg.redisURL != "":
		return redisstore.Open(ctx, cfg.redisURL, cfg.redis)
	}
	dir := cfg.dataDir
	if dir == "" {
		dir = defaultDataDir
	}
	return boltstore.Open(dir, cfg.bolt)
}

// storeMetrics are the embedded store's counters, for /metrics: its commits
// (records of the write-ahead log, bbolt transactions), the writes they
// carried, the log's checkpoints and whether it syncs through io_uring.
// Other stores have none.
func storeMetrics(st store.Backend) []prometheus.Collector {
	b, ok := st.(*boltstore.Bolt)
	if !ok {
		return nil
	}
	counter := func(name, help string, labels prometheus.Labels, read func(boltstore.BoltStats) uint64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: labels},
			func() float64 { return float64(read(b.Stats())) })
	}
	const commits = "roomd_store_commits_total"
	const commitsHelp = "group commits of the embedded store: records of its write-ahead log (one fdatasync each) and bbolt transactions (two)"
	return []prometheus.Collector{
		counter(commits, commitsHelp, prometheus.Labels{"kind": "log"}, func(s boltstore.BoltStats) uint64 { return s.Logged }),
		counter(commits, commitsHelp, prometheus.Labels{"kind": "transaction"}, func(s boltstore.BoltStats) uint64 { return s.Transactions - s.Logged }),
		counter("roomd_store_writes_total", "writes the embedded store's commits carried", nil, func(s boltstore.BoltStats) uint64 { return s.Ops }),
		counter("roomd_store_checkpoints_total", "checkpoints of the embedded store's write-ahead log into bbolt", nil, func(s boltstore.BoltStats) uint64 { return s.Checkpoints }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "roomd_store_wal_io_uring",
			Help: "1 while the embedded store's write-ahead log syncs through io_uring, 0 when it syncs with a blocking fdatasync (--io-uring=false, --fsync=false, or no ring: refused by the system or failed since, as logged at start)"},
			func() float64 {
				if b.Stats().RingSync {
					return 1
				}
				return 0
			}),
	}
}
