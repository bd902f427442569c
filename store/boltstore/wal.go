package boltstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"go.etcd.io/bbolt"

	"github.com/roomd/roomd/store"
)

// The write-ahead log. A bbolt commit costs two fdatasyncs (the pages, then
// the meta page) and a page write for every leaf it touches; under load that
// was the embedded store's bound (BENCHMARKS.md, "The embedded store under
// load"). So the writes every room makes as it plays — appends, on every
// move, and snapshots — do not go to bbolt at once: the committer checks a
// batch of them against bbolt and what is pending, as appendTx and
// snapshotTx would, writes the accepted ones as one record at the log's
// end, fdatasyncs it once and answers. They are pending until a checkpoint:
// a bbolt transaction that carries pending entries, snapshots, log trimming
// and room meta (and the log's position, walApplied) into the file.
//
// The log is two files. When the pending writes are CheckpointInterval old
// or WALSize large, they are frozen and a checkpoint goroutine carries them
// into bbolt while the committer logs on into the other file, from its
// offset 0, checking new writes against what is pending, then what is
// frozen, then bbolt; the next switch waits for that checkpoint to land. Every
// other write that touches rooms (create, open, end, the sweep, an append
// with events) waits for a running checkpoint and checkpoints everything in
// its own transaction, so bbolt and the log never disagree about a room;
// writes that touch no room (claims, boards, the outbox, ping) do not.
//
// Records are rewritten in place over ones bbolt holds rather than grown,
// so that an fdatasync need not commit a new size. Opening the store reads
// each file from offset 0 as a run of records — each with the sequence
// number one above the last, up to the first that is torn, stale or fails
// its checksum — and replays, in one transaction, the runs that chain on
// from the checkpoint's sequence number. Sequence numbers are never reused
// (a failed write's included), so a stale record never passes for the next
// one. Before it writes anything, the open looks for damage: a record that
// continues the log beyond the chain's end, or a file shorter than it was
// written; it then refuses to open rather than lose what follows
// (wal_scan.go, wal_damage.go). Only a torn last record is dropped.
//
// The files: the log's state and its opening (this file), the record
// format (wal_record.go), the committer's path (wal_commit.go), the
// checkpoint (wal_checkpoint.go), the scan at open (wal_scan.go), damage
// (wal_damage.go) and the replay (wal_replay.go).

// WALFile is the name of the write-ahead log's first file inside a Bolt
// store's directory; the second is WALFile + ".1".
const WALFile = "roomd.wal"

var walFiles = [2]string{WALFile, WALFile + ".1"}

// Defaults of the checkpoint's bounds (BoltOptions).
const (
	DefaultCheckpointInterval = time.Second
	DefaultWALSize            = 8 << 20
)

// bWAL holds the log's position: walApplied → the sequence number of the
// last record bbolt holds.
var (
	bWAL       = []byte("wal")
	walApplied = []byte("applied")
)

// wal is the committer's: no lock. The checkpoint goroutine reads frozen
// and nothing else.
type wal struct {
	files  [2]*os.File
	cur    int // the file records go to
	noSync bool
	ring   *syncRing // syncs without blocking a thread (Linux); nil: fdatasync
	// keepProcs is BoltOptions.KeepProcs: when false, a ring that fails
	// leaves a spare P behind.
	keepProcs    bool
	defaultProcs bool // BoltOptions.DefaultProcs
	borrowed     bool // a spare P held since the ring failed
	// noRingWrite: the kernel has no IORING_OP_WRITE, so records are
	// written with pwrite and synced through the ring.
	noRingWrite bool
	// stranded keeps the buffers of writes a failed ring may still read.
	stranded [][]byte
	// logOps' scratch, reused batch after batch.
	errs     []error
	accepted []walOp
	undos    []undo
	// ringOn mirrors ring != nil and ringErr says why there is none (the
	// system refused one, or it failed), for Stats from any goroutine.
	ringOn  atomic.Bool
	ringErr atomic.Pointer[string]
	off     int64  // where the next record goes
	seq     uint64 // the last sequence number handed out
	// size is each file's size: the log never shrinks them, and each
	// checkpoint records them (walSizes) so that the next open can tell a
	// file cut short.
	size [2]int64
	// broken is the error of a failed write or sync: what the file holds
	// past off is then unknown, and nothing is logged until a checkpoint
	// has moved past every sequence number handed out.
	broken error
	buf    []byte

	// pending is what the current file holds that bbolt does not: per
	// room, its meta after the pending writes, its entries and its newest
	// snapshot.
	pending map[string]*pendingRoom
	writes  int       // pending appends and snapshots
	bytes   int64     // their data
	since   time.Time // when the first pending write was logged

	// frozen is what the other file holds that bbolt may not: the writes a
	// checkpoint goroutine carries into bbolt (inflight), or failed to
	// (retry after retryAt). frozenSeq is its last record.
	frozen    map[string]*pendingRoom
	frozenSeq uint64
	inflight  bool
	retryAt   time.Time
	done      chan error // the checkpoint goroutine's answer

	replayed int // records replayed at open
	skipped  int // writes the replay found refused (see replay)
}

