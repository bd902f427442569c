package finetimer

import (
	"container/heap"
	"sync"
	"sync/atomic"
	"time"
)

// Clock runs functions after given durations, as time.AfterFunc does —
// each on a goroutine that runs nothing else meanwhile — for many timers
// at once, timed by one alarm: on Linux a timerfd in the runtime's network
// poller (NewClock), so that a timer of 300 µs fires after 300 µs and not
// on the runtime's next whole millisecond. roombot's bots wake for their
// moves on one; on the runtime's timers they moved in bunches at its
// wake-ups (BENCHMARKS.md, "the load generator's clock").
//
// The goroutines are kept for the next due functions (up to maxIdle of
// them wait): a new goroutine starts on the runtime's smallest stack, and
// a function that needs a deeper one — a bot's move follows its board —
// paid for the stack's growth, copies and all, on every run (BENCHMARKS.md,
// "roombot's own CPU").
type Clock struct {
	mu     sync.Mutex
	q      funcHeap
	armed  time.Time // what the alarm is set for; zero: not set
	a      alarm
	slack  time.Duration
	closed bool
	done   chan struct{}
	due    []*Func // the loop's

	wmu   sync.Mutex
	idle  []chan func() // waiting workers, the last parked first
	wdone bool          // closed: workers end
	// workers counts the goroutines run has started, wakes the times
	// the loop found timers due (tests).
	workers, wakes atomic.Int64
}

// maxIdle bounds the workers a Clock keeps waiting.
const maxIdle = 64

// alarm wakes the clock's loop: set arms it to go off after d (> 0),
// replacing what it was set for; wait returns when it has gone off, or
// with an error after close.
type alarm interface {
	set(d time.Duration) error
	wait() error
	close() error
}

// Func is one timer of a Clock: Reset and Stop as a time.Timer made by
// time.AfterFunc.
type Func struct {
	c    *Clock
	f    func()
	when time.Time
	i    int // index in c.q; -1: not pending
}

// NewCoarseClock returns a Clock on the runtime's timers: what NewClock
// is on systems other than Linux, and a baseline to measure against.
func NewCoarseClock() *Clock { return startClock(newCoarseAlarm()) }

func startClock(a alarm) *Clock {
	c := &Clock{a: a, done: make(chan struct{})}
	go c.loop()
	return c
}

// SetSlack lets a due timer wait up to d for the timers due after it, so
// that they run on one wake-up of the alarm (as the kernel's timer slack
// does for a thread's timers): each timer runs between its time and d
// after it. Call it before the first timer is set.
func (c *Clock) SetSlack(d time.Duration) {
	c.mu.Lock()
	c.slack = max(d, 0)
	c.mu.Unlock()
}

// AfterFunc returns a timer that runs f once d has passed, unless stopped
// first, on a goroutine that runs nothing else until f returns.
func (c *Clock) AfterFunc(d time.Duration, f func()) *Func {
	t := &Func{c: c, f: f, i: -1}
	t.Reset(d)
	return t
}

// Reset makes t run its function once d has passed from now; it reports
// whether t was pending. After the clock's Close it does nothing.
func (t *Func) Reset(d time.Duration) bool {
	c := t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	was := t.i >= 0
	t.when = time.Now().Add(d)
	if was {
		heap.Fix(&c.q, t.i)
	} else {
		heap.Push(&c.q, t)
	}
	if c.armed.IsZero() || t.when.Before(c.armed) {
		c.arm(t.when)
	}
	return was
}

// Stop keeps t from running; it reports whether t was pending.
func (t *Func) Stop() bool {
	c := t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.i < 0 {
		return false
	}
	heap.Remove(&c.q, t.i)
	return true // the alarm may go off for nothing: the loop re-arms
}

// arm sets the alarm for when (c.mu held). An alarm the kernel refuses is
// left to the next timer's Reset or the loop; that cannot happen with a
// valid descriptor and duration.
func (c *Clock) arm(when time.Time) {
	if c.a.set(max(time.Until(when)+c.slack, time.Nanosecond)) == nil {
		c.armed = when
	}
}

func (c *Clock) loop() {
	defer close(c.done)
	for {
		if c.a.wait() != nil {
			return // closed
		}
		now := time.Now()
		c.mu.Lock()
		c.armed = time.Time{}
		for len(c.q) > 0 && !c.q[0].when.After(now) {
			c.due = append(c.due, heap.Pop(&c.q).(*Func))
		}
		if len(c.q) > 0 {
			c.arm(c.q[0].when)
		}
		c.mu.Unlock()
		if len(c.due) > 0 {
			c.wakes.Add(1)
		}
		for _, t := range c.due {
			c.run(t.f)
		}
		clear(c.due)
		c.due = c.due[:0]
	}
}

// run runs f on a waiting worker, or on a new one when none waits.
func (c *Clock) run(f func()) {
	c.wmu.Lock()
	if n := len(c.idle); n > 0 {
		w := c.idle[n-1]
		c.idle[n-1] = nil
		c.idle = c.idle[:n-1]
		c.wmu.Unlock()
		w <- f // buffered: never blocks, parked on yet or not
		return
	}
	c.wmu.Unlock()
	c.workers.Add(1)
	go c.work(make(chan func(), 1), f)
}

// work runs f, then what it is handed while it waits, until the clock is
// closed or enough others wait.
func (c *Clock) work(w chan func(), f func()) {
	for f != nil {
		f()
		c.wmu.Lock()
		if c.wdone || len(c.idle) >= maxIdle {
			c.wmu.Unlock()
			return
		}
		c.idle = append(c.idle, w)
		c.wmu.Unlock()
		f = <-w // nil: closed
	}
}

// Close stops every timer and the clock's goroutine; it waits for the
// goroutine to end (a function it started may still be running; its
// goroutine ends when it returns).
func (c *Clock) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		<-c.done
		return nil
	}
	c.closed = true
	for _, t := range c.q {
		t.i = -1
	}
	c.q = nil
	err := c.a.close()
	c.mu.Unlock()
	<-c.done
	c.wmu.Lock()
	c.wdone = true
	for _, w := range c.idle {
		close(w)
	}
	c.idle = nil
	c.wmu.Unlock()
	return err
}

// funcHeap is a min-heap of timers by when.
type funcHeap []*Func

func (h funcHeap) Len() int           { return len(h) }
func (h funcHeap) Less(i, j int) bool { return h[i].when.Before(h[j].when) }
func (h funcHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].i, h[j].i = i, j
}
func (h *funcHeap) Push(x any) {
	t := x.(*Func)
	t.i = len(*h)
	*h = append(*h, t)
}
func (h *funcHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	t.i = -1
	return t
}

// coarseAlarm is an alarm on a time.Timer.
type coarseAlarm struct {
	t    *time.Timer
	once sync.Once
	quit chan struct{}
}

func newCoarseAlarm() *coarseAlarm {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &coarseAlarm{t: t, quit: make(chan struct{})}
}

func (a *coarseAlarm) set(d time.Duration) error {
	a.t.Reset(d) // since Go 1.23 no stale tick is left in C
	return nil
}

func (a *coarseAlarm) wait() error {
	select {
	case <-a.t.C:
		return nil
	case <-a.quit:
		a.t.Stop()
		return ErrClosed
	}
}

func (a *coarseAlarm) close() error {
	a.once.Do(func() { close(a.quit) })
	return nil
}
