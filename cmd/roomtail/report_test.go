package main

import (
	"testing"
	"time"

	"github.com/roomd/roomd/internal/rawscan"
)

// report times each delivery from its update's send, counts only the
// window's updates, maps roomd's revisions to updates and counts what is
// missing.
func TestReport(t *testing.T) {
	ms := time.Millisecond
	sent := []time.Duration{0, 100 * ms, 200 * ms, 300 * ms} // update 0 is the warm-up's
	// A delivery read at ms and in the socket (kernel time) a millisecond
	// earlier; the wall clock is the run's plus 1 s.
	d := func(num uint64, at time.Duration) delivery { return delivery{num, at, int64(time.Second + at - ms)} }
	specs := []*spectator{
		{got: []delivery{d(10, 5*ms), d(11, 101*ms), d(12, 202*ms), d(13, 303*ms)}},
		{got: []delivery{d(10, 9*ms), d(11, 104*ms), d(13, 340*ms), d(99, 350*ms)}}, // 12 missing; 99 is no move's
	}
	specs[1].lost.Store(true)
	wall := make([]int64, len(sent))
	for i, at := range sent {
		wall[i] = int64(time.Second + at)
	}
	revs := map[uint64]int{10: 0, 11: 1, 12: 2, 13: 3}
	r := report(config{Server: "roomd", Rate: 10}, specs, sent, wall, 1, revs, 0, 0.5, 0)
	if r.Updates != 3 || r.Deliveries != 5 || r.Missing != 1 || r.Lost != 1 {
		t.Fatalf("updates %d deliveries %d missing %d lost %d; want 3, 5, 1, 1", r.Updates, r.Deliveries, r.Missing, r.Lost)
	}
	// Latencies 1, 2, 3, 4, 40 ms.
	if r.P50 != 3 || r.P99 != 40 || r.Max != 40 {
		t.Errorf("p50 %v p99 %v max %v; want 3, 40, 40", r.P50, r.P99, r.Max)
	}
	// Arrivals 0, 1, 2, 3, 39 ms.
	if r.Arrival.Count != 5 || r.Arrival.P50 != 2 || r.Arrival.P99 != 39 {
		t.Errorf("arrival %+v; want 5 deliveries, p50 2, p99 39", r.Arrival)
	}
	if r.CPUPerDelUs != 0.5/5*1e6 {
		t.Errorf("CPU per delivery %v µs; want %v", r.CPUPerDelUs, 0.5/5*1e6)
	}
	if len(r.Worst) == 0 || r.Worst[0].Seq != 3 || r.Worst[0].First != 3 || r.Worst[0].Last != 40 {
		t.Errorf("worst update %+v; want update 3, first 3 ms, last 40 ms", r.Worst)
	}
}

func TestRawscanKeys(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{`{"type":"update","from":3,"to":4}`, 4, true},
		{`{"push":{"pub":{"data":{"seq":-1}}}}`, 0, false},
		{`{"type":"update"}`, 0, false},
	} {
		got, ok := rawscan.Uint([]byte(c.in), `"to":`)
		if c.in[2] == 'p' {
			got, ok = rawscan.Uint([]byte(c.in), `"seq":`)
		}
		if got != c.want || ok != c.ok {
			t.Errorf("rawscan.Uint(%s) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
