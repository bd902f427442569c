// Package queue is the one queue shape roomd's actors and committers share: a
// bounded FIFO whose Push never blocks. A producer appends under a short lock
// and signals a 1-buffered channel; the consumer wakes on the signal and takes
// everything waiting at once (a room's mailbox), or batches of it (a store's
// group commit). Seen in nats-server's ipqueue.
package queue

import (
	"errors"
	"sync"
)

// Errors of Push.
var (
	ErrFull   = errors.New("queue: full")
	ErrClosed = errors.New("queue: closed")
)

// Queue is safe for any number of producers and one consumer.
type Queue[T any] struct {
	mu     sync.Mutex
	items  []T
	spare  []T
	max    int
	closed bool
	signal chan struct{}
}

// New returns a queue that holds at most max items; max ≤ 0 means no bound.
func New[T any](max int) *Queue[T] {
	return &Queue[T]{max: max, signal: make(chan struct{}, 1)}
}

// Push appends v without blocking. It fails with ErrFull when the queue
// holds max items and with ErrClosed after Close.
func (q *Queue[T]) Push(v T) error {
	if err := q.Add(v); err != nil {
		return err
	}
	q.Wake()
	return nil
}

// Add appends v as Push does but leaves the consumer asleep: a producer
// that adds several items and then either takes them itself or calls Wake
// saves a wake-up per item.
func (q *Queue[T]) Add(v T) error {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return ErrClosed
	}
	if q.max > 0 && len(q.items) >= q.max {
		q.mu.Unlock()
		return ErrFull
	}
	q.items = append(q.items, v)
	q.mu.Unlock()
	return nil
}

// Wake signals the consumer without adding anything.
func (q *Queue[T]) Wake() {
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

// Signal has a value after a Push; the consumer waits on it, then drains.
func (q *Queue[T]) Signal() <-chan struct{} { return q.signal }

// Drain returns everything waiting. The slice is the queue's own and is
// valid until the next Drain: the two buffers are swapped, not reallocated.
func (q *Queue[T]) Drain() []T {
	q.mu.Lock()
	defer q.mu.Unlock()
	items := q.items
	clear(q.spare)
	q.items, q.spare = q.spare[:0], items
	return items
}

// Take removes and returns up to n of the oldest items (n ≤ 0 means all) in
// a slice the caller owns.
func (q *Queue[T]) Take(n int) []T {
	q.mu.Lock()
	defer q.mu.Unlock()
	if n <= 0 || n > len(q.items) {
		n = len(q.items)
	}
	if n == 0 {
		return nil
	}
	out := make([]T, n)
	copy(out, q.items)
	rest := copy(q.items, q.items[n:])
	clear(q.items[rest:])
	q.items = q.items[:rest]
	return out
}

// Len returns how many items wait.
func (q *Queue[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}

// Close refuses further pushes and returns what was still waiting.
func (q *Queue[T]) Close() []T {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	items := q.items
	q.items = nil
	return items
}
