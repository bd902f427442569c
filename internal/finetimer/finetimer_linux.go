//go:build linux

package finetimer

import (
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Timer sleeps one goroutine at a time. Its system calls are raw, as
// rawsock's are: an ordinary one would wake the runtime's monitor thread.
type Timer struct {
	f    *os.File
	rc   syscall.RawConn
	wait func(uintptr) bool
	arm  func(uintptr)
	spec unix.ItimerSpec
	buf  [8]byte
	err  syscall.Errno
}

// New returns a Timer; Close releases its descriptor.
func New() (*Timer, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("timerfd_create", err)
	}
	// Non-blocking, so os.NewFile puts it in the runtime's poller.
	f := os.NewFile(uintptr(fd), "timerfd")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	t := &Timer{f: f, rc: rc}
	t.wait, t.arm = t.expired, t.set
	return t, nil
}

func (t *Timer) set(fd uintptr) {
	_, _, t.err = syscall.RawSyscall6(unix.SYS_TIMERFD_SETTIME, fd, 0, uintptr(unsafe.Pointer(&t.spec)), 0, 0, 0)
}

// Sleep returns once d has passed, or at once for d ≤ 0. It fails only
// after Close (or if the kernel refuses the timer).
func (t *Timer) Sleep(d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t.spec.Value = unix.NsecToTimespec(int64(d))
	t.err = 0
	// Through Control, which holds the descriptor open (it fails after
	// Close rather than arming whatever took the number).
	if err := t.rc.Control(t.arm); err != nil {
		return err
	}
	if t.err != 0 {
		return os.NewSyscallError("timerfd_settime", t.err)
	}
	if err := t.rc.Read(t.wait); err != nil {
		return err
	}
	if t.err != 0 {
		return os.NewSyscallError("read timerfd", t.err)
	}
	return nil
}

// expired reads the timer's count: done once it is there, or the read
// failed otherwise than by its not having expired yet.
func (t *Timer) expired(fd uintptr) bool {
	for {
		_, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&t.buf[0])), uintptr(len(t.buf)))
		switch e {
		case 0:
			return true
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false // not yet: wait in the poller
		}
		t.err = e
		return true
	}
}

// Close releases the timer; a Sleep under way returns an error.
func (t *Timer) Close() error { return t.f.Close() }
