package main

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/roomd/roomd/internal/epollset"
	"github.com/roomd/roomd/internal/rawsock"
	"github.com/roomd/roomd/internal/wsframe"
)

// watchPoll reads every spectator's socket in one loop: a level-triggered
// epoll set, waited on in Go's own poller (its descriptor is non-blocking),
// one read per ready socket and pass into a buffer the loop keeps.
type watchPoll struct {
	set        *epollset.Set
	yieldAfter int // watchYield (tests make it smaller, under mu)
	yields     atomic.Int64
	buf        []byte
	evs        [512]unix.EpollEvent

	mu      sync.Mutex
	socks   map[int32]*watchSock
	running bool // the run has started: messages are scanned
	stopped bool
	done    chan struct{} // closed when the loop has ended
	err     error
}

// watchSock is one spectator's socket in the loop.
type watchSock struct {
	p    *player
	fd   int
	msg  wsframe.Message
	done chan struct{} // closed when the loop drops it
}

func newWatchPoll() (*watchPoll, error) {
	set, err := epollset.New()
	if err != nil {
		return nil, err
	}
	w := &watchPoll{set: set, yieldAfter: watchYield, buf: make([]byte, 256<<10),
		socks: map[int32]*watchSock{}, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		err := w.set.Run(w.cycle)
		w.mu.Lock()
		w.err = err
		for _, s := range w.socks {
			w.dropLocked(s)
		}
		w.mu.Unlock()
		w.set.Close()
	}()
	return w, nil
}

// add hands p's socket (set up, its rest carried) to the loop; the socket's
// connection is closed, the loop holding a copy of its descriptor.
func (w *watchPoll) add(p *player, s *rawSocket) error {
	sc, ok := s.conn.(syscall.Conn)
	if !ok {
		return fmt.Errorf("a %T has no descriptor", s.conn)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	fd, derr := -1, error(nil)
	if err := raw.Control(func(sfd uintptr) { fd, derr = unix.FcntlInt(sfd, unix.F_DUPFD_CLOEXEC, 0) }); err != nil || derr != nil {
		return fmt.Errorf("dup: %w", errors.Join(err, derr))
	}
	// Out of the runtime's poller: the copy keeps the socket, with what
	// the reader held of a frame and read past it.
	s.conn.Close()
	return w.addFD(p, fd, s.msg, s.rest)
}

// addFD hands the loop p's socket fd (its own copy, closed with it), with
// the frame reader's state and the bytes read past it.
func (w *watchPoll) addFD(p *player, fd int, msg wsframe.Message, rest []byte) error {
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return err
	}
	ws := &watchSock{p: p, fd: fd, done: make(chan struct{}), msg: msg}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		unix.Close(fd)
		return fmt.Errorf("the watch poller has stopped")
	}
	w.socks[int32(fd)] = ws
	if err := w.set.Add(fd, int32(fd), unix.EPOLLIN|unix.EPOLLRDHUP); err != nil {
		delete(w.socks, int32(fd))
		unix.Close(fd)
		return err
	}
	p.readDone = ws.done // closed when the loop drops it; set only once the loop holds it
	if len(rest) > 0 {
		w.feedLocked(ws, rest)
	}
	return nil
}

// start has the loop scan messages from now on: the run's clock is set.
func (w *watchPoll) start() {
	w.mu.Lock()
	w.running = true
	w.mu.Unlock()
}

// stop closes every socket (a close frame, then both directions shut: the
// loop sees each end and drops it) and waits for the loop to end.
func (w *watchPoll) stop() {
	bye := wsframe.AppendClose(nil, 1000, "")
	w.mu.Lock()
	w.stopped = true
	n := len(w.socks)
	for _, s := range w.socks {
		_, _ = rawsock.Write(uintptr(s.fd), bye)
		_ = unix.Shutdown(s.fd, unix.SHUT_RDWR)
	}
	w.mu.Unlock()
	if n == 0 {
		w.set.Wake() // no socket's end will wake the loop
	}
	<-w.done
}

// cycle takes the ready events until none is left; it reports true when
// the loop ends (stopped, and every socket gone). After watchYield reads
// it yields (its eventfd written, it parks in Go's poller, which the
// scheduler looks at only when nothing else is runnable): a move's
// thousands of deliveries would otherwise keep the players' goroutines
// from their sockets, and their send timers — a timerfd, in that poller —
// from firing, until the runtime's monitor polls 10 ms later; moves would
// then go out after fan-outs rather than at their own instants.
func (w *watchPoll) cycle() bool {
	for served := 0; ; {
		n := w.set.Ready(w.evs[:])
		if n == 0 {
			break
		}
		w.mu.Lock()
		yieldAfter := w.yieldAfter
		for i := range n {
			if fd := w.evs[i].Fd; fd == epollset.KickToken {
				w.set.Woken()
			} else if s := w.socks[fd]; s != nil {
				w.serveLocked(s)
			}
		}
		w.mu.Unlock()
		if served += n; served >= yieldAfter {
			w.yields.Add(1)
			w.set.Wake()
			return false
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stopped && len(w.socks) == 0
}

// watchYield is how many ready sockets the loop reads before it yields.
const watchYield = 256

// serveLocked reads s once and scans what it completes.
func (w *watchPoll) serveLocked(s *watchSock) {
	n, errno := rawsock.Read(uintptr(s.fd), w.buf)
	switch {
	case errno == syscall.EAGAIN || errno == syscall.EINTR:
		return
	case errno != 0 || n <= 0:
		w.lostLocked(s)
		return
	}
	w.feedLocked(s, w.buf[:n])
}

func (w *watchPoll) feedLocked(s *watchSock, b []byte) {
	scan := func([]byte) {} // set-up: the run's clock is not set yet
	if w.running {
		now := time.Since(s.p.st.t0)
		scan = func(m []byte) { s.p.scan(m, now) }
	}
	closed, _, err := s.msg.Feed(b, scan, func(payload []byte) {
		// A pong: small enough for any socket buffer that is not full; a
		// full one means the server stopped reading us anyway.
		_, _ = rawsock.Write(uintptr(s.fd), wsframe.AppendClientFrame(nil, wsframe.OpPong, payload))
	})
	if closed || err != nil {
		w.lostLocked(s)
	}
}

// lostLocked drops a socket that ended: lost unless the run is closing.
func (w *watchPoll) lostLocked(s *watchSock) {
	if !w.stopped && !s.p.st.closing.Load() {
		s.p.st.lost.Add(1)
	}
	w.dropLocked(s)
}

func (w *watchPoll) dropLocked(s *watchSock) {
	if _, ok := w.socks[int32(s.fd)]; !ok {
		return
	}
	delete(w.socks, int32(s.fd))
	w.set.Del(s.fd)
	unix.Close(s.fd)
	if s.done != nil {
		close(s.done)
	}
}
