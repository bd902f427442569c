package finetimer

import (
	"testing"
	"time"
)

// kinds are the timers under test: Timer and Coarse keep the same contract.
var kinds = []struct {
	name string
	make func() (Sleeper, error)
}{
	{"Timer", func() (Sleeper, error) { return New() }},
	{"Coarse", func() (Sleeper, error) { return NewCoarse(), nil }},
}

func TestSleepLastsAtLeastD(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			tm, err := k.make()
			if err != nil {
				t.Fatal(err)
			}
			defer tm.Close()
			for _, d := range []time.Duration{-time.Millisecond, 0, 50 * time.Microsecond, 300 * time.Microsecond, 1700 * time.Microsecond, 3 * time.Millisecond} {
				for range 5 {
					start := time.Now()
					if err := tm.Sleep(d); err != nil {
						t.Fatalf("Sleep(%v): %v", d, err)
					}
					if got := time.Since(start); got < d {
						t.Fatalf("Sleep(%v) returned after %v", d, got)
					}
				}
			}
		})
	}
}

func TestCloseEndsASleep(t *testing.T) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			tm, err := k.make()
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- tm.Sleep(time.Hour) }()
			time.Sleep(20 * time.Millisecond) // let it wait
			if err := tm.Close(); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				if err == nil {
					t.Fatal("a Sleep cut by Close reported no error")
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Close did not end the Sleep")
			}
			if err := tm.Sleep(time.Millisecond); err == nil {
				t.Fatal("Sleep after Close reported no error")
			}
		})
	}
}

// BenchmarkSleep300us reports how late a 300 µs sleep ends in an otherwise
// idle process: on the runtime's timers (Coarse) the wait rounds up to 1 ms.
//
//	go test -run '^$' -bench Sleep300us -benchtime 2000x ./internal/finetimer
func BenchmarkSleep300us(b *testing.B) {
	const d = 300 * time.Microsecond
	for _, k := range kinds {
		b.Run(k.name, func(b *testing.B) {
			tm, err := k.make()
			if err != nil {
				b.Fatal(err)
			}
			defer tm.Close()
			var late time.Duration
			for b.Loop() {
				start := time.Now()
				if err := tm.Sleep(d); err != nil {
					b.Fatal(err)
				}
				late += time.Since(start) - d
			}
			b.ReportMetric(float64(late.Microseconds())/float64(b.N), "µs-late/op")
		})
	}
}
