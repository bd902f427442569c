package finetimer

import (
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
	mu      sync.Mutex
	q       timerHeap
	base    time.Time // the clock's start: timers' times count from it
	armed   int64     // what the alarm is set for, when isArmed
	a       alarm
	isArmed bool
	slack   time.Duration
	closed  bool
	done    chan struct{}
	due     []*Func // the loop's

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
	c  *Clock
	f  func()
	at int64 // when it runs: nanoseconds from c.base (monotonic)
	i  int   // index in c.q; -1: not pending
}

// NewCoarseClock returns a Clock on the runtime's timers: what NewClock
// is on systems other than Linux, and a baseline to measure against.
func NewCoarseClock() *Clock { return startClock(newCoarseAlarm()) }

func startClock(a alarm) *Clock {
	c := &Clock{a: a, base: time.Now(), done: make(chan struct{})}
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
	t.at = int64(time.Since(c.base) + d)
	if was {
		c.q[t.i].at = t.at
		c.q.fix(t.i)
	} else {
		c.q.push(t)
	}
	if !c.isArmed || t.at < c.armed {
		c.arm(t.at)
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
	c.q.remove(t.i)
	return true // the alarm may go off for nothing: the loop re-arms
}

// arm sets the alarm for at (c.mu held). An alarm the kernel refuses is
// left to the next timer's Reset or the loop; that cannot happen with a
// valid descriptor and duration.
func (c *Clock) arm(at int64) {
	if c.a.set(max(time.Duration(at)-time.Since(c.base)+c.slack, time.Nanosecond)) == nil {
		c.armed, c.isArmed = at, true
	}
}

func (c *Clock) loop() {
	defer close(c.done)
	for {
		if c.a.wait() != nil {
			return // closed
		}
		now := int64(time.Since(c.base))
		c.mu.Lock()
		c.isArmed = false
		for len(c.q) > 0 && c.q[0].at <= now {
			c.due = append(c.due, c.q.remove(0))
		}
		if len(c.q) > 0 {
			c.arm(c.q[0].at)
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
	for _, e := range c.q {
		e.t.i = -1
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

// timerHeap is a min-heap of timers by time, four children to a node.
// Each entry carries its timer's time, so that the comparisons of a push
// or a pop read the heap's own array rather than the timers, which lie
// apart in memory (roombot keeps one per bot: 2,000 and more); and four
// children to a node halve the levels a timer moves through. Each timer
// knows its index (Func.i), for Reset and Stop.
type timerHeap []heapEntry

type heapEntry struct {
	at int64
	t  *Func
}

// heapArity is the children of a node.
const heapArity = 4

func (h *timerHeap) push(t *Func) {
	*h = append(*h, heapEntry{t.at, t})
	h.up(len(*h) - 1)
}

// remove takes out the entry at i and returns its timer, no longer pending.
func (h *timerHeap) remove(i int) *Func {
	q := *h
	t, last := q[i].t, len(q)-1
	if i != last {
		q.set(i, q[last])
	}
	q[last] = heapEntry{}
	*h = q[:last]
	if i != last {
		h.fix(i)
	}
	t.i = -1
	return t
}

// fix restores the order after the time of the entry at i changed.
func (h timerHeap) fix(i int) {
	if i > 0 && h[i].at < h[(i-1)/heapArity].at {
		h.up(i)
	} else {
		h.down(i)
	}
}

func (h timerHeap) up(i int) {
	e := h[i]
	for i > 0 {
		p := (i - 1) / heapArity
		if h[p].at <= e.at {
			break
		}
		h.set(i, h[p])
		i = p
	}
	h.set(i, e)
}

func (h timerHeap) down(i int) {
	e, n := h[i], len(h)
	for {
		first := heapArity*i + 1
		if first >= n {
			break
		}
		m := first
		for k := first + 1; k < min(first+heapArity, n); k++ {
			if h[k].at < h[m].at {
				m = k
			}
		}
		if h[m].at >= e.at {
			break
		}
		h.set(i, h[m])
		i = m
	}
	h.set(i, e)
}

// set puts e at i and tells its timer.
func (h timerHeap) set(i int, e heapEntry) {
	h[i] = e
	e.t.i = i
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

// Sleeper returns a Sleeper on c: any number of them share its one alarm
// (a Timer each would take a descriptor each).
func (c *Clock) Sleeper() Sleeper { return &clockSleeper{c: c, closed: make(chan struct{})} }

type clockSleeper struct {
	c      *Clock
	once   sync.Once
	closed chan struct{}
}

// Sleep returns once d has passed, or at once for d ≤ 0; ErrClosed after
// Close (also for a Sleep under way).
func (s *clockSleeper) Sleep(d time.Duration) error {
	select {
	case <-s.closed:
		return ErrClosed
	default:
	}
	if d <= 0 {
		return nil
	}
	done := make(chan struct{})
	f := s.c.AfterFunc(d, func() { close(done) })
	select {
	case <-done:
		return nil
	case <-s.closed:
		f.Stop()
		return ErrClosed
	}
}

// Close ends the Sleeper; the Clock goes on.
func (s *clockSleeper) Close() error {
	s.once.Do(func() { close(s.closed) })
	return nil
}
