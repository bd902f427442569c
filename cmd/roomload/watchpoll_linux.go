package main

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/roomd/roomd/internal/rawsock"
	"github.com/roomd/roomd/internal/wsframe"
)

// watchPoll reads every spectator's socket in one loop: a level-triggered
// epoll set, waited on in Go's own poller (its descriptor is non-blocking),
// one read per ready socket and pass into a buffer the loop keeps.
type watchPoll struct {
	ep         int
	kick       int // an eventfd the loop writes to be readied again (yield)
	yieldAfter int // watchYield (tests make it smaller, under mu)
	yields     atomic.Int64
	file       *os.File
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
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	if err := unix.SetNonblock(ep, true); err != nil {
		unix.Close(ep)
		return nil, err
	}
	kick, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(ep)
		return nil, err
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLET, Fd: int32(kick)}
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, kick, &ev); err != nil {
		unix.Close(kick)
		unix.Close(ep)
		return nil, err
	}
	w := &watchPoll{ep: ep, kick: kick, yieldAfter: watchYield, file: os.NewFile(uintptr(ep), "epoll"), buf: make([]byte, 256<<10),
		socks: map[int32]*watchSock{}, done: make(chan struct{})}
	rc, err := w.file.SyscallConn()
	if err != nil {
		w.file.Close()
		unix.Close(kick)
		return nil, err
	}
	go func() {
		defer close(w.done)
		err := rc.Read(func(uintptr) bool { return w.cycle() })
		w.mu.Lock()
		w.err = err
		for _, s := range w.socks {
			w.dropLocked(s)
		}
		w.mu.Unlock()
		w.file.Close()
		unix.Close(kick)
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
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: int32(fd)}
	if err := unix.EpollCtl(w.ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
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
		// Nothing will wake the loop: a socket of its own to end it.
		w.wake()
	}
	<-w.done
}

// wake makes the loop's set ready once (an eventfd written, then dropped
// by the loop with the rest).
func (w *watchPoll) wake() {
	efd, err := unix.Eventfd(1, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.socks[int32(efd)] = &watchSock{fd: efd}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(efd)}
	if unix.EpollCtl(w.ep, unix.EPOLL_CTL_ADD, efd, &ev) != nil {
		delete(w.socks, int32(efd))
		unix.Close(efd)
	}
}

// cycle takes the ready events until none is left; it reports true when
// the loop ends (stopped, and every socket gone). After watchYield reads
// it yields (its eventfd written, it parks in Go's poller, which the
// scheduler looks at only when nothing else is runnable): a move's
// thousands of deliveries would otherwise keep the players' goroutines
// from their sockets, and their send timers — timerfds, in that poller —
// from firing, until the runtime's monitor polls 10 ms later; moves would
// then go out after fan-outs rather than at their own instants.
func (w *watchPoll) cycle() bool {
	for served := 0; ; {
		n, _, errno := syscall.RawSyscall6(syscall.SYS_EPOLL_PWAIT, uintptr(w.ep), uintptr(unsafe.Pointer(&w.evs[0])), uintptr(len(w.evs)), 0, 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 || n == 0 {
			break
		}
		w.mu.Lock()
		yieldAfter := w.yieldAfter
		for i := range int(n) {
			if fd := w.evs[i].Fd; int(fd) == w.kick {
				var b [8]byte
				_, _, _ = syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), 8)
			} else if s := w.socks[fd]; s != nil {
				w.serveLocked(s)
			}
		}
		w.mu.Unlock()
		if served += int(n); served >= yieldAfter {
			w.yields.Add(1)
			one := uint64(1)
			_, _, _ = syscall.RawSyscall(syscall.SYS_WRITE, uintptr(w.kick), uintptr(unsafe.Pointer(&one)), 8)
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
	if s.p == nil { // the stop's wake-up
		w.dropLocked(s)
		return
	}
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
	_ = unix.EpollCtl(w.ep, unix.EPOLL_CTL_DEL, s.fd, nil)
	unix.Close(s.fd)
	if s.done != nil {
		close(s.done)
	}
}
