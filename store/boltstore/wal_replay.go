package boltstore

import "go.etcd.io/bbolt"

// replay applies the scan's chain, in one transaction that also moves the
// checkpoint past every number the files hold — chained or not, records
// after damage included — so that the records written next are the ones
// a replay reads and no number is ever handed out twice, and records the
// files' sizes. A write the replay finds refused (the room expired
// meanwhile, or — which the committer's order rules out — fenced or not
// following) is skipped and counted. After damage (the caller has kept a
// copy of the files) it marks every live room rewound and returns how
// many.
func (b *Bolt) replay(w *wal, s *walScan) (marked int, err error) {
	w.seq = s.maxSeq
	w.replayed = len(s.chain)
	for i, data := range s.data {
		w.size[i] = int64(len(data))
	}
	if w.seq == s.applied && w.size == s.sizes && s.damage == nil {
		return 0, nil // nothing past the checkpoint
	}
	return marked, b.db.Update(func(tx *bbolt.Tx) error {
		marked = 0
		for _, rec := range s.chain {
			for _, o := range rec.ops {
				var err error
				if o.snap != nil {
					err = b.snapshotTx(tx, o.lease, *o.snap)
				} else {
					_, err = b.appendTx(tx, o.lease, o.entries)
				}
				if err != nil {
					if !soft(err) {
						return err
					}
					w.skipped++
				}
			}
		}
		if s.damage != nil {
			bk := tx.Bucket(bRewound)
			err := tx.Bucket(bRooms).ForEach(func(code, v []byte) error {
				m := decodeMeta(v)
				if m.ended != 0 {
					return nil
				}
				marked++
				return bk.Put(code, be64(m.last))
			})
			if err != nil {
				return err
			}
		}
		return w.putPosition(tx, w.seq, w.size)
	})
}
