package boltstore

import (
	"encoding/binary"
	"hash/crc32"

	"github.com/roomd/roomd/store"
)

// The write-ahead log's record format (wal.go has the log itself).
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

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

const walHeader = 8 // crc32c, length

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
