package boltstore

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"go.etcd.io/bbolt"
)

// Reading the write-ahead log at open, before anything is written: which
// records chain on from bbolt's checkpoint (the replay), and whether the
// log is damaged rather than cut short by a crash.
//
// A crash can leave one record torn: the one being written, never
// acknowledged, and the last of the log — nothing is written after a
// record until it is whole and synced. Anything else that stops the chain
// early is damage: a record the disk or a person changed, a page of zeros,
// a file cut short. Records are rewritten in place from offset 0 after a
// checkpoint, so a run legitimately ends at older records (and at the
// middle of one); those are stale, with sequence numbers at or below the
// checkpoint's. The chain's end L (the last record replayed, or the
// checkpoint) tells them apart: every record written after L has a number
// above it, and every stale one has a number at or below it. So
//
//   - damage: a record that continues the log — sequence number above L,
//     checksum intact, writes that decode — lies anywhere in either file
//     outside the chain. The scan for them looks at every offset, but reads
//     the eight bytes of a sequence number first and goes on — decodes the
//     writes, then checksums them — only for a number in (L, L + the most
//     records the files could hold] (the numbers above the checkpoint are
//     consecutive: after a failed write nothing is logged until a
//     checkpoint has passed its number). Stale records and entry data
//     nearly always fail that at once, so the scan is linear in practice.
//   - damage: a file is shorter than roomd left it (roomd never shrinks a
//     log file; each checkpoint records their sizes in bbolt, walSizes), it
//     holds the chain's end (or no run at all), and it ends right after
//     that end, within the header after it or within a record numbered
//     L+1: the records that followed were cut off. A cut that only takes
//     stale bytes after the run's end loses nothing.
//   - a torn tail: neither, and after the chain's last record the file
//     holds the start of a record numbered L+1 (or less than a record's
//     header before its end). It is dropped with a warning.
//
// Two kinds of damage cannot be told from a torn tail: damage to the last
// record only, and the loss of the log's last records when nothing of them
// remains (a cut that leaves the file at or above the size last recorded).

// walRecord is one whole record found in a log file.
type walRecord struct {
	file     int // index in walFiles
	off, end int
	seq      uint64
	ops      []walOp
}

// walRunOf is a file's run: its records from offset 0, each one above the
// last, and the offset where it stops.
type walRunOf struct {
	recs []walRecord
	end  int
}

// walScan is what the open reads of the log before it writes anything.
type walScan struct {
	data    [2][]byte // the files' contents (nil: missing)
	applied uint64    // bbolt's checkpoint
	sizes   [2]int64  // the files' sizes bbolt last recorded (0: none)
	runs    [2]walRunOf
	chain   []walRecord // what the replay applies, in order
	last    uint64      // the chain's last sequence number (applied when empty)
	after   []walRecord // intact records above last outside the chain, by seq
	maxSeq  uint64      // the highest number any record holds, applied included
	damage  *WALDamage  // nil: none
	torn    *walPos     // a torn tail dropped, or nil
}

// walPos names an offset in a log file.
type walPos struct {
	file int
	off  int
}

// bWAL's key of the files' sizes: two big-endian uint64s.
var walSizes = []byte("sizes")

