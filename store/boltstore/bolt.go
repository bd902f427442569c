// Package boltstore keeps rooms and leaderboards in one embedded bbolt file,
// with group commit: every write of every room goes through one committer
// goroutine that runs everything waiting in one read-write transaction —
// or, for appends, in one record of a write-ahead log that later
// transactions carry into the file (wal.go).
package boltstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.etcd.io/bbolt"

	"github.com/roomd/roomd/internal/queue"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/internal/fence"
)

// BoltFile is the name of the database file inside a Bolt store's directory.
const BoltFile = "roomd.db"

// The buckets of the bbolt layout (see STORAGE.md). A room's log keys
// start with the length of its code and the code, so one room's entries
// are contiguous and in revision order.
var (
	bRooms  = []byte("rooms")  // code → roomMeta (32 bytes)
	bSnaps  = []byte("snaps")  // code → snapshot bytes
	bLog    = []byte("log")    // len(code), code, rev (8 bytes) → entry bytes
	bExpiry = []byte("expiry") // expiry ms (8 bytes), code → empty
	bBoards = []byte("boards") // game\0board\0kind → bucket of scores
	bCounts = []byte("boardn") // game\0board\0kind → number of scores (8 bytes)
	// The score key of each player id or name on a board ("p"+player or
	// "n"+name, see nameKey). A board without this bucket was stored by an
	// earlier version: Record indexes it first.
	bNames  = []byte("boardnames") // game\0board\0kind → bucket of p+player or n+name → score key
	bBoardX = []byte("boardx")     // game\0board\0kind → expiry ms (8 bytes)
	bBoardD = []byte("boarddue")   // expiry ms (8 bytes), game\0board\0kind → empty
)

// roomMeta is a room's bookkeeping, stored as four big-endian uint64s.
type roomMeta struct {
	fence   uint64 // fencing token
	last    uint64 // revision of the last entry (or of the snapshot when newer)
	snapRev uint64 // revision of the snapshot
	ended   uint64 // 0 while live; else expiry, ms since the epoch
}

func (m roomMeta) bytes() []byte {
	b := make([]byte, 0, 32)
	for _, v := range []uint64{m.fence, m.last, m.snapRev, m.ended} {
		b = binary.BigEndian.AppendUint64(b, v)
	}
	return b
}

func decodeMeta(b []byte) roomMeta {
	if len(b) < 32 {
		return roomMeta{}
	}
	return roomMeta{fence: u64(b), last: u64(b[8:]), snapRev: u64(b[16:]), ended: u64(b[24:])}
}

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

// boltOp is one write waiting for the committer. fn runs inside the shared
// transaction; it must make no change when it returns one of the sentinel
// errors (other errors roll the whole transaction back and it is retried
// without that op).
type boltOp struct {
	ctx  context.Context
	fn   func(tx *bbolt.Tx) error
	done chan error
	// log is set for an append or a snapshot, which the committer may log
	// instead of running fn.
	log *walOp
	// apart is set for a write that touches no room (claims, boards, the
	// outbox, a ping): it goes to its own committer (Bolt.apart), whose
	// transactions leave the write-ahead log alone.
	apart bool
}

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
	// Deprecated: RingSync is always false and RingError empty: the
	// write-ahead log syncs with fdatasync(2) (its io_uring is gone).
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
			bOutbox, bOutboxID, bOutboxN, bWAL, bRewound} {
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
	return BoltStats{Transactions: b.txs.Load(), Ops: b.ops.Load(), Logged: b.logged.Load(), Checkpoints: b.checkpoints.Load(),
		Replayed: b.replayed, ReplaySkipped: b.skipped}
}

// do queues fn for the committer and waits for its result.
func (b *Bolt) do(ctx context.Context, op string, fn func(tx *bbolt.Tx) error) error {
	return b.run(ctx, op, &boltOp{ctx: ctx, fn: fn})
}

