package room

import "sync"

// mailbox is an unbounded-looking, bounded queue whose push never blocks:
// it appends under a short lock and signals a 1-buffered channel; the actor
// drains everything waiting at once. Push fails when full or closed.
type mailbox struct {
	mu     sync.Mutex
	items  []input
	spare  []input
	max    int
	closed bool
	signal chan struct{}
}

func newMailbox(max int) *mailbox {
	return &mailbox{max: max, signal: make(chan struct{}, 1)}
}

func (m *mailbox) push(in input) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ErrClosed
	}
	if len(m.items) >= m.max {
		m.mu.Unlock()
		return ErrBusy
	}
	m.items = append(m.items, in)
	m.mu.Unlock()
	select {
	case m.signal <- struct{}{}:
	default:
	}
	return nil
}

// drain returns everything waiting. The returned slice is valid until the
// next drain.
func (m *mailbox) drain() []input {
	m.mu.Lock()
	defer m.mu.Unlock()
	items := m.items
	clear(m.spare)
	m.items, m.spare = m.spare[:0], items
	return items
}

// close refuses further pushes and returns what was still waiting.
func (m *mailbox) close() []input {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	items := m.items
	m.items = nil
	return items
}
