package boltstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tidwall "github.com/tidwall/wal"

	"github.com/roomd/roomd/store"
)

// BenchmarkLogVsTidwall compares our write-ahead log with
// github.com/tidwall/wal as the log (issue 42): appends of a move's size
// (a command entry, about 200 bytes) with fsync, from many appenders at
// once, as the room actors append.
//
//   - store: our log as roomd uses it, Bolt.Append on one room per
//     appender with the default options (group commit every 1.5 ms, its
//     checks, the checkpoints into bbolt);
//   - ours: our log alone, as the committer writes it (appendRecord, one
//     record per batch, pwrite and fdatasync);
//   - tidwall: tidwall/wal, which has no group commit of its own, with the
//     fairest use: one writer goroutine that takes every append waiting,
//     writes them with one WriteBatch and syncs once (its fsync after the
//     batch).
//
// ours and tidwall share the writer; neither file is ever rewritten in
// place (our log does so after a checkpoint, which store includes). Each
// reports appends/s, fsync/append and the latency of one append (p50, p99
// in µs, from the call to its answer).
func BenchmarkLogVsTidwall(b *testing.B) {
	for _, n := range []int{64, 1000} {
		b.Run(fmt.Sprintf("store/appenders=%d", n), func(b *testing.B) { benchStoreLog(b, n) })
		b.Run(fmt.Sprintf("ours/appenders=%d", n), func(b *testing.B) { benchLog(b, n, openOurLog) })
		b.Run(fmt.Sprintf("tidwall/appenders=%d", n), func(b *testing.B) { benchLog(b, n, openTidwall) })
	}
}

// moveData is an entry of a move's size.
var moveData = func() []byte {
	b := []byte(`{"rev":12345,"k":"command","by":"01M99131XPVZ10RXQWB833CC4D","aid":"a1b2c3d4e5f6","t":1765123456789,"move":{`)
	for len(b) < 198 {
		b = append(b, `"x":1,`...)
	}
	return append(b[:197], "}}"...)
}()

// appendLatencies runs b.N appends from n goroutines, each calling
// do(goroutine, i) for its next append, and reports appends/s and the
// latency percentiles.
func appendLatencies(b *testing.B, n int, do func(g int, rev uint64) error) {
	var next atomic.Int64
	lat := make([][]time.Duration, n)
	var wg sync.WaitGroup
	start := time.Now()
	b.ResetTimer()
	for g := range n {
		wg.Go(func() {
			for rev := uint64(1); next.Add(1) <= int64(b.N); rev++ {
				t := time.Now()
				if err := do(g, rev); err != nil {
					b.Error(err)
					return
				}
				lat[g] = append(lat[g], time.Since(t))
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	all := slices.Concat(lat...)
	slices.Sort(all)
	if len(all) == 0 {
		return
	}
	b.ReportMetric(float64(len(all))/time.Since(start).Seconds(), "appends/s")
	b.ReportMetric(float64(all[len(all)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(all[len(all)*99/100].Microseconds()), "p99-µs")
}

func benchStoreLog(b *testing.B, n int) {
	s, err := Open(b.TempDir(), BoltOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	leases := make([]store.Lease, n)
	for i := range leases {
		if leases[i], err = s.Create(ctx, fmt.Sprintf("B%05d", i), store.Snapshot{}); err != nil {
			b.Fatal(err)
		}
	}
	before := s.Stats()
	appendLatencies(b, n, func(g int, rev uint64) error {
		return s.Append(ctx, leases[g], []store.Entry{{Rev: rev, Data: moveData}})
	})
	after := s.Stats()
	// A record of the log is one fdatasync; a bbolt transaction, the
	// checkpoints' included, two.
	logged := after.Logged - before.Logged
	txs := after.Transactions - before.Transactions - logged + after.Checkpoints - before.Checkpoints
	b.ReportMetric(float64(logged+2*txs)/float64(b.N), "fsync/append")
}

// batchLog is a log with one writer: write writes a batch and syncs it.
type batchLog struct {
	write func(batch []*logReq) error
	close func()
}

type logReq struct {
	room string
	rev  uint64
	done chan error
}

func benchLog(b *testing.B, n int, open func(b *testing.B) batchLog) {
	l := open(b)
	defer l.close()
	reqs := make(chan *logReq, n)
	var syncs atomic.Int64
	writer := make(chan struct{})
	go func() {
		defer close(writer)
		var batch []*logReq
		for r := range reqs {
			batch = append(batch[:0], r)
		more:
			for len(batch) < 1000 {
				select {
				case r, ok := <-reqs:
					if !ok {
						break more
					}
					batch = append(batch, r)
				default:
					break more
				}
			}
			err := l.write(batch)
			syncs.Add(1)
			for _, r := range batch {
				r.done <- err
			}
		}
	}()
	rooms := make([]string, n)
	for i := range rooms {
		rooms[i] = fmt.Sprintf("B%05d", i)
	}
	done := make([]chan error, n)
	for i := range done {
		done[i] = make(chan error, 1)
	}
	appendLatencies(b, n, func(g int, rev uint64) error {
		reqs <- &logReq{room: rooms[g], rev: rev, done: done[g]}
		return <-done[g]
	})
	close(reqs)
	<-writer
	b.ReportMetric(float64(syncs.Load())/float64(b.N), "fsync/append")
}

// openOurLog is our log alone: the committer's record (appendRecord), one
// per batch, written and synced by wal.write.
func openOurLog(b *testing.B) batchLog {
	f, err := os.OpenFile(filepath.Join(b.TempDir(), WALFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	w := &wal{files: [2]*os.File{f, f}}
	var ops []walOp
	return batchLog{
		write: func(batch []*logReq) error {
			ops = ops[:0]
			for _, r := range batch {
				ops = append(ops, walOp{lease: store.Lease{Room: r.room, Token: 1}, entries: []store.Entry{{Rev: r.rev, Data: moveData}}})
			}
			return w.write(ops)
		},
		close: func() { f.Close() },
	}
}

// openTidwall is tidwall/wal: one entry per append, one WriteBatch and its
// one fsync per batch.
func openTidwall(b *testing.B) batchLog {
	l, err := tidwall.Open(filepath.Join(b.TempDir(), "tidwall"), &tidwall.Options{NoCopy: true})
	if err != nil {
		b.Fatal(err)
	}
	var (
		batch tidwall.Batch
		index uint64
	)
	return batchLog{
		write: func(reqs []*logReq) error {
			for range reqs {
				index++
				batch.Write(index, moveData)
			}
			return l.WriteBatch(&batch)
		},
		close: func() { l.Close() },
	}
}