// doApart is do for a write that touches no room's buckets (rooms, snaps,
// log, expiry), which therefore need not wait for the write-ahead log's
// pending writes to be carried into bbolt.
func (b *Bolt) doApart(ctx context.Context, op string, fn func(tx *bbolt.Tx) error) error {
	return b.run(ctx, op, &boltOp{ctx: ctx, fn: fn, apart: true})
}

// run queues o for the committer and waits for its result, which it
// prefixes with op.
func (b *Bolt) run(ctx context.Context, op string, o *boltOp) error {
	if err := b.submit(ctx, o); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

// submit is run without the prefix: for Append, which names itself only
// when it fails.
func (b *Bolt) submit(ctx context.Context, o *boltOp) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	o.done = make(chan error, 1)
	q := b.queue
	if o.apart {
		q = b.apart
	}
	if err := q.Push(o); err != nil {
		return store.ErrClosed // the only refusal of an unbounded queue
	}
	select {
	case err := <-o.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// commitLoop is a committer: on each signal it commits what waits in q,
// in batches of up to MaxBatch operations, until q is empty; under load
// the batches start at least interval apart.
func (b *Bolt) commitLoop(q *queue.Queue[*boltOp], interval time.Duration, commit func([]*boltOp)) {
	defer b.wg.Done()
	var last time.Time // when the last commit started
	for {
		select {
		case <-q.Signal():
		case <-b.quit:
			return
		}
		for {
			// Back to back under load: wait out the interval since the
			// last commit started, gathering what arrives meanwhile (at
			// most interval: Close is seen after it). The runtime's timer
			// wakes an idle process on whole milliseconds (a 1.5 ms sleep
			// took 2.2 ms): a few hundred µs more on a write's wait, far
			// below the p99 of a move under load.
			if wait := interval - time.Since(last); wait > 0 && q.Len() < b.opts.MaxBatch {
				time.Sleep(wait)
			}
			ops := q.Take(b.opts.MaxBatch)
			if len(ops) == 0 {
				break
			}
			last = time.Now()
			commit(ops)
		}
	}
}

// soft reports whether err is an answer (the op made no change, or only a
// consistent one) rather than a failure of the transaction.
func soft(err error) bool {
	return errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrExists) ||
		errors.Is(err, store.ErrFenced) || errors.Is(err, store.ErrGap)
}

// commit logs ops when they are all appends and the write-ahead log takes
// them, else runs them in one transaction; either way it answers each.
func (b *Bolt) commit(ops []*boltOp) {
	b.checkpointDone(false)
	if b.loggable(ops) {
		b.logOps(ops)
		b.startCheckpoint()
		return
	}
	b.checkpointDone(true) // bbolt takes one writer: let a checkpoint land first
	b.commitTx(ops)
}

// commitTx runs ops in one transaction and answers each. A transaction
// with a write that touches rooms — or with none, a checkpoint — first
// carries the write-ahead log's pending writes into bbolt.
func (b *Bolt) commitTx(ops []*boltOp) {
	rooms := len(ops) == 0
	for _, o := range ops {
		rooms = rooms || !o.apart
	}
	for len(ops) > 0 || (rooms && b.wal.holds()) {
		errs := make([]error, len(ops))
		bad := -1
		err := b.db.Update(func(tx *bbolt.Tx) error {
			if rooms {
				if err := b.applyPending(tx); err != nil {
					return err
				}
			}
			for i, o := range ops {
				if err := o.ctx.Err(); err != nil {
					errs[i] = err // its caller has gone: leave it out
					continue
				}
				err := o.fn(tx)
				errs[i] = err
				if err != nil && !soft(err) {
					bad = i
					return err
				}
			}
			return nil
		})
		if bad >= 0 {
			ops[bad].done <- errs[bad]
			ops = slices.Delete(ops, bad, bad+1)
			continue
		}
		if err == nil && rooms {
			b.checkpointed()
		}
		b.txs.Add(1)
		b.ops.Add(uint64(len(ops)))
		for i, o := range ops {
			if err != nil {
				o.done <- err
			} else {
				o.done <- errs[i]
			}
		}
		return
	}
}

func (b *Bolt) sweepLoop() {
	defer b.wg.Done()
	t := time.NewTicker(b.opts.SweepInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_, _ = b.sweep(ctx)
			cancel()
		case <-b.quit:
			return
		}
	}
}

