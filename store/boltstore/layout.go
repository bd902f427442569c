package boltstore

import (
	"bytes"
	"encoding/binary"
	"math"

	"go.etcd.io/bbolt"
)

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
