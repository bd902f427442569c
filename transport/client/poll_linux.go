package client

import (
	"io"
	"net"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/roomd/roomd/internal/epollset"
)

// poller is a Poll's loop: an epoll set of its sockets (level-triggered,
// each under a token of its own, never its descriptor: a descriptor number
// is reused once closed), waited on in Go's network poller.
type poller struct {
	set  *epollset.Set
	done chan struct{} // closed when the loop has ended

	mu     sync.Mutex
	socks  map[int32]*sock
	next   int32
	ending []*sock // dropped while in the set: the loop lets them go
	closed bool

	// The loop's own.
	evs    [128]unix.EpollEvent
	batch  []*sock
	ends   []*sock
	buf    []byte
	readFn func(fd uintptr) // read, bound once
	rn     int
	rerr   syscall.Errno
}

// pollYield is how many sockets a loop reads before it lets the rest of the
// process run (it writes its kick and parks in Go's poller, which the
// scheduler looks at once nothing else is runnable).
const pollYield = 64

// pollReadBuffer is the loop's read buffer; a longer message gathers in
// its socket's frame reader.
const pollReadBuffer = 64 << 10

// NewPoll starts a Poll's loop; Close ends it.
func NewPoll(cfg PollConfig) (*Poll, error) {
	set, err := epollset.New()
	if err != nil {
		return nil, err
	}
	p := &Poll{cfg: cfg, poller: poller{set: set, done: make(chan struct{}), socks: map[int32]*sock{},
		buf: make([]byte, pollReadBuffer)}}
	p.readFn = p.read
	go p.loop()
	return p, nil
}

// Close lets every socket go (their Remotes see them end, as a lost
// connection) and ends the loop.
func (p *Poll) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.set.Wake()
	<-p.done
	return nil
}

func (p *Poll) loop() {
	defer close(p.done)
	_ = p.set.Run(p.cycle)
	p.mu.Lock()
	left := make([]*sock, 0, len(p.socks))
	for _, s := range p.socks {
		left = append(left, s)
	}
	p.mu.Unlock()
	for _, s := range left {
		if s.err == nil {
			s.err = errPollClosed
		}
		p.end(s)
	}
	p.set.Close()
}

// serve reads s in the loop until it ends, then returns how it ended; s's
// onMsg is called on the loop with every message. It is called on s's
// Remote's goroutine, which waits here.
func (p *Poll) serve(s *sock) error {
	p.mu.Lock()
	if p.closed || s.dropped {
		p.mu.Unlock()
		return errPollClosed
	}
	for p.next++; p.next <= 0 || p.socks[p.next] != nil; p.next++ {
		if p.next <= 0 {
			p.next = 0
		}
	}
	s.id, s.added, s.ended = p.next, true, make(chan struct{})
	p.socks[s.id] = s
	p.mu.Unlock()
	var cerr error
	if err := s.rc.Control(func(fd uintptr) {
		cerr = p.set.Add(int(fd), s.id, unix.EPOLLIN|unix.EPOLLRDHUP)
	}); err != nil || cerr != nil {
		p.mu.Lock()
		delete(p.socks, s.id)
		p.mu.Unlock()
		if err == nil {
			err = cerr
		}
		return err
	}
	<-s.ended
	return s.err
}

// drop lets s go: out of the set now, and ended by the loop (its Remote's
// goroutine waiting in serve returns). Any goroutine may call it, the loop
// included.
func (p *Poll) drop(s *sock) {
	p.mu.Lock()
	if s.dropped {
		p.mu.Unlock()
		return
	}
	s.dropped = true
	added := s.added
	if added {
		p.ending = append(p.ending, s)
	}
	p.mu.Unlock()
	if added {
		p.unset(s)
		p.set.Wake()
	}
}

// unset takes s's descriptor out of the set (if it is still open).
func (p *Poll) unset(s *sock) {
	_ = s.rc.Control(func(fd uintptr) { p.set.Del(int(fd)) })
}

// end lets s go, on the loop.
func (p *Poll) end(s *sock) {
	if s.gone {
		return
	}
	s.gone = true
	p.mu.Lock()
	delete(p.socks, s.id)
	p.mu.Unlock()
	p.unset(s)
	if s.err == nil {
		s.err = s.lost(net.ErrClosed)
	}
	close(s.ended)
}

// unread says whether s has bytes the loop has not read yet: its server
// is not silent, the loop is behind.
func (p *Poll) unread(s *sock) bool {
	n := 0
	_ = s.rc.Control(func(fd uintptr) { n, _ = unix.IoctlGetInt(int(fd), unix.SIOCINQ) })
	return n > 0
}

// cycle takes the ready events until none is left, reading each ready
// socket once; it reports true when the loop ends (the Poll closed).
func (p *Poll) cycle() bool {
	for served := 0; ; {
		n := p.set.Ready(p.evs[:])
		p.mu.Lock()
		p.ends, p.ending = p.ending, p.ends[:0]
		p.batch = p.batch[:0]
		for i := range n {
			if tok := p.evs[i].Fd; tok == epollset.KickToken {
				p.set.Woken()
			} else if s := p.socks[tok]; s != nil && !s.dropped {
				p.batch = append(p.batch, s)
			}
		}
		closed := p.closed
		p.mu.Unlock()
		for i, s := range p.ends {
			p.end(s)
			p.ends[i] = nil
		}
		if closed {
			return true
		}
		for i, s := range p.batch {
			p.serveOnce(s)
			p.batch[i] = nil
		}
		if n == 0 {
			return false // parks until the set is ready again
		}
		if served += len(p.batch); served >= pollYield {
			p.set.Wake()
			return false
		}
	}
}

// serveOnce reads s once and hands its messages on; a socket that ended,
// or whose Remote let it go, is ended.
func (p *Poll) serveOnce(s *sock) {
	p.rn, p.rerr = 0, 0
	switch err := s.rc.Control(p.readFn); {
	case err != nil:
		s.got(nil, err)
	case p.rerr == syscall.EAGAIN || p.rerr == syscall.EINTR:
		return
	case p.rerr != 0:
		s.got(nil, p.rerr)
	case p.rn == 0:
		s.got(nil, io.EOF)
	default:
		if p.cfg.OnRead != nil {
			p.cfg.OnRead(p.rn)
		}
		s.got(p.buf[:p.rn], nil)
	}
	for s.head < len(s.inbox) {
		if !s.onMsg(s.next()) {
			p.end(s)
			return
		}
	}
	if s.err != nil {
		p.end(s)
	}
}

// read is one read(2) into the loop's buffer (Control's callback).
func (p *Poll) read(fd uintptr) {
	n, _, errno := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p.buf[0])), uintptr(len(p.buf)))
	p.rn, p.rerr = int(n), errno
}
