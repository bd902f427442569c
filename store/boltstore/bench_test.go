package boltstore

import (
	"testing"

	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/storetest"
)

// BenchmarkAppend: see storetest.BenchAppend. tx/append is the number of
// transactions (commits, fsyncs) per append.
func BenchmarkAppend(b *testing.B) {
	for _, noSync := range []bool{false, true} {
		name := "fsync"
		if noSync {
			name = "nosync"
		}
		b.Run(name, func(b *testing.B) {
			open := func(b *testing.B) store.Store {
				s, err := Open(b.TempDir(), BoltOptions{NoSync: noSync})
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
