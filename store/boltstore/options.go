package boltstore

import (
	"log/slog"
	"time"

	"github.com/roomd/roomd/store"
)

// DefaultCommitInterval is BoltOptions.CommitInterval's default: at most
// about 670 commits a second, and at most 1.5 ms more per write under load
// (BENCHMARKS.md, "The embedded store under load").
const DefaultCommitInterval = 1500 * time.Microsecond

// BoltOptions configures a Bolt store. The zero value works.
type BoltOptions struct {
	// NoSync skips the fsync at the end of each commit. Writes then reach
	// the operating system's page cache only: they survive a crash (kill -9)
	// of roomd but not a power loss or a kernel crash, which may also leave
	// the file unusable. False (the default) fsyncs every commit.
	NoSync bool
	// BlockingSync makes the write-ahead log sync with fdatasync(2), which
	// holds a thread of the Go runtime, even where io_uring can do it
	// without (Linux; uring_linux.go).
	BlockingSync bool
	// KeepProcs stops a committer's bbolt transaction from raising
	// GOMAXPROCS from 1 to 2 while it runs (procs.go): with it set and one
	// P, bbolt's blocking fdatasyncs stall every socket and room until the
	// runtime takes the P back.
	KeepProcs bool
	// DefaultProcs says GOMAXPROCS is the runtime's default, left to its
	// automatic updates (roomd sets it when the GOMAXPROCS variable is
	// unset and it changed nothing itself): a P borrowed from 1 to 2 is
	// then given back with runtime.SetDefaultGOMAXPROCS, which keeps those
	// updates on, rather than runtime.GOMAXPROCS(1), which ends them.
	DefaultProcs bool
	// LockTimeout bounds the wait for the database file's lock when another
	// process holds it. Zero means 1 second.
	LockTimeout time.Duration
	// MaxBatch bounds how many operations one transaction carries. Zero
	// means 1000.
	MaxBatch int
	// CommitInterval is the least time from one commit's start to the
	// next's while commits follow each other: under load, the operations
	// that arrive in between share one transaction — one pair of fsyncs —
	// instead of one each (a commit's fsyncs cost CPU as well as time). An
	// operation that finds the store idle is committed at once. Zero means
	// DefaultCommitInterval; a negative value commits back to back.
	CommitInterval time.Duration
	// SweepInterval is how often expired rooms, boards and claims are
	// deleted. Zero means one minute; a negative value disables the sweep
	// (expired rooms are still deleted when touched, expired boards by the
	// next Record, expired claims when claimed again).
	SweepInterval time.Duration
	// LeaderboardSize is how many scores each board keeps. Zero means 1000.
	LeaderboardSize int
	// Now is the clock for the expiry of ended rooms, boards and claims.
	// Nil means time.Now.
	Now func() time.Time
	// MaxOutbox is how many events the outbox holds. Zero means
	// store.MaxOutbox.
	MaxOutbox int
	// NoWAL sends appends straight to bbolt, each commit with its two
	// fsyncs, as roomd did before the write-ahead log (wal.go). A log left
	// by an earlier run is still replayed when the store opens.
	NoWAL bool
	// CheckpointInterval bounds how long appends stay in the write-ahead
	// log only: the first batch that finds the oldest pending append this
	// old carries them all into bbolt. Zero means DefaultCheckpointInterval.
	CheckpointInterval time.Duration
	// WALSize bounds the write-ahead log's file and the data it holds
	// pending: past it the next batch checkpoints. Zero means
	// DefaultWALSize.
	WALSize int64
	// DiscardAfterDamage opens a store whose write-ahead log is damaged
	// (wal_scan.go) by giving up what follows the damage: a copy of the
	// log's files is kept in a new directory damaged-<UTC time> beside
	// them, the records before the damage are replayed, and every live
	// room opens Rewound (store.Record) until it stores an entry again.
	// False (the default) fails the open with a *WALDamage, changing
	// nothing.
	DiscardAfterDamage bool
	// Logger gets the store's warnings: a torn record dropped from the
	// write-ahead log, damage it opened without. Nil means none.
	Logger *slog.Logger
}

func (o *BoltOptions) init() {
	if o.LockTimeout == 0 {
		o.LockTimeout = time.Second
	}
	if o.MaxBatch <= 0 {
		o.MaxBatch = 1000
	}
	if o.CommitInterval == 0 {
		o.CommitInterval = DefaultCommitInterval
	}
	if o.SweepInterval == 0 {
		o.SweepInterval = time.Minute
	}
	if o.LeaderboardSize <= 0 {
		o.LeaderboardSize = 1000
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxOutbox <= 0 {
		o.MaxOutbox = store.MaxOutbox
	}
	if o.CheckpointInterval <= 0 {
		o.CheckpointInterval = DefaultCheckpointInterval
	}
	if o.WALSize <= 0 {
		o.WALSize = DefaultWALSize
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}