// sweep deletes up to 1000 rooms whose TTL has passed, up to 100 boards
// past their expiry and up to 1000 expired claims, and returns how many
// rooms.
func (b *Bolt) sweep(ctx context.Context) (int, error) {
	n := 0
	err := b.do(ctx, "sweep", func(tx *bbolt.Tx) error {
		n = 0
		now := b.opts.Now().UnixMilli()
		if err := dropExpiredBoards(tx, now, 100); err != nil {
			return err
		}
		if err := dropExpiredClaims(tx, now, 1000); err != nil {
			return err
		}
		exp, rooms := tx.Bucket(bExpiry), tx.Bucket(bRooms)
		var keys [][]byte
		c := exp.Cursor()
		for k, _ := c.First(); k != nil && len(keys) < 1000 && int64(u64(k[:8])) <= now; k, _ = c.Next() {
			keys = append(keys, slices.Clone(k))
		}
		for _, k := range keys {
			code := string(k[8:])
			if v := rooms.Get([]byte(code)); v != nil && decodeMeta(v).ended == u64(k) {
				if err := deleteRoom(tx, code); err != nil {
					return err
				}
				n++
			}
			if err := exp.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
	return n, err
}

func be64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

func u64(v []byte) uint64 {
	if len(v) < 8 {
		return 0
	}
	return binary.BigEndian.Uint64(v)
}

func expiryKey(at uint64, code string) []byte { return append(be64(at), code...) }

// logPrefix starts the log keys of a room.
func logPrefix(code string) []byte { return append([]byte{byte(len(code))}, code...) }

func logKey(code string, rev uint64) []byte {
	return binary.BigEndian.AppendUint64(logPrefix(code), rev)
}

// deleteLog deletes the log keys of code with revision ≤ upTo.
func deleteLog(tx *bbolt.Tx, code string, upTo uint64) error {
	prefix := logPrefix(code)
	c := tx.Bucket(bLog).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) && u64(k[len(prefix):]) <= upTo; k, _ = c.Seek(prefix) {
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return nil
}

// deleteRoom deletes everything of a room but its expiry key.
func deleteRoom(tx *bbolt.Tx, code string) error {
	if err := tx.Bucket(bRooms).Delete([]byte(code)); err != nil {
		return err
	}
	if err := tx.Bucket(bSnaps).Delete([]byte(code)); err != nil {
		return err
	}
	if err := tx.Bucket(bRewound).Delete([]byte(code)); err != nil {
		return err
	}
	return deleteLog(tx, code, math.MaxUint64)
}

// room loads the room's meta; ok is false when there is none. A room whose
// TTL has passed is deleted.
func (b *Bolt) room(tx *bbolt.Tx, code string) (m roomMeta, ok bool, err error) {
	v := tx.Bucket(bRooms).Get([]byte(code))
	if v == nil {
		return roomMeta{}, false, nil
	}
	m = decodeMeta(v)
	if m.ended != 0 && b.opts.Now().UnixMilli() >= int64(m.ended) {
		if err := tx.Bucket(bExpiry).Delete(expiryKey(m.ended, code)); err != nil {
			return roomMeta{}, false, err
		}
		return roomMeta{}, false, deleteRoom(tx, code)
	}
	return m, true, nil
}

// held loads the meta of the room lease holds, or says why it may not write.
func (b *Bolt) held(tx *bbolt.Tx, lease store.Lease) (roomMeta, error) {
	m, ok, err := b.room(tx, lease.Room)
	if err != nil {
		return m, err
	}
	if !ok {
		return m, store.ErrNotFound
	}
	if m.fence != lease.Token {
		return m, fmt.Errorf("token %d, current %d: %w", lease.Token, m.fence, store.ErrFenced)
	}
	return m, nil
}

func putMeta(tx *bbolt.Tx, code string, m roomMeta) error {
	return tx.Bucket(bRooms).Put([]byte(code), m.bytes())
}

// nonNil makes empty data storable (bbolt keeps a nil value as empty).
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

func checkCode(op, code string) error {
	if code == "" || len(code) > 255 {
		return fmt.Errorf("%s: room code must be 1 to 255 bytes", op)
	}
	return nil
}

func (b *Bolt) Create(ctx context.Context, room string, snap store.Snapshot) (store.Lease, error) {
	op := "create " + room
	if err := checkCode(op, room); err != nil {
		return store.Lease{}, err
	}
	var lease store.Lease
	err := b.do(ctx, op, func(tx *bbolt.Tx) error {
		_, ok, err := b.room(tx, room)
		if err != nil {
			return err
		}
		if ok {
			return store.ErrExists
		}
		// A room that expired is gone with its log, but be sure.
		if err := deleteLog(tx, room, math.MaxUint64); err != nil {
			return err
		}
		token := fence.First(time.Now())
		if err := tx.Bucket(bSnaps).Put([]byte(room), nonNil(snap.Data)); err != nil {
			return err
		}
		if err := putMeta(tx, room, roomMeta{fence: token, last: snap.Rev, snapRev: snap.Rev}); err != nil {
			return err
		}
		lease = store.Lease{Room: room, Token: token}
		return nil
	})
	return lease, err
}

func (b *Bolt) Open(ctx context.Context, room string) (store.Lease, store.Record, error) {
	var (
		lease store.Lease
		rec   store.Record
	)
	// An unknown room costs a read, not a write transaction: a stranger
	// trying codes must not make the committer (and fsync) work.
	known := false
	if err := b.db.View(func(tx *bbolt.Tx) error {
		known = tx.Bucket(bRooms).Get([]byte(room)) != nil
		return nil
	}); err != nil {
		return store.Lease{}, store.Record{}, b.viewErr("open "+room, err)
	}
	if !known {
		return store.Lease{}, store.Record{}, fmt.Errorf("open %s: %w", room, store.ErrNotFound)
	}
	err := b.do(ctx, "open "+room, func(tx *bbolt.Tx) error {
		m, ok, err := b.room(tx, room)
		if err != nil {
			return err
		}
		if !ok {
			return store.ErrNotFound
		}
		m.fence++
		if err := putMeta(tx, room, m); err != nil {
			return err
		}
		lease = store.Lease{Room: room, Token: m.fence}
		rec = store.Record{
			Snapshot: store.Snapshot{Rev: m.snapRev, Data: slices.Clone(tx.Bucket(bSnaps).Get([]byte(room)))},
			Ended:    m.ended != 0,
		}
		if rec.Rewound, err = rewound(tx, room, m); err != nil {
			return err
		}
		prefix := logPrefix(room)
		c := tx.Bucket(bLog).Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			rec.Entries = append(rec.Entries, store.Entry{Rev: u64(k[len(prefix):]), Data: slices.Clone(v)})
		}
		return nil
	})
	if err != nil {
		return store.Lease{}, store.Record{}, err
	}
	return lease, rec, nil
}

func (b *Bolt) Append(ctx context.Context, lease store.Lease, entries []store.Entry) error {
	if len(entries) == 0 {
		return b.check("append " + lease.Room)
	}
	err := checkBatch(entries)
	if err == nil {
		err = b.submit(ctx, &boltOp{ctx: ctx, log: &walOp{lease: lease, entries: entries}, fn: func(tx *bbolt.Tx) error {
			_, err := b.appendTx(tx, lease, entries)
			return err
		}})
	}
	if err != nil {
		return fmt.Errorf("append %s: %w", lease.Room, err)
	}
	return nil
}

// checkBatch checks that entries have contiguous revisions.
func checkBatch(entries []store.Entry) error {
	for i := 1; i < len(entries); i++ {
		if entries[i].Rev != entries[i-1].Rev+1 {
			return fmt.Errorf("rev %d after %d in one batch: %w", entries[i].Rev, entries[i-1].Rev, store.ErrGap)
		}
	}
	return nil
}

// appendTx appends entries (contiguous, see checkBatch) inside tx, fenced
// by lease; dup is true when they were all stored already (a retry that
// changes nothing). It changes nothing when it returns an error.
func (b *Bolt) appendTx(tx *bbolt.Tx, lease store.Lease, entries []store.Entry) (dup bool, err error) {
	m, err := b.held(tx, lease)
	if err != nil || len(entries) == 0 {
		return false, err
	}
	log := tx.Bucket(bLog)
	first := entries[0].Rev
	if first <= m.last {
		for _, e := range entries {
			if v := log.Get(logKey(lease.Room, e.Rev)); v == nil || !bytes.Equal(v, e.Data) {
				return false, fmt.Errorf("rev %d after %d: %w", first, m.last, store.ErrGap)
			}
		}
		return true, nil // a retry of an append that landed
	}
	if first != m.last+1 {
		return false, fmt.Errorf("rev %d after %d: %w", first, m.last, store.ErrGap)
	}
	for _, e := range entries {
		if err := log.Put(logKey(lease.Room, e.Rev), nonNil(e.Data)); err != nil {
			return false, err
		}
	}
	m.last = entries[len(entries)-1].Rev
	return false, putMeta(tx, lease.Room, m)
}

func (b *Bolt) WriteSnapshot(ctx context.Context, lease store.Lease, snap store.Snapshot) error {
	return b.run(ctx, "snapshot "+lease.Room, &boltOp{ctx: ctx, log: &walOp{lease: lease, snap: &snap}, fn: func(tx *bbolt.Tx) error {
		return b.snapshotTx(tx, lease, snap)
	}})
}

// snapshotTx is WriteSnapshot inside tx (pendingRoom.snapshot is the same
// for the write-ahead log's pending state).
func (b *Bolt) snapshotTx(tx *bbolt.Tx, lease store.Lease, snap store.Snapshot) error {
	m, err := b.held(tx, lease)
	if err != nil {
		return err
	}
	if snap.Rev < m.snapRev {
		return nil // an older snapshot never replaces a newer one
	}
	if err := tx.Bucket(bSnaps).Put([]byte(lease.Room), nonNil(snap.Data)); err != nil {
		return err
	}
	upTo := snap.FirstKept() - 1
	if snap.Rev > m.last {
		upTo = math.MaxUint64 // ahead of the log: nothing stored can lead up to it
	}
	m.snapRev, m.last = snap.Rev, max(m.last, snap.Rev)
	if err := putMeta(tx, lease.Room, m); err != nil {
		return err
	}
	return deleteLog(tx, lease.Room, upTo)
}

func (b *Bolt) End(ctx context.Context, lease store.Lease, ttl time.Duration) error {
	return b.do(ctx, "end "+lease.Room, func(tx *bbolt.Tx) error {
		m, err := b.held(tx, lease)
		if err != nil {
			return err
		}
		exp := tx.Bucket(bExpiry)
		if m.ended != 0 {
			if err := exp.Delete(expiryKey(m.ended, lease.Room)); err != nil {
				return err
			}
		}
		m.ended = uint64(max(b.opts.Now().Add(ttl).UnixMilli(), 1))
		if err := putMeta(tx, lease.Room, m); err != nil {
			return err
		}
		return exp.Put(expiryKey(m.ended, lease.Room), []byte{})
	})
}

func (b *Bolt) List(ctx context.Context) ([]string, error) {
	if err := b.check("list"); err != nil {
		return nil, err
	}
	var out []string
	err := b.db.View(func(tx *bbolt.Tx) error {
		return tx.Bucket(bRooms).ForEach(func(k, v []byte) error {
			if decodeMeta(v).ended == 0 {
				out = append(out, string(k))
			}
			return nil
		})
	})
	if err != nil {
		return nil, b.viewErr("list", err)
	}
	return out, nil // bbolt keeps keys sorted
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
