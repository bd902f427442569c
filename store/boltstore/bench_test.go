package boltstore

import (
	"testing"

	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/storetest"
)

// BenchmarkAppend: see storetest.BenchAppend. tx/append is the number of
// commits (log records or transactions) per append; fsync-nowal is the
// store without its write-ahead log.
func BenchmarkAppend(b *testing.B) {
	for _, c := range []struct {
		name string
		opts BoltOptions
	}{
		{"fsync", BoltOptions{}},
		{"fsync-nowal", BoltOptions{NoWAL: true}},
		{"nosync", BoltOptions{NoSync: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			open := func(b *testing.B) store.Store {
				s, err := Open(b.TempDir(), c.opts)
				if err != nil {
					b.Fatal(err)
				}
				return s
			}
			storetest.BenchAppend(b, open, meter)
		})
	}
}

func meter(s store.Store) storetest.Meter {
	b := s.(*Bolt)
	return storetest.Meter{Unit: "tx/append", Read: func() (uint64, uint64) {
		st := b.Stats()
		return st.Transactions, st.Ops
	}}
}