type pendingRoom struct {
	meta roomMeta
	// snap is the newest pending snapshot, and dropUpTo the revision up to
	// which it drops older log entries (0: none).
	snap     *store.Snapshot
	dropUpTo uint64
	entries  []store.Entry // contiguous, all after dropUpTo
}

// entry returns the entry at rev that the room holds: pending, frozen, or in
// bbolt, unless a newer layer's snapshot dropped it; nil when there is none.
func (w *wal) entry(log *bbolt.Bucket, code string, rev uint64) []byte {
	for _, p := range [2]*pendingRoom{w.pending[code], w.frozen[code]} {
		if p == nil {
			continue
		}
		if n := len(p.entries); n > 0 && rev >= p.entries[0].Rev && rev <= p.entries[n-1].Rev {
			return p.entries[rev-p.entries[0].Rev].Data
		}
		if rev <= p.dropUpTo {
			return nil
		}
	}
	return log.Get(logKey(code, rev))
}

// openWAL opens (creating them if needed) the log's files in dir and
// replays what the scan found past bbolt's checkpoint into the database.
// With damage (DiscardAfterDamage), it first keeps a copy of the files.
func (b *Bolt) openWAL(dir string, scan *walScan) error {
	w := &wal{noSync: b.opts.NoSync, keepProcs: b.opts.KeepProcs, defaultProcs: b.opts.DefaultProcs, pending: map[string]*pendingRoom{}, done: make(chan error, 1)}
	if !w.noSync && !b.opts.BlockingSync {
		var err error
		if w.ring, err = newSyncRing(); err != nil {
			w.ringGone(err) // none: fdatasync
		}
		w.ringOn.Store(w.ring != nil)
	}
	created := false
	for i, name := range walFiles {
		path := filepath.Join(dir, name)
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			created = true
		}
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			w.close()
			return err
		}
		w.files[i] = f
	}
	if created && !b.opts.NoSync {
		// A new file's name must survive a power loss too.
		if err := syncDir(dir); err != nil {
			w.close()
			return err
		}
	}
	if d := scan.damage; d != nil {
		kept, err := keepDamaged(dir, scan, time.Now())
		if err != nil {
			w.close()
			return fmt.Errorf("keep a copy of the damaged %s: %w", WALFile, err)
		}
		d.Kept = kept
	}
	marked, err := b.replay(w, scan)
	if err != nil {
		w.close()
		return fmt.Errorf("replay %s: %w", WALFile, err)
	}
	if d := scan.damage; d != nil {
		b.recovered = d
		b.opts.Logger.Warn("write-ahead log damaged: started from the records before the damage, as asked; "+
			"every live room moves to a new epoch when it is next loaded", "err", d.Error(), "file", d.File, "offset", d.Offset,
			"intact_records_discarded", d.After, "rooms", d.Rooms, "rewound", marked, "kept", d.Kept)
	}
	if t := scan.torn; t != nil {
		b.opts.Logger.Warn("write-ahead log: dropped a torn last record (cut short by a crash as it was written, so never acknowledged)",
			"file", walFiles[t.file], "offset", t.off)
	}
	b.wal = w
	return nil
}

func (w *wal) close() {
	if w.ring != nil {
		w.ring.close()
	}
	if w.borrowed {
		returnProc()
		w.borrowed = false
	}
	for _, f := range w.files {
		if f != nil {
			f.Close()
		}
	}
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// holds reports whether the log holds writes bbolt may not.
func (w *wal) holds() bool { return w != nil && (w.writes > 0 || w.frozen != nil) }
