package boltstore

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.etcd.io/bbolt"
	"go.uber.org/goleak"

	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/internal/sortable"
	"github.com/roomd/roomd/store/storetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// boltFactory opens stores with base's options. With crashReopen the
// suite's reopen is a crash (crash): what the store holds is then what the
// write-ahead log's replay rebuilds.
func boltFactory(base BoltOptions, crashReopen bool) storetest.Factory {
	noSync := base.NoSync
	return func(t *testing.T) *storetest.Subject {
		clock := storetest.NewClock()
		dir := t.TempDir()
		opts := base
		opts.Now = clock.Now
		open := func(t *testing.T) *Bolt {
			b, err := Open(dir, opts)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b.Close() })
			return b
		}
		sub := &storetest.Subject{S: open(t), Advance: clock.Advance, Now: clock.Now,
			Boards: func(t *testing.T, size int) store.Leaderboards {
				b, err := Open(t.TempDir(), BoltOptions{NoSync: noSync, Now: clock.Now, LeaderboardSize: size})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { b.Close() })
				return b
			},
			Outboxes: func(t *testing.T, size int) store.Backend {
				b, err := Open(t.TempDir(), BoltOptions{NoSync: noSync, Now: clock.Now, MaxOutbox: size})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { b.Close() })
				return b
			}}
		sub.ClaimsKept = func(t *testing.T) int {
			b := sub.S.(*Bolt)
			if _, err := b.sweep(storetest.Ctx(t)); err != nil {
				t.Fatal(err)
			}
			n := 0
			if err := b.db.View(func(tx *bbolt.Tx) error {
				n = tx.Bucket(bClaims).Stats().KeyN
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			return n
		}
		if crashReopen {
			// The damage: a byte of the first record of the log's first
			// file, which the log starts over at after every write of a
			// room's meta (create, open).
			sub.Rewind = func(t *testing.T) store.Backend {
				crash(t, sub.S.(*Bolt))
				change(t, dir, 0, func(b []byte) []byte { b[walHeader+20] ^= 0xff; return b })
				o := opts
				o.DiscardAfterDamage = true
				b, err := Open(dir, o)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { b.Close() })
				sub.S = b
				return b
			}
		}
		sub.Reopen = func(t *testing.T) store.Backend {
			if crashReopen {
				crash(t, sub.S.(*Bolt))
			} else if err := sub.S.Close(); err != nil {
				t.Fatal(err)
			}
			sub.S = open(t)
			return sub.S
		}
		return sub
	}
}

func TestBoltConformance(t *testing.T) {
	t.Run("fsync", func(t *testing.T) { storetest.Run(t, boltFactory(BoltOptions{}, false)) })
	t.Run("nosync", func(t *testing.T) { storetest.Run(t, boltFactory(BoltOptions{NoSync: true}, false)) })
	t.Run("nowal", func(t *testing.T) { storetest.Run(t, boltFactory(BoltOptions{NoWAL: true}, false)) })
	// Every write checkpointed at once: the log starts over at offset 0
	// after every batch.
	t.Run("tinywal", func(t *testing.T) { storetest.Run(t, boltFactory(BoltOptions{WALSize: 1}, false)) })
	// Reopened after a crash, with nothing checkpointed but by other
	// writes: the log's replay.
	t.Run("crash", func(t *testing.T) {
		storetest.Run(t, boltFactory(BoltOptions{NoSync: true, CheckpointInterval: 1 << 40}, true))
	})
}

