// Package boltstore keeps rooms and leaderboards in one embedded bbolt file,
// with group commit: every write of every room goes through one committer
// goroutine that runs everything waiting in one read-write transaction —
// or, for appends, in one record of a write-ahead log that later
// transactions carry into the file (wal.go).
//
// The files: the store and its options (bolt.go, options.go), the
// committers (commit.go), the bbolt layout (layout.go), rooms (rooms.go),
// claims, boards and the outbox (claims.go, leaderboard.go, outbox.go), and
// the write-ahead log (wal*.go, listed in wal.go).
package boltstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"go.etcd.io/bbolt"

	"github.com/roomd/roomd/internal/queue"
	"github.com/roomd/roomd/store"
)

// BoltFile is the name of the database file inside a Bolt store's directory.
const BoltFile = "roomd.db"

// Bolt stores rooms in one bbolt file. Writes of all rooms go through one
// committer goroutine that puts everything waiting into one read-write
// transaction (group commit), so N rooms appending at once cost one fsync,
// not N.
type Bolt struct {
	db   *bbolt.DB
	opts BoltOptions

	queue *queue.Queue[*boltOp]
	// apart is the queue of writes that touch no room, which their own
	// committer runs beside the one of rooms' writes.
	apart  *queue.Queue[*boltOp]
	closed atomic.Bool
	quit   chan struct{}
	wg     sync.WaitGroup

	replayed, skipped int // of the write-ahead log, at open
	// recovered is the log's damage the open started without
	// (DiscardAfterDamage), or nil.
	recovered *WALDamage

	// wal is the write-ahead log: nil with NoWAL. The committer's own.
	wal *wal
	// ckwg counts the log's checkpoint goroutine.
	ckwg sync.WaitGroup
	// testCheckpoint, when set, runs in each checkpoint goroutine's
	// transaction first: a test's way to fail one.
	testCheckpoint func() error

	txs         atomic.Uint64
	ops         atomic.Uint64
	logged      atomic.Uint64
	checkpoints atomic.Uint64
}

var (
	_ store.Store        = (*Bolt)(nil)
	_ store.Leaderboards = (*Bolt)(nil)
)

// BoltStats counts the committer's work.
type BoltStats struct {
	// Transactions is the number of commits: read-write transactions and
	// records of the write-ahead log, each one group commit (one fsync of
	// the log, or two of bbolt).
	Transactions uint64
	// Ops is the number of writes they carried.
	Ops uint64
	// Logged is how many of the commits were records of the write-ahead
	// log, and Checkpoints how many transactions carried logged appends
	// into bbolt.
	Logged, Checkpoints uint64
	// Replayed is the number of log records the open replayed, and
	// ReplaySkipped the appends among them found refused (a room that
	// expired since).
	Replayed, ReplaySkipped int
	// RingSync says the write-ahead log syncs through io_uring, without
	// blocking a thread; false when it syncs with fdatasync(2) — told to
	// (BlockingSync), not syncing (NoSync), or the system refused a ring or
	// the ring failed, when RingError says why.
	RingSync  bool
	RingError string
}

// Open opens (creating it if needed) the store in directory dir; the
// database is the file BoltFile inside it.
func Open(dir string, opts BoltOptions) (*Bolt, error) {
	opts.init()
	if dir == "" {
		return nil, errors.New("boltstore: open: empty directory")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("boltstore: open: %w", err)
	}
	db, err := bbolt.Open(filepath.Join(dir, BoltFile), 0o600, &bbolt.Options{
		Timeout:        opts.LockTimeout,
		NoSync:         opts.NoSync,
		FreelistType:   bbolt.FreelistMapType,
		NoFreelistSync: true,
	})
	if err != nil {
		return nil, fmt.Errorf("boltstore: open %s: %w", dir, err)
	}
	// The log is read, and judged, before anything is written: a damaged
	// one leaves every file as it was.
	scan, err := scanWAL(db, dir)
	if err == nil && scan.damage != nil && !opts.DiscardAfterDamage {
		err = scan.damage
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("boltstore: open %s: %w", dir, err)
	}
	err = db.Update(func(tx *bbolt.Tx) error {
		// Claims stored before their expiry was indexed are indexed once.
		indexClaims := tx.Bucket(bClaimD) == nil
		for _, name := range [][]byte{bRooms, bSnaps, bLog, bExpiry, bBoards, bCounts, bNames, bBoardX, bBoardD, bClaims, bClaimD,
			bOutbox, bOutboxID, bOutboxN, bWAL, bRewound, bRatings, bRatingH, bRatingTop, bRatingM, bRatingMD} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		if indexClaims {
			return indexClaimExpiry(tx)
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("boltstore: open %s: %w", dir, err)
	}
	b := &Bolt{db: db, opts: opts, queue: queue.New[*boltOp](0), apart: queue.New[*boltOp](0), quit: make(chan struct{})}
	if err := b.openWAL(dir, scan); err != nil {
		db.Close()
		return nil, fmt.Errorf("boltstore: open %s: %w", dir, err)
	}
	b.replayed, b.skipped = b.wal.replayed, b.wal.skipped
	if opts.NoWAL {
		b.wal.close()
		b.wal = nil
	}
	b.wg.Add(2)
	go b.commitLoop(b.queue, b.opts.CommitInterval, b.commit)
	go b.commitLoop(b.apart, 0, b.commitTx)
	if opts.SweepInterval > 0 {
		b.wg.Add(1)
		go b.sweepLoop()
	}
	return b, nil
}

// Stats returns the committer's counters.
func (b *Bolt) Stats() BoltStats {
	st := BoltStats{Transactions: b.txs.Load(), Ops: b.ops.Load(), Logged: b.logged.Load(), Checkpoints: b.checkpoints.Load(),
		Replayed: b.replayed, ReplaySkipped: b.skipped}
	if w := b.wal; w != nil {
		st.RingSync = w.ringOn.Load()
		if msg := w.ringErr.Load(); msg != nil {
			st.RingError = *msg
		}
	}
	return st
}

// Ping reports whether a write transaction commits now: it goes through the
// committer like any write (and costs one commit when nothing else is
// waiting).
func (b *Bolt) Ping(ctx context.Context) error {
	return b.doApart(ctx, "ping", func(tx *bbolt.Tx) error { return nil })
}

// checkpoint carries what the write-ahead log holds pending into bbolt
// (through the committer, as any write touching rooms does).
func (b *Bolt) checkpoint(ctx context.Context) error {
	return b.do(ctx, "checkpoint", func(tx *bbolt.Tx) error { return nil })
}

// Close stops the committer and the sweep and closes the file. Writes not
// yet started fail with store.ErrClosed.
func (b *Bolt) Close() error {
	if !b.closed.CompareAndSwap(false, true) {
		return nil
	}
	for _, q := range []*queue.Queue[*boltOp]{b.queue, b.apart} {
		for _, o := range q.Close() {
			o.done <- store.ErrClosed
		}
	}
	close(b.quit)
	b.wg.Wait()
	// The last checkpoint: what the log holds goes into bbolt (were it to
	// fail, the next open replays it).
	b.checkpointDone(true)
	b.commitTx(nil)
	if b.wal != nil {
		b.wal.close()
	}
	return b.db.Close()
}

func (b *Bolt) check(op string) error {
	if b.closed.Load() {
		return fmt.Errorf("%s: %w", op, store.ErrClosed)
	}
	return nil
}

func (b *Bolt) viewErr(op string, err error) error {
	if errors.Is(err, bbolt.ErrDatabaseNotOpen) {
		err = store.ErrClosed
	}
	return fmt.Errorf("%s: %w", op, err)
}
