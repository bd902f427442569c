package storetest

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/roomd/roomd/store"
)

// benchData is the size of a typical entry (one move, JSON).
var benchData = bytes.Repeat([]byte("x"), 100)

// Meter reads a store's group-commit counters: how many commits (a
// transaction, a round trip) it made and how many appends they carried.
// Unit names the ratio reported, e.g. "tx/append".
type Meter struct {
	Unit string
	Read func() (commits, appends uint64)
}

// BenchAppend measures Append of one entry on the stores open returns: one
// room appending in a loop (latency, "rooms=1"), and 1,000 rooms appending
// at once (throughput under group commit, "rooms=1000"). ns/op is wall time
// per append. meter, when not nil, gives the store's counters, reported as
// commits per append.
func BenchAppend(b *testing.B, open func(b *testing.B) store.Store, meter func(s store.Store) Meter) {
	b.Run("rooms=1", func(b *testing.B) {
		s := open(b)
		defer s.Close()
		ctx := context.Background()
		l, err := s.Create(ctx, "BENCH1", store.Snapshot{})
		if err != nil {
			b.Fatal(err)
		}
		m := startMeter(s, meter)
		b.ResetTimer()
		for i := range b.N {
			if err := s.Append(ctx, l, []store.Entry{{Rev: uint64(i + 1), Data: benchData}}); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		m.report(b)
	})
	b.Run("rooms=1000", func(b *testing.B) {
		const rooms = 1000
		s := open(b)
		defer s.Close()
		ctx := context.Background()
		leases := make([]store.Lease, rooms)
		for i := range leases {
			var err error
			if leases[i], err = s.Create(ctx, fmt.Sprintf("B%05d", i), store.Snapshot{}); err != nil {
				b.Fatal(err)
			}
		}
		var next atomic.Int64
		var wg sync.WaitGroup
		m := startMeter(s, meter)
		b.ResetTimer()
		for i := range rooms {
			wg.Go(func() {
				for rev := uint64(1); next.Add(1) <= int64(b.N); rev++ {
					if err := s.Append(ctx, leases[i], []store.Entry{{Rev: rev, Data: benchData}}); err != nil {
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

type meterRun struct {
	m                Meter
	commits, appends uint64
}

func startMeter(s store.Store, meter func(store.Store) Meter) *meterRun {
	if meter == nil {
		return nil
	}
	r := &meterRun{m: meter(s)}
	r.commits, r.appends = r.m.Read()
	return r
}

func (r *meterRun) report(b *testing.B) {
	if r == nil {
		return
	}
	commits, appends := r.m.Read()
	if n := appends - r.appends; n > 0 {
		b.ReportMetric(float64(commits-r.commits)/float64(n), r.m.Unit)
	}
}
