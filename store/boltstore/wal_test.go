package boltstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"go.etcd.io/bbolt"
	"pgregory.net/rapid"

	"github.com/roomd/roomd/internal/queue"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/storetest"
)

// crash stops b as a killed process would: the committer and the sweep
// stop, the files close, and nothing is checkpointed.
func crash(t *testing.T, b *Bolt) {
	t.Helper()
	b.closed.Store(true)
	for _, q := range []*queue.Queue[*boltOp]{b.queue, b.apart} {
		for _, o := range q.Close() {
			o.done <- store.ErrClosed
		}
	}
	close(b.quit)
	b.wg.Wait()
	b.ckwg.Wait() // a checkpoint running lands or not, as it would
	if b.wal != nil {
		b.wal.close()
	}
	if err := b.db.Close(); err != nil {
		t.Fatal(err)
	}
}

func openBolt(t *testing.T, dir string, opts BoltOptions) *Bolt {
	t.Helper()
	b, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// reopen crashes b and opens the store in dir again, which must replay
// want records of the log and skip none.
func reopen(t *testing.T, b *Bolt, dir string, want int) *Bolt {
	t.Helper()
	crash(t, b)
	b = openBolt(t, dir, BoltOptions{})
	if st := b.Stats(); st.Replayed != want || st.ReplaySkipped != 0 {
		t.Fatalf("reopened after a crash: %+v, want %d records replayed, none skipped", st, want)
	}
	return b
}

// onCommitter runs fn on the committer, between two batches.
func onCommitter(t *testing.T, b *Bolt, fn func()) {
	t.Helper()
	if err := b.do(context.Background(), "test", func(*bbolt.Tx) error { fn(); return nil }); err != nil {
		t.Fatal(err)
	}
}

// TestWALAppendsLogged: appends are logged, one record per batch, and
// stay out of bbolt until a checkpoint; a crash then loses none of them, and
// the next open replays them once.
func TestWALAppendsLogged(t *testing.T) {
	dir := t.TempDir()
	b := openBolt(t, dir, BoltOptions{CheckpointInterval: 1 << 40})
	l := storetest.MustCreate(t, b, "WALONE", store.Snapshot{Rev: 0, Data: []byte("s0")})
	for rev := uint64(1); rev <= 5; rev++ {
		storetest.MustAppend(t, b, l, []store.Entry{storetest.Entry("WALONE", rev)})
	}
	storetest.MustAppend(t, b, l, storetest.Entries("WALONE", 4, 5)) // a retry of a landed append
	if st := b.Stats(); st.Logged != 5 || st.Checkpoints != 0 {
		t.Fatalf("stats %+v: want 5 appends logged, none checkpointed", st)
	}
	inBolt := 0
	if err := b.db.View(func(tx *bbolt.Tx) error {
		inBolt = tx.Bucket(bLog).Stats().KeyN
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if inBolt != 0 {
		t.Fatalf("%d entries in bbolt before a checkpoint, want 0 (they are in the log)", inBolt)
	}
	b = reopen(t, b, dir, 5)
	_, rec := storetest.MustOpen(t, b, "WALONE")
	storetest.CheckRecord(t, rec, store.Snapshot{Rev: 0, Data: []byte("s0")}, storetest.Entries("WALONE", 1, 5))
	// Replayed records are not replayed again: the open checkpointed them.
	b = reopen(t, b, dir, 0)
	_, rec = storetest.MustOpen(t, b, "WALONE")
	storetest.CheckRecord(t, rec, store.Snapshot{Rev: 0, Data: []byte("s0")}, storetest.Entries("WALONE", 1, 5))
}

// TestWALStaleRecordsAfterReset: after a checkpoint the log starts over at
// offset 0, over records bbolt holds already; a crash then replays the new
// records only, never the old ones behind them.
func TestWALStaleRecordsAfterReset(t *testing.T) {
	dir := t.TempDir()
	b := openBolt(t, dir, BoltOptions{CheckpointInterval: 1 << 40})
	l := storetest.MustCreate(t, b, "RESETS", store.Snapshot{})
	big := func(rev uint64) store.Entry { return store.Entry{Rev: rev, Data: bytes.Repeat([]byte{byte(rev)}, 300)} }
	for rev := uint64(1); rev <= 4; rev++ {
		storetest.MustAppend(t, b, l, []store.Entry{big(rev)})
	}
	if err := b.checkpoint(storetest.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	storetest.MustAppend(t, b, l, []store.Entry{{Rev: 5, Data: []byte("five")}})
	if st := b.Stats(); st.Checkpoints != 1 || st.Logged != 5 {
		t.Fatalf("stats %+v: want 5 logged, 1 checkpoint", st)
	}
	b = reopen(t, b, dir, 1)
	_, rec := storetest.MustOpen(t, b, "RESETS")
	want := []store.Entry{big(1), big(2), big(3), big(4), {Rev: 5, Data: []byte("five")}}
	storetest.CheckRecord(t, rec, store.Snapshot{}, want)
}

// TestWALTornTail: a record cut short or changed by a crash is not
// replayed, nor is anything after it; what precedes it is.
func TestWALTornTail(t *testing.T) {
	for _, damage := range []string{"cut", "flip"} {
		t.Run(damage, func(t *testing.T) {
			dir := t.TempDir()
			b := openBolt(t, dir, BoltOptions{CheckpointInterval: 1 << 40})
			l := storetest.MustCreate(t, b, "TORNTL", store.Snapshot{})
			for rev := uint64(1); rev <= 4; rev++ {
				storetest.MustAppend(t, b, l, []store.Entry{storetest.Entry("TORNTL", rev)})
			}
			crash(t, b)
			path := filepath.Join(dir, WALFile)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var ends []int // of the records
			for off := 0; off+walHeader+8 <= len(data); {
				_, n, ok := nextRecord(data[off:], u64(data[off+walHeader:]))
				if !ok {
					break
				}
				off += n
				ends = append(ends, off)
			}
			if len(ends) != 4 {
				t.Fatalf("%d records in the log, want 4", len(ends))
			}
			ends = ends[2:]
			switch damage {
			case "cut": // the last record half written
				data = data[:(ends[0]+ends[1])/2]
			case "flip": // a byte of its entry changed
				data[ends[1]-2] ^= 0xff
			}
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			b = openBolt(t, dir, BoltOptions{})
			if st := b.Stats(); st.Replayed != 3 {
				t.Fatalf("replayed %d records, want the 3 before the damaged one", st.Replayed)
			}
			l, rec := storetest.MustOpen(t, b, "TORNTL")
			storetest.CheckRecord(t, rec, store.Snapshot{}, storetest.Entries("TORNTL", 1, 3))
			storetest.MustAppend(t, b, l, []store.Entry{{Rev: 4, Data: []byte("again")}})
		})
	}
}

// TestWALWriteFails: when the log cannot be written the append's outcome is
// an error (not acknowledged, and not kept), later appends go to bbolt until
// a checkpoint has passed the failed record, and then to the log again.
func TestWALWriteFails(t *testing.T) {
	dir := t.TempDir()
	b := openBolt(t, dir, BoltOptions{CheckpointInterval: 1 << 40})
	l := storetest.MustCreate(t, b, "WFAILS", store.Snapshot{})
	storetest.MustAppend(t, b, l, storetest.Entries("WFAILS", 1, 1))
	readOnly, err := os.Open(filepath.Join(dir, WALFile))
	if err != nil {
		t.Fatal(err)
	}
	var good *os.File
	onCommitter(t, b, func() { good, b.wal.files[b.wal.cur] = b.wal.files[b.wal.cur], readOnly })
	if err := b.Append(storetest.Ctx(t), l, storetest.Entries("WFAILS", 2, 2)); err == nil {
		t.Fatal("an append the log could not write was acknowledged")
	}
	onCommitter(t, b, func() { b.wal.files[b.wal.cur] = good; readOnly.Close() }) // a transaction: the checkpoint
	before := b.Stats()
	// The failed append was not kept: rev 2 may be written anew.
	storetest.MustAppend(t, b, l, []store.Entry{{Rev: 2, Data: []byte("retried")}})
	storetest.MustAppend(t, b, l, storetest.Entries("WFAILS", 3, 3))
	if st := b.Stats(); st.Logged != before.Logged+2 {
		t.Fatalf("after the checkpoint: %d appends logged, want 2 (the log usable again)", st.Logged-before.Logged)
	}
	crash(t, b)
	b = openBolt(t, dir, BoltOptions{})
	if st := b.Stats(); st.ReplaySkipped != 0 {
		t.Fatalf("replay skipped %d appends", st.ReplaySkipped)
	}
	_, rec := storetest.MustOpen(t, b, "WFAILS")
	want := []store.Entry{storetest.Entry("WFAILS", 1), {Rev: 2, Data: []byte("retried")}, storetest.Entry("WFAILS", 3)}
	storetest.CheckRecord(t, rec, store.Snapshot{}, want)
}

// TestWALTwoFiles: while a checkpoint runs, or after it failed, writes go
// to the log's other file; a crash then replays both files, in order.
func TestWALTwoFiles(t *testing.T) {
	dir := t.TempDir()
	b := openBolt(t, dir, BoltOptions{CheckpointInterval: time.Nanosecond})
	b.testCheckpoint = func() error { return errors.New("refused by the test") }
	l := storetest.MustCreate(t, b, "TWOFIL", store.Snapshot{})
	for rev := uint64(1); rev <= 6; rev++ {
		storetest.MustAppend(t, b, l, []store.Entry{storetest.Entry("TWOFIL", rev)})
	}
	storetest.MustSnapshot(t, b, l, store.Snapshot{Rev: 4, Data: []byte("s4"), Keep: 3})
	storetest.MustAppend(t, b, l, []store.Entry{storetest.Entry("TWOFIL", 7)})
	if st := b.Stats(); st.Checkpoints != 0 || st.Logged != 8 {
		t.Fatalf("stats %+v: want 8 records logged, no checkpoint landed", st)
	}
	var sizes [2]int64
	for i, name := range walFiles {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		sizes[i] = fi.Size()
	}
	if sizes[0] == 0 || sizes[1] == 0 {
		t.Fatalf("file sizes %v: the log should have gone on in its other file", sizes)
	}
	b = reopen(t, b, dir, 8)
	_, rec := storetest.MustOpen(t, b, "TWOFIL")
	storetest.CheckRecord(t, rec, store.Snapshot{Rev: 4, Data: []byte("s4")}, storetest.Entries("TWOFIL", 3, 7))
}

// TestWALCheckpointBounds: the log is carried into bbolt when it holds
// WALSize bytes, and its file stays near that size.
func TestWALCheckpointBounds(t *testing.T) {
	dir := t.TempDir()
	const size = 4 << 10
	b := openBolt(t, dir, BoltOptions{CheckpointInterval: 1 << 40, WALSize: size, NoSync: true})
	l := storetest.MustCreate(t, b, "BOUNDS", store.Snapshot{})
	for rev := uint64(1); rev <= 200; rev++ {
		storetest.MustAppend(t, b, l, []store.Entry{{Rev: rev, Data: bytes.Repeat([]byte("x"), 100)}})
	}
	st := b.Stats()
	if st.Checkpoints < 3 || st.Logged != 200 {
		t.Fatalf("stats %+v: want every append logged and a checkpoint every ~%d bytes", st, size)
	}
	for _, name := range walFiles {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > size+200 {
			t.Fatalf("the log's file %s grew to %d bytes, bound %d", name, fi.Size(), size)
		}
	}
	_, rec := storetest.MustOpen(t, b, "BOUNDS")
	if len(rec.Entries) != 200 {
		t.Fatalf("%d entries, want 200", len(rec.Entries))
	}
}

// FuzzWALRecord: whatever bytes the log's file holds, reading it never
// panics, and a record read back is the one written.
func FuzzWALRecord(f *testing.F) {
	apps := []walOp{{lease: store.Lease{Room: "FUZZED", Token: 7}, entries: storetest.Entries("FUZZED", 3, 4)}}
	f.Add(appendRecord(nil, 1, apps))
	f.Add(appendRecord(appendRecord(nil, 1, apps), 2, nil))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		for off, seq := 0, uint64(1); ; seq++ {
			payload, n, ok := nextRecord(data[off:], seq)
			if !ok {
				break
			}
			got, ok := decodeOps(payload[8:])
			if ok {
				again := appendRecord(nil, seq, got)
				if !bytes.Equal(again, data[off:off+n]) {
					t.Fatalf("record %d read back as %x, written %x", seq, again, data[off:off+n])
				}
			}
			off += n
		}
	})
}

// BenchmarkWALRecord: encoding one batch of 6 one-entry appends (the size
// of a commit at 1,000 rooms × 2 players × 1 move/s).
func BenchmarkWALRecord(b *testing.B) {
	var apps []walOp
	for i := range 6 {
		code := fmt.Sprintf("B%05d", i)
		apps = append(apps, walOp{lease: store.Lease{Room: code, Token: 1}, entries: []store.Entry{{Rev: 9, Data: bytes.Repeat([]byte("x"), 100)}}})
	}
	var buf []byte
	b.ReportAllocs()
	for i := range b.N {
		buf = appendRecord(buf[:0], uint64(i), apps)
	}
}

// TestWALModel: any sequence of appends (new, retried, out of order) and
// snapshots (older, covering, keeping, ahead of the log) of two rooms, with
// checkpoints and crashes in between, leaves the store with the write-ahead
// log answering and holding exactly what the store without it does.
func TestWALModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		dirs := [2]string{t.TempDir(), t.TempDir()}
		// The store with the log checkpoints only when told to, or after
		// every batch in the background, or tries to and fails.
		mode := rapid.SampledFrom([]string{"told", "background", "failing"}).Draw(rt, "checkpoints")
		opts := [2]BoltOptions{{NoSync: true, NoWAL: true}, {NoSync: true, CheckpointInterval: 1 << 40}}
		if mode != "told" {
			opts[1].CheckpointInterval = time.Nanosecond
		}
		var stores [2]*Bolt
		open := func(i int) {
			var err error
			if stores[i], err = Open(dirs[i], opts[i]); err != nil {
				rt.Fatal(err)
			}
			if mode == "failing" {
				stores[i].testCheckpoint = func() error { return errors.New("checkpoint refused by the test") }
			}
		}
		open(0)
		open(1)
		defer func() {
			for _, s := range stores {
				s.Close()
			}
		}()
		ctx := context.Background()
		rooms := []string{"MODELA", "MODELB"}
		leases := map[string][2]store.Lease{}
		for _, code := range rooms {
			var l [2]store.Lease
			for i, s := range stores {
				var err error
				if l[i], err = s.Create(ctx, code, store.Snapshot{Data: []byte("s0")}); err != nil {
					rt.Fatal(err)
				}
			}
			leases[code] = l
		}
		// reopen opens each room anew in both (a new lease), comparing.
		reopen := func(what string) {
			for _, code := range rooms {
				var l [2]store.Lease
				var recs [2]store.Record
				for i, s := range stores {
					var err error
					if l[i], recs[i], err = s.Open(ctx, code); err != nil {
						rt.Fatalf("%s: open %s: %v", what, code, err)
					}
				}
				if fmt.Sprint(recs[0]) != fmt.Sprint(recs[1]) {
					rt.Fatalf("%s: %s holds\n%v with the log,\n%v without", what, code, recs[1], recs[0])
				}
				leases[code] = l
			}
		}
		data := func(code string, rev uint64, v int) []byte { return fmt.Appendf(nil, "%s/%d/%d", code, rev, v) }
		steps := rapid.IntRange(1, 40).Draw(rt, "steps")
		for range steps {
			code := rapid.SampledFrom(rooms).Draw(rt, "room")
			l := leases[code]
			var errs [2]error
			switch op := rapid.IntRange(0, 9).Draw(rt, "op"); {
			case op < 5: // an append, usually the next one
				from := uint64(rapid.IntRange(1, 12).Draw(rt, "from"))
				n := uint64(rapid.IntRange(1, 3).Draw(rt, "n"))
				v := rapid.IntRange(0, 1).Draw(rt, "bytes")
				var es []store.Entry
				for rev := from; rev < from+n; rev++ {
					es = append(es, store.Entry{Rev: rev, Data: data(code, rev, v)})
				}
				for i, s := range stores {
					errs[i] = s.Append(ctx, l[i], es)
				}
			case op < 8:
				snap := store.Snapshot{Rev: uint64(rapid.IntRange(0, 14).Draw(rt, "rev")), Keep: uint64(rapid.IntRange(0, 15).Draw(rt, "keep"))}
				snap.Data = fmt.Appendf(nil, "snap %d", snap.Rev)
				for i, s := range stores {
					errs[i] = s.WriteSnapshot(ctx, l[i], snap)
				}
			case op == 8: // a checkpoint in the store with the log
				errs[1] = stores[1].checkpoint(ctx)
			default: // a crash of the store with the log
				crash(t, stores[1])
				open(1)
				if st := stores[1].Stats(); st.ReplaySkipped != 0 {
					rt.Fatalf("the replay skipped %d writes", st.ReplaySkipped)
				}
				reopen("after a crash")
			}
			if sentinel(errs[0]) != sentinel(errs[1]) {
				rt.Fatalf("answers differ: %v without the log, %v with it", errs[0], errs[1])
			}
		}
		reopen("at the end")
	})
}

