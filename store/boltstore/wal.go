package boltstore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
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
// (walscan.go, wal_damage.go). Only a torn last record is dropped.
//
// A record is
//
//	crc32c(payload) (4) | len(payload) (4) | payload
//	payload: seq (8) | writes (4) | writes × write
//	write:   kind (1) | len(code) (1) | code | token (8) | body
//	append ('a'):   entries (4) | entries × (rev (8) | len(data) (4) | data)
//	snapshot ('s'): rev (8) | keep (8) | len(data) (4) | data
//
// all integers big-endian.

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

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

const walHeader = 8 // crc32c, length

// wal is the committer's: no lock. The checkpoint goroutine reads frozen
// and nothing else.
type wal struct {
	files  [2]*os.File
	cur    int // the file records go to
	noSync bool
	// logOps' scratch, reused batch after batch.
	errs     []error
	accepted []walOp
	undos    []undo
	off      int64  // where the next record goes
	seq      uint64 // the last sequence number handed out
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
	w := &wal{noSync: b.opts.NoSync, pending: map[string]*pendingRoom{}, done: make(chan error, 1)}
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

// walOp is one logged write: an append (entries) or a snapshot.
type walOp struct {
	lease   store.Lease
	entries []store.Entry
	snap    *store.Snapshot
}

// The kinds of logged writes.
const (
	kindAppend   = 'a'
	kindSnapshot = 's'
)

// nextRecord returns the payload of the record at the start of data when it
// is whole, its checksum holds and its sequence number is seq; n is the
// record's length.
func nextRecord(data []byte, seq uint64) (payload []byte, n int, ok bool) {
	if len(data) < walHeader+12 {
		return nil, 0, false
	}
	size := binary.BigEndian.Uint32(data[4:])
	if size < 12 || uint64(size) > uint64(len(data)-walHeader) {
		return nil, 0, false
	}
	payload = data[walHeader : walHeader+int(size)]
	if crc32.Checksum(payload, castagnoli) != binary.BigEndian.Uint32(data) || u64(payload) != seq {
		return nil, 0, false
	}
	return payload, walHeader + int(size), true
}

// decodeOps reads a record's writes (after its sequence number); ok is
// false when they do not fill it exactly. The data aliases p.
func decodeOps(p []byte) (ops []walOp, ok bool) {
	if len(p) < 4 {
		return nil, false
	}
	n := binary.BigEndian.Uint32(p)
	p = p[4:]
	// blob reads a length-prefixed byte string.
	blob := func() ([]byte, bool) {
		if len(p) < 4 || uint64(binary.BigEndian.Uint32(p)) > uint64(len(p)-4) {
			return nil, false
		}
		size := binary.BigEndian.Uint32(p)
		v := p[4 : 4+size]
		p = p[4+size:]
		return v, true
	}
	for range n {
		if len(p) < 2 || len(p) < 2+int(p[1])+12 {
			return nil, false
		}
		kind, code := p[0], string(p[2:2+int(p[1])])
		p = p[2+int(p[1]):]
		o := walOp{lease: store.Lease{Room: code, Token: u64(p)}}
		switch kind {
		case kindAppend:
			count := binary.BigEndian.Uint32(p[8:])
			p = p[12:]
			for range count {
				if len(p) < 8 {
					return nil, false
				}
				rev := u64(p)
				p = p[8:]
				data, ok := blob()
				if !ok {
					return nil, false
				}
				o.entries = append(o.entries, store.Entry{Rev: rev, Data: data})
			}
		case kindSnapshot:
			if len(p) < 24 {
				return nil, false
			}
			snap := &store.Snapshot{Rev: u64(p[8:]), Keep: u64(p[16:])}
			p = p[24:]
			if snap.Data, ok = blob(); !ok {
				return nil, false
			}
			o.snap = snap
		default:
			return nil, false
		}
		ops = append(ops, o)
	}
	return ops, len(p) == 0
}

// appendRecord encodes ops as the record seq at the end of buf.
func appendRecord(buf []byte, seq uint64, ops []walOp) []byte {
	start := len(buf)
	buf = append(buf, make([]byte, walHeader)...)
	buf = binary.BigEndian.AppendUint64(buf, seq)
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(ops)))
	for _, o := range ops {
		kind := byte(kindAppend)
		if o.snap != nil {
			kind = kindSnapshot
		}
		buf = append(buf, kind, byte(len(o.lease.Room)))
		buf = append(buf, o.lease.Room...)
		buf = binary.BigEndian.AppendUint64(buf, o.lease.Token)
		if o.snap != nil {
			buf = binary.BigEndian.AppendUint64(buf, o.snap.Rev)
			buf = binary.BigEndian.AppendUint64(buf, o.snap.Keep)
			buf = binary.BigEndian.AppendUint32(buf, uint32(len(o.snap.Data)))
			buf = append(buf, o.snap.Data...)
			continue
		}
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(o.entries)))
		for _, e := range o.entries {
			buf = binary.BigEndian.AppendUint64(buf, e.Rev)
			buf = binary.BigEndian.AppendUint32(buf, uint32(len(e.Data)))
			buf = append(buf, e.Data...)
		}
	}
	payload := buf[start+walHeader:]
	binary.BigEndian.PutUint32(buf[start:], crc32.Checksum(payload, castagnoli))
	binary.BigEndian.PutUint32(buf[start+4:], uint32(len(payload)))
	return buf
}

