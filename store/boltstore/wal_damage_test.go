package boltstore

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/storetest"
)

// damageRooms are the rooms of the damage tests: each append goes to the
// next, in turn.
var damageRooms = []string{"DAMAGA", "DAMAGB", "DAMAGC"}

// logged is a store left by a crash with records in its log: its directory
// and what it logged.
type logged struct {
	dir  string
	revs map[string]uint64 // the last revision appended, by room
}

// crashLogged creates the damage tests' rooms in a new store whose
// checkpoints never come due, appends n records of size bytes, one room
// after the other, and crashes it. With before > 0 it first appends
// before records as large and checkpoints them: the log is then rewritten
// in place over a larger file. With twoFiles the log's first file takes
// about half the records and its checkpoint fails: the rest go to the
// other file, and both hold records bbolt does not.
func crashLogged(t *testing.T, n, size, before int, twoFiles bool) logged {
	t.Helper()
	dir := t.TempDir()
	opts := BoltOptions{NoSync: true, CheckpointInterval: 1 << 40}
	if twoFiles {
		opts.WALSize = int64(n / 2 * (size + 40))
	}
	b := openBolt(t, dir, opts)
	b.testCheckpoint = func() error { return errors.New("checkpoint refused by the test") }
	leases := map[string]store.Lease{}
	lg := logged{dir: dir, revs: map[string]uint64{}}
	for _, code := range damageRooms {
		leases[code] = storetest.MustCreate(t, b, code, store.Snapshot{})
	}
	appendN := func(n int) {
		for i := range n {
			code := damageRooms[i%len(damageRooms)]
			lg.revs[code]++
			storetest.MustAppend(t, b, leases[code], []store.Entry{{Rev: lg.revs[code], Data: bytes.Repeat([]byte{'a' + byte(i%26)}, size)}})
		}
	}
	if before > 0 {
		appendN(before)
		if err := b.checkpoint(storetest.Ctx(t)); err != nil {
			t.Fatal(err)
		}
	}
	appendN(n)
	crash(t, b)
	if twoFiles {
		if r := readFileRun(t, dir, 1); len(r.recs) == 0 {
			t.Fatal("the log did not go on in its other file")
		}
	}
	return lg
}

// readFileRun reads the run of the log's file i in dir.
func readFileRun(t *testing.T, dir string, i int) walRunOf {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, walFiles[i]))
	if err != nil {
		t.Fatal(err)
	}
	return readRun(i, data)
}

