package main

import (
	"errors"
	"fmt"
	"os"
	"sync"
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
	ep   int
	file *os.File
	buf  []byte
	evs  [512]unix.EpollEvent

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
	w := &watchPoll{ep: ep, file: os.NewFile(uintptr(ep), "epoll"), buf: make([]byte, 256<<10),
		socks: map[int32]*watchSock{}, done: make(chan struct{})}
	rc, err := w.file.SyscallConn()
	if err != nil {
		w.file.Close()
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
	s.conn.Close() // out of the runtime's poller; the copy keeps the socket
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return err
	}
	ws := &watchSock{p: p, fd: fd, done: make(chan struct{}), msg: s.msg} // with what the reader held of a frame
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
	if len(s.rest) > 0 {
		w.feedLocked(ws, s.rest)
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
// the loop ends (stopped, and every socket gone).
func (w *watchPoll) cycle() bool {
	for {
		n, _, errno := syscall.RawSyscall6(syscall.SYS_EPOLL_PWAIT, uintptr(w.ep), uintptr(unsafe.Pointer(&w.evs[0])), uintptr(len(w.evs)), 0, 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 || n == 0 {
			break
		}
		w.mu.Lock()
		for i := range int(n) {
			if s := w.socks[w.evs[i].Fd]; s != nil {
				w.serveLocked(s)
			}
		}
		w.mu.Unlock()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stopped && len(w.socks) == 0
}

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