// loggable reports whether ops can go to the log: all appends and
// snapshots, and the log usable — not broken, and not full (a checkpoint
// that is slow, or failed on a full disk say, leaves it full: the writes
// then go to bbolt with a checkpoint of everything).
func (b *Bolt) loggable(ops []*boltOp) bool {
	if w := b.wal; w == nil || w.broken != nil || w.off >= b.opts.WALSize || w.bytes >= b.opts.WALSize {
		return false
	}
	for _, o := range ops {
		if o.log == nil {
			return false
		}
	}
	return true
}

// undo restores one room's pending state when a log write fails.
type undo struct {
	room  string
	prev  *pendingRoom // nil: the room had nothing pending
	saved pendingRoom
}

// logOps is the committer's path for a batch of appends and snapshots:
// check each against bbolt and what is pending, as appendTx and snapshotTx
// would, write the accepted ones as one record, sync it, answer.
func (b *Bolt) logOps(ops []*boltOp) {
	w := b.wal
	// The batch's scratch slices are the committer's, kept from one batch
	// to the next (and cleared after, so they hold nothing).
	errs := slices.Grow(w.errs[:0], len(ops))[:len(ops)]
	accepted, undos := w.accepted[:0], w.undos[:0]
	defer func() {
		clear(errs)
		clear(accepted)
		clear(undos)
		w.errs, w.accepted, w.undos = errs[:0], accepted[:0], undos[:0]
	}()
	size := 0
	for _, o := range ops {
		size += o.log.size()
	}
	// What is kept until the checkpoint: one copy of the data for the
	// batch, not the callers' slices.
	arena := make([]byte, 0, size)
	keep := func(v []byte) []byte {
		start := len(arena)
		arena = append(arena, v...)
		return arena[start:len(arena):len(arena)]
	}
	now := b.opts.Now().UnixMilli()
	viewErr := b.db.View(func(tx *bbolt.Tx) error {
		for i, o := range ops {
			if err := o.ctx.Err(); err != nil {
				errs[i] = err // its caller has gone: leave it out
				continue
			}
			l := o.log
			p := w.pending[l.lease.Room]
			m, err := b.heldPending(tx, l.lease, now)
			if err == nil && l.snap == nil {
				err = w.checkFollows(tx, l.lease.Room, m, l.entries)
			}
			if errors.Is(err, errDup) || err == nil && l.snap != nil && l.snap.Rev < m.snapRev {
				continue // a retry that landed, an older snapshot: nothing to write
			}
			if err != nil {
				errs[i] = err
				continue
			}
			u := undo{room: l.lease.Room, prev: p}
			if p == nil {
				p = &pendingRoom{meta: m}
				w.pending[l.lease.Room] = p
			} else {
				u.saved = *p
			}
			undos = append(undos, u)
			if l.snap != nil {
				snap := *l.snap
				snap.Data = keep(snap.Data)
				p.snapshot(snap)
				accepted = append(accepted, walOp{lease: l.lease, snap: &snap})
				continue
			}
			for _, e := range l.entries {
				p.entries = append(p.entries, store.Entry{Rev: e.Rev, Data: keep(e.Data)})
			}
			p.meta.last = l.entries[len(l.entries)-1].Rev
			accepted = append(accepted, walOp{lease: l.lease, entries: p.entries[len(p.entries)-len(l.entries):]})
		}
		return nil
	})
	if viewErr != nil {
		for i := range errs {
			errs[i] = viewErr
		}
		b.rollback(undos)
		accepted = accepted[:0]
	}
	if len(accepted) > 0 {
		if err := w.write(accepted); err != nil {
			b.rollback(undos)
			for i := range errs {
				if errs[i] == nil {
					errs[i] = err
				}
			}
		} else {
			if w.writes == 0 {
				w.since = time.Now()
			}
			w.writes += len(accepted)
			w.bytes += int64(size)
			b.txs.Add(1)
			b.logged.Add(1)
		}
	}
	b.ops.Add(uint64(len(ops)))
	for i, o := range ops {
		o.done <- errs[i]
	}
}