// sentinel names the store's sentinel err wraps ("" for nil).
func sentinel(err error) string {
	for _, s := range []error{store.ErrGap, store.ErrFenced, store.ErrNotFound, store.ErrExists, store.ErrClosed} {
		if errors.Is(err, s) {
			return s.Error()
		}
	}
	if err != nil {
		return "other: " + err.Error()
	}
	return ""
}

// TestCheckpointSpareProc: with one P, a checkpoint's bbolt transaction
// (two blocking fdatasyncs) runs with a second P, and the process has one
// again after it; KeepProcs and NoSync leave GOMAXPROCS alone.
func TestCheckpointSpareProc(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, tc := range []struct {
		name string
		opts BoltOptions
		want int
	}{
		{"default", BoltOptions{}, 2},
		{"DefaultProcs", BoltOptions{DefaultProcs: true}, 2},
		{"KeepProcs", BoltOptions{KeepProcs: true}, 1},
		{"NoSync", BoltOptions{NoSync: true}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The runtime's default stands for 1 here (the machine may
			// have more CPUs): a P borrowed from a default goes back
			// through it, keeping the runtime's automatic updates.
			defaults := 0
			spare.Lock()
			spare.setDflt = func() { defaults++; runtime.GOMAXPROCS(1) }
			spare.Unlock()
			defer func() {
				spare.Lock()
				spare.setDflt = runtime.SetDefaultGOMAXPROCS
				spare.Unlock()
			}()
			tc.opts.CheckpointInterval = time.Nanosecond
			b := openBolt(t, t.TempDir(), tc.opts)
			inside := make(chan int, 16)
			b.testCheckpoint = func() error {
				select {
				case inside <- runtime.GOMAXPROCS(0):
				default:
				}
				return nil
			}
			l := storetest.MustCreate(t, b, "SPAREP", store.Snapshot{})
			for rev := uint64(1); rev <= 3; rev++ {
				storetest.MustAppend(t, b, l, []store.Entry{storetest.Entry("SPAREP", rev)})
			}
			select {
			case got := <-inside:
				if got != tc.want {
					t.Errorf("GOMAXPROCS %d inside the checkpoint, want %d", got, tc.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no checkpoint ran")
			}
			onCommitter(t, b, func() { b.checkpointDone(true) })
			if got := runtime.GOMAXPROCS(0); got != 1 {
				t.Errorf("GOMAXPROCS %d after the checkpoint, want 1", got)
			}
			spare.Lock()
			n := defaults
			spare.Unlock()
			if want := tc.opts.DefaultProcs; (n > 0) != want {
				t.Errorf("given back with runtime.SetDefaultGOMAXPROCS %d times; want it used: %v", n, want)
			}
		})
	}
}