// scanWAL reads the log's files in dir and bbolt's checkpoint in db, and
// finds the chain and any damage. It writes nothing.
func scanWAL(db *bbolt.DB, dir string) (*walScan, error) {
	var (
		data    [2][]byte
		applied uint64
		sizes   [2]int64
	)
	if err := db.View(func(tx *bbolt.Tx) error {
		if bk := tx.Bucket(bWAL); bk != nil {
			applied = u64(bk.Get(walApplied))
			if v := bk.Get(walSizes); len(v) == 16 {
				sizes = [2]int64{int64(u64(v)), int64(u64(v[8:]))}
			}
		}
		return nil
	}); err != nil {
		return nil, err
	}
	for i, name := range walFiles {
		var err error
		data[i], err = os.ReadFile(filepath.Join(dir, name))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	return scanData(data, applied, sizes), nil
}

// scanData is scanWAL on the files' contents (nil: a missing file), the
// checkpoint and the sizes recorded.
func scanData(data [2][]byte, applied uint64, sizes [2]int64) *walScan {
	s := &walScan{data: data, applied: applied, sizes: sizes}
	for i := range data {
		s.runs[i] = readRun(i, data[i])
	}
	s.chainRuns()
	s.findAfter()
	s.judge()
	s.describe()
	return s
}

// readRun reads a file's run. The first record names its own number.
func readRun(file int, data []byte) walRunOf {
	var r walRunOf
	for seq := uint64(0); ; seq++ {
		if len(r.recs) == 0 {
			if len(data) < walHeader+8 {
				break
			}
			seq = u64(data[walHeader:])
		}
		rec, ok := recordAt(file, data, r.end, seq)
		if !ok {
			break
		}
		r.recs = append(r.recs, rec)
		r.end = rec.end
	}
	return r
}

// recordAt returns the record at off in data when it is whole, its number
// is seq, its writes decode and its checksum holds. The writes are decoded
// first: the scan's candidates are mostly bytes of other records, which
// fail that at once, while a checksum reads all the bytes their length
// field claims.
func recordAt(file int, data []byte, off int, seq uint64) (walRecord, bool) {
	rest := data[off:]
	if len(rest) < walHeader+12 {
		return walRecord{}, false
	}
	size := binary.BigEndian.Uint32(rest[4:])
	if size < 12 || uint64(size) > uint64(len(rest)-walHeader) {
		return walRecord{}, false
	}
	payload := rest[walHeader : walHeader+int(size)]
	if u64(payload) != seq {
		return walRecord{}, false
	}
	ops, ok := decodeOps(payload[8:])
	if !ok || crc32.Checksum(payload, castagnoli) != binary.BigEndian.Uint32(rest) {
		return walRecord{}, false
	}
	return walRecord{file: file, off: off, end: off + walHeader + int(size), seq: seq, ops: ops}, true
}

// chainRuns chains the runs on from the checkpoint: the records numbered
// applied+1, applied+2, ... as long as a run holds the next.
func (s *walScan) chainRuns() {
	next := s.applied + 1
	for range s.runs {
		for _, r := range s.runs {
			if n := len(r.recs); n > 0 && r.recs[0].seq <= next && next <= r.recs[n-1].seq {
				s.chain = append(s.chain, r.recs[next-r.recs[0].seq:]...)
				next = r.recs[n-1].seq + 1
			}
		}
	}
	s.last = next - 1
	s.maxSeq = s.last
	for _, r := range s.runs {
		for _, rec := range r.recs {
			s.maxSeq = max(s.maxSeq, rec.seq) // never hand out a number a file holds
		}
	}
}

// findAfter scans both files outside the chain for whole records numbered
// above the chain's end.
func (s *walScan) findAfter() {
	// A record is at least a header and a payload of 12 bytes: no file
	// holds more records than its size over that.
	most := uint64((len(s.data[0])+len(s.data[1]))/(walHeader+12)) + 1
	// The chain's part of each file: a suffix of its run.
	var chained [2]struct{ from, to int }
	for i := range chained {
		chained[i].from = -1
	}
	for _, rec := range s.chain {
		if c := &chained[rec.file]; c.from < 0 {
			c.from = rec.off
		}
		chained[rec.file].to = rec.end
	}
	seen := map[uint64]bool{}
	for i, data := range s.data {
		for off := 0; off+walHeader+12 <= len(data); {
			if c := chained[i]; c.from >= 0 && off >= c.from && off < c.to {
				off = c.to
				continue
			}
			if seq := binary.BigEndian.Uint64(data[off+walHeader:]); seq > s.last && seq-s.last <= most {
				if rec, ok := recordAt(i, data, off, seq); ok {
					if !seen[seq] {
						seen[seq] = true
						s.after = append(s.after, rec)
						s.maxSeq = max(s.maxSeq, seq)
					}
					off = rec.end
					continue
				}
			}
			off++
		}
	}
	slices.SortFunc(s.after, func(a, b walRecord) int { return cmpU64(a.seq, b.seq) })
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// judge decides between damage, a torn tail and a clean end.
func (s *walScan) judge() {
	if len(s.after) > 0 {
		pos := s.badSpot()
		d := &WALDamage{File: walFiles[pos.file], Offset: int64(pos.off), After: len(s.after),
			First: s.after[0].seq, Last: s.after[len(s.after)-1].seq}
		d.Rooms = roomsOf(s.after)
		s.damage = d
		return
	}
	for i, r := range s.runs {
		size := int64(len(s.data[i]))
		if size >= s.sizes[i] || !s.holdsEnd(i) || !s.cutAt(i, r.end) {
			continue
		}
		s.damage = &WALDamage{File: walFiles[i], Offset: int64(r.end), Size: size, Written: s.sizes[i]}
		return
	}
	for i, r := range s.runs {
		data := s.data[i]
		if r.end >= len(data) || !s.holdsEnd(i) {
			continue
		}
		if len(data)-r.end < walHeader+8 || u64(data[r.end+walHeader:]) == s.last+1 {
			s.torn = &walPos{file: i, off: r.end}
			return
		}
	}
}

// holdsEnd reports whether file i may hold the log's end: its run is
// empty, or it holds the chain's last record above the checkpoint.
func (s *walScan) holdsEnd(i int) bool {
	r := s.runs[i]
	if len(r.recs) == 0 {
		return true
	}
	return s.last > s.applied && r.recs[len(r.recs)-1].seq == s.last
}

// cutAt reports whether file i's run, stopping at end, stops for want of
// bytes: the file ends at end or within the header that follows, or within
// a record numbered L+1. Anything else there is stale: whatever a cut took
// after it, the log had ended before.
func (s *walScan) cutAt(i, end int) bool {
	rest := s.data[i][end:]
	if len(rest) < walHeader+8 {
		return true
	}
	return u64(rest[walHeader:]) == s.last+1 && uint64(binary.BigEndian.Uint32(rest[4:])) > uint64(len(rest)-walHeader)
}

// badSpot is where the chain stops short of the records found after it:
// after its last record, in that record's file; with no chain, at the start
// of the file of the first record found after it (or of the other file,
// when that record starts its own).
func (s *walScan) badSpot() walPos {
	if n := len(s.chain); n > 0 {
		return walPos{file: s.chain[n-1].file, off: s.chain[n-1].end}
	}
	first := s.after[0]
	if first.off > 0 {
		return walPos{file: first.file}
	}
	return walPos{file: 1 - first.file}
}

// roomsOf returns the rooms recs write, sorted, each once.
func roomsOf(recs []walRecord) []string {
	var rooms []string
	for _, rec := range recs {
		for _, o := range rec.ops {
			rooms = append(rooms, o.lease.Room)
		}
	}
	slices.Sort(rooms)
	return slices.Compact(rooms)
}
