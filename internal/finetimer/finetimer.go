// Package finetimer sleeps for sub-millisecond durations without rounding
// them up to a millisecond. An idle Go runtime waits for its next timer in
// epoll_wait, whose timeout is in whole milliseconds: a time.Timer of
// 300 µs fires after 1 ms when nothing else wakes the process, and one of
// 1.7 ms after 2 ms. Under load that lateness is not noise but a rhythm:
// roomd's group committer, asked for a commit every millisecond, made one
// every 1.6 ms, and roomload's players, asked to send at random instants,
// sent when their runtime woke, in step with roomd's receipts
// (BENCHMARKS.md, "The embedded store under load").
//
// On Linux a Timer is a timerfd waited on in the runtime's network poller,
// which the kernel wakes when the timer expires, to within its timer slack
// (50 µs by default); elsewhere it is a time.Timer. A Clock does the same
// for many timers at once, time.AfterFunc's way: one timerfd, set for the
// earliest.
package finetimer

import (
	"errors"
	"time"
)

// Coarse sleeps on the runtime's timers behind Timer's methods: what a
// Timer is on systems other than Linux, and a baseline to measure against.
type Coarse struct{ a *coarseAlarm }

// NewCoarse returns a Coarse; Close releases it.
func NewCoarse() *Coarse { return &Coarse{newCoarseAlarm()} }

// Sleep returns once d has passed, or at once for d ≤ 0. It fails only
// after Close.
func (c *Coarse) Sleep(d time.Duration) error { return sleep(c.a, d) }

// sleep is Timer's and Coarse's Sleep on their alarm.
func sleep(a alarm, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	if err := a.set(d); err != nil {
		return err
	}
	return a.wait()
}

// ErrClosed is Coarse.Sleep's error after Close.
var ErrClosed = errors.New("finetimer: closed")

// Close releases the timer; a Sleep under way returns ErrClosed.
func (c *Coarse) Close() error { return c.a.close() }

// Sleeper is what Timer and Coarse have in common.
type Sleeper interface {
	Sleep(time.Duration) error
	Close() error
}

// Open returns a Timer, or a Coarse when the system refuses one (out of
// descriptors): for a caller to which a late wake-up is a cost, not an
// error.
func Open() Sleeper {
	if t, err := New(); err == nil {
		return t
	}
	return NewCoarse()
}
