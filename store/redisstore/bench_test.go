package redisstore

import (
	"testing"

	"github.com/roomd/roomd/internal/testredis"
	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/storetest"
)

// BenchmarkAppend: see storetest.BenchAppend. roundtrips/append is the
// number of round trips to Redis per append.
func BenchmarkAppend(b *testing.B) {
	srv := testredis.Start(b)
	open := func(b *testing.B) store.Store { return openRedis(b, srv.URL(), RedisOptions{}) }
	storetest.BenchAppend(b, open, func(s store.Store) storetest.Meter {
		r := s.(*Redis)
		return storetest.Meter{Unit: "roundtrips/append", Read: func() (uint64, uint64) {
			st := r.Stats()
			return st.RoundTrips, st.Accepted
		}}
	})
}