// size is the data the write carries.
func (o *walOp) size() int {
	if o.snap != nil {
		return len(o.snap.Data)
	}
	n := 0
	for _, e := range o.entries {
		n += len(e.Data)
	}
	return n
}

// snapshot applies a snapshot to a room's pending state as snapshotTx
// applies it to bbolt (the caller has checked that it is not older than
// the room's).
func (p *pendingRoom) snapshot(snap store.Snapshot) {
	upTo := snap.FirstKept() - 1
	if snap.Rev > p.meta.last {
		upTo = math.MaxUint64 // ahead of the log: nothing stored can lead up to it
	}
	p.snap = &snap
	p.dropUpTo = max(p.dropUpTo, upTo)
	i := 0
	for i < len(p.entries) && p.entries[i].Rev <= upTo {
		i++
	}
	p.entries = p.entries[i:]
	p.meta.snapRev, p.meta.last = snap.Rev, max(p.meta.last, snap.Rev)
}

func (b *Bolt) rollback(undos []undo) {
	w := b.wal
	for i := len(undos) - 1; i >= 0; i-- {
		u := undos[i]
		if u.prev == nil {
			delete(w.pending, u.room)
			continue
		}
		*u.prev = u.saved
	}
}

// write logs one record and syncs it. A failure breaks the log until the
// next checkpoint.
func (w *wal) write(ops []walOp) error {
	seq := w.seq + 1
	w.seq = seq // handed out even when the write fails: never reused
	w.buf = appendRecord(w.buf[:0], seq, ops)
	if err := w.writeSync(w.files[w.cur]); err != nil {
		w.broken = err
		return err
	}
	w.off += int64(len(w.buf))
	w.size[w.cur] = max(w.size[w.cur], w.off)
	if cap(w.buf) > 1<<20 {
		w.buf = nil // a rare large batch: do not keep its buffer
	}
	return nil
}

// writeSync writes w.buf at w.off in f and syncs it (unless noSync).
func (w *wal) writeSync(f *os.File) error {
	if _, err := f.WriteAt(w.buf, w.off); err != nil {
		return fmt.Errorf("write-ahead log: %w", err)
	}
	if !w.noSync {
		if err := fdatasync(f); err != nil {
			return fmt.Errorf("write-ahead log: sync: %w", err)
		}
	}
	return nil
}

// startCheckpoint starts a checkpoint goroutine when none runs and one is
// due: the pending writes are frozen and carried into bbolt while the
// committer logs on into the other file; or, when the last one failed, the
// frozen writes again.
func (b *Bolt) startCheckpoint() {
	w := b.wal
	if w == nil || w.inflight {
		return
	}
	if w.frozen == nil {
		if w.writes == 0 || w.off < b.opts.WALSize && w.bytes < b.opts.WALSize && time.Since(w.since) < b.opts.CheckpointInterval {
			return
		}
		w.frozen, w.frozenSeq = w.pending, w.seq
		w.pending = map[string]*pendingRoom{}
		w.writes, w.bytes = 0, 0
		w.cur, w.off = 1-w.cur, 0
	} else if time.Now().Before(w.retryAt) {
		return
	}
	w.inflight = true
	frozen, seq, sizes := w.frozen, w.frozenSeq, w.size
	b.ckwg.Add(1)
	go func() {
		defer b.ckwg.Done()
		err := b.db.Update(func(tx *bbolt.Tx) error {
			if b.testCheckpoint != nil {
				if err := b.testCheckpoint(); err != nil {
					return err
				}
			}
			if err := applyLayer(tx, frozen, true); err != nil {
				return err
			}
			return w.putPosition(tx, seq, sizes)
		})
		w.done <- err
	}()
}

// checkpointDone takes a finished checkpoint goroutine's answer: wait for
// it, or only look.
func (b *Bolt) checkpointDone(wait bool) {
	w := b.wal
	if w == nil || !w.inflight {
		return
	}
	var err error
	if wait {
		err = <-w.done
	} else {
		select {
		case err = <-w.done:
		default:
			return
		}
	}
	w.inflight = false
	if err != nil {
		w.retryAt = time.Now().Add(b.opts.CheckpointInterval)
		return
	}
	w.frozen = nil
	b.checkpoints.Add(1)
}

