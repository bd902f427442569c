//go:build linux

package finetimer

import (
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Timer sleeps one goroutine at a time. Its system calls are raw: an
// ordinary one would wake the runtime's monitor thread.
type Timer struct{ a *fdAlarm }

// New returns a Timer; Close releases its descriptor.
func New() (*Timer, error) {
	a, err := newFDAlarm()
	if err != nil {
		return nil, err
	}
	return &Timer{a}, nil
}

// Sleep returns once d has passed, or at once for d ≤ 0. It fails only
// after Close (or if the kernel refuses the timer).
func (t *Timer) Sleep(d time.Duration) error { return sleep(t.a, d) }

// Close releases the timer; a Sleep under way returns an error.
func (t *Timer) Close() error { return t.a.close() }

// NewClock returns a Clock timed by a timerfd in the runtime's poller;
// Close releases it.
func NewClock() (*Clock, error) {
	a, err := newFDAlarm()
	if err != nil {
		return nil, err
	}
	return startClock(a), nil
}

// fdAlarm is an alarm on a timerfd, waited on in the runtime's poller
// (its descriptor is non-blocking). set and wait are each called by one
// goroutine at a time: a Timer's sleeper, or a Clock's set under its lock
// and its loop's wait.
type fdAlarm struct {
	f       *os.File
	rc      syscall.RawConn
	spec    unix.ItimerSpec
	serr    syscall.Errno // set's
	arm     func(uintptr)
	buf     [8]byte
	werr    syscall.Errno // wait's
	expired func(uintptr) bool
}

func newFDAlarm() (*fdAlarm, error) {
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
	a := &fdAlarm{f: f, rc: rc}
	a.arm, a.expired = a.settime, a.read
	return a, nil
}

func (a *fdAlarm) settime(fd uintptr) {
	_, _, a.serr = syscall.RawSyscall6(unix.SYS_TIMERFD_SETTIME, fd, 0, uintptr(unsafe.Pointer(&a.spec)), 0, 0, 0)
}

// set arms the timer to expire after d (> 0). Through Control, which holds
// the descriptor open: it fails after close rather than arming whatever
// took the number.
func (a *fdAlarm) set(d time.Duration) error {
	a.spec.Value = unix.NsecToTimespec(int64(d))
	a.serr = 0
	if err := a.rc.Control(a.arm); err != nil {
		return err
	}
	if a.serr != 0 {
		return os.NewSyscallError("timerfd_settime", a.serr)
	}
	return nil
}

// read reads the timer's count: done once it is there, or the read failed
// otherwise than by its not having expired yet.
func (a *fdAlarm) read(fd uintptr) bool {
	for {
		_, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&a.buf[0])), uintptr(len(a.buf)))
		switch e {
		case 0:
			return true
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false // not yet: wait in the poller
		}
		a.werr = e
		return true
	}
}

// wait returns once the timer has expired; it fails after close.
func (a *fdAlarm) wait() error {
	a.werr = 0
	if err := a.rc.Read(a.expired); err != nil {
		return err
	}
	if a.werr != 0 {
		return os.NewSyscallError("read timerfd", a.werr)
	}
	return nil
}

func (a *fdAlarm) close() error { return a.f.Close() }