// openSwept opens a store on a fake clock whose sweep runs only when a
// test calls it; it is closed when the test ends.
func openSwept(t *testing.T) (*Bolt, *storetest.Clock) {
	t.Helper()
	clock := storetest.NewClock()
	b, err := Open(t.TempDir(), BoltOptions{Now: clock.Now, SweepInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b, clock
}

func TestBoltSweep(t *testing.T) {
	b, clock := openSwept(t)
	ctx := storetest.Ctx(t)
	a := storetest.MustCreate(t, b, "SWEEPA", store.Snapshot{})
	storetest.MustAppend(t, b, a, storetest.Entries("SWEEPA", 1, 3))
	storetest.MustCreate(t, b, "SWEEPB", store.Snapshot{})
	c := storetest.MustCreate(t, b, "SWEEPC", store.Snapshot{})
	if err := b.End(ctx, a, time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := b.End(ctx, c, 3*time.Hour); err != nil {
		t.Fatal(err)
	}
	if n, err := b.sweep(ctx); err != nil || n != 0 {
		t.Fatalf("sweep before the TTL: %d, %v", n, err)
	}
	clock.Advance(2 * time.Hour)
	if n, err := b.sweep(ctx); err != nil || n != 1 {
		t.Fatalf("sweep: %d, %v; want 1", n, err)
	}
	err := b.db.View(func(tx *bbolt.Tx) error {
		if tx.Bucket(bRooms).Get([]byte("SWEEPA")) != nil || tx.Bucket(bSnaps).Get([]byte("SWEEPA")) != nil {
			t.Error("the expired room is still stored")
		}
		if k, _ := tx.Bucket(bLog).Cursor().Seek(logPrefix("SWEEPA")); k != nil && bytes.HasPrefix(k, logPrefix("SWEEPA")) {
			t.Error("the expired room's log is still stored")
		}
		if tx.Bucket(bRooms).Get([]byte("SWEEPC")) == nil {
			t.Error("the room ended for 3 h is gone after 2 h")
		}
		if n := tx.Bucket(bExpiry).Stats().KeyN; n != 1 {
			t.Errorf("%d expiry keys, want 1", n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestBoltGroupCommit(t *testing.T) {
	b, err := Open(t.TempDir(), BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	const rooms, appends = 200, 20
	var wg sync.WaitGroup
	for i := range rooms {
		wg.Go(func() {
			code := fmt.Sprintf("G%05d", i)
			l := storetest.MustCreate(t, b, code, store.Snapshot{})
			for rev := uint64(1); rev <= appends; rev++ {
				if err := b.Append(storetest.Ctx(t), l, []store.Entry{storetest.Entry(code, rev)}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	st := b.Stats()
	perTx := float64(st.Ops) / float64(st.Transactions)
	t.Logf("%d ops in %d transactions: %.1f per transaction", st.Ops, st.Transactions, perTx)
	if perTx < 4 {
		t.Fatalf("%.1f ops per transaction, want group commit (≥ 4)", perTx)
	}
}

// TestBoltCommitInterval: writes that arrive one after another, each after
// the last one's answer, share transactions when commits follow each other
// closer than CommitInterval; back to back (a negative interval) each gets
// its own.
func TestBoltCommitInterval(t *testing.T) {
	perTx := func(interval time.Duration) float64 {
		b, err := Open(t.TempDir(), BoltOptions{NoSync: true, CommitInterval: interval})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		const rooms = 8
		var wg sync.WaitGroup
		for i := range rooms {
			wg.Go(func() {
				code := fmt.Sprintf("I%05d", i)
				l := storetest.MustCreate(t, b, code, store.Snapshot{})
				for rev := uint64(1); rev <= 10; rev++ {
					storetest.MustAppend(t, b, l, []store.Entry{storetest.Entry(code, rev)})
				}
			})
		}
		wg.Wait()
		st := b.Stats()
		return float64(st.Ops) / float64(st.Transactions)
	}
	gathered, apart := perTx(20*time.Millisecond), perTx(-1)
	t.Logf("ops per transaction: %.1f with a 20 ms interval, %.1f back to back", gathered, apart)
	if gathered < 4 {
		t.Fatalf("%.1f ops per transaction with a 20 ms interval: the writes of 8 rooms should share commits", gathered)
	}
}

// blockCommitter queues an operation that holds the committer inside its
// transaction until the returned function is called, and waits until it
// runs: writes queued meanwhile wait for the next transaction.
func blockCommitter(t *testing.T, b *Bolt) (release func()) {
	t.Helper()
	running, gate := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- b.do(context.Background(), "block", func(tx *bbolt.Tx) error {
			close(running)
			<-gate
			return nil
		})
	}()
	<-running
	var once sync.Once
	release = func() {
		once.Do(func() {
			close(gate)
			if err := <-done; err != nil {
				t.Errorf("blocking op: %v", err)
			}
		})
	}
	t.Cleanup(release)
	return release
}

// waitQueued waits until n writes wait for the committer.
func waitQueued(t *testing.T, b *Bolt, n int) { t.Helper(); storetest.WaitQueued(t, b.queue, n) }

// TestBoltCancelledNotWritten: a write whose caller's context ends while it
// waits for the committer is left out of the transaction.
func TestBoltCancelledNotWritten(t *testing.T) {
	b, err := Open(t.TempDir(), BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	l := storetest.MustCreate(t, b, "CANCEL", store.Snapshot{})
	release := blockCommitter(t, b)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- b.Append(ctx, l, storetest.Entries("CANCEL", 1, 1)) }()
	waitQueued(t, b, 1)
	cancel()
	storetest.WantErr(t, "append whose context ended", <-errc, context.Canceled)
	release()
	storetest.MustAppend(t, b, l, []store.Entry{{Rev: 1, Data: []byte("other")}})
	_, rec := storetest.MustOpen(t, b, "CANCEL")
	storetest.CheckRecord(t, rec, store.Snapshot{}, []store.Entry{{Rev: 1, Data: []byte("other")}})
}

// TestBoltCloseFailsQueued: writes waiting for the committer when the store
// is closed fail with ErrClosed, and so does every later call.
func TestBoltCloseFailsQueued(t *testing.T) {
	b, err := Open(t.TempDir(), BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l := storetest.MustCreate(t, b, "CLOSE1", store.Snapshot{})
	release := blockCommitter(t, b)
	errc := make(chan error, 1)
	go func() { errc <- b.Append(context.Background(), l, storetest.Entries("CLOSE1", 1, 1)) }()
	waitQueued(t, b, 1)
	closed := make(chan error, 1)
	go func() { closed <- b.Close() }()
	storetest.WantErr(t, "append queued at Close", <-errc, store.ErrClosed)
	release()
	if err := <-closed; err != nil {
		t.Fatalf("close: %v", err)
	}
	storetest.WantErr(t, "append after Close", b.Append(context.Background(), l, storetest.Entries("CLOSE1", 1, 1)), store.ErrClosed)
}

func TestBoltLocked(t *testing.T) {
	dir := t.TempDir()
	b, err := Open(dir, BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	start := time.Now()
	if b2, err := Open(dir, BoltOptions{LockTimeout: 100 * time.Millisecond}); err == nil {
		b2.Close()
		t.Fatal("a second store opened a locked file")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("waited %v for the lock", d)
	}
}

const childEnv = "ROOMD_BOLT_CHILD_DIR"

// TestBoltKillChild is the child of TestBoltKill9: it appends to a few rooms
// until it is killed, printing each acknowledged append.
func TestBoltKillChild(t *testing.T) {
	dir := os.Getenv(childEnv)
	if dir == "" {
		t.Skip("run by TestBoltKill9")
	}
	b, err := Open(dir, BoltOptions{NoSync: os.Getenv("ROOMD_BOLT_CHILD_NOSYNC") == "1"})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			code := fmt.Sprintf("KILL%02d", i)
			l := storetest.MustCreate(t, b, code, store.Snapshot{})
			for rev := uint64(1); ; rev++ {
				if err := b.Append(storetest.Ctx(t), l, []store.Entry{storetest.Entry(code, rev)}); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				fmt.Fprintf(out, "ACK %s %d\n", code, rev)
				out.Flush()
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}

// TestBoltKill9 kills a process that appends (SIGKILL, no chance to close
// the file) and checks that every acknowledged append is there.
func TestBoltKill9(t *testing.T) {
	for _, noSync := range []bool{false, true} {
		t.Run(fmt.Sprintf("nosync=%v", noSync), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^TestBoltKillChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), childEnv+"="+dir)
			if noSync {
				cmd.Env = append(cmd.Env, "ROOMD_BOLT_CHILD_NOSYNC=1")
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			acked := map[string]uint64{}
			sc := bufio.NewScanner(stdout)
			n := 0
			for n < 2000 && sc.Scan() {
				f := strings.Fields(sc.Text())
				if len(f) != 3 || f[0] != "ACK" {
					continue
				}
				rev, _ := strconv.ParseUint(f[2], 10, 64)
				acked[f[1]] = max(acked[f[1]], rev)
				n++
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			if n < 2000 {
				t.Fatalf("the child acknowledged only %d appends", n)
			}
			b, err := Open(dir, BoltOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			for code, last := range acked {
				_, rec := storetest.MustOpen(t, b, code)
				if uint64(len(rec.Entries)) < last {
					t.Fatalf("%s: %d entries stored, %d acknowledged", code, len(rec.Entries), last)
				}
				storetest.CheckRecord(t, store.Record{Snapshot: rec.Snapshot, Entries: rec.Entries[:last]}, store.Snapshot{}, storetest.Entries(code, 1, last))
			}
		})
	}
}

// TestBoltLegacyScore: a board stored by an earlier version (values in
// "time", no index of names, a name twice) is read with Value from "time";
// the first Record indexes it, keeping the best score of each name, and
// ranks new scores with the old.
func TestBoltLegacyScore(t *testing.T) {
	b, err := Open(t.TempDir(), BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	board := store.Board{Game: "minesweeper", Board: "beginner", Kind: store.KindHost}
	name := []byte("minesweeper\x00beginner\x00host")
	err = b.db.Update(func(tx *bbolt.Tx) error {
		bb, err := tx.Bucket(bBoards).CreateBucket(name)
		if err != nil {
			return err
		}
		for i, v := range []struct {
			time float64
			json string
		}{
			{12.5, `{"name":"Old","time":12.5,"room":"K7QXMP","match":1,"at":3}`},
			{14, `{"name":"Twice","time":14,"room":"K7QXMP","match":2,"at":5}`},
			{30, `{"name":"Twice","time":30,"room":"K7QXMP","match":3,"at":4}`},
		} {
			seq, err := bb.NextSequence()
			if err != nil {
				return err
			}
			key := binary.BigEndian.AppendUint64(nil, sortable.Float(v.time))
			key = binary.BigEndian.AppendUint64(key, sortable.Int(int64(i)))
			key = binary.BigEndian.AppendUint64(key, seq)
			if err := bb.Put(key, []byte(v.json)); err != nil {
				return err
			}
		}
		return tx.Bucket(bCounts).Put(name, be64(3))
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := storetest.Ctx(t)
	oldOld := store.Score{Name: "Old", Value: 12.5, Room: "K7QXMP", Match: 1, At: 3}
	oldTwice := store.Score{Name: "Twice", Value: 14, Room: "K7QXMP", Match: 2, At: 5}
	top, err := b.Top(ctx, board, 10)
	if err != nil || len(top) != 3 || top[0] != oldOld || top[1] != oldTwice || top[2].Value != 30 {
		t.Fatalf("top of the old board = %+v, %v", top, err)
	}
	for _, s := range []store.Score{{Name: "Slow", Value: 20, At: 4}, {Name: "Fast", Value: 5, At: 5}, {Name: "Old", Value: 13, At: 6}} {
		if err := b.Record(ctx, board, s); err != nil {
			t.Fatal(err)
		}
	}
	top, err = b.Top(ctx, board, 10)
	want := []store.Score{{Name: "Fast", Value: 5, At: 5}, oldOld, oldTwice, {Name: "Slow", Value: 20, At: 4}}
	if err != nil || !slices.Equal(top, want) {
		t.Fatalf("top = %+v, %v; want %+v", top, err, want)
	}
	checkBoard(t, b, name, len(want))
}

// checkBoard checks a board's bookkeeping: n scores, as many counted, and
// the names bucket holds exactly each score's name, pointing at it.
func checkBoard(t *testing.T, b *Bolt, name []byte, n int) {
	t.Helper()
	err := b.db.View(func(tx *bbolt.Tx) error {
		bb, names := tx.Bucket(bBoards).Bucket(name), tx.Bucket(bNames).Bucket(name)
		if bb == nil || names == nil {
			t.Fatalf("board %q: scores %v, names %v", name, bb != nil, names != nil)
		}
		if got := u64(tx.Bucket(bCounts).Get(name)); got != uint64(n) {
			t.Errorf("board %q counts %d scores, want %d", name, got, n)
		}
		seen := 0
		err := bb.ForEach(func(k, v []byte) error {
			seen++
			if who := nameKey(v); !bytes.Equal(names.Get(who), k) {
				t.Errorf("name %q → %x, want its score %x", who, names.Get(who), k)
			}
			return nil
		})
		if seen != n || names.Stats().KeyN != n {
			t.Errorf("board %q: %d scores, %d names; want %d", name, seen, names.Stats().KeyN, n)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestBoltNamesIndex: after scores are replaced, ignored and trimmed (many
// at once, in shared transactions), the names bucket holds exactly the
// player id or name of each score. Half the scores have a player id, some
// equal to another score's name.
func TestBoltNamesIndex(t *testing.T) {
	b, err := Open(t.TempDir(), BoltOptions{NoSync: true, LeaderboardSize: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	board := store.Board{Game: "g", Board: "b", Kind: "k"}
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Go(func() {
			s := store.Score{Name: fmt.Sprint("p", i%9), Value: float64((i * 37) % 100), At: int64(i)}
			if i%2 == 0 {
				s.Player = fmt.Sprint("p", i%7)
			}
			if err := b.Record(storetest.Ctx(t), board, s); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	checkBoard(t, b, boardName(board), 5)
}

// TestBoltBoardsDropped: a board past its expiry is deleted, every bucket
// and key of it, by the next Record into any board and by the sweep;
// boards without expiry or not yet expired stay.
func TestBoltBoardsDropped(t *testing.T) {
	b, clock := openSwept(t)
	ctx := storetest.Ctx(t)
	at := func(d time.Duration) int64 { return clock.Now().Add(d).UnixMilli() }
	day1 := store.Board{Game: "g", Board: "b", Kind: "day/1", Expires: at(time.Hour)}
	day2 := store.Board{Game: "g", Board: "b", Kind: "day/2", Expires: at(2 * time.Hour)}
	day3 := store.Board{Game: "g", Board: "b", Kind: "day/3", Expires: at(3 * time.Hour)}
	always := store.Board{Game: "g", Board: "b", Kind: "all"}
	for _, board := range []store.Board{day1, day2, day3, always} {
		for i := range 3 {
			if err := b.Record(ctx, board, store.Score{Name: fmt.Sprint(i), Value: float64(i)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	stored := func(board store.Board) bool {
		t.Helper()
		name, n := boardName(board), 0
		err := b.db.View(func(tx *bbolt.Tx) error {
			for _, bucket := range [][]byte{bBoards, bNames} {
				if tx.Bucket(bucket).Bucket(name) != nil {
					n++
				}
			}
			for _, bucket := range [][]byte{bCounts, bBoardX} {
				if tx.Bucket(bucket).Get(name) != nil {
					n++
				}
			}
			return tx.Bucket(bBoardD).ForEach(func(k, _ []byte) error {
				if bytes.Equal(k[8:], name) {
					n++
				}
				return nil
			})
		})
		if err != nil {
			t.Fatal(err)
		}
		want := 3
		if board.Expires != 0 {
			want = 5
		}
		if n != 0 && n != want {
			t.Fatalf("board %s: %d of its %d buckets and keys stored", board.Kind, n, want)
		}
		return n != 0
	}
	clock.Advance(90 * time.Minute)
	if top, err := b.Top(ctx, day1, 0); err != nil || len(top) != 0 {
		t.Fatalf("top of an expired board = %+v, %v", top, err)
	}
	if !stored(day1) {
		t.Fatal("Top deleted a board")
	}
	if err := b.Record(ctx, always, store.Score{Name: "x", Value: 9}); err != nil {
		t.Fatal(err)
	}
	if stored(day1) || !stored(day2) || !stored(day3) || !stored(always) {
		t.Fatalf("after a Record past day 1: stored %v %v %v %v, want false true true true", stored(day1), stored(day2), stored(day3), stored(always))
	}
	clock.Advance(time.Hour)
	if _, err := b.sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if stored(day2) || !stored(day3) || !stored(always) {
		t.Fatalf("after a sweep past day 2: stored %v %v %v, want false true true", stored(day2), stored(day3), stored(always))
	}
	checkBoard(t, b, boardName(always), 4)
	checkBoard(t, b, boardName(day3), 3)
}

// TestUnknownRoomNoWrite: opening a room that does not exist answers
// ErrNotFound without a write transaction (a stranger trying codes must not
// make the committer fsync).
func TestUnknownRoomNoWrite(t *testing.T) {
	b, err := Open(t.TempDir(), BoltOptions{SweepInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	before := b.Stats().Transactions
	for range 100 {
		if _, _, err := b.Open(t.Context(), "NOSUCH"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("open an unknown room: %v", err)
		}
	}
	if n := b.Stats().Transactions - before; n != 0 {
		t.Fatalf("100 unknown rooms cost %d write transactions", n)
	}
}

// TestBoltClaimIndexMigrated: a file whose claims were stored before their
// expiry was indexed (no claimdue bucket) has them indexed when opened, so
// the sweep deletes those that expire; claims without a ttl stay.
func TestBoltClaimIndexMigrated(t *testing.T) {
	clock := storetest.NewClock()
	dir := t.TempDir()
	opts := BoltOptions{Now: clock.Now, SweepInterval: -1}
	b, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := storetest.Ctx(t)
	for _, key := range []string{"day/a", "day/b"} {
		if _, _, err := b.Claim(ctx, key, []byte("v"), time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := b.Claim(ctx, "forever", []byte("v"), 0); err != nil {
		t.Fatal(err)
	}
	if err := b.db.Update(func(tx *bbolt.Tx) error { return tx.DeleteBucket(bClaimD) }); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if b, err = Open(dir, opts); err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	clock.Advance(2 * time.Hour)
	if _, err := b.sweep(ctx); err != nil {
		t.Fatal(err)
	}
	err = b.db.View(func(tx *bbolt.Tx) error {
		var keys []string
		_ = tx.Bucket(bClaims).ForEach(func(k, v []byte) error { keys = append(keys, string(k)); return nil })
		if !slices.Equal(keys, []string{"forever"}) || tx.Bucket(bClaimD).Stats().KeyN != 0 {
			t.Errorf("claims %v, %d index keys after the sweep; want [forever], 0", keys, tx.Bucket(bClaimD).Stats().KeyN)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
