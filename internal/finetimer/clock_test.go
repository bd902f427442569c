package finetimer

import (
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// clocks are the clocks under test: NewClock's and the coarse one keep the
// same contract.
var clocks = []struct {
	name string
	make func() (*Clock, error)
}{
	{"Clock", NewClock},
	{"Coarse", func() (*Clock, error) { return NewCoarseClock(), nil }},
}

// eachClock runs f on each clock under test, closed when it returns.
func eachClock(t *testing.T, f func(t *testing.T, c *Clock)) {
	for _, k := range clocks {
		t.Run(k.name, func(t *testing.T) {
			c, err := k.make()
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			f(t, c)
		})
	}
}

// TestClockRunsEachOnceAfterD: timers of many durations, set in no order,
// each run once, never before their duration; a stopped one never; one
// reset earlier than the alarm is set for runs at its new time, not the
// old one.
func TestClockRunsEachOnceAfterD(t *testing.T) {
	eachClock(t, func(t *testing.T, c *Clock) {
		ds := []time.Duration{3 * time.Millisecond, 300 * time.Microsecond, 0, 7 * time.Millisecond, 1700 * time.Microsecond, 50 * time.Microsecond, 3 * time.Millisecond, -time.Millisecond}
		var mu sync.Mutex
		runs := make([]int, len(ds))
		var wg sync.WaitGroup
		start := time.Now()
		for i, d := range ds {
			wg.Add(1)
			c.AfterFunc(d, func() {
				defer wg.Done()
				if got := time.Since(start); got < d {
					t.Errorf("timer %d of %v ran after %v", i, d, got)
				}
				mu.Lock()
				runs[i]++
				mu.Unlock()
			})
		}
		stopped := c.AfterFunc(2*time.Millisecond, func() { t.Error("a stopped timer ran") })
		if !stopped.Stop() || stopped.Stop() {
			t.Error("Stop: want true for a pending timer, then false")
		}
		// The alarm is set for the earliest of a long and a short
		// timer; the long one, reset to 1 ms, runs then.
		late := make(chan time.Duration, 1)
		at := time.Now()
		long := c.AfterFunc(time.Hour, func() { late <- time.Since(at) })
		if !long.Reset(time.Millisecond) {
			t.Error("Reset of a pending timer: want true")
		}
		wg.Wait()
		select {
		case got := <-late:
			if got < time.Millisecond {
				t.Errorf("a timer reset to 1 ms ran after %v", got)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a timer reset from an hour to 1 ms did not run")
		}
		time.Sleep(10 * time.Millisecond) // a second run would come by now
		mu.Lock()
		defer mu.Unlock()
		for i, n := range runs {
			if n != 1 {
				t.Errorf("timer %d of %v ran %d times", i, ds[i], n)
			}
		}
	})
}

// TestClockSlack: with a slack, timers due within it of the first run on
// one wake-up of the alarm — none before its time, none later than the
// slack after it (the bound is not checked: a loaded machine runs them
// later still).
func TestClockSlack(t *testing.T) {
	eachClock(t, func(t *testing.T, c *Clock) {
		c.SetSlack(50 * time.Millisecond)
		const n = 10
		var wg sync.WaitGroup
		wg.Add(n)
		start := time.Now()
		for i := range n {
			d := time.Millisecond + time.Duration(i)*300*time.Microsecond
			c.AfterFunc(d, func() {
				defer wg.Done()
				if got := time.Since(start); got < d {
					t.Errorf("timer %d of %v ran after %v", i, d, got)
				}
			})
		}
		wg.Wait()
		if w := c.wakes.Load(); w != 1 {
			t.Errorf("%d timers due within the slack ran on %d wake-ups, want 1", n, w)
		}
	})
}

// TestClockClose: Close stops what is pending and the clock's goroutine;
// Reset after it does nothing.
func TestClockClose(t *testing.T) {
	for _, k := range clocks {
		t.Run(k.name, func(t *testing.T) {
			c, err := k.make()
			if err != nil {
				t.Fatal(err)
			}
			f := c.AfterFunc(20*time.Millisecond, func() { t.Error("a timer ran after Close") })
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			if f.Reset(time.Millisecond) || f.Stop() {
				t.Error("Reset or Stop after Close reported a pending timer")
			}
			time.Sleep(40 * time.Millisecond)
			if err := c.Close(); err != nil {
				t.Fatalf("a second Close: %v", err)
			}
		})
	}
}

// TestClockKeepsWorkers: functions due one after another run on one
// goroutine, kept between them; functions due together that block run on
// goroutines of their own, none waiting for another; Close ends the kept
// goroutines.
func TestClockKeepsWorkers(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, k := range clocks {
		t.Run(k.name, func(t *testing.T) {
			c, err := k.make()
			if err != nil {
				t.Fatal(err)
			}
			idle := func() int {
				c.wmu.Lock()
				defer c.wmu.Unlock()
				return len(c.idle)
			}
			ran := make(chan struct{})
			f := c.AfterFunc(time.Hour, func() { ran <- struct{}{} })
			for i := range 20 {
				f.Reset(100 * time.Microsecond)
				<-ran
				for deadline := time.Now().Add(10 * time.Second); idle() != 1; {
					if time.Now().After(deadline) {
						t.Fatalf("run %d: %d workers waiting, want 1", i, idle())
					}
					time.Sleep(100 * time.Microsecond)
				}
			}
			if got := c.workers.Load(); got != 1 {
				t.Errorf("20 functions run one after another: %d goroutines started, want 1", got)
			}
			// Ten due together, each blocked until all ten run.
			const n = 10
			var started sync.WaitGroup
			started.Add(n)
			release := make(chan struct{})
			for range n {
				c.AfterFunc(time.Millisecond, func() {
					started.Done()
					<-release
				})
			}
			all := make(chan struct{})
			go func() { started.Wait(); close(all) }()
			select {
			case <-all:
			case <-time.After(10 * time.Second):
				t.Fatal("ten blocking functions due together did not all start")
			}
			close(release)
			if got := c.workers.Load(); got != n {
				t.Errorf("ten blocking functions: %d goroutines started in all, want %d (the kept one and nine)", got, n)
			}
			for deadline := time.Now().Add(10 * time.Second); idle() != n && time.Now().Before(deadline); {
				time.Sleep(100 * time.Microsecond)
			}
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// BenchmarkClock300us: how late a 300 µs timer runs, one at a time, on
// each clock (ns/op is the wall time of one: 300 µs plus the lateness).
func BenchmarkClock300us(b *testing.B) {
	for _, k := range clocks {
		b.Run(k.name, func(b *testing.B) {
			c, err := k.make()
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			ran := make(chan struct{}, 1)
			f := c.AfterFunc(time.Hour, func() { ran <- struct{}{} })
			f.Stop()
			var late time.Duration
			for b.Loop() {
				at := time.Now()
				f.Reset(300 * time.Microsecond)
				<-ran
				late += time.Since(at) - 300*time.Microsecond
			}
			b.ReportMetric(float64(late.Microseconds())/float64(b.N), "µs-late/op")
		})
	}
}

// BenchmarkClockRun: a due function that needs a 16 KiB stack, run on a
// kept worker (the Clock's way) against a new goroutine each (its way
// before, and time.AfterFunc's), one at a time.
func BenchmarkClockRun(b *testing.B) {
	done := make(chan struct{})
	f := func() {
		deep(16)
		done <- struct{}{}
	}
	b.Run("kept", func(b *testing.B) {
		c := NewCoarseClock()
		defer c.Close()
		for b.Loop() {
			c.run(f)
			<-done
		}
	})
	b.Run("new", func(b *testing.B) {
		for b.Loop() {
			go f()
			<-done
		}
	})
}

// deep uses about n KiB of stack.
//
//go:noinline
func deep(n int) byte {
	var b [1000]byte
	b[n] = byte(n)
	if n == 0 {
		return b[0]
	}
	return deep(n-1) + b[n]
}

// TestClockSleeper: Sleepers on one Clock keep a Sleeper's contract — each
// Sleep lasts at least its d, Close ends one under way with ErrClosed —
// and share the Clock's one alarm.
func TestClockSleeper(t *testing.T) {
	c, err := NewClock()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := c.Sleeper()
			defer s.Close()
			for _, d := range []time.Duration{0, -time.Millisecond, time.Duration(i+1) * 100 * time.Microsecond, 2 * time.Millisecond} {
				start := time.Now()
				if err := s.Sleep(d); err != nil {
					t.Errorf("Sleep(%v): %v", d, err)
				}
				if got := time.Since(start); got < d {
					t.Errorf("Sleep(%v) returned after %v", d, got)
				}
			}
		}()
	}
	wg.Wait()
	s := c.Sleeper()
	done := make(chan error, 1)
	go func() { done <- s.Sleep(time.Hour) }()
	time.Sleep(20 * time.Millisecond)
	s.Close()
	select {
	case err := <-done:
		if err != ErrClosed {
			t.Fatalf("a Sleep cut by Close: %v, want ErrClosed", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not end the Sleep")
	}
	if err := s.Sleep(time.Millisecond); err != ErrClosed {
		t.Fatalf("Sleep after Close: %v", err)
	}
}
