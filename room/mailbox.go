package room

import (
	"errors"

	"github.com/roomd/roomd/internal/queue"
)

// mailbox is a room's queue of inputs: its push never blocks (the shared
// internal queue), and the actor drains everything waiting at once.
type mailbox struct{ q *queue.Queue[input] }

func newMailbox(max int) *mailbox { return &mailbox{q: queue.New[input](max)} }

// push queues in; it fails with ErrBusy when full and ErrClosed after close.
func (m *mailbox) push(in input) error {
	switch err := m.q.Push(in); {
	case errors.Is(err, queue.ErrFull):
		return ErrBusy
	case errors.Is(err, queue.ErrClosed):
		return ErrClosed
	default:
		return err
	}
}

func (m *mailbox) signal() <-chan struct{} { return m.q.Signal() }

// drain returns everything waiting, valid until the next drain.
func (m *mailbox) drain() []input { return m.q.Drain() }

// close refuses further pushes and returns what was still waiting.
func (m *mailbox) close() []input { return m.q.Close() }
