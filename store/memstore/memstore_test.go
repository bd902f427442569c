package memstore

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/roomd/roomd/store"
	"github.com/roomd/roomd/store/storetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) *storetest.Subject {
		clock := storetest.NewClock()
		m := New()
		m.Now = clock.Now
		t.Cleanup(func() { m.Close() })
		return &storetest.Subject{S: m, Advance: clock.Advance}
	})
}

func BenchmarkAppend(b *testing.B) {
	storetest.BenchAppend(b, func(b *testing.B) store.Store { return New() }, nil)
}
