// Package epollset is an epoll set waited on in Go's network poller, with
// an eventfd in it that wakes the loop: the set's descriptor is
// non-blocking and one more descriptor there, so a loop over the set parks
// like any goroutine — with one scheduler thread as well — and no thread
// blocks in epoll_wait. roomd's pollers (with their sweep's timerfd in
// the set), client.Poll and roomload's spectator loop read their sockets
// over one. Linux only.
package epollset

import (
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// KickToken is the wake eventfd's token in the set's events; the tokens a
// caller gives its descriptors must differ from it.
const KickToken int32 = -1

// Set is an epoll set and its wake eventfd.
type Set struct {
	fd, kick int
	file     *os.File
	rc       syscall.RawConn
}

// New returns an empty set with its wake eventfd in it; Close releases both.
func New() (*Set, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	// Non-blocking, so that os.NewFile puts it in the runtime's poller.
	if err := unix.SetNonblock(ep, true); err != nil {
		unix.Close(ep)
		return nil, err
	}
	kick, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(ep)
		return nil, err
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLET, Fd: KickToken}
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, kick, &ev); err != nil {
		unix.Close(kick)
		unix.Close(ep)
		return nil, err
	}
	s := &Set{fd: ep, kick: kick, file: os.NewFile(uintptr(ep), "epoll")}
	if s.rc, err = s.file.SyscallConn(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Add puts fd in the set for events, reported under token.
func (s *Set) Add(fd int, token int32, events uint32) error {
	ev := unix.EpollEvent{Events: events, Fd: token}
	return unix.EpollCtl(s.fd, unix.EPOLL_CTL_ADD, fd, &ev)
}

// Del takes fd out of the set (closing fd does too).
func (s *Set) Del(fd int) { _ = unix.EpollCtl(s.fd, unix.EPOLL_CTL_DEL, fd, nil) }

// Ready fills evs with the events ready now, without waiting, and returns
// how many it filled (0 on an error).
func (s *Set) Ready(evs []unix.EpollEvent) int {
	for {
		n, _, errno := syscall.RawSyscall6(syscall.SYS_EPOLL_PWAIT, uintptr(s.fd), uintptr(unsafe.Pointer(&evs[0])), uintptr(len(evs)), 0, 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			return 0
		}
		return int(n)
	}
}

// Wake makes the set ready: its eventfd's event comes with KickToken.
func (s *Set) Wake() {
	one := uint64(1)
	_, _, _ = syscall.RawSyscall(syscall.SYS_WRITE, uintptr(s.kick), uintptr(unsafe.Pointer(&one)), 8)
}

// Woken takes the eventfd's count, for a loop that got KickToken.
func (s *Set) Woken() {
	var b [8]byte
	_, _, _ = syscall.RawSyscall(syscall.SYS_READ, uintptr(s.kick), uintptr(unsafe.Pointer(&b[0])), 8)
}

// Run calls cycle whenever the set is ready (first at once), parking in
// the runtime's poller in between, until cycle returns true. cycle takes
// what Ready gives until it gives nothing: the set's readiness in the
// runtime's poller is an edge.
func (s *Set) Run(cycle func() bool) error {
	return s.rc.Read(func(uintptr) bool { return cycle() })
}

// Close releases the set and its eventfd.
func (s *Set) Close() {
	s.file.Close()
	unix.Close(s.kick)
}
