package store

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/roomd/roomd/internal/testredis"
)

// benchData is the size of a typical entry (one move, JSON).
var benchData = bytes.Repeat([]byte("x"), 100)

// BenchmarkAppend measures Append of one entry: one room appending in a
// loop (latency), and 1,000 rooms appending at once (throughput under group
// commit). ns/op is wall time per append.
func BenchmarkAppend(b *testing.B) {
	type backend struct {
		name string
		open func(b *testing.B) Backend
	}
	backends := []backend{
		{"memory", func(b *testing.B) Backend { return NewMemory() }},
		{"bolt-fsync", func(b *testing.B) Backend { return openBenchBolt(b, false) }},
		{"bolt-nosync", func(b *testing.B) Backend { return openBenchBolt(b, true) }},
	}
	if _, err := exec.LookPath("redis-server"); err == nil {
		srv := testredis.Start(b)
		backends = append(backends, backend{"redis", func(b *testing.B) Backend {
			return openRedis(b, srv.URL(), RedisOptions{})
		}})
	}
	for _, be := range backends {
		b.Run(be.name+"/rooms=1", func(b *testing.B) {
			s := be.open(b)
			defer s.Close()
			ctx := context.Background()
			l, err := s.Create(ctx, "BENCH1", Snapshot{})
			if err != nil {
				b.Fatal(err)
			}
			m := startMeter(s)
			b.ResetTimer()
			for i := range b.N {
				if err := s.Append(ctx, l, []Entry{{Rev: uint64(i + 1), Data: benchData}}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			m.report(b)
		})
		b.Run(be.name+"/rooms=1000", func(b *testing.B) {
			const rooms = 1000
			s := be.open(b)
			defer s.Close()
			ctx := context.Background()
			leases := make([]Lease, rooms)
			for i := range leases {
				var err error
				if leases[i], err = s.Create(ctx, fmt.Sprintf("B%05d", i), Snapshot{}); err != nil {
					b.Fatal(err)
				}
			}
			var next atomic.Int64
			var wg sync.WaitGroup
			m := startMeter(s)
			b.ResetTimer()
			for i := range rooms {
				wg.Go(func() {
					for rev := uint64(1); next.Add(1) <= int64(b.N); rev++ {
						if err := s.Append(ctx, leases[i], []Entry{{Rev: rev, Data: benchData}}); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			m.report(b)
		})
	}
}

func openBenchBolt(b *testing.B, noSync bool) *Bolt {
	s, err := OpenBolt(b.TempDir(), BoltOptions{NoSync: noSync})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// meter reports the group-commit counters of the stores that have them.
type meter struct {
	s     Backend
	redis RedisStats
	bolt  BoltStats
}

func startMeter(s Backend) *meter {
	m := &meter{s: s}
	switch s := s.(type) {
	case *Redis:
		m.redis = s.Stats()
	case *Bolt:
		m.bolt = s.Stats()
	}
	return m
}

func (m *meter) report(b *testing.B) {
	switch s := m.s.(type) {
	case *Redis:
		st := s.Stats()
		if n := st.Accepted - m.redis.Accepted; n > 0 {
			b.ReportMetric(float64(st.RoundTrips-m.redis.RoundTrips)/float64(n), "roundtrips/append")
		}
	case *Bolt:
		st := s.Stats()
		if n := st.Ops - m.bolt.Ops; n > 0 {
			b.ReportMetric(float64(st.Transactions-m.bolt.Transactions)/float64(n), "tx/append")
		}
	}
}