// change rewrites the log's file i in dir with fn's version of its bytes.
func change(t *testing.T, dir string, i int, fn func([]byte) []byte) {
	t.Helper()
	path := filepath.Join(dir, walFiles[i])
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, fn(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// hashFiles returns the SHA-256 of every file under dir, by path.
func hashFiles(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		out[path] = sha256.Sum256(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// damageCase damages a crashed store's log and says what Open must find.
type damageCase struct {
	name            string
	n, size, before int
	twoFiles        bool
	// damage changes the files and returns the damage expected, whose
	// Rooms, Files and Kept are not compared (After is).
	damage func(t *testing.T, dir string) WALDamage
}

// damageCases: damage in the middle of the log, each with records after it
// that continue it — or a file cut short of what was written to it.
func damageCases() []damageCase {
	// middle is the first file's run as the crash left it, and the index
	// of its middle record.
	middle := func(t *testing.T, dir string) (walRunOf, int) {
		r := readFileRun(t, dir, 0)
		return r, len(r.recs) / 2
	}
	return []damageCase{
		{name: "flipped byte", n: 12, size: 100, damage: func(t *testing.T, dir string) WALDamage {
			r, k := middle(t, dir)
			change(t, dir, 0, func(b []byte) []byte { b[r.recs[k].off+walHeader+20] ^= 0x10; return b })
			return WALDamage{File: WALFile, Offset: int64(r.recs[k].off), After: len(r.recs) - k - 1,
				First: r.recs[k+1].seq, Last: r.recs[len(r.recs)-1].seq}
		}},
		{name: "flipped sequence number", n: 12, size: 100, damage: func(t *testing.T, dir string) WALDamage {
			r, k := middle(t, dir)
			change(t, dir, 0, func(b []byte) []byte { b[r.recs[k].off+walHeader+7] ^= 0x01; return b })
			return WALDamage{File: WALFile, Offset: int64(r.recs[k].off), After: len(r.recs) - k - 1,
				First: r.recs[k+1].seq, Last: r.recs[len(r.recs)-1].seq}
		}},
		{name: "zeroed page", n: 24, size: 700, damage: func(t *testing.T, dir string) WALDamage {
			r := readFileRun(t, dir, 0)
			const page = 4096
			first, next := -1, -1 // the first record the page touches, the first after it
			for i, rec := range r.recs {
				if first < 0 && rec.end > page {
					first = i
				}
				if next < 0 && rec.off >= 2*page {
					next = i
				}
			}
			if first < 0 || next < 0 {
				t.Fatalf("the run (%d bytes) does not go past the page", r.end)
			}
			change(t, dir, 0, func(b []byte) []byte { clear(b[page : 2*page]); return b })
			return WALDamage{File: WALFile, Offset: int64(r.recs[first].off), After: len(r.recs) - next,
				First: r.recs[next].seq, Last: r.recs[len(r.recs)-1].seq}
		}},
		{name: "cut with records in the other file", n: 16, size: 100, twoFiles: true, damage: func(t *testing.T, dir string) WALDamage {
			r, k := middle(t, dir)
			other := readFileRun(t, dir, 1)
			change(t, dir, 0, func(b []byte) []byte { return b[:r.recs[k].off+30] })
			return WALDamage{File: WALFile, Offset: int64(r.recs[k].off), After: len(other.recs),
				First: other.recs[0].seq, Last: other.recs[len(other.recs)-1].seq}
		}},
		{name: "cut short of the size written", n: 12, size: 100, before: 30, damage: func(t *testing.T, dir string) WALDamage {
			r, k := middle(t, dir)
			size := fileSize(t, dir, 0)
			change(t, dir, 0, func(b []byte) []byte { return b[:r.recs[k].off+10] })
			return WALDamage{File: WALFile, Offset: int64(r.recs[k].off), Size: int64(r.recs[k].off + 10), Written: size}
		}},
		{name: "file removed", n: 12, size: 100, before: 30, damage: func(t *testing.T, dir string) WALDamage {
			size := fileSize(t, dir, 0)
			if err := os.Remove(filepath.Join(dir, WALFile)); err != nil {
				t.Fatal(err)
			}
			return WALDamage{File: WALFile, Offset: 0, Size: 0, Written: size}
		}},
	}
}

func fileSize(t *testing.T, dir string, i int) int64 {
	t.Helper()
	fi, err := os.Stat(filepath.Join(dir, walFiles[i]))
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// checkDamage compares the damage Open found with the one expected.
func checkDamage(t *testing.T, got *WALDamage, want WALDamage) {
	t.Helper()
	if got.File != want.File || got.Offset != want.Offset || got.After != want.After || got.First != want.First || got.Last != want.Last ||
		got.Size != want.Size || got.Written != want.Written {
		t.Fatalf("damage %+v, want %+v", *got, want)
	}
	if want.After > 0 && !slices.Equal(got.Rooms, damageRooms) {
		t.Fatalf("damage names rooms %v, want %v", got.Rooms, damageRooms)
	}
}

// TestWALDamageRefused: a store whose log is damaged — a record after the
// damage continues it, or a file was cut short — does not open; its error
// names the file, the offset, the records after the damage and their
// rooms; and no file is changed.
func TestWALDamageRefused(t *testing.T) {
	for _, tc := range damageCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lg := crashLogged(t, tc.n, tc.size, tc.before, tc.twoFiles)
			want := tc.damage(t, lg.dir)
			before := hashFiles(t, lg.dir)
			b, err := Open(lg.dir, BoltOptions{})
			if err == nil {
				b.Close()
				t.Fatal("a store with a damaged log opened")
			}
			var d *WALDamage
			if !errors.Is(err, ErrWALDamaged) || !errors.As(err, &d) {
				t.Fatalf("open: %v, want a *WALDamage", err)
			}
			t.Logf("open: %v", err)
			checkDamage(t, d, want)
			for _, s := range []string{want.File, fmt.Sprintf("offset %d", want.Offset), fmt.Sprintf("%d intact records follow", want.After)} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("the error does not say %q: %v", s, err)
				}
			}
			if want.After > 0 && !strings.Contains(err.Error(), strings.Join(damageRooms, " ")) {
				t.Errorf("the error does not name the rooms: %v", err)
			}
			if after := hashFiles(t, lg.dir); !maps.Equal(before, after) {
				t.Fatalf("the refused open changed the files:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

// TestWALDamageDiscarded: with DiscardAfterDamage the store opens from the
// records before the damage, keeps a copy of the log's files, reports the
// rooms of the log's records Rewound, and never hands out a sequence
// number the files hold: the records it logs next are the ones a later
// replay reads, not the ones after the damage.
func TestWALDamageDiscarded(t *testing.T) {
	for _, tc := range damageCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lg := crashLogged(t, tc.n, tc.size, tc.before, tc.twoFiles)
			want := tc.damage(t, lg.dir)
			var damaged [2][]byte
			for i, name := range walFiles {
				damaged[i], _ = os.ReadFile(filepath.Join(lg.dir, name))
			}
			var logs bytes.Buffer
			b := openBolt(t, lg.dir, BoltOptions{DiscardAfterDamage: true, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			d := b.recovered
			if d == nil {
				t.Fatal("the store opened without reporting damage")
			}
			checkDamage(t, d, want)
			for _, s := range []string{"level=WARN", "write-ahead log damaged", "kept=" + d.Kept} {
				if !strings.Contains(logs.String(), s) {
					t.Errorf("the log lacks %q:\n%s", s, logs.String())
				}
			}
			// The copy is the files as they were.
			if filepath.Dir(d.Kept) != lg.dir || !strings.HasPrefix(filepath.Base(d.Kept), "damaged-") {
				t.Fatalf("copies kept in %s, want a damaged- directory in %s", d.Kept, lg.dir)
			}
			for i, name := range walFiles {
				kept, err := os.ReadFile(filepath.Join(d.Kept, name))
				if damaged[i] == nil && errors.Is(err, fs.ErrNotExist) {
					continue
				}
				if err != nil || !bytes.Equal(kept, damaged[i]) {
					t.Fatalf("the copy of %s: %d bytes (%v), the damaged file %d", name, len(kept), err, len(damaged[i]))
				}
			}
			if b.wal.seq < want.Last {
				t.Fatalf("next sequence number %d, not above the %d a file holds", b.wal.seq+1, want.Last)
			}
			// Every room comes back rewound, before the revision its client saw.
			leases := map[string]store.Lease{}
			for _, code := range damageRooms {
				l, rec := storetest.MustOpen(t, b, code)
				if !rec.Rewound {
					t.Fatalf("room %s lost entries and opened without Rewound", code)
				}
				leases[code] = l
				last := rec.Snapshot.Rev
				if n := len(rec.Entries); n > 0 {
					last = rec.Entries[n-1].Rev
				}
				if last >= lg.revs[code] {
					t.Fatalf("room %s came back at rev %d, all of its %d", code, last, lg.revs[code])
				}
				lg.revs[code] = last
			}
			// They play on: the next records replay after a crash, and the
			// damage is not found again.
			for _, code := range damageRooms {
				storetest.MustAppend(t, b, leases[code], []store.Entry{{Rev: lg.revs[code] + 1, Data: []byte("after")}})
			}
			b = reopen(t, b, lg.dir, len(damageRooms))
			for _, code := range damageRooms {
				_, rec := storetest.MustOpen(t, b, code)
				if rec.Rewound || rec.Entries[len(rec.Entries)-1].Rev != lg.revs[code]+1 {
					t.Fatalf("room %s after the next crash: rewound %v, entries %v", code, rec.Rewound, storetest.Revs(rec.Entries))
				}
			}
		})
	}
}

// TestWALNotDamage: what a crash leaves is not damage. A torn last record
// is dropped with a warning naming its file and offset, in a file growing
// or rewritten in place; records of earlier runs behind the log's end are
// stale; a cut that takes only stale bytes loses nothing.
func TestWALNotDamage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before int
		damage func(t *testing.T, dir string) (file, off int) // off < 0: no warning
		lost   int                                            // records dropped
	}{
		{name: "torn, growing", damage: func(t *testing.T, dir string) (int, int) {
			r := readFileRun(t, dir, 0)
			last := r.recs[len(r.recs)-1]
			change(t, dir, 0, func(b []byte) []byte { return b[:last.off+(last.end-last.off)/2] })
			return 0, last.off
		}, lost: 1},
		{name: "torn header", damage: func(t *testing.T, dir string) (int, int) {
			r := readFileRun(t, dir, 0)
			last := r.recs[len(r.recs)-1]
			change(t, dir, 0, func(b []byte) []byte { return b[:last.off+5] })
			return 0, last.off
		}, lost: 1},
		{name: "torn in place", before: 30, damage: func(t *testing.T, dir string) (int, int) {
			r := readFileRun(t, dir, 0)
			last := r.recs[len(r.recs)-1]
			change(t, dir, 0, func(b []byte) []byte { b[last.end-3] ^= 0xff; return b })
			return 0, last.off
		}, lost: 1},
		{name: "stale records behind", before: 30, damage: func(t *testing.T, dir string) (int, int) {
			return 0, -1
		}},
		{name: "cut in stale records", before: 30, damage: func(t *testing.T, dir string) (int, int) {
			r := readFileRun(t, dir, 0)
			change(t, dir, 0, func(b []byte) []byte { return b[:r.end+(len(b)-r.end)/2] })
			return 0, -1
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			const n = 12
			lg := crashLogged(t, n, 100, tc.before, false)
			file, off := tc.damage(t, lg.dir)
			var logs bytes.Buffer
			b := openBolt(t, lg.dir, BoltOptions{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			if st := b.Stats(); st.Replayed != n-tc.lost {
				t.Fatalf("replayed %d records, want %d", st.Replayed, n-tc.lost)
			}
			warned := strings.Contains(logs.String(), "level=WARN")
			if off < 0 {
				if warned {
					t.Fatalf("a warning for a log a crash left as it is:\n%s", logs.String())
				}
				return
			}
			want := fmt.Sprintf("file=%s offset=%d", walFiles[file], off)
			if !warned || !strings.Contains(logs.String(), "torn") || !strings.Contains(logs.String(), want) {
				t.Fatalf("the warning does not name the torn record (%s):\n%s", want, logs.String())
			}
		})
	}
}

// TestWALRewoundForgotten: a room rewound by a recovery is reported
// Rewound until an entry after the revision it came back at is stored —
// whoever opens it meanwhile, crashes included — and never again after; a
// room deleted meanwhile leaves nothing behind for a new room of its code.
func TestWALRewoundForgotten(t *testing.T) {
	lg := crashLogged(t, 12, 100, 0, false)
	change(t, lg.dir, 0, func(b []byte) []byte { b[walHeader+20] ^= 0xff; return b }) // the first record
	b := openBolt(t, lg.dir, BoltOptions{DiscardAfterDamage: true})
	for range 2 {
		_, rec := storetest.MustOpen(t, b, "DAMAGA")
		if !rec.Rewound || len(rec.Entries) != 0 {
			t.Fatalf("open: rewound %v, entries %v; want rewound, none", rec.Rewound, storetest.Revs(rec.Entries))
		}
		b = reopen(t, b, lg.dir, 0)
	}
	l, _ := storetest.MustOpen(t, b, "DAMAGA")
	storetest.MustAppend(t, b, l, storetest.Entries("DAMAGA", 1, 1))
	if _, rec := storetest.MustOpen(t, b, "DAMAGA"); rec.Rewound {
		t.Fatal("still rewound after an entry was stored")
	}
	if err := b.db.View(func(tx *bbolt.Tx) error {
		if v := tx.Bucket(bRewound).Get([]byte("DAMAGA")); v != nil {
			t.Error("the mark of a room that stored an entry is kept")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// An ended room is deleted with its mark.
	crash(t, b)
	clock := storetest.NewClock()
	b = openBolt(t, lg.dir, BoltOptions{Now: clock.Now, SweepInterval: -1})
	l, _ = storetest.MustOpen(t, b, "DAMAGB")
	if err := b.End(storetest.Ctx(t), l, time.Minute); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour)
	if _, err := b.sweep(storetest.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	storetest.MustCreate(t, b, "DAMAGB", store.Snapshot{})
	if _, rec := storetest.MustOpen(t, b, "DAMAGB"); rec.Rewound {
		t.Fatal("a new room opened Rewound: its code's old room was")
	}
}

// FuzzWALScan: whatever the log's files hold, and whatever bbolt says of
// them, scanning them never panics, the chain runs from the checkpoint, and
// nothing found continues the log above the number handed out next.
func FuzzWALScan(f *testing.F) {
	ops := func(code string, rev uint64) []walOp {
		return []walOp{{lease: store.Lease{Room: code, Token: 7}, entries: storetest.Entries(code, rev, rev)}}
	}
	var log []byte
	for seq := uint64(1); seq <= 4; seq++ {
		log = appendRecord(log, seq, ops("FUZZED", seq))
	}
	damaged := slices.Clone(log)
	damaged[len(log)/2] ^= 0xff
	f.Add(log, []byte(nil), uint64(0), int64(0))
	f.Add(damaged, appendRecord(nil, 5, ops("OTHERR", 1)), uint64(0), int64(0))
	f.Add(log[:len(log)-7], []byte{}, uint64(2), int64(len(log)))
	f.Add(appendRecord(nil, 9, nil), log, uint64(8), int64(0))
	f.Fuzz(func(t *testing.T, a, b []byte, applied uint64, size int64) {
		s := scanData([2][]byte{a, b}, applied, [2]int64{size, size})
		for i, rec := range s.chain {
			if rec.seq != applied+1+uint64(i) {
				t.Fatalf("chain record %d has number %d, want %d", i, rec.seq, applied+1+uint64(i))
			}
		}
		for _, rec := range s.after {
			if rec.seq <= s.last || rec.seq > s.maxSeq {
				t.Fatalf("record %d found after the chain's end %d (highest %d)", rec.seq, s.last, s.maxSeq)
			}
		}
		if (len(s.after) > 0) != (s.damage != nil && s.damage.After > 0) {
			t.Fatalf("%d records after the chain, damage %+v", len(s.after), s.damage)
		}
		if s.damage != nil {
			_ = s.damage.Error()
		}
	})
}

// BenchmarkWALScan: opening a store whose two 8 MiB log files hold stale
// records of 100-byte entries — the scan's worst case without damage: it
// looks at every offset outside the (here short) chain.
func BenchmarkWALScan(b *testing.B) {
	var files [2][]byte
	seq := uint64(1)
	for i := range files {
		for len(files[i]) < DefaultWALSize {
			var ops []walOp
			for r := range 6 {
				code := fmt.Sprintf("B%05d", r)
				ops = append(ops, walOp{lease: store.Lease{Room: code, Token: 1}, entries: []store.Entry{{Rev: seq, Data: bytes.Repeat([]byte("x"), 100)}}})
			}
			files[i] = appendRecord(files[i], seq, ops)
			seq++
		}
	}
	b.SetBytes(int64(len(files[0]) + len(files[1])))
	for b.Loop() {
		if s := scanData(files, seq, [2]int64{}); s.damage != nil || len(s.after) > 0 {
			b.Fatalf("damage in stale records: %+v", s.damage)
		}
	}
}