// applyPending writes everything frozen and pending into tx and moves the
// checkpoint past every record handed out; no checkpoint goroutine runs.
// The committer calls it at the start of a transaction that touches rooms,
// and checkpointed when that commits.
func (b *Bolt) applyPending(tx *bbolt.Tx) error {
	w := b.wal
	if w == nil {
		return nil
	}
	if err := applyLayer(tx, w.frozen, false); err != nil {
		return err
	}
	if err := applyLayer(tx, w.pending, false); err != nil {
		return err
	}
	return w.putPosition(tx, w.seq, w.size)
}

// applyLayer writes a layer of pending writes into tx, room by room in key
// order (so that the tree is walked once). A checkpoint goroutine yields
// its thread every few rooms: with one scheduler thread (GOMAXPROCS=1)
// the rooms and sockets it shares it with then wait for a slice of the
// checkpoint, not for the scheduler's 10 ms preemption.
func applyLayer(tx *bbolt.Tx, layer map[string]*pendingRoom, yield bool) error {
	log := tx.Bucket(bLog)
	for i, code := range slices.Sorted(maps.Keys(layer)) {
		p := layer[code]
		if yield && i%16 == 15 {
			runtime.Gosched()
		}
		if p.dropUpTo > 0 {
			if err := deleteLog(tx, code, p.dropUpTo); err != nil {
				return err
			}
		}
		if p.snap != nil {
			if err := tx.Bucket(bSnaps).Put([]byte(code), nonNil(p.snap.Data)); err != nil {
				return err
			}
		}
		for _, e := range p.entries {
			if err := log.Put(logKey(code, e.Rev), nonNil(e.Data)); err != nil {
				return err
			}
		}
		if err := putMeta(tx, code, p.meta); err != nil {
			return err
		}
	}
	return nil
}

// checkpointed is called after a transaction that ran applyPending
// committed: bbolt holds everything, and the log starts over at offset 0.
func (b *Bolt) checkpointed() {
	w := b.wal
	if w == nil {
		return
	}
	if w.writes > 0 || w.frozen != nil {
		b.checkpoints.Add(1)
	}
	clear(w.pending)
	w.frozen = nil
	w.writes, w.bytes, w.off, w.broken = 0, 0, 0, nil
}

// holds reports whether the log holds writes bbolt may not.
func (w *wal) holds() bool { return w != nil && (w.writes > 0 || w.frozen != nil) }

// errDup is checkFollows' answer for a retry of an append that landed.
var errDup = errors.New("already stored")

// heldPending is held for the log's path: the room's meta as the pending
// or frozen writes left it or as bbolt holds it, read in a read-only
// transaction (an expired room is left for the next write to delete).
func (b *Bolt) heldPending(tx *bbolt.Tx, lease store.Lease, now int64) (roomMeta, error) {
	var m roomMeta
	w := b.wal
	if p := w.pending[lease.Room]; p != nil {
		m = p.meta
	} else if p := w.frozen[lease.Room]; p != nil {
		m = p.meta
	} else {
		v := tx.Bucket(bRooms).Get([]byte(lease.Room))
		if v == nil {
			return m, store.ErrNotFound
		}
		m = decodeMeta(v)
	}
	if m.ended != 0 && now >= int64(m.ended) {
		return m, store.ErrNotFound
	}
	if m.fence != lease.Token {
		return m, fmt.Errorf("token %d, current %d: %w", lease.Token, m.fence, store.ErrFenced)
	}
	return m, nil
}

// checkFollows is appendTx's check for the log's path: nil when entries
// follow m.last, errDup when they are all stored already with the same
// bytes (pending or in bbolt), else ErrGap.
func (w *wal) checkFollows(tx *bbolt.Tx, code string, m roomMeta, entries []store.Entry) error {
	first := entries[0].Rev
	if first <= m.last {
		log := tx.Bucket(bLog)
		for _, e := range entries {
			if v := w.entry(log, code, e.Rev); v == nil || !bytes.Equal(v, e.Data) {
				return fmt.Errorf("rev %d after %d: %w", first, m.last, store.ErrGap)
			}
		}
		return errDup
	}
	if first != m.last+1 {
		return fmt.Errorf("rev %d after %d: %w", first, m.last, store.ErrGap)
	}
	return nil
}
