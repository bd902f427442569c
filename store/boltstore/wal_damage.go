package boltstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.etcd.io/bbolt"
)

// What the store does with the log's damage (wal_scan.go finds it): refuse
// to open, or — with DiscardAfterDamage — keep a copy of the files, replay
// what precedes the damage, and mark the rooms that may have lost writes as
// rewound, so that the room layer moves them to a new epoch
// (store.Record.Rewound). Those are every live room: the records after the
// damage name some, but the damaged bytes cannot say which rooms they
// wrote, and a room that lost nothing only moves to a new epoch (its
// clients get a snapshot, as they do when they come back anyway).

// ErrWALDamaged is what Open's error wraps (as a *WALDamage) when the
// write-ahead log is damaged and DiscardAfterDamage is not set.
var ErrWALDamaged = errors.New("boltstore: write-ahead log damaged")

// WALDamage describes damage to the write-ahead log: where the log stops
// short, and what follows that the replay cannot reach.
type WALDamage struct {
	// File is the damaged file's name in the store's directory, and Offset
	// where in it the log stops short (the first byte that is not part of a
	// whole record that continues it).
	File   string
	Offset int64
	// Size and Written describe a file cut short: its size now, and the
	// size it had been written to. Both zero otherwise.
	Size, Written int64
	// After is how many intact records continue the log after the damage,
	// First and Last their sequence numbers, Files the files that hold them
	// and Rooms the rooms they write, sorted.
	After       int
	First, Last uint64
	Files       []string
	Rooms       []string
	// Kept is, when the store was opened with DiscardAfterDamage, the
	// directory holding copies of the log's files as they were found.
	Kept string
}

func (d *WALDamage) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "write-ahead log damaged: %s, offset %d: ", d.File, d.Offset)
	if d.Written > 0 {
		fmt.Fprintf(&b, "the file is cut short there (%d bytes, %d were written to it): the records past the cut are lost; "+
			"0 intact records follow the damage, so the rooms they wrote cannot be named", d.Size, d.Written)
		return b.String()
	}
	fmt.Fprintf(&b, "the log stops there, but %d intact records follow the damage (sequence numbers %d to %d, in %s), writes of %d rooms: %s",
		d.After, d.First, d.Last, strings.Join(d.Files, " and "), len(d.Rooms), listRooms(d.Rooms))
	return b.String()
}

func (d *WALDamage) Unwrap() error { return ErrWALDamaged }

// listRooms lists up to 20 codes, then how many more.
func listRooms(rooms []string) string {
	const most = 20
	if len(rooms) <= most {
		return strings.Join(rooms, " ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(rooms[:most], " "), len(rooms)-most)
}

// bRewound holds the rooms that a recovery from damage rewound: code → the
// room's last revision then (8 bytes). Open reports such a room Rewound
// until an entry after that revision is stored, and forgets it then.
var bRewound = []byte("rewound")

// rewound reports, in Open's transaction, whether the room came back from
// damage and has not stored an entry since; it forgets a room that has.
func rewound(tx *bbolt.Tx, code string, m roomMeta) (bool, error) {
	bk := tx.Bucket(bRewound)
	v := bk.Get([]byte(code))
	switch {
	case v == nil:
		return false, nil
	case m.last <= u64(v):
		return true, nil
	}
	return false, bk.Delete([]byte(code))
}

// describe completes the scan's damage with what a person needs: the files
// that hold the records after it.
func (s *walScan) describe() {
	d := s.damage
	if d == nil || d.After == 0 {
		return
	}
	for _, rec := range s.after {
		d.Files = append(d.Files, walFiles[rec.file])
	}
	slices.Sort(d.Files)
	d.Files = slices.Compact(d.Files)
}

// keepDamaged copies the log's files, as the scan read them, into a new
// directory damaged-<UTC time> in dir, synced, and returns its path.
func keepDamaged(dir string, s *walScan, now time.Time) (string, error) {
	base := filepath.Join(dir, "damaged-"+now.UTC().Format("20060102T150405Z"))
	path := base
	for i := 2; ; i++ {
		err := os.Mkdir(path, 0o700)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
		path = fmt.Sprintf("%s-%d", base, i)
	}
	for i, name := range walFiles {
		if s.data[i] == nil {
			continue // no such file
		}
		if err := writeSynced(filepath.Join(path, name), s.data[i]); err != nil {
			return "", err
		}
	}
	if err := syncDir(path); err != nil {
		return "", err
	}
	return path, syncDir(dir)
}

func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
